// SPDX-License-Identifier: GPL-2.0
/*
 * ptr_ring throughput: one producer thread and one consumer thread on
 * different CPUs move items through one ring. Prints one CSV row:
 * impl,size,zbatch,cbatch,items,seconds,items_per_s,producer_full,mode
 * (items = items consumed; producer_full = produce calls that found the
 * ring full).
 *
 * Usage: bench_ptr_ring [-d] [-w WORK] SIZE ZBATCH CBATCH ITEMS [PRODUCER_CPU CONSUMER_CPU]
 *   ZBATCH 0 keeps the header's zeroing batch; CBATCH 1 uses ptr_ring_consume,
 *   more uses ptr_ring_consume_batched (as vhost_net does).
 *   Default mode "spin": the producer retries until each of ITEMS items is
 *   in. -d, mode "drop": the producer makes ITEMS attempts and drops an item
 *   when the ring is full, as tun_net_xmit() does; items/s is then the rate
 *   the consumer delivers under a flood, and producer_full the drops.
 *   -w WORK: the consumer spends WORK loop iterations on each item (a slower
 *   consumer, as vhost_net copying into the guest is); default 0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opt_uint.h"
#include "ring.h"

struct bench {
	struct ring *r;
	long items;
	long full;
	int cpu;
	bool drop;
	atomic_bool done;
};

static void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "bench_ptr_ring: cannot pin to CPU %d (going on)\n", cpu);
}

static void *producer(void *arg)
{
	struct bench *b = arg;

	pin(b->cpu);
	for (long i = 1; i <= b->items; i++) {
		while (ring_produce(b->r, (void *)(uintptr_t)i)) {
			b->full++;
			if (b->drop)
				break;
			cpu_relax();
		}
	}
	atomic_store_explicit(&b->done, true, memory_order_release);
	return NULL;
}

/* Per-item consumer work that the compiler cannot remove. */
static void consumer_work(long work)
{
	for (volatile long i = 0; i < work; i++)
		;
}

/* bench/common's parsers into a long: -1 on bad input, said on stderr. */
static int parse(const char *s, long min, long max, const char *what, long *out)
{
	long long v;

	if (opt_int("bench_ptr_ring", what, s, min, max, &v))
		return -1;
	*out = (long)v;
	return 0;
}

int main(int argc, char **argv)
{
	long size, zbatch, cbatch, items, pcpu = 0, ccpu = 1, got = 0, sum = 0, last = 0;
	struct bench b = { 0 };
	bool drop = false;
	long work = 0;
	int opt;
	struct timespec t0, t1;
	void **out;
	pthread_t t;
	double secs;

	while ((opt = getopt(argc, argv, "+dw:")) != -1) {
		if (opt == 'd')
			drop = true;
		else if (opt != 'w' || parse(optarg, 0, 1000000, "WORK", &work))
			return 2;
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc != 5 && argc != 7) {
		fprintf(stderr,
			"usage: bench_ptr_ring [-d] [-w WORK] SIZE ZBATCH CBATCH ITEMS [PRODUCER_CPU CONSUMER_CPU]\n");
		return 2;
	}
	if (parse(argv[1], 1, 1 << 20, "SIZE", &size) ||
	    parse(argv[2], 0, 1 << 20, "ZBATCH", &zbatch) ||
	    parse(argv[3], 1, 4096, "CBATCH", &cbatch) ||
	    parse(argv[4], 1, 1L << 40, "ITEMS", &items) ||
	    (argc == 7 && (parse(argv[5], -1, 1023, "PRODUCER_CPU", &pcpu) ||
			   parse(argv[6], -1, 1023, "CONSUMER_CPU", &ccpu))))
		return 2;
	if (zbatch > size) {
		fprintf(stderr, "bench_ptr_ring: ZBATCH %ld is larger than the ring (%ld)\n",
			zbatch, size);
		return 2;
	}
	b.r = ring_new((int)size);
	out = calloc((size_t)cbatch, sizeof(*out));
	if (!b.r || !out) {
		fprintf(stderr, "bench_ptr_ring: out of memory\n");
		return 1;
	}
	ring_set_batch(b.r, (int)zbatch);
	b.items = items;
	b.cpu = (int)pcpu;
	b.drop = drop;
	atomic_init(&b.done, false);
	pin((int)ccpu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&t, NULL, producer, &b)) {
		fprintf(stderr, "bench_ptr_ring: cannot start the producer\n");
		return 1;
	}
	for (;;) {
		bool done = atomic_load_explicit(&b.done, memory_order_acquire);
		int n;

		if (cbatch == 1) {
			void *p = ring_consume(b.r);

			n = p ? 1 : 0;
			out[0] = p;
		} else {
			n = ring_consume_batched(b.r, out, (int)cbatch);
		}
		for (int i = 0; i < n; i++) {
			long v = (long)(uintptr_t)out[i];

			if (v <= last) {
				fprintf(stderr, "bench_ptr_ring: item %ld after %ld: out of order\n",
					v, last);
				return 1;
			}
			last = v;
			sum += v;
			consumer_work(work);
		}
		got += n;
		/* Empty after the producer finished: every item is out. */
		if (!n && done)
			break;
		if (!n)
			cpu_relax();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(t, NULL);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if ((!drop && sum != items * (items + 1) / 2) ||
	    (drop && got + b.full != items)) {
		fprintf(stderr, "bench_ptr_ring: items lost or duplicated\n");
		return 1;
	}
	printf("%s,%ld,%d,%ld,%ld,%.6f,%.0f,%ld,%s\n", ring_impl_name, size, ring_batch(b.r),
	       cbatch, got, secs, (double)got / secs, b.full, drop ? "drop" : "spin");
	ring_free(b.r, NULL);
	free(out);
	return 0;
}
