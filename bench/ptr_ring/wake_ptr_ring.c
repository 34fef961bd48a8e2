// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress of the tx queue stop/wake protocol that tun's
 * IFF_BACKPRESSURE builds on ptr_ring_consume_freed() (the backpressure
 * series), with the kernel's ptr_ring.h compiled unchanged and the
 * protocol written here as tun.c writes it:
 *
 *   stop_if_full (producer lock held): if the ring is full, stop the
 *             queue, full barrier, look again, wake the queue if there is
 *             room; say whether it stays stopped;
 *   producer: while the queue is stopped, send nothing (the qdisc holds
 *             the frame); under the producer lock: stop_if_full (stopped:
 *             the frame goes back, NETDEV_TX_BUSY), produce, stop_if_full;
 *   consumer: consume (single or batched, random sizes, with pauses); when
 *             the call says it wrote out entries: full barrier, and if the
 *             queue is stopped, wake it under the producer lock if the
 *             ring has room.
 *
 * It fails when a wake-up is lost (the queue stopped, the ring empty,
 * nothing changing for a second), when the producer finds the ring full at
 * produce (tun would drop the frame), and on anything lost, duplicated or
 * out of order. Built with ThreadSanitizer.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "ring.h"

int check_failures;

#define ITEMS 40000L
#define STALL_NS 1000000000LL	/* queue stopped, ring empty: a lost wake */

struct run {
	struct ring *r;
	atomic_bool stopped;	/* the tx queue's XOFF bit */
	atomic_bool give_up;	/* the consumer saw a stall */
	long stops, self_restarts, wakes, busy, ring_full_drops;
	uint64_t seed;		/* the producer's: widens the stop/re-check window */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* tun_tx_stop_if_full(), the producer lock held */
static bool stop_if_full(struct run *run)
{
	if (!ring_full_locked(run->r))
		return false;
	atomic_store_explicit(&run->stopped, true, memory_order_relaxed);
	run->stops++;
	/* smp_mb__after_atomic() */
	atomic_thread_fence(memory_order_seq_cst);
	if (xorshift(&run->seed) % 4 == 0)	/* let the consumer run in between */
		sched_yield();
	if (ring_full_locked(run->r))
		return true;
	atomic_store_explicit(&run->stopped, false, memory_order_relaxed);
	run->self_restarts++;
	return false;
}

/* tun_net_xmit() with backpressure, pktgen's retry around it */
static void *producer(void *arg)
{
	struct run *run = arg;

	for (long i = 1; i <= ITEMS; i++) {
		bool busy;
		int ret = 0;

		while (atomic_load(&run->stopped)) {
			if (atomic_load(&run->give_up))
				return NULL;
			sched_yield();
		}
		ring_lock_producer(run->r);
		busy = stop_if_full(run);
		if (!busy) {
			ret = ring_produce_locked(run->r, (void *)(uintptr_t)i);
			if (!ret)
				stop_if_full(run);
		}
		ring_unlock_producer(run->r);
		if (busy) {
			run->busy++;
			i--;
		} else if (ret == -ENOSPC) {
			run->ring_full_drops++;	/* tun would drop it */
			i--;
		}
	}
	return NULL;
}

static int one_run(int size, int zbatch)
{
	struct run run = { .r = ring_new(size), .seed = 0x2545f4914f6cdd1dull + (uint64_t)size };
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(size * 131 + zbatch);
	long long idle_since = 0;
	int before = check_failures;
	long expect = 1;
	void *out[64];
	pthread_t t;

	CHECK(run.r);
	if (!run.r)
		return 1;
	ring_set_batch(run.r, zbatch);
	atomic_init(&run.stopped, false);
	atomic_init(&run.give_up, false);
	CHECK_EQ(pthread_create(&t, NULL, producer, &run), 0);
	while (expect <= ITEMS && check_failures == before) {
		uint64_t x = xorshift(&seed);
		bool freed = false;
		int k = 1 + (int)(x % 64), got;

		if (x % 97 == 0)	/* the consumer stops for a while */
			for (int i = 0; i < (int)(x % 200); i++)
				sched_yield();
		if (k == 1) {
			out[0] = ring_consume_freed(run.r, &freed);
			got = out[0] != NULL;
		} else {
			got = ring_consume_batched_freed(run.r, out, k, &freed);
		}
		for (int i = 0; i < got; i++)
			CHECK_EQ((long)(uintptr_t)out[i], expect++);
		if (freed) {
			/* smp_mb() in tun_ring_wake() */
			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&run.stopped, memory_order_relaxed)) {
				/* tun_tx_wake_if_room() */
				ring_lock_producer(run.r);
				/* netif_tx_wake_queue(): test_and_clear_bit */
				if (!ring_full_locked(run.r) &&
				    atomic_exchange(&run.stopped, false))
					run.wakes++;
				ring_unlock_producer(run.r);
			}
		}
		if (got) {
			idle_since = 0;
			continue;
		}
		if (!atomic_load(&run.stopped)) {
			idle_since = 0;
		} else if (!idle_since) {
			idle_since = now_ns();
		} else if (now_ns() - idle_since > STALL_NS) {
			fprintf(stderr, "lost wake-up: queue stopped, ring empty for 1 s after %ld of %ld items (size %d, zbatch %d)\n",
				expect - 1, ITEMS, size, zbatch);
			check_failures++;
		}
		sched_yield();
	}
	atomic_store(&run.give_up, true);
	pthread_join(t, NULL);
	CHECK_EQ(run.ring_full_drops, 0);
	if (check_failures == before)
		CHECK(ring_empty(run.r));
	CHECK_EQ(run.busy, 0);	/* nothing else fills the ring: never running on a full one */
	printf("# size %d zbatch %d: %ld stops, %ld restarted by the producer, %ld woken by the consumer\n",
	       size, zbatch, run.stops, run.self_restarts, run.wakes);
	ring_free(run.r, NULL);
	return check_failures != before;
}

int main(void)
{
	static const int sizes[] = { 1, 2, 8, 16, 31, 64, 256 };
	static const int zbatches[] = { 0, 1, 4, 16 };
	int runs = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (unsigned int z = 0; z < sizeof(zbatches) / sizeof(zbatches[0]); z++) {
			if (zbatches[z] > sizes[s] / 2)
				continue;
			runs++;
			if (one_run(sizes[s], zbatches[z])) {
				failed++;
				printf("not ok - size %d zbatch %d [%s]\n",
				       sizes[s], zbatches[z], ring_impl_name);
			}
		}
	}
	printf("ptr_ring wake %s: %d passed, %d failed\n", ring_impl_name, runs - failed, failed);
	return failed ? 1 : 0;
}
