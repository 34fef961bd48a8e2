// SPDX-License-Identifier: GPL-2.0
#include "sched.h"

#include "rng.h"

static uint64_t draw_len(const struct sched_spec *spec, struct rng *g)
{
	uint64_t len = 0;

	switch (spec->dist) {
	case SCHED_EXP:
		len = rng_exp(g, spec->mean_ns);
		break;
	case SCHED_TABLE:
		len = spec->table[rng_next(g) % spec->table_len];
		break;
	case SCHED_NONE:
		break;
	}
	if (len < 1)
		len = 1;
	if (len > SCHED_MAX_LEN_NS)
		len = SCHED_MAX_LEN_NS;
	return len;
}

long sched_make(const struct sched_spec *spec, struct stall *out, size_t max)
{
	uint64_t t = 0, end = 0, len;
	struct rng g;
	size_t n = 0;

	if (spec->dist == SCHED_NONE || spec->per_s <= 0)
		return 0;
	if (spec->dist == SCHED_TABLE && !spec->table_len)
		return 0;
	rng_seed(&g, spec->seed);
	for (;;) {
		t += rng_exp(&g, 1e9 / spec->per_s);
		if (t >= spec->duration_ns)
			break;
		len = draw_len(spec, &g);
		/*
		 * An arrival during a stall lengthens it (two stalls back to
		 * back would let NAPI poll between them), up to the limit;
		 * past it, the next stall begins where this one ends.
		 */
		if (n && t <= end && out[n - 1].len + len <= SCHED_MAX_LEN_NS) {
			out[n - 1].len += len;
			end += len;
			continue;
		}
		if (n == max)
			return -1;
		out[n].off = t > end ? t : end;
		out[n].len = len;
		end = out[n].off + len;
		n++;
	}
	return (long)n;
}
