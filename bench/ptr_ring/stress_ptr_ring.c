// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress of include/linux/ptr_ring.h: one producer, one consumer
 * (single and batched consumes of random size), for several ring sizes and
 * zeroing batches. The consumer checks that it sees 1, 2, 3, ... with
 * nothing lost or duplicated. Built with ThreadSanitizer.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ring.h"

int check_failures;

#define ITEMS 50000L

struct run {
	struct ring *r;
	long items;
	long full;
};

static void *producer(void *arg)
{
	struct run *run = arg;

	for (long i = 1; i <= run->items; i++) {
		while (ring_produce(run->r, (void *)(uintptr_t)i) == -ENOSPC) {
			run->full++;
			sched_yield();
		}
	}
	return NULL;
}

static int one_run(int size, int zbatch)
{
	struct run run = { .r = ring_new(size), .items = ITEMS };
	uint64_t seed = 0x2545f4914f6cdd1dull ^ (uint64_t)size;
	void *out[64];
	long expect = 1;
	int before = check_failures;
	pthread_t t;

	CHECK(run.r);
	if (!run.r)
		return 1;
	ring_set_batch(run.r, zbatch);
	CHECK_EQ(pthread_create(&t, NULL, producer, &run), 0);
	while (expect <= ITEMS && check_failures - before < 5) {
		int k, got;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		k = 1 + (int)(seed % 64);
		if (k == 1) {
			void *p = ring_consume(run.r);

			got = p ? 1 : 0;
			out[0] = p;
		} else {
			got = ring_consume_batched(run.r, out, k);
		}
		if (!got)
			sched_yield();
		for (int i = 0; i < got; i++)
			CHECK_EQ((long)(uintptr_t)out[i], expect++);
	}
	pthread_join(t, NULL);
	CHECK(ring_empty(run.r));
	ring_free(run.r, NULL);
	return check_failures != before;
}

int main(void)
{
	static const int sizes[] = { 1, 2, 8, 16, 31, 64, 256, 1024 };
	static const int zbatches[] = { 0, 1, 4, 16 };
	int runs = 0, failed = 0;

	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (unsigned int z = 0; z < sizeof(zbatches) / sizeof(zbatches[0]); z++) {
			if (zbatches[z] > sizes[s])
				continue;
			runs++;
			if (one_run(sizes[s], zbatches[z])) {
				failed++;
				printf("not ok - size %d zbatch %d [%s]\n",
				       sizes[s], zbatches[z], ring_impl_name);
			}
		}
	}
	printf("ptr_ring stress %s: %d passed, %d failed\n", ring_impl_name, runs - failed, failed);
	return failed ? 1 : 0;
}
