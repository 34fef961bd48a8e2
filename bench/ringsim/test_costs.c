// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model's calibration (costs.h): the buckets are those
 * rx_costs.stp draws (contiguous, each value in its own), a probe's output
 * reads back into what was written, bad input is refused with the line,
 * and the fit finds the costs and stalls that made a synthetic guest's
 * histograms (linear costs with jitter, stalls of a known rate and
 * length). Run under ASan/UBSan.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "costs.h"
#include "rng.h"

static int near(double v, double want, double rel)
{
	return fabs(v - want) <= rel * fabs(want);
}

static int test_buckets(void)
{
	for (int b = 0; b < COSTS_BUCKETS - 1; b++) {
		CHECK(costs_bucket_hi(b) == costs_bucket_lo(b + 1));
		CHECK(costs_bucket(costs_bucket_lo(b)) == b);
		CHECK(costs_bucket(costs_bucket_hi(b) - 1) == b);
		/* four per octave: hi / lo at most 1.25 past the exact ones */
		CHECK(b < 4 || 4 * costs_bucket_hi(b) <= 5 * costs_bucket_lo(b));
	}
	/* the probe's qb() by hand: 1000 = 0b1111101000, msb 9, next bits 11 */
	CHECK(costs_bucket(1000) == 4 * 8 + 3);
	CHECK(costs_bucket_lo(35) == 896 && costs_bucket_hi(35) == 1024);
	CHECK(costs_bucket(UINT64_MAX) == COSTS_BUCKETS - 1);
	return 0;
}

/* A synthetic guest: values added to c as rx_costs.stp adds them. */
static void add(struct costs *c, enum costs_what w, uint64_t x, uint64_t v)
{
	int ci = x ? 64 - __builtin_clzll(x) : 0;

	c->cls[w][ci].n++;
	c->cls[w][ci].sum += x;
	c->cls[w][ci].count[costs_bucket(v)]++;
}

/* c as rx_costs.stp prints it. */
static void print(const struct costs *c, FILE *f)
{
	static const char *const names[W_NR] = { "work", "refill", "repoll_gap", "irq_gap",
						  "backlog_irq", "backlog_repoll" };

	fprintf(f, "rx_costs: start\nsome other line\n");
	fprintf(f, "rx_costs: summary rxq=%d polls=%" PRIu64 " irq_polls=%" PRIu64
		" repolls=%" PRIu64 " frames=%" PRIu64 " refills=%" PRIu64 " bufs=%" PRIu64
		" poll_ns=%" PRIu64 " refill_ns=%" PRIu64 " other_refills=%" PRIu64
		" packed_polls=%" PRIu64 " seconds=%.3f ring=%" PRIu64 "\n",
		c->rxq, c->polls, c->irq_polls, c->repolls, c->frames, c->refills, c->bufs,
		c->poll_ns, c->refill_ns, c->other_refills, c->packed_polls, c->seconds, c->ring);
	for (int w = 0; w < W_NR; w++)
		for (int i = 0; i < COSTS_CLASSES; i++)
			for (int b = 0; b < COSTS_BUCKETS; b++) {
				const struct costs_class *k = &c->cls[w][i];
				uint64_t lo = i ? 1ULL << (i - 1) : 0;

				if (k->count[b])
					fprintf(f, "probe[rx] rx_costs: hist rxq=%d what=%s cls_lo=%" PRIu64
						" cls_hi=%" PRIu64 " cls_n=%" PRIu64 " cls_sum=%" PRIu64
						" lo=%" PRIu64 " hi=%" PRIu64 " count=%" PRIu64 "\n",
						c->rxq, names[w], lo, i ? 2 * lo : 1, k->n, k->sum,
						costs_bucket_lo(b), costs_bucket_hi(b), k->count[b]);
			}
}

/* c as the bpftrace twin prints it: its maps, at exit. */
static void print_bt(const struct costs *c, FILE *f)
{
	static const char *const names[W_NR] = { "work", "refill", "repoll_gap", "irq_gap",
						  "backlog_irq", "backlog_repoll" };

	fprintf(f, "rx_costs: start\nrx_costs: summary\n\n@bufs[%d]: %" PRIu64 "\n", c->rxq, c->bufs);
	for (int w = 0; w < W_NR; w++)
		for (int i = 0; i < COSTS_CLASSES; i++) {
			const struct costs_class *k = &c->cls[w][i];
			uint64_t lo = i ? 1ULL << (i - 1) : 0;

			for (int b = 0; b < COSTS_BUCKETS; b++)
				if (k->count[b])
					fprintf(f, "probe[rx] @h[%d, %" PRIu64 ", %" PRIu64 ", %" PRIu64
						", %s]: %" PRIu64 "\n", c->rxq, lo, costs_bucket_lo(b),
						costs_bucket_hi(b), names[w], k->count[b]);
			if (k->n)
				fprintf(f, "@cls_n[%d, %" PRIu64 ", %s]: %" PRIu64 "\n@cls_sum[%d, %" PRIu64
					", %s]: %" PRIu64 "\n", c->rxq, lo, names[w], k->n, c->rxq,
					lo, names[w], k->sum);
		}
	fprintf(f, "@polls[%d]: %" PRIu64 "\n@repolls[%d]: %" PRIu64 "\n@ring[%d]: %" PRIu64
		"\n@seconds_ms: %.0f\n@polls[7]: 3\n", c->rxq, c->polls, c->rxq, c->repolls,
		c->rxq, c->ring, c->seconds * 1000);
}

