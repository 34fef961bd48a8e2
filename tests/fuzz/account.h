/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's accounting oracle on one tap: with nothing else changing,
 * every frame the stack took for it is read from one of its fds or
 * counted as dropped (the tap's tx_dropped, its root qdisc's drops), and
 * once its fds are read empty its qdisc holds nothing (a tx queue left
 * stopped while its ring has room would keep frames there).
 */
#ifndef ACCOUNT_H
#define ACCOUNT_H

#include <stddef.h>

#include "ops.h"

/* One phase's counts: what the stack took, where it went. */
struct account_phase {
	const char *name;	/* the tap */
	unsigned int sent;	/* sendto() took the frame */
	unsigned int refused;	/* ENOBUFS: a qdisc dropped it, counted */
	unsigned int down;	/* ENETDOWN: the tx queue stopped without a
				 * qdisc, counted in tx_dropped; after the fds
				 * read empty, a stopped queue */
	unsigned int other;	/* other refusals: not taken */
	unsigned long read;	/* read from the tap's fds */
	long long tx_dropped;	/* the tap's tx_dropped, its change */
	long long qdisc_drops;	/* the root qdisc's drops, their change */
	long long backlog;	/* frames the root qdisc still holds */
};

/*
 * 0 when the qdisc holds no frame, no frame met a stopped queue without a
 * qdisc, and every frame taken is read or counted as dropped; else 1, and
 * why ("stopped queue: ..." or "accounting: ...").
 */
int account_judge(const struct account_phase *p, char *why, size_t len);

/*
 * Sends n frames to tap dev and reads its fds empty; 0 when every frame
 * is accounted for (or the phase cannot run: the tap down or without a
 * carrier, "skipped" on stdout), 1 when the invariant failed or the
 * counters could not be read ("FAIL: " on stdout).
 */
int account_run(struct fz *st, int dev, unsigned int n);

#endif /* ACCOUNT_H */
