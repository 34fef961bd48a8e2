/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small interface the ptr_ring tests and benchmark are written against.
 * ring_ptr.c implements it over a kernel tree's include/linux/ptr_ring.h;
 * the Makefile compiles it once per tree (stock, patched), so one harness
 * measures both headers.
 */
#ifndef RING_H
#define RING_H

#include <stdbool.h>

struct ring;

/* Which header this binary was built from ("stock", "patched", ...). */
extern const char ring_impl_name[];

/* A ring of size entries, zeroing batch as the header sets it; NULL on failure. */
struct ring *ring_new(int size);
void ring_free(struct ring *r, void (*destroy)(void *));

/* Overrides the consumer's zeroing batch (r->batch); 0 keeps the header's. */
void ring_set_batch(struct ring *r, int batch);

int ring_produce(struct ring *r, void *ptr);		/* 0, -ENOSPC (or -EINVAL) */
void *ring_consume(struct ring *r);			/* NULL when empty */
int ring_consume_batched(struct ring *r, void **array, int n);
/*
 * Puts entries back; returns how many it destroyed (no room): the header's
 * own count when its ptr_ring_unconsume() returns one (the series' patch
 * 5), else the destroy calls counted here.
 */
int ring_unconsume(struct ring *r, void **batch, int n, void (*destroy)(void *));
int ring_resize(struct ring *r, int size, void (*destroy)(void *));
/*
 * __ptr_ring_check_produce() (the backpressure series): 0 if a produce now
 * would succeed, -ENOSPC if the ring is full, -EINVAL for a ring of 0
 * entries. Only when ring_has_check_produce(); otherwise it aborts.
 */
bool ring_has_check_produce(void);
/* The producer lock, and produce / check under it (__ptr_ring_produce()). */
void ring_lock_producer(struct ring *r);
void ring_unlock_producer(struct ring *r);
int ring_produce_locked(struct ring *r, void *ptr);
int ring_check_produce_locked(struct ring *r);
/* The consumer lock, and consume / empty under it (__ptr_ring_consume*()). */
void ring_lock_consumer(struct ring *r);
void ring_unlock_consumer(struct ring *r);
int ring_consume_batched_locked(struct ring *r, void **array, int n);
bool ring_empty_locked(struct ring *r);
bool ring_empty(struct ring *r);
bool ring_full(struct ring *r);

/* Introspection, for invariants. */
int ring_size(const struct ring *r);
int ring_batch(const struct ring *r);
int ring_consumer_head(const struct ring *r);
int ring_consumer_tail(const struct ring *r);
int ring_producer(const struct ring *r);
bool ring_slot_used(const struct ring *r, int i);	/* queue[i] != NULL */

/* The zeroing batch the header picks for a ring of this size. */
int ring_default_batch(int size);

#endif /* RING_H */
