/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer as vhost-net's driver, on the workload's VMM side
 * (bench/vhost_drv: vhost.h, vring.h): one /dev/vhost-net it owns, whose
 * rx vring (0) lives in this process's memory, a tap's fd as its backend,
 * and buffers of VH_BUF bytes posted to it and taken back from its used
 * ring, each used entry one frame vhost-net delivered.
 */
#ifndef VHOST_RX_H
#define VHOST_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "vhost.h"
#include "vring.h"

#define VH_NUM_MAX 256	/* the largest rx vring the fuzzer sets up */
#define VH_BUF 2048	/* a buffer: a virtio-net header and a frame */

struct fz_vhost {
	struct vhost dev;	/* dev.fd -1 until first used */
	bool eventfds;		/* the rx vring's eventfds made and set */
	unsigned char *mem;	/* the region: the ring, then the buffers */
	struct vq vq;		/* vq.num 0: not set up */
	unsigned int nfree;	/* buffers not posted */
	uint16_t free_ids[VH_NUM_MAX];
	bool posted[VH_NUM_MAX];	/* buffer i is vhost-net's */
	bool bad;		/* since the ring was set up, a used entry named a
				 * buffer not posted, or its length was not a
				 * header and one of the fuzzer's frames */
	int backend;		/* the tap fd set as the rx backend, or -1 */
	bool orphan;		/* a removal failed after its fd was closed:
				 * vhost-net may still hold a backend */
	int used_dev;		/* the tap whose frames the used ring holds, or -1 */
};

/* Nothing open, nothing set up. */
void vh_init(struct fz_vhost *v);

/*
 * Opens /dev/vhost-net and takes ownership, once: 0, or -errno (nothing
 * open).
 */
int vh_own(struct fz_vhost *v);

/*
 * Sets the rx vring up with num entries, a power of two up to VH_NUM_MAX
 * (-EINVAL otherwise, nothing changed): features and memory table the
 * first time, then size, base 0 and addresses, and the eventfds once; its
 * buffers all unposted, bad cleared. 0, or -errno (the kernel's answer; no
 * ring set up then). Only without a backend, nor an orphan (-EBUSY).
 */
int vh_setup(struct fz_vhost *v, unsigned int num);

/*
 * Sets tap fd as the rx backend of the vring (set up already), or with fd
 * -1 removes it: VHOST_NET_SET_BACKEND's answer, 0 or -errno. Before a
 * set, the frames the used ring holds are taken back, not counted; after
 * it they are dev's. A removal leaves them to the backend's tap.
 */
int vh_backend(struct fz_vhost *v, int fd, int dev);

/*
 * Takes back what the used ring holds: the number of frames delivered
 * since the last call (into the buffers of used_dev's backend).
 */
unsigned int vh_reap(struct fz_vhost *v);

/* Posts up to n unposted buffers and kicks: how many it posted. */
unsigned int vh_post(struct fz_vhost *v, unsigned int n);

/* The rx vring's call eventfd (readable when vhost-net used buffers), or -1. */
int vh_call_fd(const struct fz_vhost *v);

/* Reads the call eventfd empty. */
void vh_clear_calls(struct fz_vhost *v);

/* Closes everything (the backend goes with the fd). */
void vh_close(struct fz_vhost *v);

#endif /* VHOST_RX_H */
