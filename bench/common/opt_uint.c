// SPDX-License-Identifier: GPL-2.0
#include "opt_uint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int opt_uint(const char *prog, const char *opt, const char *s, unsigned long long lo,
	     unsigned long long hi, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	/* strtoull() skips blanks and takes a sign: only digits are a number */
	if (errno || end == s || *end || *s < '0' || *s > '9' || *out < lo || *out > hi) {
		fprintf(stderr, "%s: %s must be an integer from %llu to %llu, not '%s'\n",
			prog, opt, lo, hi, s);
		return -1;
	}
	return 0;
}

int opt_int(const char *prog, const char *opt, const char *s, long long lo, long long hi,
	    long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno || end == s || *end || *out < lo || *out > hi) {
		fprintf(stderr, "%s: %s must be an integer from %lld to %lld, not '%s'\n",
			prog, opt, lo, hi, s);
		return -1;
	}
	return 0;
}
