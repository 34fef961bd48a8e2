/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/vhost-net from userspace, as a VMM would drive it: owner, features,
 * a memory table mapping "guest physical" addresses 1:1 onto our own
 * memory, per virtqueue its size, base, ring addresses and kick/call
 * eventfds, and a tap as the backend.
 */
#ifndef VHOST_H
#define VHOST_H

#include <stddef.h>
#include <stdint.h>

#include "vring.h"

#include <linux/vhost.h>

/*
 * The per-device rx batch of this project's series (patch "vhost_net: make
 * the rx batch settable per device"); the host's headers predate it.
 */
#ifndef VHOST_NET_SET_VRING_RX_BATCH
#define VHOST_NET_SET_VRING_RX_BATCH _IOW(VHOST_VIRTIO, 0x38, struct vhost_vring_state)
#define VHOST_NET_GET_VRING_RX_BATCH _IOWR(VHOST_VIRTIO, 0x39, struct vhost_vring_state)
#endif

/* vhost-net's virtqueues */
enum { VHOST_RXQ = 0, VHOST_TXQ = 1, VHOST_NQ = 2 };

struct vhost {
	int fd;
	uint64_t features;	/* offered by vhost-net */
	int kick[VHOST_NQ];
	int call[VHOST_NQ];
};

/* Each returns 0, or -1 with a message in err (errlen bytes). */

/* Opens /dev/vhost-net, becomes its owner, reads its features. */
int vhost_open(struct vhost *v, char *err, int errlen);

/* Acks features (all must be offered) and maps [mem, mem + len) 1:1. */
int vhost_configure(struct vhost *v, uint64_t features, void *mem, size_t len,
		    char *err, int errlen);

/*
 * Tells vhost about virtqueue index, laid out in vq (buffers may be posted,
 * none used yet); makes its eventfds.
 */
int vhost_vq_setup(struct vhost *v, int index, const struct vq *vq, char *err, int errlen);

/*
 * Tells vhost that virtqueue index starts over as laid out in vq (its
 * backend detached first): size, base, ring addresses; eventfds kept.
 */
int vhost_vq_reset(struct vhost *v, int index, const struct vq *vq, char *err, int errlen);

/* Attaches the tap (fd) as the backend of virtqueue index (-1 detaches). */
int vhost_attach(struct vhost *v, int index, int tap_fd, char *err, int errlen);

/*
 * Sets the rx virtqueue's batch (packets taken from the tap's ring at a
 * time) and reads it back into *got; a kernel without the series fails.
 */
int vhost_set_rx_batch(struct vhost *v, unsigned int batch, unsigned int *got,
		       char *err, int errlen);

/* Kicks virtqueue index. */
void vhost_kick(struct vhost *v, int index);

/* Reads and clears virtqueue index's call eventfd: calls since the last read. */
uint64_t vhost_calls(struct vhost *v, int index);

void vhost_close(struct vhost *v);

#endif /* VHOST_H */
