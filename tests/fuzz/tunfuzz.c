// SPDX-License-Identifier: GPL-2.0
/*
 * tunfuzz: seeded sequences of operations on tun/tap devices and the state
 * around them (tx_queue_len, qdiscs, link state, IFF_BACKPRESSURE, queues
 * attached and detached, frames written, read and sent, network namespaces
 * torn down with frames queued, virtio_net's rx knobs and ring sizes,
 * vhost-net's rx batch and a tap as its rx backend, fed from a vring in
 * this process), with an accounting oracle (account.h). Runs in a
 * throwaway guest, as root.
 *
 * Every operation is printed ("op N: LINE") and flushed before it runs, so
 * that the log of a run the kernel killed ends at the operation that did
 * it; the lines after "op N: " replay its operations (--replay).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt_uint.h"
#include "ops.h"

static const char *prog = "tunfuzz";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tunfuzz [--nic IF] [--verbose] [--patched] [--known] --seed S --ops N\n"
		"               [--print-only]\n"
		"       tunfuzz [--nic IF] [--verbose] [--patched] [--known] --replay FILE\n"
		"               [--print-only]\n"
		"Runs N operations drawn from seed S, or those of FILE (one per line, as\n"
		"the log prints them after \"op N: \"; blank lines and # comments skipped),\n"
		"on taps fz0 and fz1 (deleted first and after). --nic IF: a virtio-net\n"
		"device whose rx-0 knobs and rings the knob, ring and channels operations\n"
		"change (without it they do nothing). --print-only: the log of seed S, or\n"
		"FILE's operations checked and printed as the log would, without running\n"
		"them. --verbose: each operation's answer too. --patched: the kernel carries\n"
		"the series: no IFF_BACKPRESSURE in TUNGETFEATURES, or no rx-batch ioctl,\n"
		"fails the run. --known: run the operations that reach a limitation the\n"
		"series lists as known (noqueue in place of a qdisc on a tap with\n"
		"IFF_BACKPRESSURE whose queue may be stopped: its qdisc or a ring holds\n"
		"frames, or no fd of it is attached); without it they are skipped, a\n"
		"\"  known: skipped\" line saying why.\n"
		"Exit: 0 every operation ran and every check held; 1 a check failed\n"
		"(\"FAIL: \" says which); 2 bad usage, an unreadable FILE or a log that\n"
		"could not be written.\n"
		"Operations (SLOT 0-%d, DEV 0-%d, booleans 0 or 1):\n",
		FZ_NSLOT - 1, FZ_NDEV - 1);
	op_usage(f);
}

/* Prints op i and runs it (unless print_only): op_run()'s result. */
static int step(struct fz *st, unsigned long i, const struct op *op, int print_only)
{
	char line[128];

	op_format(op, line, sizeof(line));
	printf("op %lu: %s\n", i, line);
	fflush(stdout);
	return print_only ? 0 : op_run(st, op);
}

static int run_seed(struct fz *st, unsigned long long seed, unsigned long long n, int print_only)
{
	struct rng g;
	struct op op;

	rng_seed(&g, seed);
	printf("seed %llu ops %llu\n", seed, n);
	for (unsigned long long i = 0; i < n; i++) {
		op_generate(&g, &op);
		if (step(st, (unsigned long)i, &op, print_only))
			return 1;
	}
	return 0;
}

static int run_file(struct fz *st, const char *path, int print_only)
{
	unsigned long i = 0, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct op op;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 2;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *p = line + strspn(line, " \t");

		lineno++;
		if (strlen(line) != (size_t)len) {
			fprintf(stderr, "%s: %s:%lu: a NUL byte in the line\n", prog, path, lineno);
			ret = 2;
			break;
		}
		/* a file written on another system: its CR goes with the newline */
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (*p == '#' || !*p)
			continue;
		if (op_parse(p, &op)) {
			fprintf(stderr, "%s: %s:%lu: not an operation: %s\n", prog, path, lineno, p);
			ret = 2;
			break;
		}
		if (step(st, i++, &op, print_only)) {
			ret = 1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		ret = 2;
	}
	free(line);
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "replay", required_argument, NULL, 'r' },
		{ "nic", required_argument, NULL, 'i' },
		{ "print-only", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "patched", no_argument, NULL, 'P' },
		{ "known", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long seed = 0, n = 0;
	const char *replay = NULL, *nic = NULL;
	int have_seed = 0, have_n = 0, print_only = 0, verbose = 0, patched = 0, known = 0, c, ret;
	struct fz st;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (opt_uint(prog, "--seed", optarg, 0, ~0ULL, &seed))
				return 2;
			have_seed = 1;
			break;
		case 'n':
			if (opt_uint(prog, "--ops", optarg, 1, 100000000, &n))
				return 2;
			have_n = 1;
			break;
		case 'r':
			if (replay) {
				fprintf(stderr, "%s: one --replay FILE\n", prog);
				return 2;
			}
			replay = optarg;
			break;
		case 'i':
			nic = optarg;
			break;
		case 'p':
			print_only = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'P':
			patched = 1;
			break;
		case 'k':
			known = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (replay ? have_seed || have_n : !have_seed || !have_n)) {
		fprintf(stderr, "%s: --seed and --ops, or --replay FILE (--help)\n", prog);
		return 2;
	}
	if (print_only) {
		ret = replay ? run_file(NULL, replay, 1) : run_seed(NULL, seed, n, 1);
		return fflush(stdout) || ferror(stdout) ? 2 : ret;
	}
	fz_init(&st, nic);
	st.verbose = verbose;
	st.patched = patched;
	st.known = known;
	ret = fz_check_kernel(&st);
	if (!ret)
		ret = replay ? run_file(&st, replay, 0) : run_seed(&st, seed, n, 0);
	fz_cleanup(&st);
	printf("tunfuzz: %s\n", ret == 0 ? "done" : ret == 1 ? "FAILED" : "error");
	/* the log is the result: one not written is an error */
	if (fflush(stdout) || ferror(stdout))
		return 2;
	return ret;
}
