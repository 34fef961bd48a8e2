// SPDX-License-Identifier: GPL-2.0
#include "costs.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const what_names[W_NR] = {
	[W_WORK] = "work",
	[W_REFILL] = "refill",
	[W_REPOLL_GAP] = "repoll_gap",
	[W_IRQ_GAP] = "irq_gap",
	[W_BACKLOG_IRQ] = "backlog_irq",
	[W_BACKLOG_REPOLL] = "backlog_repoll",
};

uint64_t costs_bucket_lo(int b)
{
	return b < 4 ? (uint64_t)b : (uint64_t)(4 + b % 4) << (b / 4 - 1);
}

uint64_t costs_bucket_hi(int b)
{
	return b < 4 ? (uint64_t)b + 1 : (uint64_t)(5 + b % 4) << (b / 4 - 1);
}

int costs_bucket(uint64_t v)
{
	int m = 63 - __builtin_clzll(v | 1);
	int b;

	if (v < 4)
		return (int)v;
	b = 4 * (m - 1) + (int)((v >> (m - 2)) & 3);
	return b < COSTS_BUCKETS ? b : COSTS_BUCKETS - 1;
}

/* A bucket's typical value: its lower bound for the exact ones, else the geometric middle. */
static double bucket_mid(int b)
{
	return b < 4 ? (double)b : sqrt((double)costs_bucket_lo(b) * (double)costs_bucket_hi(b));
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Fields "key=value" of one line; the value of key, or NULL. */
static const char *field(char *const *keys, char *const *vals, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return vals[i];
	return NULL;
}

#define MAX_FIELDS 24

static int split(char *line, char **keys, char **vals)
{
	int n = 0;

	for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n")) {
		char *eq = strchr(tok, '=');

		if (!eq || n == MAX_FIELDS)
			continue;
		*eq = 0;
		keys[n] = tok;
		vals[n++] = eq + 1;
	}
	return n;
}

static int get(char *const *k, char *const *v, int n, const char *key, uint64_t *out)
{
	const char *s = field(k, v, n, key);

	return s ? parse_u64(s, out) : -1;
}

/* The histogram of what w, class cls_lo-cls_hi, bucket lo-hi: NULL and why if none. */
static uint64_t *hist_slot(struct costs *c, const char *w, uint64_t clo, uint64_t chi,
			   uint64_t lo, uint64_t hi, struct costs_class **cl, char *why, int len)
{
	int wi, ci, b;

	for (wi = 0; wi < W_NR && strcmp(w, what_names[wi]); wi++)
		;
	if (wi == W_NR) {
		snprintf(why, len, "unknown what=%s", w);
		return NULL;
	}
	ci = clo ? 64 - __builtin_clzll(clo) : 0;
	if ((clo && (clo & (clo - 1))) || ci >= COSTS_CLASSES || chi != (clo ? 2 * clo : 1)) {
		snprintf(why, len, "class %" PRIu64 "-%" PRIu64 " is not a power-of-two class", clo,
			 chi);
		return NULL;
	}
	*cl = &c->cls[wi][ci];
	if (lo == UINT64_MAX)
		return &(*cl)->n;
	b = costs_bucket(lo);
	if (costs_bucket_lo(b) != lo || costs_bucket_hi(b) != hi) {
		snprintf(why, len, "bucket %" PRIu64 "-%" PRIu64 " is not one of rx_costs' buckets",
			 lo, hi);
		return NULL;
	}
	return &(*cl)->count[b];
}

static int read_hist(struct costs *c, char **k, char **v, int n, char *why, int len)
{
	uint64_t q, clo, chi, cn, csum, lo, hi, count;
	const char *w = field(k, v, n, "what");
	struct costs_class *cl;
	uint64_t *slot;

	if (get(k, v, n, "rxq", &q) || !w || get(k, v, n, "cls_lo", &clo) ||
	    get(k, v, n, "cls_hi", &chi) || get(k, v, n, "cls_n", &cn) ||
	    get(k, v, n, "cls_sum", &csum) || get(k, v, n, "lo", &lo) || get(k, v, n, "hi", &hi) ||
	    get(k, v, n, "count", &count)) {
		snprintf(why, len, "a hist line without one of rxq what cls_lo cls_hi cls_n cls_sum lo hi count");
		return -1;
	}
	if (q != (uint64_t)c->rxq)
		return 0;
	slot = hist_slot(c, w, clo, chi, lo, hi, &cl, why, len);
	if (!slot)
		return -1;
	cl->n = cn;
	cl->sum = csum;
	*slot += count;
	return 1;
}

