/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal test runner: TEST() bodies use CHECK(); main prints the tally. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

extern int check_failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		check_failures++;					\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", \
			__FILE__, __LINE__, #a, #b, _a, _b);		\
		check_failures++;					\
	}								\
} while (0)

#endif /* CHECK_H */
