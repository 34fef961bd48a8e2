// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the rx ring model: the rules match the kernel's, the ring
 * accounting holds everywhere (offered = delivered + dropped + pending, the
 * device never holds more than the ring), runs repeat for a seed, and the
 * model does what its parts say (no drops well below capacity without
 * stalls, drops with stalls or above capacity, the legacy threshold
 * refilling once per ring / 2 + 1 frames, a bounded refill posting at most
 * a budget's worth while NAPI is busy). Run under ASan/UBSan.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rule.h"
#include "sim.h"

static struct sim_params params(const char *rule, uint64_t rate, unsigned int ring)
{
	struct sim_params p;

	sim_defaults(&p);
	rule_parse(rule, &p.rule);
	p.rate_pps = rate;
	p.ring = ring;
	return p;
}

static int test_rules(void)
{
	struct refill_rule r;

	CHECK(!rule_parse("auto", &r) && rule_threshold(&r, 64, 256, 0, false) == 32);
	CHECK(rule_threshold(&r, 64, 32, 0, false) == 16);
	CHECK(!rule_parse("legacy", &r) && rule_threshold(&r, 64, 256, 0, false) == 128);
	CHECK(!rule_parse("16", &r) && rule_threshold(&r, 64, 256, 0, false) == 16);
	CHECK(!rule_parse("64", &r) && rule_threshold(&r, 64, 64, 0, false) == 32);
	CHECK(!rule_parse("0", &r) && rule_threshold(&r, 64, 256, 0, false) == 0);
	/* adaptive: legacy after a poll that used its budget, auto otherwise */
	CHECK(!rule_parse("adaptive", &r) && rule_threshold(&r, 64, 256, 64, false) == 128);
	CHECK(rule_threshold(&r, 64, 256, 63, false) == 32);
	CHECK(rule_threshold(&r, 64, 256, 0, false) == 32);
	CHECK(rule_threshold(&r, 64, 1024, 64, false) == 512);
	CHECK(rule_threshold(&r, 64, 32, 64, false) == 16 && rule_threshold(&r, 64, 32, 0, false) == 16);
	CHECK(rule_threshold(&r, 1, 256, 1, false) == 128 && rule_threshold(&r, 1, 256, 0, false) == 0);
	CHECK(rule_threshold(&r, 0, 256, 0, false) == 0);
	/* a dry start does not change adaptive */
	CHECK(rule_threshold(&r, 64, 256, 64, true) == 128);
	/* adaptive-dry: adaptive, but auto after a busy poll that began dry */
	CHECK(!rule_parse("adaptive-dry", &r) && rule_threshold(&r, 64, 256, 64, false) == 128);
	CHECK(rule_threshold(&r, 64, 256, 64, true) == 32);
	CHECK(rule_threshold(&r, 64, 256, 63, false) == 32 && rule_threshold(&r, 64, 256, 63, true) == 32);
	CHECK(rule_threshold(&r, 64, 1024, 64, false) == 512 && rule_threshold(&r, 64, 1024, 64, true) == 32);
	CHECK(rule_threshold(&r, 0, 256, 0, true) == 0 && rule_threshold(&r, 1, 256, 1, true) == 0);
	for (const char *const *bad = (const char *const[]){ "65", "-1", "", "x", " 1", "1x",
							     "autox", "adaptive ", "Adaptive",
							     "adaptive-", "adaptive-dryx", "adaptive_dry",
							     NULL };
	     *bad; bad++)
		CHECK(rule_parse(*bad, &r) == -1);
	/* refill_max: only a busy poll (whole budget used) is bounded */
	rule_parse("legacy", &r);
	CHECK(rule_limit(&r, 64, 64, 64) == UINT_MAX);
	r.refill_max = 8;
	CHECK(rule_limit(&r, 64, 63, 63) == UINT_MAX);
	CHECK(rule_limit(&r, 64, 64, 64) == 64);
	r.refill_max = 100;
	CHECK(rule_limit(&r, 64, 64, 64) == 100);
	return 0;
}

static int test_accounting(void)
{
	static const char *const rules[] = { "auto", "legacy", "0", "16", "adaptive",
					     "adaptive-dry" };
	static const uint64_t rates[] = { 1000, 100000, 1000000, 5000000 };
	static const unsigned int rings[] = { 64, 256 };
	int runs = 0;

	for (unsigned int a = 0; a < 6; a++)
		for (unsigned int b = 0; b < 4; b++)
			for (unsigned int c = 0; c < 2; c++)
				for (unsigned int d = 0; d < 3; d++) {
					struct sim_params p = params(rules[a], rates[b], rings[c]);
					struct sim_result r;

					p.duration_ns = 50000000;
					p.rule.refill_max = d == 2 ? 1 : 0;
					if (d) {
						p.stalls_per_s = 2000;
						p.stall_ns = 20000;
					}
					CHECK(sim_run(&p, &r) == 0);
					CHECK(r.violations == 0);
					CHECK(r.offered == p.duration_ns * p.rate_pps / 1000000000);
					CHECK(r.offered == r.delivered + r.dropped + r.pending);
					CHECK(r.max_held <= p.ring);
					CHECK(r.starvations <= r.starved_polls);
					CHECK(r.starved_polls <= r.polls);
					CHECK(!d || r.stalls > 0);
					runs++;
				}
	CHECK(runs == 144);
	return 0;
}

static int test_repeatable(void)
{
	struct sim_params p = params("auto", 800000, 256);
	struct sim_result a, b;

	p.duration_ns = 100000000;
	p.stalls_per_s = 500;
	p.stall_ns = 200000;
	CHECK(sim_run(&p, &a) == 0 && sim_run(&p, &b) == 0);
	CHECK(!memcmp(&a, &b, sizeof(a)));
	p.seed = 2;
	CHECK(sim_run(&p, &b) == 0);
	CHECK(a.stall_ns != b.stall_ns);
	return 0;
}

static int test_capacity_and_stalls(void)
{
	struct sim_params p = params("auto", 100000, 256);
	struct sim_result r;

	/* well below capacity (a frame costs 500 ns), no stalls: no drop */
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.dropped == 0 && r.starved_polls == 0 && r.delivered == r.offered);
	/* stalls of 0.2 ms on average: a 256-entry ring lasts 2.56 ms at
	 * 100 kpps, which they (almost surely) never reach; at 1 Mpps it
	 * lasts 0.256 ms, which a quarter of them outlast
	 */
	p.stalls_per_s = 100;
	p.stall_ns = 200000;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.stalls > 50 && r.dropped == 0);
	p.rate_pps = 1000000;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.dropped > 0 && r.starved_polls > 0 && r.starvations > 0);
	/* above capacity: drops, and no more delivered than a frame's cost allows */
	p = params("auto", 5000000, 256);
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.dropped > r.offered / 2);
	CHECK(r.delivered <= 1000000000 / p.frame_ns);
	return 0;
}

