/* SPDX-License-Identifier: GPL-2.0 */
/* Per-interval counters of the source and their CSV row. */
#ifndef INTERVAL_H
#define INTERVAL_H

#include <stdint.h>
#include <stdio.h>

struct interval {
	uint64_t offered;	/* frames due in the interval */
	uint64_t delivered;	/* taken by the guest's rx ring */
	uint64_t dropped;	/* found no free guest buffer */
	uint32_t avail_min;	/* free guest buffers seen, lowest */
	uint64_t avail_sum;	/* and their sum over samples, for the mean */
	uint64_t samples;
};

#define INTERVAL_CSV_HEADER "t_s,offered,delivered,dropped,avail_min,avail_mean,phase"

void interval_reset(struct interval *iv);
void interval_avail(struct interval *iv, uint32_t avail);
void interval_add(struct interval *iv, uint32_t offered, uint32_t delivered);
/* Adds iv into total (avail_min: the lowest of both). */
void interval_sum(struct interval *total, const struct interval *iv);
/* The interval's row; phase: what the guest said it was doing ("-": nothing). */
void interval_row(FILE *f, double t, const struct interval *iv, const char *phase);

#define PHASE_MAX 48
/* 1 when s is a phase: 1-47 of A-Z a-z 0-9 _ . : - (its first n bytes). */
int phase_ok(const char *s, size_t n);
/*
 * Reads the phase the guest wrote to path (its first line: 1-47 of
 * A-Z a-z 0-9 _ . : -) into phase; "-" when there is no such file, the
 * line is empty or malformed (a half-written file is never taken).
 */
void phase_read(const char *path, char phase[PHASE_MAX]);

/*
 * The phase the rows are stamped with, watched between rows: the source
 * polls it every PHASE_POLL_US, and a change closes the current row, so a
 * row lies within one phase and a block's rows start and end within
 * PHASE_POLL_US of the guest's phase writes (the guest reads its counters
 * right beside them).
 */
#define PHASE_POLL_US 1000
struct phase_watch {
	char cur[PHASE_MAX];	/* the phase of the row being counted */
};

void phase_watch_init(struct phase_watch *w, const char *path);
/*
 * Reads path again; when the phase is another than w->cur, copies w->cur
 * into old (the phase of the row the change closes), takes the new one and
 * returns 1; otherwise returns 0.
 */
int phase_watch_poll(struct phase_watch *w, const char *path, char old[PHASE_MAX]);

#endif /* INTERVAL_H */
