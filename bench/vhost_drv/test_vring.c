// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side tests of vhost_drv's parts that need no vhost: the driver side
 * of the split vring against a fake device (in order, out of order, 16-bit
 * index wrap, a full ring, kick suppression, a bad used id, and a device
 * thread running concurrently: the TSan build checks the ordering), and
 * pktgen frame matching.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pktgen_frame.h"
#include "vring.h"


/* A device: reads avail entries, completes them into the used ring. */
struct dev {
	struct vq *vq;
	uint16_t last_avail;
	uint16_t used_idx;
};

/* Takes the next published avail entry's descriptor id, or -1. */
static int dev_take(struct dev *d)
{
	uint16_t idx = atomic_load_explicit((_Atomic uint16_t *)&d->vq->vr.avail->idx,
					    memory_order_acquire);

	if (idx == d->last_avail)
		return -1;
	return d->vq->vr.avail->ring[d->last_avail++ & (d->vq->num - 1)];
}

/* Completes id with len bytes written (visible at dev_flush). */
static void dev_put(struct dev *d, uint16_t id, uint32_t len)
{
	struct vring_used_elem *e = &d->vq->vr.used->ring[d->used_idx++ & (d->vq->num - 1)];

	e->id = id;
	e->len = len;
}

static void dev_flush(struct dev *d)
{
	atomic_store_explicit((_Atomic uint16_t *)&d->vq->vr.used->idx, d->used_idx,
			      memory_order_release);
}

struct ring {
	struct vq vq;
	void *mem;
};

static int ring_new(struct ring *r, unsigned int num)
{
	r->mem = aligned_alloc(4096, vq_ring_bytes(num));
	if (!r->mem)
		return -1;
	memset(r->mem, 0, vq_ring_bytes(num));
	return vq_init(&r->vq, num, r->mem) ? 0 : -1;
}

static int test_init(void)
{
	char mem[8192] __attribute__((aligned(4096)));
	struct vq vq;

	CHECK(!vq_init(&vq, 0, mem));
	CHECK(!vq_init(&vq, 3, mem));
	CHECK(!vq_init(&vq, 65536, mem));
	CHECK(vq_ring_bytes(256) % 4096 == 0);
	/* desc (16 B each), avail, then used on the next page */
	CHECK(vq_ring_bytes(256) >= 256 * 16 + 6 + 2 * 256 + 6 + 8 * 256);
	memset(mem, 0, sizeof(mem));
	CHECK(vq_init(&vq, 4, mem));
	CHECK((char *)vq.vr.used - mem == 4096);
	return 0;
}

static int test_post_publish_harvest(void)
{
	struct ring r;
	struct dev d;
	uint16_t id;
	uint32_t len;
	bool bad;

	CHECK(!ring_new(&r, 8));
	d = (struct dev){ .vq = &r.vq };
	for (uint16_t i = 0; i < 8; i++)
		CHECK(vq_post(&r.vq, i, 0x1000 * (i + 1), 2048));
	CHECK(!vq_post(&r.vq, 0, 0x1000, 2048));	/* full */
	CHECK(r.vq.vr.desc[3].addr == 0x4000 && r.vq.vr.desc[3].len == 2048);
	CHECK(r.vq.vr.desc[3].flags == VRING_DESC_F_WRITE);
	CHECK(dev_take(&d) == -1);			/* not published yet */
	vq_publish(&r.vq);
	CHECK(r.vq.vr.avail->idx == 8);
	CHECK(!vq_harvest(&r.vq, &id, &len, &bad) && !bad);
	/* the device completes 2, then 0, out of order */
	CHECK(dev_take(&d) == 0 && dev_take(&d) == 1 && dev_take(&d) == 2);
	dev_put(&d, 2, 100);
	dev_put(&d, 0, 60);
	CHECK(vq_used_pending(&r.vq) == 0);		/* not flushed */
	dev_flush(&d);
	CHECK(vq_used_pending(&r.vq) == 2);
	CHECK(vq_harvest(&r.vq, &id, &len, &bad) && id == 2 && len == 100);
	CHECK(vq_harvest(&r.vq, &id, &len, &bad) && id == 0 && len == 60);
	CHECK(!vq_harvest(&r.vq, &id, &len, &bad) && !bad);
	CHECK(r.vq.posted == 6);
	CHECK(vq_post(&r.vq, 2, 0x3000, 2048) && vq_post(&r.vq, 0, 0x1000, 2048));
	CHECK(!vq_post(&r.vq, 5, 0x1000, 2048));
	free(r.mem);
	return 0;
}

static int test_index_wrap(void)
{
	struct ring r;
	struct dev d;
	uint64_t got = 0;
	uint16_t id;
	uint32_t len;
	bool bad;

	CHECK(!ring_new(&r, 4));
	d = (struct dev){ .vq = &r.vq };
	for (uint16_t i = 0; i < 4; i++)
		CHECK(vq_post(&r.vq, i, 0x1000 * (i + 1), 64));
	vq_publish(&r.vq);
	/* 200000 completions: the 16-bit indices wrap three times */
	for (int round = 0; round < 200000 / 3; round++) {
		int a = dev_take(&d), b = dev_take(&d), c = dev_take(&d);

		CHECK(a >= 0 && b >= 0 && c >= 0);
		dev_put(&d, c, 3);
		dev_put(&d, a, 1);
		dev_put(&d, b, 2);
		dev_flush(&d);
		for (int k = 0; k < 3; k++) {
			CHECK(vq_harvest(&r.vq, &id, &len, &bad));
			got += len;
			CHECK(vq_post(&r.vq, id, 0x1000 * (id + 1), 64));
		}
		vq_publish(&r.vq);
	}
	CHECK(got == 6ULL * (200000 / 3));
	CHECK(r.vq.posted == 4);
	CHECK(r.vq.avail_idx == (uint16_t)(4 + 3 * (200000 / 3)));
	free(r.mem);
	return 0;
}

