// SPDX-License-Identifier: GPL-2.0
/*
 * ringsim: runs the rx ring model (sim.h) once and prints its totals, for
 * comparing refill rules where a TCG guest cannot show the outcome. A
 * model: its costs and stalls are what you give it.
 *
 * Output: one line, "ringsim: key=value ...".
 * Exit: 0; 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ringsim [options]\n"
		"A model of one virtio-net rx queue behind a backend that drops frames when\n"
		"the guest posted no buffer; prints offered/delivered/dropped, polls,\n"
		"starvation and refill counts.\n"
		"  --rate PPS         frames offered per second, evenly spaced (default 100000)\n"
		"  --ring N           descriptors, 2-32768 (default 256)\n"
		"  --budget N         NAPI budget, 1-65536 (default 64)\n"
		"  --rule R           auto, legacy, adaptive, adaptive-dry or 0-64:\n"
		"                     min_numfree (default auto; adaptive: legacy after a\n"
		"                     poll that used its budget, auto after one that\n"
		"                     drained; adaptive-dry: auto also after a busy poll\n"
		"                     that began with the device holding no buffer)\n"
		"  --refill-max N     benchmark-only bound of a busy refill, 0-32768 (default 0)\n"
		"  --irq-ns N         interrupt to poll start (default 5000)\n"
		"  --poll-ns N        fixed cost of a poll (default 1000)\n"
		"  --frame-ns N       cost of a frame (default 500)\n"
		"  --refill-ns N      fixed cost of a refill (default 1000)\n"
		"  --buf-ns N         cost of a buffer posted (default 200)\n"
		"  --stalls-per-s X   mean guest stalls per second (default 0)\n"
		"  --stall-ns N       mean stall length (default 0), exponential; or\n"
		"  --stall-hist FILE  stall lengths drawn from calib's \"stall_len lo=L hi=H\n"
		"                     count=C\" lines in FILE (each bucket's geometric middle)\n"
		"  --duration-ms N    how long the source sends (default 1000)\n"
		"  --seed N           (default 1)\n"
		"Workload C's source (bench/vdpa_gen: the device runs on the guest's vCPU):\n"
		"  --frames N         offer exactly N frames (in place of --duration-ms)\n"
		"  --burst N          frames a burst, every N / PPS s, 1-32768 (default 1)\n"
		"  --jitter P         each gap uniform within +-P %% of that, 0-100 (default 0)\n"
		"  --pacing MODE      drift: as --jitter says, each gap drawn anew; anchored:\n"
		"                     each burst within +-P/2 %% of a gap from its slot on a\n"
		"                     fixed grid (the generator's anchored=1) (default drift)\n"
		"  --src-ns N         guest time the source takes per frame (default 0)\n"
		"  --stall-file FILE  a stall schedule (\"<offset_ns> <len_ns>\" lines, as\n"
		"                     stall_sched writes): stalls hold NAPI off from their\n"
		"                     time or the end of the poll running then\n"
		"  -h, --help         this text\n");
}

static int num(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || *s == ' ' || *out < lo || *out > hi) {
		fprintf(stderr, "ringsim: %s must be an integer from %" PRIu64 " to %" PRIu64
			", not '%s'\n", opt, lo, hi, s);
		return -1;
	}
	return 0;
}

static int real(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || *s == ' ' || !(*out >= lo && *out <= hi)) {
		fprintf(stderr, "ringsim: %s must be a number from %g to %g, not '%s'\n", opt, lo,
			hi, s);
		return -1;
	}
	return 0;
}

#define MAX_SCHED 65536
static uint64_t sched_at[MAX_SCHED], sched_len[MAX_SCHED];

/* --stall-file FILE: "<offset_ns> <len_ns>" lines; '#' lines are comments. */
static int read_sched(const char *path, struct sim_params *p)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned int n = 0, ln = 0;

	if (!f) {
		fprintf(stderr, "ringsim: --stall-file %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t at, len;
		char extra;

		ln++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %c", &at, &len, &extra) != 2 ||
		    line[0] == '-' || n == MAX_SCHED || (n && at < sched_at[n - 1])) {
			fprintf(stderr, "ringsim: --stall-file %s: line %u: not \"<offset_ns> <len_ns>\","
				" ascending, at most %d lines\n", path, ln, MAX_SCHED);
			fclose(f);
			return -1;
		}
		sched_at[n] = at;
		sched_len[n++] = len;
	}
	fclose(f);
	p->sched_n = n;
	p->sched_at = sched_at;
	p->sched_len = sched_len;
	return 0;
}

#define MAX_STALL_LENS 256
static double stall_len_ns[MAX_STALL_LENS], stall_len_w[MAX_STALL_LENS];

/* --stall-hist FILE: calib's "stall_len lo=L hi=H count=C" lines. */
static int read_stall_hist(const char *path, struct sim_params *p)
{
	FILE *f = fopen(path, "r");
	char line[512];
	unsigned int n = 0;

	if (!f) {
		fprintf(stderr, "ringsim: --stall-hist %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "stall_len ");
		double lo, hi, count;

		if (!t)
			continue;
		if (sscanf(t, "stall_len lo=%lf hi=%lf count=%lf", &lo, &hi, &count) != 3 ||
		    !(lo >= 0 && hi > lo && hi <= 1e10 && count >= 0) || n == MAX_STALL_LENS) {
			fprintf(stderr, "ringsim: --stall-hist %s: bad or too many stall_len lines: %s",
				path, line);
			fclose(f);
			return -1;
		}
		stall_len_ns[n] = lo > 0 ? sqrt(lo * hi) : hi / 2;
		stall_len_w[n++] = count;
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "ringsim: --stall-hist %s: no stall_len lines\n", path);
		return -1;
	}
	p->stall_lens = n;
	p->stall_len_ns = stall_len_ns;
	p->stall_len_w = stall_len_w;
	return 0;
}

