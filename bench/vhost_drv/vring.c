// SPDX-License-Identifier: GPL-2.0
#include "vring.h"

#include <stdatomic.h>

#define PAGE 4096UL

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

size_t vq_ring_bytes(unsigned int num)
{
	return align_up(vring_size(num, PAGE), PAGE);
}

bool vq_init(struct vq *vq, unsigned int num, void *mem)
{
	if (num == 0 || num > 32768 || (num & (num - 1)))
		return false;
	vq->num = num;
	vring_init(&vq->vr, num, mem, PAGE);
	vq->avail_idx = 0;
	vq->last_used = 0;
	vq->posted = 0;
	return true;
}

bool vq_post(struct vq *vq, uint16_t id, uint64_t addr, uint32_t len)
{
	struct vring_desc *d;

	if (vq->posted == vq->num || id >= vq->num)
		return false;
	d = &vq->vr.desc[id];
	d->addr = addr;
	d->len = len;
	d->flags = VRING_DESC_F_WRITE;
	d->next = 0;
	vq->vr.avail->ring[vq->avail_idx & (vq->num - 1)] = id;
	vq->avail_idx++;
	vq->posted++;
	return true;
}

void vq_publish(struct vq *vq)
{
	/* descriptors and ring entries before the index (virtio_wmb) */
	atomic_store_explicit((_Atomic uint16_t *)&vq->vr.avail->idx, vq->avail_idx,
			      memory_order_release);
}

bool vq_needs_kick(const struct vq *vq)
{
	/* the index store before reading the device's flag (virtio_mb) */
	atomic_thread_fence(memory_order_seq_cst);
	return !(atomic_load_explicit((_Atomic uint16_t *)&vq->vr.used->flags,
				      memory_order_relaxed) & VRING_USED_F_NO_NOTIFY);
}

uint16_t vq_used_pending(const struct vq *vq)
{
	uint16_t idx = atomic_load_explicit((_Atomic uint16_t *)&vq->vr.used->idx,
					    memory_order_acquire);

	return (uint16_t)(idx - vq->last_used);
}

bool vq_harvest(struct vq *vq, uint16_t *id, uint32_t *len, bool *bad)
{
	struct vring_used_elem *e;

	*bad = false;
	if (!vq_used_pending(vq))
		return false;
	e = &vq->vr.used->ring[vq->last_used & (vq->num - 1)];
	if (e->id >= vq->num || vq->posted == 0) {
		*bad = true;
		return false;
	}
	*id = (uint16_t)e->id;
	*len = e->len;
	vq->last_used++;
	vq->posted--;
	return true;
}

void vq_set_interrupts(struct vq *vq, bool on)
{
	atomic_store_explicit((_Atomic uint16_t *)&vq->vr.avail->flags,
			      on ? 0 : VRING_AVAIL_F_NO_INTERRUPT, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
}
