/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel primitives include/linux/ptr_ring.h uses, for userspace: just
 * enough to compile the kernel's own header unchanged (without __KERNEL__
 * it includes nothing itself, so these must come first). Spinlocks are pthread
 * spinlocks; READ_ONCE/WRITE_ONCE are relaxed atomics and smp_wmb() a release
 * fence, which is what x86-64 gives the kernel (TSO) and what the C11 memory
 * model needs to see the same ordering.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int gfp_t;
#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
#define __GFP_ZERO	0x100u

#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned_in_smp __attribute__((aligned(SMP_CACHE_BYTES)))

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define barrier()	__asm__ __volatile__("" ::: "memory")
#ifdef __SANITIZE_THREAD__
/*
 * ThreadSanitizer does not model stand-alone fences: give the loads and
 * stores themselves acquire / release order instead (what x86-64's TSO
 * gives every plain access anyway), so it sees smp_wmb()'s publication.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define smp_wmb()	barrier()
#define smp_rmb()	barrier()
#else
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* KCSAN's annotation of an intended race: the access itself, here */
#define data_race(expr)	(expr)

typedef pthread_spinlock_t spinlock_t;
#define spin_lock_init(l)	pthread_spin_init((l), PTHREAD_PROCESS_PRIVATE)
#define spin_lock(l)		pthread_spin_lock(l)
#define spin_unlock(l)		pthread_spin_unlock(l)
#define spin_lock_irq(l)	spin_lock(l)
#define spin_unlock_irq(l)	spin_unlock(l)
#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)
#define spin_lock_irqsave(l, f)	do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(f); spin_unlock(l); } while (0)

#define KMALLOC_MAX_SIZE	(1UL << 25)

/*
 * Aligned as the kernel's allocators align: kmalloc's power-of-two caches
 * align an object to its size (to a page at most), vmalloc to a page. A
 * plain malloc() would put the queue at an offset within a cache line
 * that depends on the binary's earlier allocations: the stock and the
 * patched harness would then share lines differently between producer and
 * consumer, a difference of layout, not of the header (seen: 3x items/s
 * between identical code paths, 2026-12-01).
 */
/*
 * As in the kernel, a request for 0 bytes gets ZERO_SIZE_PTR: not NULL (the
 * allocation succeeded), and faulting on any access. A ring of 0 entries
 * (tun's with tx_queue_len 0) has that as its queue, so a header that reads
 * its queue without testing the size crashes here as it does in the kernel.
 */
#define ZERO_SIZE_PTR ((void *)16)

static inline void *kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes, align = SMP_CACHE_BYTES;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	if (!n || !size)
		return ZERO_SIZE_PTR;
	bytes = n * size;
	while (align < bytes && align < 4096)
		align *= 2;
	bytes = (bytes + align - 1) / align * align;
	p = aligned_alloc(align, bytes);
	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, bytes);
	return p;
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	return kvmalloc_array(n, size, gfp);
}

static inline void kvfree(const void *p)
{
	if (p != ZERO_SIZE_PTR)
		free((void *)p);
}

static inline void kfree(const void *p)
{
	kvfree(p);
}

#endif /* KSHIM_H */
