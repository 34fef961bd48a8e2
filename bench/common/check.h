/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-side unit tests' one assertion and their runner: CHECK(cond)
 * fails the current test function (returns 1) with the file, line and
 * condition; check_run() runs a table of test functions.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>
#include <stdio.h>

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__,   \
				__LINE__, __func__, #cond);                          \
			return 1;                                                    \
		}                                                                    \
	} while (0)

/* One test: a name for the report, a function that returns 0 when it passes. */
struct check_test {
	const char *name;
	int (*fn)(void);
};

/*
 * check_run - runs the N tests of TESTS in order: "ok   NAME" or "FAIL NAME"
 * for each, then "SUITE: P passed, F failed". Returns 0 when all passed, 1
 * otherwise (main's exit status).
 */
static inline int check_run(const char *suite, const struct check_test *tests, size_t n)
{
	int failed = 0;

	for (size_t i = 0; i < n; i++) {
		int r = tests[i].fn();

		printf("%s %s\n", r ? "FAIL" : "ok  ", tests[i].name);
		failed += r != 0;
	}
	printf("%s: %d passed, %d failed\n", suite, (int)n - failed, failed);
	return failed != 0;
}

#define CHECK_RUN(suite, tests) check_run(suite, tests, sizeof(tests) / sizeof((tests)[0]))

#endif /* CHECK_H */
