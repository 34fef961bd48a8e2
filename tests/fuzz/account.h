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

#include <stdbool.h>
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
	long long ring;		/* the tap's tx_queue_len (its rings' size) */
	long long bp_ring;	/* > 0: the tap has IFF_BACKPRESSURE, its qdiscs all
				 * queue, its ring has this many entries (16 or
				 * more): no frame may drop at the ring */
};

/*
 * 0 when the qdisc holds no frame, no frame met a stopped queue without a
 * qdisc, every frame taken is read or counted as dropped, and with
 * bp_ring none is dropped at the ring (tx_dropped); else 1, and why
 * ("stopped queue: ...", "accounting: ..." or "backpressure: ...").
 */
int account_judge(const struct account_phase *p, char *why, size_t len);

/*
 * Sends n frames to tap dev and reads its fds empty; 0 when every frame
 * is accounted for (or the phase cannot run: the tap down or without a
 * carrier, "skipped" on stdout), 1 when the invariant failed or the
 * counters could not be read ("FAIL: " on stdout).
 */
int account_run(struct fz *st, int dev, unsigned int n);

/* Frames taken less those read or counted: > 0 when some are lost. */
long long account_shortfall(const struct account_phase *p);

/*
 * Stock vhost-net (without the accounting set) frees what it gives back
 * to a full ring without counting it, at most a batch (VHOST_NET_BATCH)
 * and at most a ring: whether p's judgement failed only by such a loss.
 */
#define STOCK_RX_BATCH 64
bool account_stock_unconsume(const struct account_phase *p);

/*
 * As account_run(), on the tap that is vhost-net's backend (the frames it
 * delivers read too): after the n frames vhost-net gets no buffer until
 * it is idle holding a batch, the tap's ring is refilled, and the backend
 * is removed: what vhost-net took and did not deliver goes back to a full
 * ring, and must be read or counted as dropped. On a stock kernel a loss
 * of at most a batch is reported ("stock: ") and passes. Skipped without
 * a backend.
 */
int account_vhost_run(struct fz *st, unsigned int n);

#endif /* ACCOUNT_H */
