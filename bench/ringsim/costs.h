/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rx ring model's costs, from a guest: reads what stap/rx_costs.stp
 * printed (histograms of poll work per frames received, refill time per
 * buffers posted, the gaps before repolls and after interrupts), fits
 * the model's linear costs to each class's median and finds the stalls:
 * values far above their class's median. See calib.c for the command.
 */
#ifndef COSTS_H
#define COSTS_H

#include <stdint.h>
#include <stdio.h>

enum costs_what {
	W_WORK,		/* poll duration - its refill's, per frames received */
	W_REFILL,	/* refill duration, per buffers posted */
	W_REPOLL_GAP,	/* a budget-exhausting poll's end -> the next poll's start */
	W_IRQ_GAP,	/* skb_recv_done() -> the poll it scheduled */
	W_BACKLOG_IRQ,	/* used descriptors waiting at an interrupt's poll */
	W_BACKLOG_REPOLL,
	W_NR,
};

#define COSTS_CLASSES 24	/* 0, 1, 2-3, ... 2^22-(2^23-1) */
#define COSTS_BUCKETS 160	/* four per octave: values up to 2^40 */

struct costs_class {
	uint64_t n;		/* values in the class */
	uint64_t sum;		/* sum of the class variable over them */
	uint64_t count[COSTS_BUCKETS];
};

struct costs {
	int rxq;
	uint64_t polls, irq_polls, repolls, frames, refills, bufs, poll_ns, refill_ns;
	uint64_t other_refills, packed_polls, ring;
	double seconds;
	int have_summary;
	struct costs_class cls[W_NR][COSTS_CLASSES];
};

/* What one stall-finding pass counts. */
struct stall_opts {
	double factor;		/* a stall: value > factor x its class's median ... */
	double min_ns;		/* ... and more than min_ns above it */
};

struct calib {
	double poll_ns, frame_ns;	/* work = poll_ns + frame_ns x frames */
	double refill_ns, buf_ns;	/* refill = refill_ns + buf_ns x buffers */
	double repoll_ns;		/* median gap before a repoll */
	double irq_ns;			/* median interrupt -> poll */
	double busy_ns;			/* time the histograms cover (work, refills, gaps) */
	uint64_t stalls;		/* values found to be stalls */
	double stall_ns;		/* their mean excess over the class median */
	double stall_max_ns;
	double stalls_per_s;		/* stalls / busy time */
	double backlog_irq;		/* median used descriptors waiting at an interrupt's poll */
	uint64_t stall_hist[COSTS_BUCKETS];	/* the stalls' excess, in rx_costs' buckets */
};

/* Bucket b's bounds [lo, hi), as rx_costs.stp draws them. */
uint64_t costs_bucket_lo(int b);
uint64_t costs_bucket_hi(int b);

/* The bucket of value v (the inverse of the above). */
int costs_bucket(uint64_t v);

/*
 * Reads rx_costs output for queue rxq from f (other lines are skipped);
 * 0, or -1 with a message in err (malformed line, inconsistent bucket,
 * nothing for that queue).
 */
int costs_read(FILE *f, int rxq, struct costs *c, char *err, int errlen);

/* The median of a class's values (geometric interpolation in its bucket); -1 if empty. */
double costs_median(const struct costs_class *k);

/*
 * Fits the model's costs and finds the stalls; 0, or -1 with a message
 * (no polls, no refills: nothing to fit).
 */
int costs_fit(const struct costs *c, const struct stall_opts *o, struct calib *out, char *err,
	      int errlen);

#endif /* COSTS_H */
