// SPDX-License-Identifier: GPL-2.0
/*
 * Correctness tests of include/linux/ptr_ring.h (through ring.h), single
 * threaded: FIFO order, full/empty, the zeroing batch's invariants,
 * consume_batched, unconsume (with and without space), resize with entries
 * inside, wrap-around against a model queue, a ring of 0 entries, and
 * __ptr_ring_check_produce() where the header has it. Run under ASan and
 * UBSan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

int check_failures;

/* Entries are small non-NULL integers cast to pointers. */
#define P(i)	((void *)(uintptr_t)(i))
#define I(p)	((long)(uintptr_t)(p))

static int destroyed;
static long destroyed_sum;

static void count_destroy(void *p)
{
	destroyed++;
	destroyed_sum += I(p);
}

static const int sizes[] = { 0, 1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 64, 100, 128, 256, 500, 1024 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* A ring of size n takes exactly n entries when the consumer keeps up. */
static void test_fill_and_drain(void)
{
	for (int s = 0; s < NSIZES; s++) {
		int n = sizes[s];
		struct ring *r = ring_new(n);

		CHECK(r);
		if (!r)
			continue;
		for (int i = 0; i < n; i++)
			CHECK_EQ(ring_produce(r, P(i + 1)), 0);
		/* a 0-entry ring: -EINVAL once __ptr_ring_check_produce() exists */
		CHECK_EQ(ring_produce(r, P(999999)),
			 n == 0 && ring_has_check_produce() ? -EINVAL : -ENOSPC);
		/*
		 * Not on a 0-entry ring: __ptr_ring_full() does not check the
		 * size and reads queue[0] of a queue that is ZERO_SIZE_PTR (in
		 * the kernel and in kshim.h): it faults. An earlier version of
		 * the backpressure series called it there from tun_net_xmit().
		 */
		CHECK(n == 0 || ring_full(r));
		for (int i = 0; i < n; i++)
			CHECK_EQ(I(ring_consume(r)), i + 1);
		CHECK(ring_consume(r) == NULL);
		CHECK(ring_empty(r));
		ring_free(r, NULL);
	}
}

/* The header's zeroing batch is at least 1, and never more than half the ring. */
static void test_batch_rule(void)
{
	for (int n = 1; n <= 4096; n++) {
		int b = ring_default_batch(n);

		CHECK(b >= 1);
		if (n >= 2)
			CHECK(b <= n / 2);
		if (n >= 64)	/* large rings: two cache lines of pointers */
			CHECK_EQ(b, 16);
	}
}

/*
 * Consumed slots stay non-NULL until a batch is complete (the producer cannot
 * reuse them early), then all are NULLed together; never more than batch-1
 * slots are pending.
 */
static void test_zeroing_batch(void)
{
	const int n = 64, batch = 8;
	struct ring *r = ring_new(n);

	CHECK(r);
	ring_set_batch(r, batch);
	CHECK_EQ(ring_batch(r), batch);
	for (int i = 0; i < n; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	for (int i = 0; i < batch - 1; i++) {
		CHECK_EQ(I(ring_consume(r)), i + 1);
		CHECK(ring_slot_used(r, i));	/* not yet zeroed */
		CHECK(ring_consumer_head(r) - ring_consumer_tail(r) < batch);
	}
	CHECK_EQ(ring_produce(r, P(1000)), -ENOSPC);	/* slot 0 not free yet */
	CHECK_EQ(I(ring_consume(r)), batch);
	for (int i = 0; i < batch; i++)
		CHECK(!ring_slot_used(r, i));
	CHECK_EQ(ring_consumer_tail(r), batch);
	CHECK_EQ(ring_produce(r, P(1000)), 0);
	ring_free(r, NULL);
}

/* consume_batched returns min(n, available), in order. */
static void test_consume_batched(void)
{
	struct ring *r = ring_new(32);
	void *out[64];

	for (int i = 0; i < 20; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	CHECK_EQ(ring_consume_batched(r, out, 8), 8);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(I(out[i]), i + 1);
	CHECK_EQ(ring_consume_batched(r, out, 64), 12);
	for (int i = 0; i < 12; i++)
		CHECK_EQ(I(out[i]), i + 9);
	CHECK_EQ(ring_consume_batched(r, out, 64), 0);
	ring_free(r, NULL);
}

/* Unconsumed entries come back first, in order, with nothing destroyed. */
static void test_unconsume(void)
{
	struct ring *r = ring_new(16);
	void *out[8];

	for (int i = 0; i < 10; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	CHECK_EQ(ring_consume_batched(r, out, 6), 6);
	destroyed = 0;
	CHECK_EQ(ring_unconsume(r, out + 2, 4, count_destroy), 0);	/* give back 3..6 */
	CHECK_EQ(destroyed, 0);
	for (int i = 3; i <= 10; i++)
		CHECK_EQ(I(ring_consume(r)), i);
	CHECK(ring_consume(r) == NULL);
	ring_free(r, NULL);
}

/* With no room left (the producer refilled the ring), the rest is destroyed. */
static void test_unconsume_no_space(void)
{
	const int n = 8;
	struct ring *r = ring_new(n);
	void *out[n];
	int got;

	ring_set_batch(r, 1);
	for (int i = 0; i < n; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	got = ring_consume_batched(r, out, 3);
	CHECK_EQ(got, 3);
	for (int i = 0; i < 2; i++)	/* refill two of the three freed slots */
		CHECK_EQ(ring_produce(r, P(100 + i)), 0);
	destroyed = 0;
	destroyed_sum = 0;
	CHECK_EQ(ring_unconsume(r, out, got, count_destroy), 2);
	CHECK_EQ(destroyed, 2);			/* only one slot was free */
	CHECK_EQ(destroyed_sum, 1 + 2);		/* the oldest entries go */
	CHECK_EQ(I(ring_consume(r)), 3);	/* the newest comes back first */
	for (int i = 4; i <= n; i++)
		CHECK_EQ(I(ring_consume(r)), i);
	CHECK_EQ(I(ring_consume(r)), 100);
	CHECK_EQ(I(ring_consume(r)), 101);
	ring_free(r, NULL);
}

/* Resize keeps entries in order; shrinking destroys what does not fit. */
static void test_resize(void)
{
	struct ring *r = ring_new(8);

	for (int i = 0; i < 5; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	CHECK_EQ(I(ring_consume(r)), 1);
	CHECK_EQ(ring_resize(r, 32, count_destroy), 0);
	CHECK_EQ(ring_size(r), 32);
	CHECK_EQ(ring_batch(r), ring_default_batch(32));
	for (int i = 0; i < 20; i++)
		CHECK_EQ(ring_produce(r, P(10 + i)), 0);
	destroyed = 0;
	destroyed_sum = 0;
	CHECK_EQ(ring_resize(r, 4, count_destroy), 0);
	CHECK_EQ(destroyed, 24 - 4);
	for (int i = 2; i <= 5; i++)
		CHECK_EQ(I(ring_consume(r)), i);
	CHECK(ring_consume(r) == NULL);
	ring_free(r, NULL);
}

/* Cleanup hands every entry still inside to destroy. */
static void test_cleanup_destroys(void)
{
	struct ring *r = ring_new(16);

	for (int i = 0; i < 7; i++)
		CHECK_EQ(ring_produce(r, P(i + 1)), 0);
	destroyed = 0;
	destroyed_sum = 0;
	ring_free(r, count_destroy);
	CHECK_EQ(destroyed, 7);
	CHECK_EQ(destroyed_sum, 28);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/*
 * Random produce / consume / consume_batched / unconsume against a model
 * FIFO, for every size and zeroing batch: nothing lost, nothing duplicated,
 * order kept across many wrap-arounds; full only when no slot can be free.
 */
static void test_model(void)
{
	static const int batches[] = { 0, 1, 2, 3, 4, 8, 16, 64 };
	static long model[8192];
	void *out[300];

	for (int s = 1; s < NSIZES; s++) {
		for (int b = 0; b < 8; b++) {
			int n = sizes[s], head = 0, tail = 0;	/* model[head..tail) */
			long next = 1;
			struct ring *r;

			if (batches[b] > n)
				continue;
			r = ring_new(n);
			CHECK(r);
			if (!r)
				continue;
			ring_set_batch(r, batches[b]);
			for (int step = 0; step < 20000; step++) {
				int op = rnd() % 8, k, got;

				if (op < 4) {
					int rc = ring_produce(r, P(next));

					if (rc == 0) {
						model[tail++ % 8192] = next++;
					} else {
						CHECK_EQ(rc, -ENOSPC);
						/* Full: at most a batch of slots is still pending. */
						CHECK(tail - head >= n - ring_batch(r));
					}
				} else if (op < 6) {
					void *p = ring_consume(r);

					if (head == tail) {
						CHECK(p == NULL);
					} else {
						CHECK_EQ(I(p), model[head++ % 8192]);
					}
				} else {
					k = 1 + rnd() % 300;
					got = ring_consume_batched(r, out, k);
					CHECK_EQ(got, k < tail - head ? k : tail - head);
					for (int i = 0; i < got; i++)
						CHECK_EQ(I(out[i]), model[(head + i) % 8192]);
					head += got;
					if (op == 7 && got) {	/* give some back */
						int back = 1 + rnd() % got;

						destroyed = 0;
						ring_unconsume(r, out + got - back, back, count_destroy);
						/* only entries that had no room are dropped: the oldest */
						head -= back - destroyed;
					}
				}
				if (check_failures > 20)
					break;
			}
			ring_free(r, NULL);
		}
	}
}

/*
 * A ring of 0 entries (tun's with tx_queue_len 0): its queue is
 * ZERO_SIZE_PTR, which faults on any access. Everything but
 * __ptr_ring_full() tests the size first: produce fails, consume finds
 * nothing, unconsume destroys what it is given, resize gives it entries.
 */
static void test_zero_entries(void)
{
	void *batch[3] = { P(1), P(2), P(3) };
	void *out[4];
	struct ring *r = ring_new(0);

	CHECK(r);
	if (!r)
		return;
	CHECK(ring_produce(r, P(1)) != 0);
	CHECK(ring_consume(r) == NULL);
	CHECK_EQ(ring_consume_batched(r, out, 4), 0);
	CHECK(ring_empty(r));
	destroyed = 0;
	destroyed_sum = 0;
	CHECK_EQ(ring_unconsume(r, batch, 3, count_destroy), 3);
	CHECK_EQ(destroyed, 3);
	CHECK_EQ(ring_resize(r, 4, count_destroy), 0);
	CHECK_EQ(ring_produce(r, P(7)), 0);
	CHECK_EQ(I(ring_consume(r)), 7);
	CHECK_EQ(ring_resize(r, 0, count_destroy), 0);
	CHECK(ring_produce(r, P(8)) != 0);
	ring_free(r, NULL);
}

/*
 * The backpressure series: __ptr_ring_check_produce() says what a produce
 * would do now: -EINVAL on a ring of 0 entries (and produce then returns
 * -EINVAL too), 0 while there is room (the produce succeeds), -ENOSPC when
 * the slot at the producer is taken (the produce fails), and 0 again
 * exactly when the consumer has written that slot out - every size, the
 * header's zeroing batch and small ones, with the ring wrapping.
 */
static void test_check_produce(void)
{
	static const int batches[] = { 0, 1, 4 };
	void *out[16];

	for (int s = 0; s < NSIZES; s++) {
		for (int b = 0; b < 3; b++) {
			int n = sizes[s], next = 1, expect = 1;
			struct ring *r = ring_new(n);

			CHECK(r);
			if (!r)
				continue;
			if (batches[b] && batches[b] <= n / 2)
				ring_set_batch(r, batches[b]);
			ring_lock_producer(r);
			if (n == 0) {
				CHECK_EQ(ring_check_produce_locked(r), -EINVAL);
				CHECK_EQ(ring_produce_locked(r, P(1)), -EINVAL);
				ring_unlock_producer(r);
				ring_free(r, NULL);
				continue;
			}
			ring_unlock_producer(r);
			for (int step = 0; step < 4 * n + 8; step++) {
				int k = 1 + step % 5, got, check = 0, g;

				ring_lock_producer(r);
				/* room for n at most: a check that never says full stops here */
				for (g = 0; g <= n && (check = ring_check_produce_locked(r)) == 0; g++)
					CHECK_EQ(ring_produce_locked(r, P(next++)), 0);
				CHECK_EQ(check, -ENOSPC);
				CHECK(ring_slot_used(r, ring_producer(r)));
				CHECK_EQ(ring_produce_locked(r, P(next)), -ENOSPC);
				ring_unlock_producer(r);

				got = ring_consume_batched(r, out, k);
				CHECK(got > 0);
				for (int i = 0; i < got; i++)
					CHECK_EQ(I(out[i]), expect++);
				ring_lock_producer(r);
				CHECK_EQ(ring_check_produce_locked(r),
					 ring_slot_used(r, ring_producer(r)) ? -ENOSPC : 0);
				ring_unlock_producer(r);
			}
			while (ring_consume(r))
				expect++;
			CHECK_EQ(expect, next);
			ring_free(r, NULL);
		}
	}
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "fill and drain, every size", test_fill_and_drain },
		{ "zeroing batch rule", test_batch_rule },
		{ "zeroing batch defers NULL writes", test_zeroing_batch },
		{ "consume_batched", test_consume_batched },
		{ "unconsume", test_unconsume },
		{ "unconsume with no space destroys the oldest", test_unconsume_no_space },
		{ "resize with entries inside", test_resize },
		{ "cleanup destroys what is left", test_cleanup_destroys },
		{ "random ops against a model FIFO", test_model },
		{ "a ring of 0 entries never touches its queue", test_zero_entries },
		{ "check_produce says what produce would do", test_check_produce },
	};
	int n = sizeof(tests) / sizeof(tests[0]), failed = 0;

	if (!ring_has_check_produce())
		n--;	/* a header without it (stock): the last test does not apply */
	for (int i = 0; i < n; i++) {
		int before = check_failures;

		tests[i].fn();
		if (check_failures != before)
			failed++;
		printf("%s %d - %s [%s]\n", check_failures != before ? "not ok" : "ok",
		       i + 1, tests[i].name, ring_impl_name);
	}
	printf("ptr_ring %s: %d passed, %d failed\n", ring_impl_name, n - failed, failed);
	return failed ? 1 : 0;
}
