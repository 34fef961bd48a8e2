// SPDX-License-Identifier: GPL-2.0
/*
 * stall_sched: prints a stall schedule for workload C's generator
 * ("<offset_ns> <len_ns>" lines, debugfs vdpa_sim_net/stalls).
 *
 *   stall_sched --seed S --duration-ns D --per-s R --dist none|exp:MEAN_NS|table:FILE
 *
 * exp:MEAN_NS: exponential lengths with that mean; table:FILE: lengths drawn
 * uniformly from FILE, one length in ns a line ('#' lines skipped), e.g. poll
 * gaps measured in a TCG guest. Stall times: a Poisson process of R per
 * second. The same arguments print the same schedule.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt_uint.h"
#include "sched.h"

#define PROG "stall_sched"
/* The kernel's limit on a schedule (VDPASIM_NET_GEN_STALLS_MAX). */
#define MAX_STALLS 65536
#define MAX_TABLE 65536

static uint64_t table[MAX_TABLE];

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --seed S --duration-ns D --per-s R"
		   " --dist none|exp:MEAN_NS|table:FILE\n");
}

static int read_table(const char *path, struct sched_spec *spec)
{
	char line[128];
	size_t n = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, PROG ": stall table %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		int whole = len && line[len - 1] == '\n';
		unsigned long long v;
		int c;

		if (line[0] == '#') {
			/* a comment longer than the buffer: skip the rest of it */
			while (!whole && (c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (line[0] == '\n')
			continue;
		if (!whole && !feof(f)) {
			fprintf(stderr, PROG ": stall table %s: a line too long\n", path);
			fclose(f);
			return -1;
		}
		line[strcspn(line, "\n")] = '\0';
		if (n == MAX_TABLE ||
		    opt_uint(PROG, "a stall table's length", line, 1, SCHED_MAX_LEN_NS, &v)) {
			fprintf(stderr, PROG ": stall table %s: bad or too many lines\n", path);
			fclose(f);
			return -1;
		}
		table[n++] = v;
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, PROG ": stall table %s is empty\n", path);
		return -1;
	}
	spec->table = table;
	spec->table_len = n;
	return 0;
}

static int parse_dist(const char *s, struct sched_spec *spec)
{
	unsigned long long v;

	if (!strcmp(s, "none")) {
		spec->dist = SCHED_NONE;
		return 0;
	}
	if (!strncmp(s, "exp:", 4)) {
		if (opt_uint(PROG, "--dist exp:MEAN_NS", s + 4, 1, SCHED_MAX_LEN_NS, &v))
			return -1;
		spec->dist = SCHED_EXP;
		spec->mean_ns = (double)v;
		return 0;
	}
	if (!strncmp(s, "table:", 6)) {
		spec->dist = SCHED_TABLE;
		return read_table(s + 6, spec);
	}
	fprintf(stderr, PROG ": unknown stall distribution '%s' (none, exp:MEAN_NS, table:FILE)\n", s);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "duration-ns", required_argument, NULL, 'd' },
		{ "per-s", required_argument, NULL, 'r' },
		{ "dist", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sched_spec spec = { .dist = SCHED_NONE };
	static struct stall out[MAX_STALLS];
	unsigned long long v;
	int c, have = 0;
	long n, i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (opt_uint(PROG, "--seed", optarg, 0, UINT64_MAX, &v))
				return 2;
			spec.seed = v;
			have |= 1;
			break;
		case 'd':
			if (opt_uint(PROG, "--duration-ns", optarg, 1, UINT64_MAX / 2, &v))
				return 2;
			spec.duration_ns = v;
			have |= 2;
			break;
		case 'r':
			if (opt_uint(PROG, "--per-s", optarg, 0, 1000000, &v))
				return 2;
			spec.per_s = (double)v;
			have |= 4;
			break;
		case 'D':
			if (parse_dist(optarg, &spec))
				return 2;
			have |= 8;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (have != 15 || optind != argc) {
		usage(stderr);
		return 2;
	}
	n = sched_make(&spec, out, MAX_STALLS);
	if (n < 0) {
		fprintf(stderr, PROG ": more than %d stalls: fewer per second or a shorter run\n",
			MAX_STALLS);
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%" PRIu64 " %" PRIu64 "\n", out[i].off, out[i].len);
	return 0;
}
