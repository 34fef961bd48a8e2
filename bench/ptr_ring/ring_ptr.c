// SPDX-License-Identifier: GPL-2.0
/*
 * ring.h over the kernel's include/linux/ptr_ring.h, compiled unchanged from
 * the tree named by PTR_RING_HEADER, on the userspace primitives of kshim.h.
 */
#include <stdlib.h>

#include "kshim.h"
/*
 * The kernel builds without -Wextra; its header has an unused gfp argument
 * and int/unsigned comparisons that -Wextra flags. Those two only, here only.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include PTR_RING_HEADER
#pragma GCC diagnostic pop

#include "ring.h"

#ifndef RING_IMPL_NAME
#define RING_IMPL_NAME "unnamed"
#endif

const char ring_impl_name[] = RING_IMPL_NAME;

struct ring {
	struct ptr_ring pr;
};

struct ring *ring_new(int size)
{
	struct ring *r = aligned_alloc(SMP_CACHE_BYTES, sizeof(*r));

	if (!r)
		return NULL;
	if (ptr_ring_init(&r->pr, size, GFP_KERNEL)) {
		free(r);
		return NULL;
	}
	return r;
}

void ring_free(struct ring *r, void (*destroy)(void *))
{
	ptr_ring_cleanup(&r->pr, destroy);
	free(r);
}

void ring_set_batch(struct ring *r, int batch)
{
	if (batch > 0)
		r->pr.batch = batch;
}

int ring_produce(struct ring *r, void *ptr)
{
	return ptr_ring_produce(&r->pr, ptr);
}

void *ring_consume(struct ring *r)
{
	return ptr_ring_consume(&r->pr);
}

int ring_consume_batched(struct ring *r, void **array, int n)
{
	return ptr_ring_consume_batched(&r->pr, array, n);
}

void ring_lock_producer(struct ring *r)
{
	spin_lock(&r->pr.producer_lock);
}

void ring_unlock_producer(struct ring *r)
{
	spin_unlock(&r->pr.producer_lock);
}

int ring_produce_locked(struct ring *r, void *ptr)
{
	return __ptr_ring_produce(&r->pr, ptr);
}

#ifdef HAVE_CHECK_PRODUCE
bool ring_has_check_produce(void)
{
	return true;
}

int ring_check_produce_locked(struct ring *r)
{
	return __ptr_ring_check_produce(&r->pr);
}
#else
bool ring_has_check_produce(void)
{
	return false;
}

int ring_check_produce_locked(struct ring *r)
{
	(void)r;
	abort();
}
#endif

void ring_lock_consumer(struct ring *r)
{
	spin_lock(&r->pr.consumer_lock);
}

void ring_unlock_consumer(struct ring *r)
{
	spin_unlock(&r->pr.consumer_lock);
}

int ring_consume_batched_locked(struct ring *r, void **array, int n)
{
	return __ptr_ring_consume_batched(&r->pr, array, n);
}

bool ring_empty_locked(struct ring *r)
{
	return __ptr_ring_empty(&r->pr);
}

/* The caller's destroy, and the calls to it, around one ring_unconsume(). */
static _Thread_local void (*unconsume_destroy)(void *);
static _Thread_local int unconsume_destroyed;

static void unconsume_count_destroy(void *ptr)
{
	unconsume_destroyed++;
	unconsume_destroy(ptr);
}

int ring_unconsume(struct ring *r, void **batch, int n, void (*destroy)(void *))
{
	unconsume_destroy = destroy;
	unconsume_destroyed = 0;
#ifdef UNCONSUME_RETURNS_COUNT
	/* the header's own count: the tests compare it with the destroy calls */
	return ptr_ring_unconsume(&r->pr, batch, n, unconsume_count_destroy);
#else
	ptr_ring_unconsume(&r->pr, batch, n, unconsume_count_destroy);
	return unconsume_destroyed;
#endif
}

int ring_resize(struct ring *r, int size, void (*destroy)(void *))
{
	return ptr_ring_resize(&r->pr, size, GFP_KERNEL, destroy);
}

bool ring_empty(struct ring *r)
{
	return ptr_ring_empty(&r->pr);
}

bool ring_full(struct ring *r)
{
	return ptr_ring_full(&r->pr);
}

int ring_size(const struct ring *r)
{
	return r->pr.size;
}

int ring_batch(const struct ring *r)
{
	return r->pr.batch;
}

int ring_consumer_head(const struct ring *r)
{
	return r->pr.consumer_head;
}

int ring_consumer_tail(const struct ring *r)
{
	return r->pr.consumer_tail;
}

int ring_producer(const struct ring *r)
{
	return r->pr.producer;
}

bool ring_slot_used(const struct ring *r, int i)
{
	return r->pr.queue[i] != NULL;
}

int ring_default_batch(int size)
{
	struct ptr_ring pr = { 0 };

	__ptr_ring_set_size(&pr, size);
	return pr.batch;
}