static int read_summary(struct costs *c, char **k, char **v, int n, char *why, int len)
{
	struct {
		const char *key;
		uint64_t *to;
	} keys[] = {
		{ "polls", &c->polls },		{ "irq_polls", &c->irq_polls },
		{ "repolls", &c->repolls },	{ "frames", &c->frames },
		{ "refills", &c->refills },	{ "bufs", &c->bufs },
		{ "poll_ns", &c->poll_ns },	{ "refill_ns", &c->refill_ns },
		{ "other_refills", &c->other_refills }, { "packed_polls", &c->packed_polls },
		{ "ring", &c->ring },
	};
	const char *secs = field(k, v, n, "seconds");
	uint64_t q;
	char *end;

	if (get(k, v, n, "rxq", &q)) {
		snprintf(why, len, "a summary line without rxq");
		return -1;
	}
	if (q != (uint64_t)c->rxq)
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (get(k, v, n, keys[i].key, keys[i].to)) {
			snprintf(why, len, "a summary line without %s", keys[i].key);
			return -1;
		}
	if (!secs || (c->seconds = strtod(secs, &end), *end) || c->seconds < 0) {
		snprintf(why, len, "a summary line without seconds");
		return -1;
	}
	c->have_summary = 1;
	return 1;
}

/*
 * One map line of the bpftrace twin: "@NAME[KEY, ...]: VALUE" or
 * "@NAME: VALUE"; 1 used, 0 not ours, -1 malformed.
 */
static int read_map(struct costs *c, char *line, char *why, int len)
{
	static const struct {
		const char *name;
		size_t off;
	} scalars[] = {
		{ "polls", offsetof(struct costs, polls) },
		{ "irq_polls", offsetof(struct costs, irq_polls) },
		{ "repolls", offsetof(struct costs, repolls) },
		{ "frames", offsetof(struct costs, frames) },
		{ "refills", offsetof(struct costs, refills) },
		{ "bufs", offsetof(struct costs, bufs) },
		{ "poll_ns", offsetof(struct costs, poll_ns) },
		{ "refill_ns", offsetof(struct costs, refill_ns) },
		{ "other_refills", offsetof(struct costs, other_refills) },
		{ "packed_polls", offsetof(struct costs, packed_polls) },
		{ "ring", offsetof(struct costs, ring) },
	};
	char *name = line + 1, *keys = NULL, *val, *key[6];
	uint64_t u[6], value, *slot;
	struct costs_class *cl;
	int nk = 0;

	val = strstr(name, ": ");
	if (!val)
		return 0;
	*val = 0;
	val += 2;
	val[strcspn(val, "\n")] = 0;
	if (strchr(name, '[')) {
		keys = strchr(name, '[');
		*keys++ = 0;
		if (!*keys || keys[strlen(keys) - 1] != ']')
			goto bad;
		keys[strlen(keys) - 1] = 0;
		for (char *t = strtok(keys, ", "); t && nk < 6; t = strtok(NULL, ", "))
			key[nk++] = t;
	}
	if (parse_u64(val, &value))
		goto bad;
	if (!strcmp(name, "seconds_ms") && !nk) {
		c->seconds = (double)value / 1000;
		return 1;
	}
	for (int i = 0; i < nk; i++)
		u[i] = parse_u64(key[i], &u[i]) ? UINT64_MAX - 1 : u[i];
	if (!nk || u[0] == UINT64_MAX - 1)
		return 0;
	if (u[0] != (uint64_t)c->rxq)
		return 1;
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!strcmp(name, scalars[i].name) && nk == 1) {
			*(uint64_t *)((char *)c + scalars[i].off) = value;
			c->have_summary |= !strcmp(name, "polls");
			return 1;
		}
	/* @h[RXQ, CLS_LO, LO, HI, WHAT], @cls_n / @cls_sum[RXQ, CLS_LO, WHAT] */
	if (!strcmp(name, "h") && nk == 5 && u[1] != UINT64_MAX - 1 && u[2] != UINT64_MAX - 1 &&
	    u[3] != UINT64_MAX - 1) {
		slot = hist_slot(c, key[4], u[1], u[1] ? 2 * u[1] : 1, u[2], u[3], &cl, why, len);
		if (!slot)
			return -1;
		*slot += value;
		return 2;
	}
	if ((!strcmp(name, "cls_n") || !strcmp(name, "cls_sum")) && nk == 3 &&
	    u[1] != UINT64_MAX - 1) {
		if (!hist_slot(c, key[2], u[1], u[1] ? 2 * u[1] : 1, UINT64_MAX, 0, &cl, why, len))
			return -1;
		*(name[4] == 'n' ? &cl->n : &cl->sum) = value;
		return 1;
	}
	return 0;
bad:
	snprintf(why, len, "a malformed bpftrace map line");
	return -1;
}

int costs_read(FILE *f, int rxq, struct costs *c, char *err, int errlen)
{
	char line[1024], why[160];
	char *keys[MAX_FIELDS], *vals[MAX_FIELDS];
	int lineno = 0, hists = 0;

	memset(c, 0, sizeof(*c));
	c->rxq = rxq;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "rx_costs: ");
		int n, r;

		lineno++;
		if (!p && (p = strchr(line, '@')) && (p == line || p[-1] == ' ')) {
			/* the bpftrace twin's maps */
			r = read_map(c, p, why, sizeof(why));
			if (r < 0) {
				snprintf(err, errlen, "line %d: %s", lineno, why);
				return -1;
			}
			hists += r == 2;
			continue;
		}
		if (!p || (strncmp(p + 10, "hist ", 5) && strncmp(p + 10, "summary ", 8)))
			continue;
		n = split(line + (p - line) + 10, keys, vals);
		r = p[10] == 'h' ? read_hist(c, keys, vals, n, why, sizeof(why)) :
				   read_summary(c, keys, vals, n, why, sizeof(why));
		if (r < 0) {
			snprintf(err, errlen, "line %d: %s", lineno, why);
			return -1;
		}
		hists += r > 0 && p[10] == 'h';
	}
	if (!c->have_summary || !hists) {
		snprintf(err, errlen, "no rx_costs summary and histograms for rx queue %d", rxq);
		return -1;
	}
	return 0;
}

