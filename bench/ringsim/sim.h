/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of one virtio-net rx queue behind a backend that drops a frame
 * when the guest has posted no buffer (vhost-user / DPDK, workload B): a
 * paced source, a ring of descriptors, the guest's interrupt -> NAPI poll
 * (budget, cost per poll and per frame), the refill rule (rule.h) with its
 * cost per refill and per buffer, and guest stalls (periods in which the
 * vCPU runs nothing of ours: Poisson starts, exponential lengths). Time is
 * in ns; one buffer is one descriptor; the vCPU does one thing at a time.
 * A model, not a measurement: its costs come from the caller.
 *
 * Workload C's source (the vDPA simulator's generator, which runs on the
 * guest's own vCPU) is a variant: bursts of frames at jittered gaps, each
 * frame costing the guest src_ns in a hard interrupt (a poll or refill it
 * lands in takes that much longer), and a fixed stall schedule whose
 * stalls hold NAPI off but cannot preempt it (a stall due during a poll
 * begins when the poll ends), as the generator's stall thread does.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "rule.h"

struct sim_params {
	uint64_t rate_pps;	/* frames offered per second, evenly spaced */
	unsigned int ring;	/* descriptors */
	unsigned int budget;	/* NAPI budget (weight) */
	struct refill_rule rule;
	uint64_t irq_ns;	/* a used buffer with interrupts on -> poll start */
	uint64_t poll_ns;	/* fixed cost of a poll */
	uint64_t frame_ns;	/* cost of one frame harvested */
	uint64_t refill_ns;	/* fixed cost of a refill (the kick) */
	uint64_t buf_ns;	/* cost of one buffer posted */
	double stalls_per_s;	/* mean guest stalls per second; 0: none */
	double stall_ns;	/* mean stall length (exponential) ... */
	/* ... or, when stall_lens > 0, lengths drawn from these: stall_len_ns[i]
	 * with weight stall_len_w[i] (a measured histogram: calib's stall_len)
	 */
	unsigned int stall_lens;
	const double *stall_len_ns;
	const double *stall_len_w;
	uint64_t duration_ns;	/* the source offers frames for this long ... */
	uint64_t frames;	/* ... or, when not 0, exactly this many */
	/* bursts of this many frames (1: frames evenly spaced), every
	 * burst / rate_pps s, each gap uniform within +-jitter_pct % of that
	 */
	unsigned int burst;
	unsigned int jitter_pct;
	/* true: each burst within +-jitter_pct/2 % of a mean gap from its slot
	 * on a fixed grid (no drift); false: the gaps' jitter accumulates
	 */
	bool anchored;
	uint64_t src_ns;	/* guest time the source takes per frame offered */
	/* a stall schedule in place of Poisson stalls (stalls_per_s 0): stall
	 * i due at sched_at[i] ns (ascending), for sched_len[i] ns; only while
	 * the source has frames to offer
	 */
	unsigned int sched_n;
	const uint64_t *sched_at, *sched_len;
	uint64_t seed;
};

struct sim_result {
	uint64_t offered, delivered, dropped;
	uint64_t pending;	/* used, not harvested when the run ended */
	uint64_t polls, starved_polls, starvations;
	uint64_t refills, refill_bufs, max_refill_ns;
	uint64_t stalls, stall_ns;
	uint64_t max_held;	/* most buffers posted and not yet harvested */
	uint64_t violations;	/* broken ring invariants: 0 unless the model is wrong */
	uint64_t last_burst_ns;	/* when the last burst came (the generator's elapsed_ns) */
};

/* Sets the defaults (a 256-entry ring, budget 64, auto, costs of a fast guest). */
void sim_defaults(struct sim_params *p);

/* Checks p; 0, or -1 with a message in err. */
int sim_check(const struct sim_params *p, char *err, int errlen);

/* Runs the model; 0, or -1 if sim_check() refuses p. */
int sim_run(const struct sim_params *p, struct sim_result *r);

#endif /* SIM_H */
