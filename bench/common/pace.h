/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pacing by a cycle counter: how many frames are due at a given time for a
 * set rate, counted from the start, so that a late loop catches up (up to a
 * burst at a time) instead of drifting. With a depth, at most that many
 * frames are ever owed: an idle stretch banks no more than depth (a token
 * bucket), so a consumer paced after a long wait does not run unpaced.
 */
#ifndef PACE_H
#define PACE_H

#include <stdint.h>

struct pace {
	uint64_t hz;		/* counter ticks per second */
	uint64_t start;		/* counter at the start */
	uint64_t rate;		/* frames per second */
	uint64_t depth;		/* most frames owed at once; 0: no limit */
	uint64_t offered;	/* frames handed out (or forgone) so far */
};

void pace_init(struct pace *p, uint64_t hz, uint64_t start, uint64_t rate,
	       uint64_t depth);

/* Frames due at counter value now, at most max; counts them as offered. */
uint32_t pace_take(struct pace *p, uint64_t now, uint32_t max);

#endif /* PACE_H */