double costs_median(const struct costs_class *k)
{
	uint64_t n = 0, cum = 0;

	for (int b = 0; b < COSTS_BUCKETS; b++)
		n += k->count[b];
	if (!n)
		return -1;
	for (int b = 0; b < COSTS_BUCKETS; b++) {
		double lo = (double)costs_bucket_lo(b), hi = (double)costs_bucket_hi(b), frac;

		if (!k->count[b] || 2 * (cum + k->count[b]) < n) {
			cum += k->count[b];
			continue;
		}
		if (b < 4)
			return lo;
		/* the n/2-th value, spread evenly (in log) over the bucket */
		frac = ((double)n / 2 - (double)cum) / (double)k->count[b];
		return lo * pow(hi / lo, frac < 0 ? 0 : frac > 1 ? 1 : frac);
	}
	return -1;
}

/* The values of a class in total. */
static uint64_t class_total(const struct costs_class *k)
{
	uint64_t n = 0;

	for (int b = 0; b < COSTS_BUCKETS; b++)
		n += k->count[b];
	return n;
}

/*
 * Weighted least squares of each class's median on its mean class
 * variable: y = a + b x, a and b not negative. Returns how many classes
 * took part.
 */
static int fit_line(const struct costs_class *cls, double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	int used = 0;

	for (int i = 0; i < COSTS_CLASSES; i++) {
		uint64_t n = class_total(&cls[i]);
		double x, y, w;

		if (!n)
			continue;
		x = (double)cls[i].sum / (double)n;
		y = costs_median(&cls[i]);
		w = (double)n;
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
		used++;
	}
	*a = *b = 0;
	if (!used)
		return 0;
	if (used > 1 && sw * sxx - sx * sx > 0) {
		*b = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
		*a = (sy - *b * sx) / sw;
	}
	if (used == 1 || *b < 0) {
		/* one class, or cost falling with size: a fixed cost alone */
		*b = 0;
		*a = sy / sw;
	}
	if (*a < 0) {
		/* a line through 0 */
		*a = 0;
		*b = sxx > 0 ? sxy / sxx : 0;
	}
	return used;
}

/* Adds a what's stalls and covered time to out. */
static void find_stalls(const struct costs_class *cls, const struct stall_opts *o,
			struct calib *out, double *excess)
{
	for (int i = 0; i < COSTS_CLASSES; i++) {
		double med = costs_median(&cls[i]), thr;

		if (med < 0)
			continue;
		thr = fmax(o->factor * med, med + o->min_ns);
		for (int b = 0; b < COSTS_BUCKETS; b++) {
			double mid = bucket_mid(b);

			if (!cls[i].count[b])
				continue;
			out->busy_ns += mid * (double)cls[i].count[b];
			if (mid <= thr)
				continue;
			out->stalls += cls[i].count[b];
			out->stall_hist[costs_bucket((uint64_t)(mid - med))] += cls[i].count[b];
			*excess += (mid - med) * (double)cls[i].count[b];
			if (mid - med > out->stall_max_ns)
				out->stall_max_ns = mid - med;
		}
	}
}

int costs_fit(const struct costs *c, const struct stall_opts *o, struct calib *out, char *err,
	      int errlen)
{
	static const enum costs_what timed[] = { W_WORK, W_REFILL, W_REPOLL_GAP, W_IRQ_GAP };
	double excess = 0, m;

	memset(out, 0, sizeof(*out));
	if (!fit_line(c->cls[W_WORK], &out->poll_ns, &out->frame_ns)) {
		snprintf(err, errlen, "no polls of rx queue %d to fit", c->rxq);
		return -1;
	}
	if (!fit_line(c->cls[W_REFILL], &out->refill_ns, &out->buf_ns)) {
		snprintf(err, errlen, "no refills in a poll of rx queue %d to fit", c->rxq);
		return -1;
	}
	m = costs_median(&c->cls[W_REPOLL_GAP][0]);
	out->repoll_ns = m < 0 ? 0 : m;
	m = costs_median(&c->cls[W_IRQ_GAP][0]);
	out->irq_ns = m < 0 ? 0 : m;
	m = costs_median(&c->cls[W_BACKLOG_IRQ][0]);
	out->backlog_irq = m < 0 ? 0 : m;
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++)
		find_stalls(c->cls[timed[i]], o, out, &excess);
	if (out->stalls)
		out->stall_ns = excess / (double)out->stalls;
	if (out->busy_ns > 0)
		out->stalls_per_s = (double)out->stalls * 1e9 / out->busy_ns;
	return 0;
}
