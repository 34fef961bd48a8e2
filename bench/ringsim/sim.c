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
	unsigned int avail;	/* buffers the device holds */
	unsigned int used;	/* used by the device, not harvested */
	bool irq_on;		/* NAPI idle, interrupts enabled */
	uint64_t poll_at;	/* next poll start, or NEVER */
	bool starved;		/* starvation seen, no buffer posted since */
	bool refill_short;	/* the last refill stopped at refill_max */
	struct rng rng;
	uint64_t stall_start, stall_end;
};

static uint64_t arrival(const struct sim *s, uint64_t k)
{
	return (uint64_t)((unsigned __int128)k * 1000000000u / s->p->rate_pps);
}

static void check_ring(struct sim *s)
{
	if ((uint64_t)s->avail + s->used > s->p->ring)
		s->r->violations++;
	if ((uint64_t)s->avail + s->used > s->r->max_held)
		s->r->max_held = (uint64_t)s->avail + s->used;
}

/* The source offers every frame due by t. */
static void advance(struct sim *s, uint64_t t)
{
	while (s->next < s->frames && arrival(s, s->next) <= t) {
		uint64_t at = arrival(s, s->next++);

		s->r->offered++;
		if (!s->avail) {
			s->r->dropped++;
			continue;
		}
		s->avail--;
		s->used++;
		if (s->irq_on) {
			s->irq_on = false;
			s->poll_at = at + s->p->irq_ns;
		}
	}
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
		if (s->stall_start < s->p->duration_ns) {
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
		t = guest(s, t) + s->p->buf_ns;
		advance(s, t);
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

	s->r->polls++;
	if (!s->avail) {
		s->r->starved_polls++;
		if (!s->starved) {
			s->starved = true;
			s->r->starvations++;
		}
	}
	t += p->poll_ns;
	while (n < p->budget) {
		t = guest(s, t);
		advance(s, t);
		if (!s->used)
			break;
		s->used--;
		s->r->delivered++;
		n++;
		t += p->frame_ns;
	}
	free = p->ring - s->avail - s->used;
	if (free > rule_threshold(&p->rule, p->budget, p->ring) ||
	    (s->refill_short && n < p->budget))
		t = refill(s, t, rule_limit(&p->rule, p->budget, n, n));
	advance(s, t);
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
		.duration_ns = 1000000000, .seed = 1,
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
	else if (p->rate_pps * (p->duration_ns / 1000000000 + 1) > 10000000000ULL)
		why = "more than 10^10 frames: shorten the run";
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
	/* frames k with arrival(k) < duration */
	s.frames = (uint64_t)(((unsigned __int128)p->duration_ns * p->rate_pps + 999999999u) /
			      1000000000u);
	/* open: the ring is filled before the first frame */
	s.avail = p->ring;
	check_ring(&s);
	for (;;) {
		if (s.poll_at == NEVER) {
			if (s.next >= s.frames)
				break;
			advance(&s, arrival(&s, s.next));
			continue;
		}
		t = guest(&s, s.poll_at > t ? s.poll_at : t);
		advance(&s, t);
		if (t >= p->duration_ns && s.next >= s.frames && !s.used)
			break;
		if (t >= p->duration_ns + 1000000000ULL)
			break;	/* a second past the source's end: stop */
		t = poll(&s, t);
	}
	r->pending = s.used;
	return 0;
}
