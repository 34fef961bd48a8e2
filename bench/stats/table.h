/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A benchmark's measurements as a table of units x arms: read from lines
 * "UNIT,ARM,VALUE" (a unit is what pairs the arms: a boot, or one round of
 * blocks inside a boot; an arm is a setting). Blank lines, "#" comments and
 * a "unit,arm,value" header are skipped.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_ARMS 64
#define TABLE_MAX_UNITS 100000
#define TABLE_NAME_MAX 63

struct table {
	char (*units)[TABLE_NAME_MAX + 1];
	size_t nunits;
	char arms[TABLE_MAX_ARMS][TABLE_NAME_MAX + 1];
	size_t narms;
	double *v;		/* v[unit * TABLE_MAX_ARMS + arm]; NAN: not measured */
};

/* Reads f (named name in messages). Returns 0, or -1 with a message in err. */
int table_read(FILE *f, const char *name, struct table *t, char *err, size_t errlen);
/* The index of arm name, or -1. */
int table_arm(const struct table *t, const char *name);
double table_get(const struct table *t, size_t unit, size_t arm);
void table_free(struct table *t);

#endif /* TABLE_H */