/*
 * same_as_auto_far_below_capacity RULE STALLS: far below capacity every
 * poll drains the ring, so RULE must give auto's run counter for counter
 * (with or without stalls).
 */
static int same_as_auto_far_below_capacity(const char *rule, int stalls)
{
	struct sim_params p = params("auto", 20000, 256);
	struct sim_result a, b;

	p.stalls_per_s = stalls ? 100 : 0;
	p.stall_ns = 20000;
	CHECK(sim_run(&p, &a) == 0);
	CHECK(rule_parse(rule, &p.rule) == 0);
	CHECK(sim_run(&p, &b) == 0);
	CHECK(a.polls > 1000 && a.refills > 0 && !memcmp(&a, &b, sizeof(a)));
	return 0;
}

/*
 * adaptive is auto where every poll drains the ring (far below capacity)
 * and legacy where every poll uses its budget (a flood): counter for
 * counter, stalls or not; above capacity it refills less often than auto.
 */
static int test_adaptive(void)
{
	struct sim_params p;
	struct sim_result a, b;

	for (int stalls = 0; stalls < 2; stalls++) {
		CHECK(same_as_auto_far_below_capacity("adaptive", stalls) == 0);

		p = params("legacy", 5000000, 256);
		p.stalls_per_s = stalls ? 100 : 0;
		CHECK(sim_run(&p, &a) == 0);
		rule_parse("adaptive", &p.rule);
		CHECK(sim_run(&p, &b) == 0);
		CHECK(a.dropped > a.offered / 2 && !memcmp(&a, &b, sizeof(a)));
	}
	/* just above capacity (the guest's fixed cost per refill counts) */
	p = params("auto", 1400000, 256);
	CHECK(sim_run(&p, &a) == 0);
	rule_parse("adaptive", &p.rule);
	CHECK(sim_run(&p, &b) == 0);
	CHECK(b.violations == 0 && a.dropped > 0 && b.refills < a.refills / 2 &&
	      b.dropped < a.dropped);
	return 0;
}

/*
 * adaptive-dry is auto where every poll drains the ring, stalls or not;
 * after stalls that leave the device without buffers and a backlog of a
 * whole ring (4 ms at half the capacity, as check-vdpa-gen.sh rule does
 * in a guest) it refills in the first poll (it began dry) where adaptive
 * waits for half the ring: fewer polls find the device dry, fewer frames
 * are dropped.
 */
