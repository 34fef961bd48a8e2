/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The refill rules of virtio_net's rx path, as the series' kernels apply
 * them (virtnet_refill_threshold(), and the benchmark-only refill_max of
 * virtnet_refill_limit()): one place, so that the model refills exactly as
 * the kernel does.
 */
#ifndef RULE_H
#define RULE_H

#include <stdbool.h>

enum rule_kind {
	RULE_AUTO,	/* min(budget, ring) / 2: Linux 5.3 to today */
	RULE_LEGACY,	/* ring / 2: before 5.3 */
	RULE_FIXED,	/* min(n, ring / 2): min_numfree = n */
	RULE_ADAPTIVE,	/* legacy after a busy poll, auto after one that drained */
	RULE_ADAPTIVE_DRY, /* adaptive, but auto after a poll that began dry */
};

struct refill_rule {
	enum rule_kind kind;
	unsigned int n;			/* RULE_FIXED's threshold */
	unsigned int refill_max;	/* 0: a refill fills the ring */
};

/*
 * "auto", "legacy", "adaptive", "adaptive-dry" or 0-64 (the default NAPI
 * weight); 0 or -1.
 */
int rule_parse(const char *s, struct refill_rule *r);

/*
 * Free descriptors above which a poll that received @received frames (of
 * @budget) refills; @dry: the poll began with the device holding no
 * buffer. RULE_ADAPTIVE: after a poll that used its whole budget (NAPI
 * polls again) once more than half the ring is free, as legacy (batches of
 * ring / 2 + 1 up to ring / 2 + budget); after one under its budget (NAPI
 * completes) as auto, so that the ring is nearly full when the queue next
 * wakes. RULE_ADAPTIVE_DRY: as adaptive, but as auto also after a busy
 * poll that began dry (the device is dropping: give it buffers now).
 * Budget 0 (netpoll) decides as auto. Stateless: decided by this poll
 * alone, as bench/0006 and 0007 do in the kernel.
 */
unsigned int rule_threshold(const struct refill_rule *r, unsigned int budget, unsigned int ring,
			    unsigned int received, bool dry);

/*
 * Most descriptors one refill posts, after a poll that received
 * @received frames (of @budget) and took @taken descriptors.
 */
unsigned int rule_limit(const struct refill_rule *r, unsigned int budget,
			unsigned int received, unsigned int taken);

/* The rule as the knobs spell it, e.g. "auto", "16", "legacy+max64". */
void rule_name(const struct refill_rule *r, char *buf, int len);

#endif /* RULE_H */
