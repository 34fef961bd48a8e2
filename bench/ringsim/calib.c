// SPDX-License-Identifier: GPL-2.0
/*
 * calib: the rx ring model's parameters from a guest's rx_costs probe
 * output (stap/rx_costs.stp): the fitted costs, the stalls, and the
 * ringsim options that use them. See costs.h for how they are found.
 *
 * With --totals: one "calib: totals ..." line, what the probe counted and
 * timed (no fit; for a short trial that has too little to fit).
 * Output: "calib: class ..." lines (per measured class: values, mean class
 * variable, median, the fit's value), one "calib: rxq=Q ..." line, the
 * stalls' lengths ("calib: stall_len lo=L hi=H count=C": how many stalls
 * exceeded their class's median by L to H ns; ringsim --stall-hist reads
 * them) and "ringsim_args: ..." (the model's options).
 * Exit: 0; 1 the input has nothing to fit; 2 bad usage or input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: calib [options] FILE\n"
		"Fits the rx ring model's costs to what stap/rx_costs.stp printed in FILE\n"
		"(- for standard input) and finds the guest's stalls.\n"
		"  --rxq N            the rx queue (default 0)\n"
		"  --stall-factor X   a stall: a value above X times its class's median\n"
		"                     (default 4, 1.5-1000) ...\n"
		"  --stall-min-ns N   ... and more than N ns above it (default 20000)\n"
		"  --totals           print only the probe's counts and summed times\n"
		"                     (\"calib: totals ...\"), no fit\n"
		"  -h, --help         this text\n");
}

static int number(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *s == ' ' || !(*out >= lo && *out <= hi)) {
		fprintf(stderr, "calib: %s must be a number from %g to %g, not '%s'\n", opt, lo, hi,
			s);
		return -1;
	}
	return 0;
}

static const char *const names[W_NR] = { "work", "refill", "repoll_gap", "irq_gap",
					  "backlog_irq", "backlog_repoll" };

static void print_classes(const struct costs *c, const struct calib *k)
{
	for (int w = 0; w < W_NR; w++)
		for (int i = 0; i < COSTS_CLASSES; i++) {
			const struct costs_class *cl = &c->cls[w][i];
			uint64_t n = 0;
			double x, fit = -1;

			for (int b = 0; b < COSTS_BUCKETS; b++)
				n += cl->count[b];
			if (!n)
				continue;
			x = (double)cl->sum / (double)n;
			if (w == W_WORK)
				fit = k->poll_ns + k->frame_ns * x;
			else if (w == W_REFILL)
				fit = k->refill_ns + k->buf_ns * x;
			printf("calib: class what=%s x_mean=%.1f n=%" PRIu64 " median=%.0f fit=%.0f\n",
			       names[w], x, n, costs_median(cl), fit);
		}
}

/* what the probe counted and timed: sums over the whole output */
static void print_totals(const struct costs *c)
{
	printf("calib: totals rxq=%d ring=%" PRIu64 " polls=%" PRIu64 " irq_polls=%" PRIu64
	       " repolls=%" PRIu64 " frames=%" PRIu64 " refills=%" PRIu64 " bufs=%" PRIu64
	       " poll_ns=%" PRIu64 " refill_ns=%" PRIu64 " other_refills=%" PRIu64
	       " packed_polls=%" PRIu64 " seconds=%.3f\n",
	       c->rxq, c->ring, c->polls, c->irq_polls, c->repolls, c->frames, c->refills, c->bufs,
	       c->poll_ns, c->refill_ns, c->other_refills, c->packed_polls, c->seconds);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rxq", required_argument, 0, 'q' },
		{ "stall-factor", required_argument, 0, 'f' },
		{ "stall-min-ns", required_argument, 0, 'm' },
		{ "totals", no_argument, 0, 't' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct stall_opts so = { .factor = 4, .min_ns = 20000 };
	struct costs *c;
	struct calib k;
	char err[200];
	double rxq = 0, poll_ns;
	int ch, bad = 0, totals = 0;
	FILE *f;

	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'q': bad |= number("--rxq", optarg, 0, 1023, &rxq); break;
		case 'f': bad |= number("--stall-factor", optarg, 1.5, 1000, &so.factor); break;
		case 'm': bad |= number("--stall-min-ns", optarg, 0, 1e10, &so.min_ns); break;
		case 't': totals = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (bad)
		return 2;
	if (rxq != (int)rxq) {
		fprintf(stderr, "calib: --rxq must be a whole number\n");
		return 2;
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	f = strcmp(argv[optind], "-") ? fopen(argv[optind], "r") : stdin;
	if (!f) {
		fprintf(stderr, "calib: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	c = malloc(sizeof(*c));
	if (!c) {
		fprintf(stderr, "calib: out of memory\n");
		return 2;
	}
	if (costs_read(f, (int)rxq, c, err, sizeof(err))) {
		fprintf(stderr, "calib: %s: %s\n", argv[optind], err);
		free(c);
		return 2;
	}
	if (f != stdin)
		fclose(f);
	if (totals) {
		print_totals(c);
		free(c);
		return 0;
	}
	if (costs_fit(c, &so, &k, err, sizeof(err))) {
		fprintf(stderr, "calib: %s: %s\n", argv[optind], err);
		free(c);
		return 1;
	}
	print_classes(c, &k);
	/* a repoll's gap is part of the model's fixed cost of a poll */
	poll_ns = k.poll_ns + (c->polls ? k.repoll_ns * (double)c->repolls / (double)c->polls : 0);
	printf("calib: rxq=%d ring=%" PRIu64 " polls=%" PRIu64 " repolls=%" PRIu64
	       " frames=%" PRIu64 " refills=%" PRIu64 " bufs=%" PRIu64 " other_refills=%" PRIu64
	       " packed_polls=%" PRIu64 " seconds=%.3f poll_ns=%.0f frame_ns=%.0f refill_ns=%.0f"
	       " buf_ns=%.0f repoll_ns=%.0f irq_ns=%.0f busy_s=%.3f stalls=%" PRIu64
	       " stall_ns=%.0f stall_max_ns=%.0f stalls_per_s=%.2f backlog_irq=%.1f"
	       " stall_factor=%g stall_min_ns=%.0f\n",
	       c->rxq, c->ring, c->polls, c->repolls, c->frames, c->refills, c->bufs,
	       c->other_refills, c->packed_polls, c->seconds, k.poll_ns, k.frame_ns, k.refill_ns,
	       k.buf_ns, k.repoll_ns, k.irq_ns, k.busy_ns / 1e9, k.stalls, k.stall_ns,
	       k.stall_max_ns, k.stalls_per_s, k.backlog_irq, so.factor, so.min_ns);
	/* the stalls' lengths, for ringsim --stall-hist */
	for (int b = 0; b < COSTS_BUCKETS; b++)
		if (k.stall_hist[b])
			printf("calib: stall_len lo=%" PRIu64 " hi=%" PRIu64 " count=%" PRIu64 "\n",
			       costs_bucket_lo(b), costs_bucket_hi(b), k.stall_hist[b]);
	printf("ringsim_args: --poll-ns %.0f --frame-ns %.0f --refill-ns %.0f --buf-ns %.0f"
	       " --irq-ns %.0f --stalls-per-s %.4f --stall-ns %.0f\n",
	       poll_ns, k.frame_ns, k.refill_ns, k.buf_ns, k.irq_ns, k.stalls_per_s, k.stall_ns);
	free(c);
	return 0;
}
