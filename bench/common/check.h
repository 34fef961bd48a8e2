/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-side unit tests' one assertion: CHECK(cond) fails the current
 * test function (returns 1) with the file, line and condition.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__,   \
				__LINE__, __func__, #cond);                          \
			return 1;                                                    \
		}                                                                    \
	} while (0)

#endif /* CHECK_H */
