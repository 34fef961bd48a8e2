// SPDX-License-Identifier: GPL-2.0
#include "rng.h"

#include <math.h>

void rng_seed(struct rng *g, uint64_t seed)
{
	g->s = seed;
}

uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double rng_unit(struct rng *g)
{
	return (rng_next(g) >> 11) * 0x1.0p-53;
}

uint64_t rng_exp(struct rng *g, double mean)
{
	return (uint64_t)llround(-mean * log1p(-rng_unit(g)));
}