static int test_adaptive_dry(void)
{
	static const uint64_t at[] = { 20000000, 40000000, 60000000, 80000000 };
	static const uint64_t len[] = { 4000000, 4000000, 4000000, 4000000 };
	struct sim_params p;
	struct sim_result a, b;

	for (int stalls = 0; stalls < 2; stalls++)
		CHECK(same_as_auto_far_below_capacity("adaptive-dry", stalls) == 0);
	p = params("adaptive", 700000, 256);	/* about 0.5x: 700 ns a frame */
	p.frames = 70000;
	p.burst = 8;
	p.sched_n = 4;
	p.sched_at = at;
	p.sched_len = len;
	CHECK(sim_run(&p, &a) == 0);
	rule_parse("adaptive-dry", &p.rule);
	CHECK(sim_run(&p, &b) == 0);
	CHECK(a.violations == 0 && b.violations == 0 && a.stalls == 4 && b.stalls == 4);
	CHECK(a.dropped > 0 && b.starved_polls < a.starved_polls && b.dropped < a.dropped);
	return 0;
}

/* stall lengths drawn from a histogram: only its values, in its proportions */
static int test_stall_hist(void)
{
	static const double len[] = { 1000000, 8000000 }, w[] = { 3, 1 }, neg[] = { 1, -1 },
			    zero[] = { 0, 0 };
	struct sim_params p = params("auto", 100000, 256);
	struct sim_result r;
	char err[128];
	uint64_t shorts;

	p.stalls_per_s = 50;
	p.duration_ns = 20000000000ULL;
	p.stall_lens = 2;
	p.stall_len_ns = len;
	p.stall_len_w = w;
	CHECK(sim_run(&p, &r) == 0);
	/* stall_ns = 1 ms x shorts + 8 ms x longs, shorts + longs = stalls */
	CHECK((8000000 * r.stalls - r.stall_ns) % 7000000 == 0);
	shorts = (8000000 * r.stalls - r.stall_ns) / 7000000;
	/* 3 in 4 short, of about 1000 stalls: 70-80 % */
	CHECK(100 * shorts > 70 * r.stalls && 100 * shorts < 80 * r.stalls);
	/* 1 ms stalls: the ring (2.56 ms at 100 kpps) outlasts them; 8 ms ones drop */
	CHECK(r.dropped > 0);
	p.stall_len_w = neg;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "weights not negative"));
	p.stall_len_w = zero;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "add up to 0"));
	p.stall_len_w = NULL;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "without its values"));
	return 0;
}

static int test_one_frame_per_poll(void)
{
	struct sim_params p = params("legacy", 1000, 256);
	struct sim_result r;

	/* 1000 frames, 1 ms apart: each poll takes one */
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.polls == 1000 && r.delivered == 1000);
	/* legacy (128): a refill once 129 are free, of 129 buffers */
	CHECK(r.refills == 1000 / 129 && r.refill_bufs == 129 * r.refills);
	p = params("auto", 1000, 256);
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.refills == 1000 / 33 && r.refill_bufs == 33 * r.refills);
	p = params("0", 1000, 256);
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.refills == 1000 && r.refill_bufs == 1000);
	return 0;
}

static int test_mechanism(void)
{
	struct sim_params p = params("auto", 1200000, 256);
	struct sim_result a, l, b;

	/* near capacity with stalls: legacy refills less often and finds
	 * the ring empty at least as often (the direction measured in TCG)
	 */
	p.stalls_per_s = 1000;
	p.stall_ns = 50000;
	p.duration_ns = 200000000;
	CHECK(sim_run(&p, &a) == 0);
	rule_parse("legacy", &p.rule);
	CHECK(sim_run(&p, &l) == 0);
	CHECK(l.refills * 2 < a.refills);
	CHECK(l.starved_polls >= a.starved_polls);
	/* far above capacity nearly every poll is busy: bounded refills
	 * post about what a poll took (64), unbounded ones 128 + 64
	 */
	p = params("legacy", 5000000, 256);
	p.duration_ns = 50000000;
	CHECK(sim_run(&p, &l) == 0);
	p.rule.refill_max = 1;
	CHECK(sim_run(&p, &b) == 0);
	CHECK(b.refill_bufs <= 65 * b.refills);
	CHECK(l.refill_bufs >= 150 * l.refills);
	CHECK(b.max_refill_ns < l.max_refill_ns);
	return 0;
}

