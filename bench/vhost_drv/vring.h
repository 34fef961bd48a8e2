/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver ("guest") side of one split virtqueue, as the virtio spec lays
 * it out (<linux/virtio_ring.h>), without vhost: memory layout, posting
 * device-writable buffers on the avail ring, harvesting the used ring, and
 * whether the device wants a kick. No EVENT_IDX: notifications are
 * suppressed with the ring flags only. Single-threaded on the driver side;
 * the device (vhost, or a test) runs concurrently and is synchronised with
 * through acquire/release on the ring indices.
 */
#ifndef VRING_H
#define VRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_ring.h>

struct vq {
	unsigned int num;	/* entries, a power of 2 */
	struct vring vr;	/* desc, avail, used in one block */
	uint16_t avail_idx;	/* next avail->idx to publish */
	uint16_t last_used;	/* next used entry to read */
	unsigned int posted;	/* buffers the device holds */
};

/* Bytes of ring memory vq_init needs for num entries (align: a page). */
size_t vq_ring_bytes(unsigned int num);

/*
 * Lays a ring of num entries (a power of 2, 1-32768) over mem, which must
 * hold vq_ring_bytes(num) bytes, zeroed, page aligned. Returns false on a
 * bad num.
 */
bool vq_init(struct vq *vq, unsigned int num, void *mem);

/*
 * Descriptor id (< num) gets the device-writable buffer [addr, addr + len)
 * and goes on the avail ring; not visible to the device until
 * vq_publish(). Returns false when the ring is full (every id posted).
 */
bool vq_post(struct vq *vq, uint16_t id, uint64_t addr, uint32_t len);

/* Makes the posted buffers visible (avail->idx, release). */
void vq_publish(struct vq *vq);

/* Whether the device asked for a kick (used->flags lacks NO_NOTIFY). */
bool vq_needs_kick(const struct vq *vq);

/*
 * Takes the next used entry if there is one: its id and the bytes the
 * device wrote. Returns false when the used ring holds nothing new. Fails
 * (returns false, *bad set) on an id out of range.
 */
bool vq_harvest(struct vq *vq, uint16_t *id, uint32_t *len, bool *bad);

/* Used entries waiting to be harvested. */
uint16_t vq_used_pending(const struct vq *vq);

/* Asks the device for (on) or not for (off) a call per used batch. */
void vq_set_interrupts(struct vq *vq, bool on);

#endif /* VRING_H */
