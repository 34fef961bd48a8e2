// SPDX-License-Identifier: GPL-2.0
#include "sim.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"

#define NEVER UINT64_MAX

struct sim {
	const struct sim_params *p;
	struct sim_result *r;
	uint64_t next;		/* index of the next frame the source offers */
	uint64_t frames;	/* frames offered in the whole run */
	uint64_t end_ns;	/* when the source's last frame is due */
	uint64_t bursts;	/* bursts offered */
	int64_t jitter_ns;	/* the next burst's offset from its slot */
	uint64_t src_end;	/* the vCPU is in the source until then */
	unsigned int si;	/* the next stall of the schedule */
	uint64_t free_at;	/* the last poll's end: a stall may begin */
	unsigned int avail;	/* buffers the device holds */
	unsigned int used;	/* used by the device, not harvested */
	bool irq_on;		/* NAPI idle, interrupts enabled */
	uint64_t poll_at;	/* next poll start, or NEVER */
	bool starved;		/* starvation seen, no buffer posted since */
	bool refill_short;	/* the last refill stopped at refill_max */
	struct rng rng, src_rng;
	uint64_t stall_start, stall_end;
	uint64_t lead;		/* gaps before the first burst: 1 with frames */
};

/* The nominal time of frame k (k / rate s), or of burst k with bursts. */
static uint64_t arrival(const struct sim *s, uint64_t k)
{
	return (uint64_t)((unsigned __int128)k * s->p->burst * 1000000000u / s->p->rate_pps);
}

/* When the next burst comes: its slot, moved by its jitter. */
static uint64_t burst_at(const struct sim *s)
{
	int64_t t = (int64_t)arrival(s, s->bursts + s->lead) + s->jitter_ns;

	return t > 0 ? (uint64_t)t : 0;
}

/*
 * The next burst's jitter. Drifting: one gap's, uniform within +-jitter_pct %
 * of the mean gap, added to the sum so far. Anchored: uniform within
 * +-jitter_pct / 2 % of it about the burst's slot, nothing carried over.
 */
static void jitter(struct sim *s)
{
	const struct sim_params *p = s->p;
	double gap = (double)p->burst * 1e9 / (double)p->rate_pps;
	double u;

	if (!p->jitter_pct)
		return;
	u = 2 * rng_unit(&s->src_rng) - 1;
	if (p->anchored)
		s->jitter_ns = (int64_t)(gap * p->jitter_pct / 200.0 * u);
	else
		s->jitter_ns += (int64_t)(gap * p->jitter_pct / 100.0 * u);
}

static void check_ring(struct sim *s)
{
	if ((uint64_t)s->avail + s->used > s->p->ring)
		s->r->violations++;
	if ((uint64_t)s->avail + s->used > s->r->max_held)
		s->r->max_held = (uint64_t)s->avail + s->used;
}

/*
 * The source offers every burst due by t; returns the guest time those
 * bursts took (src_ns a frame), which delays whatever the vCPU was doing.
 */
static uint64_t advance(struct sim *s, uint64_t t)
{
	uint64_t cost = 0;

	while (s->next < s->frames && burst_at(s) <= t) {
		uint64_t at = burst_at(s), n = s->frames - s->next, c;
		bool notify = false;

		if (n > s->p->burst)
			n = s->p->burst;
		s->next += n;
		s->bursts++;
		s->r->last_burst_ns = at;
		jitter(s);
		for (uint64_t i = 0; i < n; i++) {
			s->r->offered++;
			if (!s->avail) {
				s->r->dropped++;
				continue;
			}
			s->avail--;
			s->used++;
			notify = true;
		}
		c = n * s->p->src_ns;
		cost += c;
		s->src_end = (s->src_end > at ? s->src_end : at) + c;
		if (notify && s->irq_on) {
			s->irq_on = false;
			s->poll_at = s->src_end + s->p->irq_ns;
		}
	}
	return cost;
}

/* The guest at t runs on after the bursts due meanwhile took their time. */
static uint64_t busy(struct sim *s, uint64_t t)
{
	uint64_t c;

	while ((c = advance(s, t)))
		t += c;
	return t;
}

/*
 * Before a poll at t: the schedule's stalls due by then, each begun when
 * both it was due and the last poll had ended, run first; returns when the
 * poll can start.
 */
