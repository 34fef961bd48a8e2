// SPDX-License-Identifier: GPL-2.0
#include "bootci.h"

#include <math.h>
#include <stdlib.h>

#include "rng.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bootci_quantile(const double *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)floor(pos);
	double f = pos - (double)i;

	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + f * (sorted[i + 1] - sorted[i]);
}

/* Student's t CDF for x >= 0 with nu degrees of freedom (Simpson's rule on the density). */
static double t_cdf(double x, double nu)
{
	const int steps = 2000;	/* even */
	double c = exp(lgamma((nu + 1) / 2) - lgamma(nu / 2)) / sqrt(nu * M_PI);
	double h = x / steps, sum = 0;

	for (int i = 0; i <= steps; i++) {
		double y = c * pow(1 + (h * i) * (h * i) / nu, -(nu + 1) / 2);

		sum += y * (i == 0 || i == steps ? 1 : i % 2 ? 4 : 2);
	}
	return 0.5 + sum * h / 3;
}

/* The p-quantile (p > 0.5) of Student's t: bisection on t_cdf. */
static double t_quantile(double p, double nu)
{
	double lo = 0, hi = 1000;

	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, nu) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double bootci_tail(size_t n, double level)
{
	double t = t_quantile(1 - (1 - level) / 2, (double)n - 1);

	/* Phi(-z) = erfc(z / sqrt 2) / 2 */
	return erfc(sqrt((double)n / (double)(n - 1)) * t / M_SQRT2) / 2;
}

/* The ratio's interval from its resamples r[0..got-1] (sorted here), n units. */
static void interval(double *r, unsigned int got, unsigned int resamples, size_t n,
		     double level, struct ratio_ci *out)
{
	if ((resamples - got) * 20ULL > resamples)
		return;
	qsort(r, got, sizeof(*r), cmp_double);
	double tail = bootci_tail(n, level);

	out->lo = bootci_quantile(r, got, tail);
	out->hi = bootci_quantile(r, got, 1 - tail);
	out->defined = 1;
}

static double resampled_mean(const double *x, size_t n, struct rng *g)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[rng_next(g) % n];
	return s / (double)n;
}

int bootci_ratio(const double *arm, const double *ref, size_t n, unsigned int resamples,
		 double level, uint64_t seed, struct ratio_ci *out)
{
	double sa = 0, sr = 0, *r;
	unsigned int got = 0;
	struct rng g;

	if (resamples < 100 || resamples > 1000000 || !(level > 0 && level < 1))
		return -1;
	*out = (struct ratio_ci){ .units = n, .ratio = NAN, .lo = NAN, .hi = NAN };
	for (size_t i = 0; i < n; i++) {
		sa += arm[i];
		sr += ref[i];
	}
	if (n < BOOTCI_MIN_UNITS || sr == 0)
		return 0;
	out->ratio = sa / sr;
	r = malloc(sizeof(*r) * resamples);
	if (!r)
		return -1;
	rng_seed(&g, seed);
	for (unsigned int b = 0; b < resamples; b++) {
		double ba = 0, br = 0;

		for (size_t i = 0; i < n; i++) {
			size_t k = (size_t)(rng_next(&g) % n);

			ba += arm[k];
			br += ref[k];
		}
		if (br != 0)
			r[got++] = ba / br;
	}
	interval(r, got, resamples, n, level, out);
	free(r);
	return 0;
}

int bootci_ratio_unpaired(const double *arm, size_t na, const double *ref, size_t nr,
			  unsigned int resamples, double level, uint64_t seed,
			  struct ratio_ci *out)
{
	double sa = 0, sr = 0, *r;
	unsigned int got = 0;
	struct rng g;

	if (resamples < 100 || resamples > 1000000 || !(level > 0 && level < 1))
		return -1;
	*out = (struct ratio_ci){ .units = na < nr ? na : nr, .ratio = NAN, .lo = NAN, .hi = NAN };
	for (size_t i = 0; i < na; i++)
		sa += arm[i];
	for (size_t i = 0; i < nr; i++)
		sr += ref[i];
	if (na < BOOTCI_MIN_UNITS || nr < BOOTCI_MIN_UNITS || sr == 0)
		return 0;
	out->ratio = (sa / (double)na) / (sr / (double)nr);
	r = malloc(sizeof(*r) * resamples);
	if (!r)
		return -1;
	rng_seed(&g, seed);
	for (unsigned int b = 0; b < resamples; b++) {
		double ba = resampled_mean(arm, na, &g), br = resampled_mean(ref, nr, &g);

		if (br != 0)
			r[got++] = ba / br;
	}
	interval(r, got, resamples, out->units, level, out);
	free(r);
	return 0;
}

enum verdict bootci_verdict(const struct ratio_ci *c)
{
	if (!c->defined)
		return VERDICT_UNDEFINED;
	if (c->lo > 1)
		return VERDICT_HIGHER;
	if (c->hi < 1)
		return VERDICT_LOWER;
	return VERDICT_NONE;
}