/* Workload C's source: bursts, the source's own cost, a stall schedule. */
static int test_c_source(void)
{
	static const uint64_t at[] = { 5000000, 1000000000 }, len[] = { 5000000, 1000 };
	struct sim_params p = params("auto", 3000, 256);
	struct sim_result r, q;
	unsigned int drift_far = 0;

	/* bursts of 300 at a ring of 256, 100 ms apart: 44 of each dropped */
	p.frames = 3000;
	p.burst = 300;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.offered == 3000 && r.delivered + r.dropped + r.pending == 3000);
	CHECK(r.dropped == 440);
	/* bursts of 32 every 320 us: nothing dropped while the source is
	 * cheap; a source taking the whole gap leaves NAPI no time
	 */
	p = params("auto", 100000, 256);
	p.frames = 20000;
	p.burst = 32;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.offered == 20000 && r.dropped == 0 && r.violations == 0);
	p.src_ns = 10000;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.offered == 20000 && r.delivered + r.dropped + r.pending == 20000);
	CHECK(r.dropped > 10000);
	/* jitter: a seed repeats, seeds differ; without jitter they do not */
	p = params("auto", 1000000, 256);
	p.frames = 20000;
	p.burst = 32;
	p.jitter_pct = 50;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(sim_run(&p, &q) == 0);
	CHECK(!memcmp(&r, &q, sizeof(r)));
	p.seed = 2;
	CHECK(sim_run(&p, &q) == 0);
	CHECK(q.polls != r.polls || q.dropped != r.dropped || q.refills != r.refills);
	p.jitter_pct = 0;
	CHECK(sim_run(&p, &q) == 0);
	p.seed = 1;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(!memcmp(&r, &q, sizeof(r)));
	/* 625 bursts of 32 every 32 us: without jitter the last one comes at
	 * 625 gaps; anchored, within +-8 us (a quarter gap) of that; drifting
	 * (the sum of 625 draws within +-16 us: about 230 us either way) the
	 * seeds below end further off, and not where the anchored ones do
	 */
	CHECK(r.last_burst_ns == 20000000);
	p.jitter_pct = 50;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		p.seed = seed;
		p.anchored = true;
		CHECK(sim_run(&p, &r) == 0);
		CHECK(r.last_burst_ns >= 20000000 - 8000 && r.last_burst_ns <= 20000000 + 8000);
		p.anchored = false;
		CHECK(sim_run(&p, &q) == 0);
		CHECK(q.last_burst_ns != r.last_burst_ns);
		drift_far += q.last_burst_ns < 20000000 - 8000 || q.last_burst_ns > 20000000 + 8000;
	}
	CHECK(drift_far >= 15);
	/* a 5 ms stall at 1 Mpps: the 5000 frames it spans find at most the
	 * ring's 256 buffers; the stall after the last frame is not run
	 */
	p = params("auto", 1000000, 256);
	p.frames = 20000;
	p.sched_n = 2;
	p.sched_at = at;
	p.sched_len = len;
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.stalls == 1 && r.stall_ns == 5000000);
	CHECK(r.dropped >= 5000 - 256 && r.dropped <= 5000);
	CHECK(r.offered == 20000 && r.delivered + r.dropped + r.pending == 20000);
	/* the first burst comes one gap (320 us) after the start, as the
	 * generator's: both bursts of 32 fall in a stall from 100 to 800 us,
	 * and the second finds the ring of 32 empty (at 0 and 320 us, the
	 * first would be received and its buffers posted before the stall)
	 */
	p = params("auto", 100000, 32);
	p.frames = 64;
	p.burst = 32;
	p.sched_n = 1;
	p.sched_at = (const uint64_t[]){ 100000 };
	p.sched_len = (const uint64_t[]){ 700000 };
	CHECK(sim_run(&p, &r) == 0);
	CHECK(r.stalls == 1 && r.dropped == 32);
	return 0;
}

static int test_bad_params(void)
{
	struct sim_params p = params("auto", 1000, 256);
	struct sim_result r;
	char err[160];

	p.ring = 1;
	CHECK(sim_run(&p, &r) == -1);
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "ring"));
	p = params("64", 1000, 256);
	p.budget = 32;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "min_numfree"));
	p = params("auto", 0, 256);
	CHECK(sim_check(&p, err, sizeof(err)) == -1);
	p = params("auto", 1000, 256);
	p.burst = 0;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "burst"));
	p.burst = 1;
	p.jitter_pct = 101;
	CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "jitter"));
	p.jitter_pct = 0;
	{
		static const uint64_t at[] = { 2000, 1000 }, len[] = { 10, 10 };

		p.sched_n = 2;
		p.sched_at = at;
		p.sched_len = len;
		CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "ascending"));
		p.sched_n = 1;
		CHECK(sim_check(&p, err, sizeof(err)) == 0);
		p.stalls_per_s = 10;
		CHECK(sim_check(&p, err, sizeof(err)) == -1 && strstr(err, "one or the other"));
	}
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "rules", test_rules },
		{ "accounting", test_accounting },
		{ "repeatable", test_repeatable },
		{ "capacity_and_stalls", test_capacity_and_stalls },
		{ "adaptive", test_adaptive },
		{ "adaptive-dry", test_adaptive_dry },
		{ "stall_hist", test_stall_hist },
		{ "one_frame_per_poll", test_one_frame_per_poll },
		{ "mechanism", test_mechanism },
		{ "c_source", test_c_source },
		{ "bad_params", test_bad_params },
	};

	return CHECK_RUN("ringsim", tests);
}
