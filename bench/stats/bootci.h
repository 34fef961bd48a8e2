/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paired comparison of two arms of a benchmark: the ratio of their means
 * over the units (boots, rounds of blocks) where both were measured, and a
 * bootstrap confidence interval for it (the units resampled with
 * replacement, a seeded generator: the same input gives the same interval).
 *
 * The interval is the "expanded percentile" one (Hesterberg, "What teachers
 * should know about the bootstrap", 2015): the plain percentile interval is
 * too narrow with few units (a 95 % one excluded the true ratio in 16 % of
 * simulated runs of 5 units, 11 % of 10), so its tails are taken at
 * Phi(-sqrt(n / (n - 1)) t(n - 1)) instead of (1 - level) / 2.
 */
#ifndef BOOTCI_H
#define BOOTCI_H

#include <stddef.h>
#include <stdint.h>

struct ratio_ci {
	double ratio;		/* sum(arm) / sum(ref) over the paired units */
	double lo, hi;		/* the interval at the level asked for */
	size_t units;		/* paired units */
	int defined;		/* 0: fewer than BOOTCI_MIN_UNITS units, or ref sums to 0 */
};

#define BOOTCI_MIN_UNITS 3
/*
 * From this many units on, a verdict can hold at 95 %: with fewer, every
 * unit agreeing happens by chance more often than 1 time in 20.
 */
#define BOOTCI_FULL_UNITS 6

/*
 * arm[i] and ref[i] are unit i's values (n units). resamples: 100-1000000;
 * level in (0, 1), e.g. 0.95. Returns 0, or -1 for bad parameters.
 * When more than 5 % of the resamples have a reference summing to 0, the
 * interval is left undefined.
 */
int bootci_ratio(const double *arm, const double *ref, size_t n, unsigned int resamples,
		 double level, uint64_t seed, struct ratio_ci *out);

/*
 * The same for two independent samples (two runs, no pairing): arm[0..na-1]
 * and ref[0..nr-1] resampled separately; the ratio of their means. units is
 * the smaller n (it sets the interval's expansion); each needs
 * BOOTCI_MIN_UNITS.
 */
int bootci_ratio_unpaired(const double *arm, size_t na, const double *ref, size_t nr,
			  unsigned int resamples, double level, uint64_t seed,
			  struct ratio_ci *out);

/* The tail probability the interval of n units is cut at, for a level. */
double bootci_tail(size_t n, double level);

/* The q-quantile (0 <= q <= 1) of sorted[0..n-1], n >= 1, interpolated linearly. */
double bootci_quantile(const double *sorted, size_t n, double q);

enum verdict {
	VERDICT_UNDEFINED,	/* no interval */
	VERDICT_NONE,		/* the interval holds 1: no difference detected */
	VERDICT_HIGHER,		/* the interval lies above 1 */
	VERDICT_LOWER,		/* the interval lies below 1 */
};

enum verdict bootci_verdict(const struct ratio_ci *c);

#endif /* BOOTCI_H */
