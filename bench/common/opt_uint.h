/* SPDX-License-Identifier: GPL-2.0 */
/* Parsing a numeric command-line option, shared by the bench tools. */
#ifndef OPT_UINT_H
#define OPT_UINT_H

/*
 * Parses s as a decimal integer from lo to hi into *out; on anything else
 * prints "PROG: OPT must be an integer from LO to HI, not 'S'" on stderr and
 * returns -1.
 */
int opt_uint(const char *prog, const char *opt, const char *s, unsigned long long lo,
	     unsigned long long hi, unsigned long long *out);

/*
 * The same for a signed range (e.g. a CPU number where -1 means none):
 * "PROG: OPT must be an integer from LO to HI, not 'S'" on anything else.
 */
int opt_int(const char *prog, const char *opt, const char *s, long long lo, long long hi,
	    long long *out);

#endif /* OPT_UINT_H */
