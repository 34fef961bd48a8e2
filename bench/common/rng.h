/* SPDX-License-Identifier: GPL-2.0 */
/* A seeded generator (splitmix64): the same seed gives the same run. */
#ifndef RNG_H
#define RNG_H

#include <stdint.h>

struct rng {
	uint64_t s;
};

void rng_seed(struct rng *g, uint64_t seed);
uint64_t rng_next(struct rng *g);
/* Uniform in [0, 1). */
double rng_unit(struct rng *g);
/* Exponentially distributed with the given mean, rounded to an integer. */
uint64_t rng_exp(struct rng *g, double mean);

#endif /* RNG_H */
