// SPDX-License-Identifier: GPL-2.0
/*
 * compare: every arm of a benchmark against a reference arm, paired by unit,
 * as a ratio of means with a bootstrap confidence interval and a verdict;
 * the A/A arm (the reference measured a second time) gives the noise floor.
 * The statistics layer every workload's tables use (lib/stats.sh).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootci.h"
#include "table.h"

struct opts {
	const char *ref, *aa, *metric, *file;
	int better;		/* +1: higher is better, -1: lower is, 0: not said */
	int unpaired;		/* units of different arms are not matched */
	unsigned int resamples;
	double level;
	double margin;		/* differences within +-margin (a fraction) are none */
	uint64_t seed;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: compare --ref ARM [options] [FILE]\n"
		"Reads UNIT,ARM,VALUE lines (FILE or standard input) and prints, per arm,\n"
		"the ratio of its mean to the reference arm's over the units measured in\n"
		"both, a percentile bootstrap confidence interval (units resampled), and a\n"
		"verdict. The A/A arm is the reference measured twice: its interval is the\n"
		"run's noise floor, printed on every row.\n"
		"  --ref ARM          the reference arm (required)\n"
		"  --aa ARM           the A/A arm (default: none)\n"
		"  --better DIR       lower or higher: which way is better (verdicts then\n"
		"                     say better/worse instead of lower/higher)\n"
		"  --metric NAME      the first column of every row (default: value)\n"
		"  --unpaired         the arms' units are independent (e.g. two runs): each\n"
		"                     arm's and the reference's units resampled apart, the\n"
		"                     ratio of their means over all their units\n"
		"  --margin PCT       a tolerance, 0-50 %% (default 0.01): an interval that\n"
		"                     excludes 1 but lies within 1/(1+PCT/100) to 1+PCT/100\n"
		"                     says no difference beyond it. For deterministic runs\n"
		"                     (virtual time), where repeats agree to the last digit\n"
		"                     and an A/A arm 0.0004 %% off reads as a difference; not\n"
		"                     a practical-equivalence bound (0.01 %% of a 96 %% drop\n"
		"                     rate is 0.25 %% of the frames delivered). 0: a verdict\n"
		"                     on any difference\n"
		"  --resamples N      bootstrap resamples, 100-1000000 (default 10000)\n"
		"  --level L          confidence level, 0.5-0.999 (default 0.95)\n"
		"  --seed N           the generator's seed (default 1)\n"
		"  -h, --help         this text\n"
		"Output (CSV): metric,arm,units,mean,ref_mean,ratio,ci_lo,ci_hi,"
		"detectable_pct,aa_ci_lo,aa_ci_hi,verdict\n"
		"  detectable_pct: the interval's half-width in %%: a smaller true difference\n"
		"  would most likely go undetected by this run.\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "ref", required_argument, NULL, 'r' },
		{ "aa", required_argument, NULL, 'a' },
		{ "better", required_argument, NULL, 'b' },
		{ "metric", required_argument, NULL, 'm' },
		{ "resamples", required_argument, NULL, 'n' },
		{ "level", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "margin", required_argument, NULL, 'g' },
		{ "unpaired", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	int c;

	*o = (struct opts){ .metric = "value", .resamples = 10000, .level = 0.95, .seed = 1,
			    .margin = 0.0001 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'r': o->ref = optarg; break;
		case 'a': o->aa = optarg; break;
		case 'm': o->metric = optarg; break;
		case 'b':
			if (!strcmp(optarg, "lower")) {
				o->better = -1;
			} else if (!strcmp(optarg, "higher")) {
				o->better = 1;
			} else {
				fprintf(stderr, "compare: --better must be lower or higher, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'n': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (errno || !*optarg || *end || *optarg == '-' || v < 100 || v > 1000000) {
				fprintf(stderr,
					"compare: --resamples must be an integer from 100 to 1000000, not '%s'\n",
					optarg);
				return -1;
			}
			o->resamples = (unsigned int)v;
			break;
		}
		case 'l':
			o->level = strtod(optarg, &end);
			if (errno || !*optarg || *end || !(o->level >= 0.5 && o->level <= 0.999)) {
				fprintf(stderr, "compare: --level must be a number from 0.5 to 0.999, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'g':
			o->margin = strtod(optarg, &end) / 100;
			if (errno || !*optarg || *end || !(o->margin >= 0 && o->margin <= 0.5)) {
				fprintf(stderr, "compare: --margin must be a number from 0 to 50, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			o->seed = strtoull(optarg, &end, 10);
			if (errno || !*optarg || *end || *optarg == '-') {
				fprintf(stderr, "compare: --seed must be a non-negative integer, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'u': o->unpaired = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "compare: unexpected argument '%s'\n", argv[optind + 1]);
		return -1;
	}
	o->file = optind < argc ? argv[optind] : NULL;
	if (!o->ref) {
		fprintf(stderr, "compare: --ref is required\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The units where arm and ref were both measured, as two arrays. */
static size_t paired(const struct table *t, int arm, int ref, double *a, double *r)
{
	size_t n = 0;

	for (size_t u = 0; u < t->nunits; u++) {
		double x = table_get(t, u, (size_t)arm), y = table_get(t, u, (size_t)ref);

		if (!isnan(x) && !isnan(y)) {
			a[n] = x;
			r[n++] = y;
		}
	}
	return n;
}

/* The units where arm was measured, as an array. */
static size_t column(const struct table *t, int arm, double *a)
{
	size_t n = 0;

	for (size_t u = 0; u < t->nunits; u++) {
		double x = table_get(t, u, (size_t)arm);

		if (!isnan(x))
			a[n++] = x;
	}
	return n;
}

static double mean(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

/*
 * arm against ref: paired, over the units both have (a, r: their values),
 * or unpaired, over all of each one's units. Means in *ma, *mr.
 */
static int ratio(const struct opts *o, const struct table *t, int arm, int ref, double *a,
		 double *r, struct ratio_ci *c, double *ma, double *mr)
{
	size_t n, na, nr;

	if (!o->unpaired) {
		n = paired(t, arm, ref, a, r);
		*ma = mean(a, n);
		*mr = mean(r, n);
		return bootci_ratio(a, r, n, o->resamples, o->level, o->seed, c);
	}
	na = column(t, arm, a);
	nr = column(t, ref, r);
	*ma = mean(a, na);
	*mr = mean(r, nr);
	return bootci_ratio_unpaired(a, na, r, nr, o->resamples, o->level, o->seed, c);
}

static const char *direction(enum verdict v, int better)
{
	if (v == VERDICT_HIGHER)
		return better > 0 ? "better" : better < 0 ? "worse" : "higher";
	return better < 0 ? "better" : better > 0 ? "worse" : "lower";
}

/*
 * An interval that excludes 1 but lies within the margin: a difference too
 * small to call (in virtual time the repeats can agree to 0.001 %). An
 * interval that reaches past the margin gets its verdict as before.
 */
static int within_margin(const struct opts *o, const struct ratio_ci *c, enum verdict v)
{
	return (v == VERDICT_HIGHER || v == VERDICT_LOWER) && o->margin > 0 &&
	       c->lo >= 1 / (1 + o->margin) && c->hi <= 1 + o->margin;
}

static void row(const struct opts *o, const char *arm, const struct ratio_ci *c,
		double ma, double mr, const struct ratio_ci *aa, int is_aa)
{
	enum verdict v = bootci_verdict(c), va = aa ? bootci_verdict(aa) : VERDICT_UNDEFINED;
	char verdict[200];
	int small = within_margin(o, c, v);

	if (aa && within_margin(o, aa, va))
		va = VERDICT_NONE;

	if (v == VERDICT_UNDEFINED)
		snprintf(verdict, sizeof(verdict), "%s",
			 c->units < BOOTCI_MIN_UNITS ?
			 (o->unpaired ? "undefined: fewer than 3 units" :
			  "undefined: fewer than 3 paired units") :
			 mr == 0 ? "undefined: the reference is 0" :
			 "undefined: the reference is 0 in too many resamples");
	else if (is_aa && small)
		snprintf(verdict, sizeof(verdict),
			 "A/A: no difference beyond %g %% (the noise floor)", 100 * o->margin);
	else if (is_aa)
		snprintf(verdict, sizeof(verdict), "%s",
			 v == VERDICT_NONE ? "A/A: no difference (the noise floor)" :
			 "A/A DIFFERS: the run cannot separate settings");
	else if (v == VERDICT_NONE)
		snprintf(verdict, sizeof(verdict), "no difference detected");
	else if (small)
		snprintf(verdict, sizeof(verdict), "no difference beyond %g %% (%s: within the margin)",
			 100 * o->margin, v == VERDICT_HIGHER ? "higher" : "lower");
	else
		snprintf(verdict, sizeof(verdict), "%s%s", direction(v, o->better),
			 aa && va != VERDICT_NONE && va != VERDICT_UNDEFINED ?
			 " (but A/A differs too: not trusted)" : "");
	/*
	 * Below 6 units the interval is the range of the units' own ratios:
	 * a verdict says every unit points the same way, which happens by
	 * chance 1 time in 2^(n-1) when nothing differs (1 in 4 at n = 3),
	 * not 1 in 20.
	 */
	if ((v == VERDICT_HIGHER || v == VERDICT_LOWER) && !small && c->units < BOOTCI_FULL_UNITS) {
		size_t len = strlen(verdict);

		snprintf(verdict + len, sizeof(verdict) - len,
			 " (indicative: %zu units all agree; by chance 1 time in %u)", c->units,
			 1u << (c->units - 1));
	}
	if (c->units)
		printf("%s,%s,%zu,%.6g,%.6g,", o->metric, arm, c->units, ma, mr);
	else
		printf("%s,%s,0,,,", o->metric, arm);
	if (isnan(c->ratio))
		printf(",,,,");
	else if (!c->defined)
		printf("%.4f,,,,", c->ratio);
	else
		printf("%.4f,%.4f,%.4f,%.2f,", c->ratio, c->lo, c->hi, 100 * (c->hi - c->lo) / 2);
	if (aa && aa->defined)
		printf("%.4f,%.4f,", aa->lo, aa->hi);
	else
		printf(",,");
	printf("%s\n", verdict);
}

int main(int argc, char **argv)
{
	struct ratio_ci aa_ci, c;
	struct table t;
	struct opts o;
	char err[512];
	double *a = NULL, *r = NULL, ma, mr;
	int ref, aa = -1, rc = 1;
	FILE *f = stdin;

	if (parse(argc, argv, &o))
		return 2;
	if (o.file && !(f = fopen(o.file, "r"))) {
		fprintf(stderr, "compare: %s: %s\n", o.file, strerror(errno));
		return 1;
	}
	if (table_read(f, o.file ? o.file : "<stdin>", &t, err, sizeof(err))) {
		fprintf(stderr, "compare: %s\n", err);
		goto out;
	}
	ref = table_arm(&t, o.ref);
	if (ref < 0) {
		fprintf(stderr, "compare: no arm '%s' (the reference) in the input\n", o.ref);
		goto out;
	}
	if (o.aa) {
		aa = table_arm(&t, o.aa);
		if (aa < 0 || aa == ref) {
			fprintf(stderr, "compare: no A/A arm '%s' in the input, or it is the reference\n",
				o.aa);
			goto out;
		}
	}
	a = malloc(sizeof(*a) * t.nunits);
	r = malloc(sizeof(*r) * t.nunits);
	if (!a || !r) {
		fprintf(stderr, "compare: out of memory\n");
		goto out;
	}
	if (aa >= 0 && ratio(&o, &t, aa, ref, a, r, &aa_ci, &ma, &mr)) {
		fprintf(stderr, "compare: bootstrap failed\n");
		goto out;
	}
	printf("metric,arm,units,mean,ref_mean,ratio,ci_lo,ci_hi,detectable_pct,aa_ci_lo,aa_ci_hi,verdict\n");
	for (size_t i = 0; i < t.narms; i++) {
		size_t n;

		if ((int)i == ref) {
			double m = 0;

			n = paired(&t, ref, ref, a, r);
			for (size_t k = 0; k < n; k++)
				m += r[k] / (double)n;
			printf("%s,%s,%zu,%.6g,%.6g,1,,,,", o.metric, t.arms[i], n, m, m);	/* n >= 1 */
			if (aa >= 0 && aa_ci.defined)
				printf("%.4f,%.4f,", aa_ci.lo, aa_ci.hi);
			else
				printf(",,");
			printf("reference\n");
			continue;
		}
		if (ratio(&o, &t, (int)i, ref, a, r, &c, &ma, &mr)) {
			fprintf(stderr, "compare: bootstrap failed\n");
			goto out;
		}
		row(&o, t.arms[i], &c, ma, mr, aa >= 0 ? &aa_ci : NULL, (int)i == aa);
	}
	rc = 0;
out:
	free(a);
	free(r);
	table_free(&t);
	if (f != stdin)
		fclose(f);
	return rc;
}
