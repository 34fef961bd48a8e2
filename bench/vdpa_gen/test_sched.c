// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the stall schedules (sched.c), under ASan/UBSan. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sched.h"

#define MAX 100000
static struct stall a[MAX], b[MAX];

static int ordered(const struct stall *s, long n)
{
	for (long i = 1; i < n; i++)
		if (s[i].off < s[i - 1].off + s[i - 1].len)
			return 0;
	return 1;
}

static int test_none(void)
{
	struct sched_spec spec = { .dist = SCHED_NONE, .duration_ns = 1000000000, .per_s = 100 };

	CHECK(sched_make(&spec, a, MAX) == 0);
	spec.dist = SCHED_EXP;
	spec.mean_ns = 1000;
	spec.per_s = 0;
	CHECK(sched_make(&spec, a, MAX) == 0);
	return 0;
}

static int test_exp_repeats_and_rates(void)
{
	struct sched_spec spec = {
		.dist = SCHED_EXP, .seed = 5, .duration_ns = 100000000000ULL,
		.per_s = 200, .mean_ns = 100000,
	};
	long n = sched_make(&spec, a, MAX), m, i;
	double sum = 0;

	/* 100 s at 200/s: 20000 stalls expected, sd 141 */
	CHECK(n > 19000 && n < 21000);
	CHECK(ordered(a, n));
	for (i = 0; i < n; i++)
		sum += (double)a[i].len;
	/* mean 100 us: the sample mean of 20000 within 3 % (sd 0.7 %) */
	CHECK(sum / n > 97000 && sum / n < 103000);
	CHECK(a[n - 1].off < spec.duration_ns + a[n - 1].len);
	/* the same seed, the same schedule; another seed, another one */
	m = sched_make(&spec, b, MAX);
	CHECK(m == n && !memcmp(a, b, n * sizeof(*a)));
	spec.seed = 6;
	m = sched_make(&spec, b, MAX);
	CHECK(m != n || memcmp(a, b, n * sizeof(*a)));
	return 0;
}

static int test_overlap_merged(void)
{
	/* stalls much longer than the gaps between arrivals (1000 a second) */
	struct sched_spec spec = {
		.dist = SCHED_EXP, .seed = 1, .duration_ns = 1000000000,
		.per_s = 1000, .mean_ns = 5000000,
	};
	long n = sched_make(&spec, a, MAX), i, full = 0;

	CHECK(n > 0 && n < 200);
	CHECK(ordered(a, n));
	for (i = 0; i < n; i++) {
		CHECK(a[i].len <= SCHED_MAX_LEN_NS);
		full += a[i].len > SCHED_MAX_LEN_NS / 2;
	}
	CHECK(full > 0);
	/* short stalls, rarely overlapping: hardly any merged */
	spec.mean_ns = 1000;
	n = sched_make(&spec, a, MAX);
	CHECK(n > 900 && n < 1100);
	return 0;
}

static int test_table_and_clamp(void)
{
	static const uint64_t t[] = { 7, 7000, 20000 };
	static const uint64_t big[] = { 250000000 };
	struct sched_spec spec = {
		.dist = SCHED_TABLE, .seed = 3, .duration_ns = 10000000000ULL,
		.per_s = 50, .table = t, .table_len = 3,
	};
	long n = sched_make(&spec, a, MAX), i, seen[3] = { 0 }, other = 0;

	CHECK(n > 300);
	CHECK(ordered(a, n));
	for (i = 0; i < n; i++) {
		if (a[i].len == 7)
			seen[0]++;
		else if (a[i].len == 7000)
			seen[1]++;
		else if (a[i].len == 20000)
			seen[2]++;
		else
			other++;	/* two merged: rare at 50 a second */
	}
	CHECK(seen[0] && seen[1] && seen[2]);
	CHECK(other * 50 < n);
	/* a length over 100 ms is cut to it, and never merged past it */
	spec.table = big;
	spec.table_len = 1;
	n = sched_make(&spec, a, MAX);
	CHECK(n > 300);
	CHECK(ordered(a, n));
	for (i = 0; i < n; i++)
		CHECK(a[i].len == SCHED_MAX_LEN_NS);
	return 0;
}

static int test_too_many(void)
{
	struct sched_spec spec = {
		.dist = SCHED_EXP, .seed = 1, .duration_ns = 1000000000,
		.per_s = 1000, .mean_ns = 10,
	};

	CHECK(sched_make(&spec, a, 10) == -1);
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "no stalls", test_none },
		{ "exponential: rate, mean, repeats by seed", test_exp_repeats_and_rates },
		{ "arrivals during a stall lengthen it, up to 100 ms", test_overlap_merged },
		{ "table draws only its lengths, clamped to 100 ms", test_table_and_clamp },
		{ "more stalls than room is an error", test_too_many },
	};

	return CHECK_RUN("sched", tests);
}