static uint64_t sched_gate(struct sim *s, uint64_t t)
{
	const struct sim_params *p = s->p;

	while (s->si < p->sched_n && p->sched_at[s->si] <= t && s->next < s->frames) {
		uint64_t b = p->sched_at[s->si] > s->free_at ? p->sched_at[s->si] : s->free_at;

		s->free_at = b + p->sched_len[s->si];
		s->r->stalls++;
		s->r->stall_ns += p->sched_len[s->si];
		s->si++;
		if (s->free_at > t)
			t = s->free_at;
	}
	return t;
}

/* A stall's length: exponential of the mean, or drawn from the histogram. */
static uint64_t stall_len(struct sim *s)
{
	const struct sim_params *p = s->p;
	double total = 0, u;
	unsigned int i;

	if (!p->stall_lens)
		return rng_exp(&s->rng, p->stall_ns);
	for (i = 0; i < p->stall_lens; i++)
		total += p->stall_len_w[i];
	u = rng_unit(&s->rng) * total;
	for (i = 0; i + 1 < p->stall_lens && u >= p->stall_len_w[i]; i++)
		u -= p->stall_len_w[i];
	return (uint64_t)p->stall_len_ns[i];
}

/* The earliest time from t at which the vCPU runs our code. */
static uint64_t guest(struct sim *s, uint64_t t)
{
	if (s->p->stalls_per_s <= 0)
		return t;
	while (t >= s->stall_end) {
		uint64_t len;

		s->stall_start = s->stall_end + rng_exp(&s->rng, 1e9 / s->p->stalls_per_s);
		len = stall_len(s);
		s->stall_end = s->stall_start + len;
		if (s->stall_start < s->end_ns) {
			s->r->stalls++;
			s->r->stall_ns += len;
		}
	}
	return t >= s->stall_start ? s->stall_end : t;
}

/* Posts buffers from t, as try_fill_recv() does; returns the end time. */
static uint64_t refill(struct sim *s, uint64_t t, unsigned int limit)
{
	uint64_t t0 = t;
	unsigned int posted = 0;

	t += s->p->refill_ns;
	while (s->avail + s->used < s->p->ring && posted < limit) {
		t = busy(s, guest(s, t) + s->p->buf_ns);
		s->avail++;
		posted++;
		check_ring(s);
	}
	s->refill_short = s->avail + s->used < s->p->ring;
	if (posted) {
		s->r->refills++;
		s->r->refill_bufs += posted;
		s->starved = false;
	}
	if (t - t0 > s->r->max_refill_ns)
		s->r->max_refill_ns = t - t0;
	return t;
}

/* One NAPI poll from t, as virtnet_receive() does; returns the end time. */
static uint64_t poll(struct sim *s, uint64_t t)
{
	const struct sim_params *p = s->p;
	unsigned int n = 0, free;
	/* at poll entry, before its fixed cost; the kernel checks after
	 * cleaning tx, just before the harvest: a burst or a Poisson stall
	 * inside poll_ns that uses the last buffers is dry there, not here
	 * (scheduled stalls start between polls only)
	 */
	bool dry = !s->avail;

	s->r->polls++;
	if (dry) {
		s->r->starved_polls++;
		if (!s->starved) {
			s->starved = true;
			s->r->starvations++;
		}
	}
	t += p->poll_ns;
	while (n < p->budget) {
		t = busy(s, guest(s, t));
		if (!s->used)
			break;
		s->used--;
		s->r->delivered++;
		n++;
		t += p->frame_ns;
	}
	free = p->ring - s->avail - s->used;
	if (free > rule_threshold(&p->rule, p->budget, p->ring, n, dry) ||
	    (s->refill_short && n < p->budget))
		t = refill(s, t, rule_limit(&p->rule, p->budget, n, n));
	t = busy(s, t);
	if (n == p->budget || s->used) {
		/* budget used: NAPI polls again; or frames came meanwhile:
		 * virtqueue_napi_complete() sees them and reschedules
		 */
		s->poll_at = t;
	} else {
		s->irq_on = true;
		s->poll_at = NEVER;
	}
	return t;
}

void sim_defaults(struct sim_params *p)
{
	*p = (struct sim_params){
		.rate_pps = 100000, .ring = 256, .budget = 64,
		.rule = { .kind = RULE_AUTO },
		.irq_ns = 5000, .poll_ns = 1000, .frame_ns = 500,
		.refill_ns = 1000, .buf_ns = 200,
		.duration_ns = 1000000000, .burst = 1, .seed = 1,
	};
}

