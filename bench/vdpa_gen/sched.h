/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload C's stall schedules: stalls at the times of a Poisson process
 * (a seeded rate per second of guest time), each of a length drawn from a
 * named distribution; one arriving during another lengthens it. The
 * generator's debugfs "stalls" file takes the result as "<offset_ns>
 * <len_ns>" lines.
 */
#ifndef SCHED_H
#define SCHED_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's limit on one stall's length (VDPASIM_NET_GEN_STALL_MAX_NS). */
#define SCHED_MAX_LEN_NS 100000000ULL

enum sched_dist {
	SCHED_NONE,	/* no stalls */
	SCHED_EXP,	/* exponential lengths with a mean */
	SCHED_TABLE,	/* lengths drawn uniformly from a table */
};

struct sched_spec {
	enum sched_dist dist;
	uint64_t seed;
	uint64_t duration_ns;	/* stalls begin before this offset */
	double per_s;		/* stalls per second */
	double mean_ns;		/* SCHED_EXP */
	const uint64_t *table;	/* SCHED_TABLE: lengths, each 1..SCHED_MAX_LEN_NS */
	size_t table_len;
};

struct stall {
	uint64_t off;
	uint64_t len;
};

/*
 * Fills out[] (room for max entries) with the schedule of spec, in order of
 * offset, no two overlapping, each draw clamped to 1..SCHED_MAX_LEN_NS; a
 * stall arriving during the one before is added to its length while the
 * sum stays within SCHED_MAX_LEN_NS, else it begins where that one ends.
 * Returns the number of stalls, or -1 if more than max would be needed.
 */
long sched_make(const struct sched_spec *spec, struct stall *out, size_t max);

#endif /* SCHED_H */