static int test_kick_and_interrupt_flags(void)
{
	struct ring r;

	CHECK(!ring_new(&r, 4));
	CHECK(vq_needs_kick(&r.vq));
	r.vq.vr.used->flags = VRING_USED_F_NO_NOTIFY;	/* the device is polling */
	CHECK(!vq_needs_kick(&r.vq));
	r.vq.vr.used->flags = 0;
	CHECK(vq_needs_kick(&r.vq));
	vq_set_interrupts(&r.vq, false);
	CHECK(r.vq.vr.avail->flags == VRING_AVAIL_F_NO_INTERRUPT);
	vq_set_interrupts(&r.vq, true);
	CHECK(r.vq.vr.avail->flags == 0);
	free(r.mem);
	return 0;
}

static int test_bad_used_entry(void)
{
	struct ring r;
	struct dev d;
	uint16_t id;
	uint32_t len;
	bool bad;

	CHECK(!ring_new(&r, 4));
	d = (struct dev){ .vq = &r.vq };
	CHECK(vq_post(&r.vq, 0, 0x1000, 64));
	vq_publish(&r.vq);
	dev_put(&d, 9, 10);	/* an id beyond the ring */
	dev_flush(&d);
	CHECK(!vq_harvest(&r.vq, &id, &len, &bad) && bad);
	CHECK(r.vq.posted == 1);
	free(r.mem);
	return 0;
}

/* A device thread completing everything it is given, as vhost does. */
struct dev_thread {
	struct dev d;
	uint64_t total;
	atomic_bool stop;
	uint64_t done;
};

static void *dev_run(void *arg)
{
	struct dev_thread *t = arg;

	while (t->done < t->total) {
		int id = dev_take(&t->d);

		if (id < 0) {
			if (atomic_load(&t->stop))
				break;
			continue;
		}
		/* the descriptor was written before the avail index */
		dev_put(&t->d, id, t->d.vq->vr.desc[id].len - 1);
		t->done++;
		if ((t->done & 7) == 0 || t->done == t->total)
			dev_flush(&t->d);
	}
	dev_flush(&t->d);
	return NULL;
}

static int test_concurrent_device(void)
{
	const uint64_t total = 300000;
	struct dev_thread t = { .total = total };
	struct ring r;
	pthread_t th;
	uint64_t got = 0, bytes = 0;
	uint16_t id;
	uint32_t len;
	bool bad;

	CHECK(!ring_new(&r, 64));
	t.d = (struct dev){ .vq = &r.vq };
	for (uint16_t i = 0; i < 64; i++)
		CHECK(vq_post(&r.vq, i, 0x1000, 100 + i));
	vq_publish(&r.vq);
	CHECK(!pthread_create(&th, NULL, dev_run, &t));
	while (got < total) {
		int n = 0;

		while (vq_harvest(&r.vq, &id, &len, &bad)) {
			CHECK(len == 99u + id);
			bytes += len;
			got++;
			n++;
			CHECK(vq_post(&r.vq, id, 0x1000, 100 + id));
		}
		CHECK(!bad);
		if (n)
			vq_publish(&r.vq);
	}
	atomic_store(&t.stop, true);
	pthread_join(th, NULL);
	CHECK(got == total && t.done == total);
	CHECK(bytes > 99 * total);
	free(r.mem);
	return 0;
}

static int test_pktgen_frame(void)
{
	uint8_t f[64] = { 0 };

	f[12] = 0x08;			/* IPv4 */
	f[14] = 0x45;			/* version 4, 20-byte header */
	f[14 + 9] = 17;			/* UDP */
	f[42] = 0xbe; f[43] = 0x9b; f[44] = 0xe9; f[45] = 0x55;
	CHECK(pktgen_frame_is(f, sizeof(f)));
	CHECK(!pktgen_frame_is(f, 45));	/* magic cut short */
	f[14 + 9] = 6;			/* TCP */
	CHECK(!pktgen_frame_is(f, sizeof(f)));
	f[14 + 9] = 17;
	f[13] = 0xdd;			/* 0x08dd: not IPv4 */
	CHECK(!pktgen_frame_is(f, sizeof(f)));
	f[13] = 0;
	f[14] = 0x46;			/* options: the UDP header moves by 4 */
	CHECK(!pktgen_frame_is(f, sizeof(f)));
	f[46] = 0xbe; f[47] = 0x9b; f[48] = 0xe9; f[49] = 0x55;
	CHECK(pktgen_frame_is(f, sizeof(f)));
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "init", test_init },
		{ "post, publish, harvest", test_post_publish_harvest },
		{ "index wrap", test_index_wrap },
		{ "kick and interrupt flags", test_kick_and_interrupt_flags },
		{ "bad used entry", test_bad_used_entry },
		{ "concurrent device", test_concurrent_device },
		{ "pktgen frame", test_pktgen_frame },
	};

	return CHECK_RUN("vhost_drv parts", tests);
}