int sim_check(const struct sim_params *p, char *err, int errlen)
{
	const char *why = NULL;

	if (!p->rate_pps || p->rate_pps > 1000000000)
		why = "the rate must be 1 to 10^9 frames per second";
	else if (p->ring < 2 || p->ring > 32768)
		why = "the ring must have 2 to 32768 descriptors";
	else if (p->budget < 1 || p->budget > 65536)
		why = "the budget must be 1 to 65536";
	else if (p->rule.kind == RULE_FIXED && p->rule.n > p->budget)
		why = "min_numfree must not exceed the budget (the kernel caps it at the NAPI weight)";
	else if (p->rule.refill_max > 32768)
		why = "refill_max must be 0 to 32768";
	else if (!p->duration_ns || p->duration_ns > 3600000000000ULL)
		why = "the duration must be 1 ns to 1 hour";
	else if (p->stalls_per_s < 0 || p->stalls_per_s > 1e6 || p->stall_ns < 0 ||
		 p->stall_ns > 1e10)
		why = "stalls: 0 to 10^6 per second, of 0 to 10 s";
	else if (p->stall_lens && (!p->stall_len_ns || !p->stall_len_w))
		why = "a stall length histogram without its values";
	else if (!p->frames && p->rate_pps * (p->duration_ns / 1000000000 + 1) > 10000000000ULL)
		why = "more than 10^10 frames: shorten the run";
	else if (p->frames > 10000000000ULL)
		why = "more than 10^10 frames";
	else if (p->burst < 1 || p->burst > 32768)
		why = "the burst must be 1 to 32768 frames";
	else if (p->jitter_pct > 100)
		why = "the jitter must be 0 to 100 %";
	else if (p->src_ns > 1000000000)
		why = "the source's cost must be 0 to 1 s a frame";
	else if (p->sched_n && (!p->sched_at || !p->sched_len))
		why = "a stall schedule without its values";
	else if (p->sched_n && p->stalls_per_s > 0)
		why = "a stall schedule and Poisson stalls: one or the other";
	for (unsigned int i = 0; !why && i < p->sched_n; i++)
		if ((i && p->sched_at[i] < p->sched_at[i - 1]) || p->sched_len[i] > 10000000000ULL)
			why = "stall schedule: ascending times, stalls of 0 to 10 s";
	if (!why && p->stall_lens) {
		double total = 0;

		for (unsigned int i = 0; i < p->stall_lens; i++) {
			if (!(p->stall_len_ns[i] >= 0 && p->stall_len_ns[i] <= 1e10) ||
			    !(p->stall_len_w[i] >= 0))
				why = "stall lengths: 0 to 10 s, weights not negative";
			total += p->stall_len_w[i];
		}
		if (!why && !(total > 0))
			why = "stall lengths: the weights add up to 0";
	}
	if (!why)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -1;
}

int sim_run(const struct sim_params *p, struct sim_result *r)
{
	struct sim s = { .p = p, .r = r, .irq_on = true, .poll_at = NEVER };
	char err[128];
	uint64_t t = 0;

	if (sim_check(p, err, sizeof(err)))
		return -1;
	memset(r, 0, sizeof(*r));
	rng_seed(&s.rng, p->seed);
	/* the source's draws apart from the stalls' */
	rng_seed(&s.src_rng, p->seed ^ 0x9e3779b97f4a7c15ULL);
	if (p->frames) {
		/* as the generator: its first burst one (jittered) gap after
		 * the start, which the stall schedule counts from
		 */
		s.frames = p->frames;
		s.lead = 1;
		jitter(&s);
		s.end_ns = arrival(&s, (p->frames - 1) / p->burst + 1);
	} else {
		/* frames k with arrival(k) < duration */
		s.frames = (uint64_t)(((unsigned __int128)p->duration_ns * p->rate_pps +
				       999999999u) / 1000000000u);
		s.end_ns = p->duration_ns;
	}
	/* open: the ring is filled before the first frame */
	s.avail = p->ring;
	check_ring(&s);
	for (;;) {
		if (s.poll_at == NEVER) {
			if (s.next >= s.frames)
				break;
			advance(&s, burst_at(&s));
			continue;
		}
		t = guest(&s, s.poll_at > t ? s.poll_at : t);
		advance(&s, t);
		/* the poll waits for the source's interrupt and due stalls */
		while (s.src_end > t || (s.si < p->sched_n && p->sched_at[s.si] <= t &&
					 s.next < s.frames)) {
			t = sched_gate(&s, s.src_end > t ? s.src_end : t);
			advance(&s, t);
		}
		if (t >= s.end_ns && s.next >= s.frames && !s.used)
			break;
		if (t >= s.end_ns + 1000000000ULL)
			break;	/* a second past the source's end: stop */
		t = poll(&s, t);
		s.free_at = t;
	}
	r->pending = s.used;
	return 0;
}