/*
 * A guest whose poll works 2000 + 300 ns a frame, refill 1500 + 150 ns a
 * buffer, both +-10 %, and a stall of exp(400 us) + 100 us in one value of
 * STALL_EVERY (so every stall is far above any class's median).
 */
#define STALL_EVERY 200

static uint64_t cost(struct rng *g, double mean, uint64_t *stalls, double *stall_ns)
{
	double v = mean * (0.9 + 0.2 * rng_unit(g));

	if (rng_next(g) % STALL_EVERY == 0) {
		double s = 100000 + (double)rng_exp(g, 400000);

		(*stalls)++;
		*stall_ns += s;
		v += s;
	}
	return (uint64_t)v;
}

static void synth(struct costs *c, uint64_t *stalls, double *stall_ns, double *busy)
{
	struct rng g;

	memset(c, 0, sizeof(*c));
	rng_seed(&g, 7);
	c->have_summary = 1;
	c->ring = 256;
	c->seconds = 10;
	for (int i = 0; i < 100000; i++) {
		uint64_t k = rng_next(&g) % 65, v = cost(&g, 2000 + 300.0 * (double)k, stalls, stall_ns);

		c->polls++;
		c->frames += k;
		add(c, W_WORK, k, v);
		*busy += (double)v;
		if (k == 64) {
			uint64_t gap = cost(&g, 800, stalls, stall_ns);

			c->repolls++;
			add(c, W_REPOLL_GAP, 0, gap);
			*busy += (double)gap;
		}
		if (i % 3 == 0) {
			uint64_t n = 1 + rng_next(&g) % 256, r = cost(&g, 1500 + 150.0 * (double)n,
								       stalls, stall_ns);

			c->refills++;
			c->bufs += n;
			add(c, W_REFILL, n, r);
			*busy += (double)r;
		}
		add(c, W_BACKLOG_IRQ, 0, 12);
	}
}

static int test_read_back(void)
{
	static struct costs cs[4];
	struct costs *c = &cs[0], *d = &cs[1], *e = &cs[2], *bt = &cs[3];
	int r0, r1, r2;
	uint64_t stalls = 0;
	double stall_ns = 0, busy = 0;
	char *buf = NULL, err[160];
	size_t len = 0;
	FILE *f;

	synth(c, &stalls, &stall_ns, &busy);
	f = open_memstream(&buf, &len);
	print(c, f);
	fclose(f);
	f = fmemopen(buf, len, "r");
	r0 = costs_read(f, 0, d, err, sizeof(err));
	fclose(f);
	/* another queue: nothing there */
	f = fmemopen(buf, len, "r");
	r1 = costs_read(f, 1, e, err, sizeof(err));
	fclose(f);
	free(buf);
	/* the bpftrace twin's output reads into the same */
	buf = NULL;
	f = open_memstream(&buf, &len);
	print_bt(c, f);
	fclose(f);
	f = fmemopen(buf, len, "r");
	r2 = costs_read(f, 0, bt, err, sizeof(err));
	fclose(f);
	free(buf);
	CHECK(r2 == 0);
	CHECK(bt->polls == c->polls && bt->repolls == c->repolls && bt->bufs == c->bufs);
	CHECK(bt->seconds == 10 && bt->ring == 256);
	CHECK(!memcmp(bt->cls, c->cls, sizeof(c->cls)));
	CHECK(r1 == -1 && strstr(err, "no rx_costs summary and histograms for rx queue 1"));
	CHECK(r0 == 0);
	CHECK(d->polls == c->polls && d->repolls == c->repolls && d->bufs == c->bufs);
	CHECK(d->seconds == 10 && d->ring == 256);
	CHECK(!memcmp(d->cls, c->cls, sizeof(c->cls)));
	return 0;
}

