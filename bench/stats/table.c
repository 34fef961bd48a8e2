// SPDX-License-Identifier: GPL-2.0
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > TABLE_NAME_MAX)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-") == n;
}

int table_arm(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->narms; i++)
		if (!strcmp(t->arms[i], name))
			return (int)i;
	return -1;
}

static long find_unit(const struct table *t, const char *name)
{
	/* rows come unit by unit: look from the end */
	for (size_t i = t->nunits; i-- > 0;)
		if (!strcmp(t->units[i], name))
			return (long)i;
	return -1;
}

static int add_unit(struct table *t, const char *name)
{
	size_t n = t->nunits + 1;
	void *u = realloc(t->units, n * sizeof(*t->units));
	double *v;

	if (!u)
		return -1;
	t->units = u;
	v = realloc(t->v, n * TABLE_MAX_ARMS * sizeof(*v));
	if (!v)
		return -1;
	t->v = v;
	for (size_t a = 0; a < TABLE_MAX_ARMS; a++)
		v[t->nunits * TABLE_MAX_ARMS + a] = NAN;
	memcpy(t->units[t->nunits], name, strlen(name) + 1);	/* name_ok: it fits */
	t->nunits = n;
	return 0;
}

double table_get(const struct table *t, size_t unit, size_t arm)
{
	return t->v[unit * TABLE_MAX_ARMS + arm];
}

/* One "UNIT,ARM,VALUE" line (no newline) into t. */
static int add_line(struct table *t, char *line, const char *where, char *err, size_t errlen)
{
	char *arm, *val, *end;
	long u;
	int a;
	double x;

	arm = strchr(line, ',');
	val = arm ? strchr(arm + 1, ',') : NULL;
	if (!val || strchr(val + 1, ','))
		return fail(err, errlen, "%s: expected UNIT,ARM,VALUE, got '%s'", where, line);
	*arm++ = 0;
	*val++ = 0;
	if (!name_ok(line) || !name_ok(arm))
		return fail(err, errlen,
			    "%s: unit '%s' or arm '%s' is not a name (1-%d of A-Z a-z 0-9 _ . : + -)",
			    where, line, arm, TABLE_NAME_MAX);
	errno = 0;
	x = strtod(val, &end);
	if (!*val || *end || errno || !isfinite(x) || strchr(" \t", *val))
		return fail(err, errlen, "%s: value '%s' is not a finite number", where, val);
	a = table_arm(t, arm);
	if (a < 0) {
		if (t->narms == TABLE_MAX_ARMS)
			return fail(err, errlen, "%s: more than %d arms", where, TABLE_MAX_ARMS);
		a = (int)t->narms++;
		memcpy(t->arms[a], arm, strlen(arm) + 1);	/* name_ok: it fits */
	}
	u = find_unit(t, line);
	if (u < 0) {
		if (t->nunits == TABLE_MAX_UNITS)
			return fail(err, errlen, "%s: more than %d units", where, TABLE_MAX_UNITS);
		if (add_unit(t, line))
			return fail(err, errlen, "%s: out of memory", where);
		u = (long)t->nunits - 1;
	}
	if (!isnan(table_get(t, (size_t)u, (size_t)a)))
		return fail(err, errlen, "%s: unit '%s' has arm '%s' twice", where, line, arm);
	t->v[(size_t)u * TABLE_MAX_ARMS + (size_t)a] = x;
	return 0;
}

int table_read(FILE *f, const char *name, struct table *t, char *err, size_t errlen)
{
	char buf[512], where[300];
	unsigned long lineno = 0;

	memset(t, 0, sizeof(*t));
	while (fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);

		lineno++;
		snprintf(where, sizeof(where), "%s:%lu", name, lineno);
		if (n && buf[n - 1] == '\n')
			buf[--n] = 0;
		else if (!feof(f))
			return fail(err, errlen, "%s: line too long", where);
		if (n && buf[n - 1] == '\r')
			buf[--n] = 0;
		if (!n || buf[0] == '#' || !strcmp(buf, "unit,arm,value"))
			continue;
		if (add_line(t, buf, where, err, errlen))
			return -1;
	}
	if (ferror(f))
		return fail(err, errlen, "%s: read error", name);
	if (!t->nunits)
		return fail(err, errlen, "%s: no measurements", name);
	return 0;
}

void table_free(struct table *t)
{
	free(t->units);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
