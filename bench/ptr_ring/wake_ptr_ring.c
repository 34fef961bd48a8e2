// SPDX-License-Identifier: GPL-2.0
/*
 * Two-thread stress of the tx queue stop/wake protocol of tun's
 * IFF_BACKPRESSURE (the backpressure series, upstream's 7.3 design), with
 * the kernel's ptr_ring.h compiled unchanged and the protocol written here
 * as tun.c writes it:
 *
 *   producer: while the queue is stopped, send nothing (the qdisc holds
 *             the frame); under the producer lock: produce; if
 *             __ptr_ring_check_produce() now says -ENOSPC, stop the queue,
 *             full barrier, check again and wake the queue if there is
 *             room (tun_net_xmit());
 *   consumer: under the consumer lock, consume (single or batched, random
 *             sizes, with pauses); if it took anything: full barrier, and
 *             if the queue is stopped, count what it took and wake the
 *             queue once half the ring is counted or the ring is empty
 *             (__tun_wake_queue()).
 *
 * It fails when a wake-up is lost (the queue stopped, the ring empty,
 * nothing changing for a second) and on anything lost, duplicated or out of
 * order. A produce that fails (tun drops the frame; here the producer sends
 * it again) is counted and printed, not a failure: the design allows it.
 * The consumer counts what it took once it sees the queue stopped, and an
 * entry it took just before the stop - whose slot the producer refilled,
 * making the ring full and stopping the queue - counts too, so it can wake
 * a queue whose ring is full; on small rings (1 to 8 entries) this stress
 * makes that happen. Upstream accepts such drops as rare races.
 * Built with ThreadSanitizer.
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

/*
 * The two full barriers of the protocol (smp_mb__after_atomic(), smp_mb())
 * are seq_cst fences. ThreadSanitizer does not model fences (GCC warns,
 * -Wtsan): it still checks the plain accesses for races, and the run
 * itself checks the protocol (lost wake-ups, failed produces).
 */
#pragma GCC diagnostic ignored "-Wtsan"

#define ITEMS 40000L
#define STALL_NS 1000000000LL	/* queue stopped, ring empty: a lost wake */

struct run {
	struct ring *r;
	atomic_bool stopped;	/* the tx queue's XOFF bit */
	atomic_bool give_up;	/* the consumer saw a stall */
	long stops, self_restarts, wakes, ring_full_drops;
	int cons_cnt;		/* under the consumer lock */
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

/* tun_net_xmit() with backpressure, pktgen's wait on a stopped queue around it */
static void *producer(void *arg)
{
	struct run *run = arg;

	for (long i = 1; i <= ITEMS; i++) {
		int ret;

		while (atomic_load(&run->stopped)) {
			if (atomic_load(&run->give_up))
				return NULL;
			sched_yield();
		}
		ring_lock_producer(run->r);
		ret = ring_produce_locked(run->r, (void *)(uintptr_t)i);
		if (ring_check_produce_locked(run->r) == -ENOSPC) {
			/*
			 * The window the re-check closes: the consumer may take
			 * every entry, and see the queue running, before the stop
			 */
			if (xorshift(&run->seed) % 4 == 0)
				sched_yield();
			/* netif_tx_stop_queue() */
			atomic_store_explicit(&run->stopped, true, memory_order_relaxed);
			run->stops++;
			/* smp_mb__after_atomic() */
			atomic_thread_fence(memory_order_seq_cst);
			if (xorshift(&run->seed) % 4 == 0)	/* let the consumer run in between */
				sched_yield();
#ifndef MUTANT_NO_RECHECK	/* tests/ptr_ring: without it a wake is lost */
			/* netif_tx_wake_queue(): test_and_clear_bit */
			if (!ring_check_produce_locked(run->r) &&
			    atomic_exchange(&run->stopped, false))
				run->self_restarts++;
#endif
		}
		ring_unlock_producer(run->r);
		if (ret) {
			run->ring_full_drops++;	/* tun would drop it */
			i--;
		}
	}
	return NULL;
}

/* tun_ring_consume() / vhost_net_buf_produce() with __tun_wake_queue() */
static int consume(struct run *run, void **out, int k)
{
	int got;

	ring_lock_consumer(run->r);
	got = ring_consume_batched_locked(run->r, out, k);
	if (got) {
		/* smp_mb() */
		atomic_thread_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&run->stopped, memory_order_relaxed)) {
			run->cons_cnt += got;
			if (run->cons_cnt >= ring_size(run->r) / 2 ||
			    ring_empty_locked(run->r)) {
				if (atomic_exchange(&run->stopped, false))
					run->wakes++;
				run->cons_cnt = 0;
			}
		}
	}
	ring_unlock_consumer(run->r);
	return got;
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
		int k = (x >> 8) % 2 ? 1 : 1 + (int)(x % 64), got;

		if (x % 97 == 0)	/* the consumer stops for a while */
			for (int i = 0; i < (int)(x % 200); i++)
				sched_yield();
		got = consume(&run, out, k);
		for (int i = 0; i < got; i++)
			CHECK_EQ((long)(uintptr_t)out[i], expect++);
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
	if (check_failures == before)
		CHECK(ring_empty(run.r));
	printf("# size %d zbatch %d: %ld stops, %ld restarted by the producer, %ld woken by the consumer, %ld produces failed\n",
	       size, zbatch, run.stops, run.self_restarts, run.wakes, run.ring_full_drops);
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