static int test_fit(void)
{
	static struct costs cs;
	struct costs *c = &cs;
	struct stall_opts o = { .factor = 4, .min_ns = 20000 };
	uint64_t stalls = 0;
	double stall_ns = 0, busy = 0;
	struct calib k;
	char err[160];

	synth(c, &stalls, &stall_ns, &busy);
	CHECK(costs_fit(c, &o, &k, err, sizeof(err)) == 0);
	fprintf(stderr, "fit: poll %.0f frame %.1f refill %.0f buf %.1f stalls %" PRIu64
		" of %" PRIu64 ", %.0f ns (true %.0f), %.1f/s (true %.1f)\n",
		k.poll_ns, k.frame_ns, k.refill_ns, k.buf_ns, k.stalls, stalls, k.stall_ns,
		stall_ns / (double)stalls, k.stalls_per_s, (double)stalls * 1e9 / busy);
	/* medians of buckets 1.19 wide, classes up to 2x wide: within 15 % */
	CHECK(near(k.poll_ns, 2000, 0.15) && near(k.frame_ns, 300, 0.15));
	CHECK(near(k.refill_ns, 1500, 0.3) && near(k.buf_ns, 150, 0.15));
	CHECK(near(k.repoll_ns, 800, 0.1));
	CHECK(near((double)k.stalls, (double)stalls, 0.05));
	CHECK(near(k.stall_ns, stall_ns / (double)stalls, 0.1));
	CHECK(near(k.stalls_per_s, (double)stalls * 1e9 / busy, 0.1));
	CHECK(near(k.busy_ns, busy, 0.05));
	CHECK(k.backlog_irq >= 12 && k.backlog_irq < 14);	/* bucket [12, 14) */
	/* a stricter threshold finds fewer, never more */
	o.factor = 1000;
	o.min_ns = 1e6;
	CHECK(costs_fit(c, &o, &k, err, sizeof(err)) == 0 && k.stalls < stalls / 2);
	/* nothing to fit */
	memset(c->cls[W_REFILL], 0, sizeof(c->cls[W_REFILL]));
	CHECK(costs_fit(c, &o, &k, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no refills"));
	return 0;
}

static int refused(const char *text, const char *why)
{
	static struct costs c;
	char err[160];
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = costs_read(f, 0, &c, err, sizeof(err));

	fclose(f);
	if (r != -1 || !strstr(err, why)) {
		fprintf(stderr, "read '%s': %d, '%s'; wanted '%s'\n", text, r, r ? err : "", why);
		return 0;
	}
	return 1;
}

#define SUMMARY "rx_costs: summary rxq=0 polls=1 irq_polls=1 repolls=0 frames=1 refills=1 " \
		"bufs=1 poll_ns=1 refill_ns=1 other_refills=0 packed_polls=0 seconds=1.000 ring=256\n"
#define HIST(rest) "rx_costs: hist rxq=0 " rest "\n"

static int test_bad_input(void)
{
	CHECK(refused("", "no rx_costs summary"));
	CHECK(refused(SUMMARY, "no rx_costs summary and histograms"));
	CHECK(refused(HIST("what=work cls_lo=1 cls_hi=2 cls_n=1 cls_sum=1 lo=896 hi=1024 count=1"),
		      "no rx_costs summary"));
	CHECK(refused(SUMMARY HIST("what=nap cls_lo=1 cls_hi=2 cls_n=1 cls_sum=1 lo=896 hi=1024 count=1"),
		      "line 2: unknown what=nap"));
	CHECK(refused(SUMMARY HIST("what=work cls_lo=3 cls_hi=6 cls_n=1 cls_sum=1 lo=896 hi=1024 count=1"),
		      "class 3-6 is not a power-of-two class"));
	CHECK(refused(SUMMARY HIST("what=work cls_lo=1 cls_hi=2 cls_n=1 cls_sum=1 lo=900 hi=1024 count=1"),
		      "bucket 900-1024 is not one of rx_costs' buckets"));
	CHECK(refused(SUMMARY HIST("what=work cls_lo=1 cls_hi=2 cls_n=1 cls_sum=1 lo=896 hi=1024 count=-1"),
		      "a hist line without one of"));
	CHECK(refused(SUMMARY HIST("what=work cls_lo=1 cls_hi=2 cls_n=1 cls_sum=1 lo=896 count=1"),
		      "a hist line without one of"));
	CHECK(refused("rx_costs: summary rxq=0 polls=1\n", "line 1: a summary line without irq_polls"));
	CHECK(refused("rx_costs: summary rxq=0 polls=1 irq_polls=1 repolls=0 frames=1 refills=1 "
		      "bufs=1 poll_ns=1 refill_ns=1 other_refills=0 packed_polls=0 seconds=x ring=256\n",
		      "a summary line without seconds"));
	/* the bpftrace twin's maps */
	CHECK(refused("@polls[0]: 1\n@h[0, 1, 896, 1024, nap]: 1\n", "line 2: unknown what=nap"));
	CHECK(refused("@polls[0]: 1\n@h[0, 1, 900, 1024, work]: 1\n", "bucket 900-1024 is not"));
	CHECK(refused("@polls[0]: x\n", "line 1: a malformed bpftrace map line"));
	CHECK(refused("@polls[0]: 1\n", "no rx_costs summary and histograms"));
	return 0;
}

static int test_median(void)
{
	struct costs_class k = { 0 };

	CHECK(costs_median(&k) == -1);
	k.count[2] = 3;
	k.count[costs_bucket(1000)] = 1;
	CHECK(costs_median(&k) == 2);
	k.count[costs_bucket(1000)] = 10;
	/* 10 of 13 in [896, 1024): the median is in it */
	CHECK(costs_median(&k) >= 896 && costs_median(&k) < 1024);
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "buckets", test_buckets },	 { "read_back", test_read_back },
		{ "fit", test_fit },		 { "bad_input", test_bad_input },
		{ "median", test_median },
	};

	return CHECK_RUN("costs", tests);
}