static int parse(int argc, char **argv, struct sim_params *p)
{
	static const struct option opts[] = {
		{ "rate", required_argument, 0, 'r' },
		{ "ring", required_argument, 0, 'n' },
		{ "budget", required_argument, 0, 'b' },
		{ "rule", required_argument, 0, 'u' },
		{ "refill-max", required_argument, 0, 'm' },
		{ "irq-ns", required_argument, 0, 'i' },
		{ "poll-ns", required_argument, 0, 'p' },
		{ "frame-ns", required_argument, 0, 'f' },
		{ "refill-ns", required_argument, 0, 'R' },
		{ "buf-ns", required_argument, 0, 'B' },
		{ "stalls-per-s", required_argument, 0, 's' },
		{ "stall-ns", required_argument, 0, 'S' },
		{ "stall-hist", required_argument, 0, 'H' },
		{ "duration-ms", required_argument, 0, 'd' },
		{ "seed", required_argument, 0, 'e' },
		{ "frames", required_argument, 0, 'F' },
		{ "burst", required_argument, 0, 'k' },
		{ "jitter", required_argument, 0, 'j' },
		{ "pacing", required_argument, 0, 'P' },
		{ "src-ns", required_argument, 0, 'c' },
		{ "stall-file", required_argument, 0, 'T' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	uint64_t v, max_max = 32768;
	unsigned int refill_max = 0;
	const uint64_t sec = 1000000000ULL;
	int c, bad = 0;

	sim_defaults(p);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': bad |= num("--rate", optarg, 1, sec, &p->rate_pps); break;
		case 'n': bad |= num("--ring", optarg, 2, 32768, &v); p->ring = v; break;
		case 'b': bad |= num("--budget", optarg, 1, 65536, &v); p->budget = v; break;
		case 'u':
			if (rule_parse(optarg, &p->rule)) {
				fprintf(stderr, "ringsim: --rule must be auto, legacy, adaptive, adaptive-dry or 0-64, not '%s'\n",
					optarg);
				bad = -1;
			}
			break;
		case 'm': bad |= num("--refill-max", optarg, 0, max_max, &v); refill_max = v; break;
		case 'i': bad |= num("--irq-ns", optarg, 0, sec, &p->irq_ns); break;
		case 'p': bad |= num("--poll-ns", optarg, 0, sec, &p->poll_ns); break;
		case 'f': bad |= num("--frame-ns", optarg, 0, sec, &p->frame_ns); break;
		case 'R': bad |= num("--refill-ns", optarg, 0, sec, &p->refill_ns); break;
		case 'B': bad |= num("--buf-ns", optarg, 0, sec, &p->buf_ns); break;
		case 's': bad |= real("--stalls-per-s", optarg, 0, 1e6, &p->stalls_per_s); break;
		case 'S': bad |= real("--stall-ns", optarg, 0, 1e10, &p->stall_ns); break;
		case 'H': bad |= read_stall_hist(optarg, p); break;
		case 'd':
			bad |= num("--duration-ms", optarg, 1, 3600000, &v);
			p->duration_ns = v * 1000000;
			break;
		case 'e': bad |= num("--seed", optarg, 0, UINT64_MAX, &p->seed); break;
		case 'F': bad |= num("--frames", optarg, 1, 10000000000ULL, &p->frames); break;
		case 'k': bad |= num("--burst", optarg, 1, 32768, &v); p->burst = v; break;
		case 'j': bad |= num("--jitter", optarg, 0, 100, &v); p->jitter_pct = v; break;
		case 'P':
			if (!strcmp(optarg, "anchored")) {
				p->anchored = true;
			} else if (!strcmp(optarg, "drift")) {
				p->anchored = false;
			} else {
				fprintf(stderr, "ringsim: --pacing must be anchored or drift, not '%s'\n",
					optarg);
				bad = -1;
			}
			break;
		case 'c': bad |= num("--src-ns", optarg, 0, sec, &p->src_ns); break;
		case 'T': bad |= read_sched(optarg, p); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ringsim: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	p->rule.refill_max = refill_max;
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sim_params p;
	struct sim_result r;
	char err[160], rule[32];

	if (parse(argc, argv, &p))
		return 2;
	if (sim_check(&p, err, sizeof(err))) {
		fprintf(stderr, "ringsim: %s\n", err);
		return 2;
	}
	sim_run(&p, &r);
	rule_name(&p.rule, rule, sizeof(rule));
	printf("ringsim: rule=%s ring=%u budget=%u rate_pps=%" PRIu64 " offered=%" PRIu64
	       " delivered=%" PRIu64 " dropped=%" PRIu64 " pending=%" PRIu64 " polls=%" PRIu64
	       " starved_polls=%" PRIu64 " starvations=%" PRIu64 " refills=%" PRIu64
	       " refill_bufs=%" PRIu64 " max_refill_ns=%" PRIu64 " stalls=%" PRIu64
	       " stall_ns=%" PRIu64 " max_held=%" PRIu64 " violations=%" PRIu64 " last_burst_ns=%" PRIu64 "\n",
	       rule, p.ring, p.budget, p.rate_pps, r.offered, r.delivered, r.dropped, r.pending,
	       r.polls, r.starved_polls, r.starvations, r.refills, r.refill_bufs, r.max_refill_ns,
	       r.stalls, r.stall_ns, r.max_held, r.violations, r.last_burst_ns);
	return 0;
}
