// SPDX-License-Identifier: GPL-2.0
#include "pace.h"

void pace_init(struct pace *p, uint64_t hz, uint64_t start, uint64_t rate,
	       uint64_t depth)
{
	p->hz = hz;
	p->start = start;
	p->rate = rate;
	p->depth = depth;
	p->offered = 0;
}

uint32_t pace_take(struct pace *p, uint64_t now, uint32_t max)
{
	uint64_t ticks, due;

	if (now <= p->start)
		return 0;
	ticks = now - p->start;
	/* ticks * rate / hz without overflowing 64 bits for hours at Mpps */
	due = (ticks / p->hz) * p->rate + (ticks % p->hz) * p->rate / p->hz;
	if (due <= p->offered)
		return 0;
	due -= p->offered;
	if (p->depth && due > p->depth) {
		/* what was not taken in time is forgone, not banked */
		p->offered += due - p->depth;
		due = p->depth;
	}
	if (due > max)
		due = max;
	p->offered += due;
	return (uint32_t)due;
}
