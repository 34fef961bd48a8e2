// SPDX-License-Identifier: GPL-2.0
#include "vhost_rx.h"

#include <errno.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "net.h"

/* The ring's block (vq_ring_bytes(VH_NUM_MAX), page aligned), then the buffers. */
#define OFF_BUF (4 * 4096)
#define MEM_SIZE (OFF_BUF + VH_NUM_MAX * VH_BUF)

/* vhost-net writes the virtio-net header; the tap gives bare frames. */
#define FEATURES ((1ULL << VHOST_NET_F_VIRTIO_NET_HDR) | (1ULL << VIRTIO_F_VERSION_1))
/* What a used buffer holds: that header (VERSION_1's size) and a frame. */
#define USED_LEN (sizeof(struct virtio_net_hdr_mrg_rxbuf) + sizeof(fz_frame))

/* errno after a bench/vhost_drv call failed (its message not wanted). */
static int failed(void)
{
	return errno ? -errno : -EIO;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void vh_init(struct fz_vhost *v)
{
	memset(v, 0, sizeof(*v));
	v->dev.fd = -1;
	for (int i = 0; i < VHOST_NQ; i++)
		v->dev.kick[i] = v->dev.call[i] = -1;
	v->backend = v->used_dev = -1;
}

int vh_own(struct fz_vhost *v)
{
	char err[128];
	int ret;

	if (v->dev.fd >= 0)
		return 0;
	errno = 0;
	if (!vhost_open(&v->dev, err, sizeof(err)))
		return 0;
	ret = failed();
	vhost_close(&v->dev);
	vh_init(v);
	return ret;
}

int vh_setup(struct fz_vhost *v, unsigned int num)
{
	char err[128];
	struct vq vq;
	int ret;

	if (v->backend >= 0 || v->orphan)
		return -EBUSY;
	if (!num || num > VH_NUM_MAX || (num & (num - 1)) || vq_ring_bytes(num) > OFF_BUF)
		return -EINVAL;
	ret = vh_own(v);
	if (ret)
		return ret;
	errno = 0;
	if (!v->mem) {
		v->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
		if (v->mem == MAP_FAILED) {
			v->mem = NULL;
			return failed();
		}
		/* the netns operation's child has no use for vhost-net's memory */
		madvise(v->mem, MEM_SIZE, MADV_DONTFORK);
		if (vhost_configure(&v->dev, FEATURES & v->dev.features, v->mem, MEM_SIZE, err,
				    sizeof(err))) {
			ret = failed();
			munmap(v->mem, MEM_SIZE);
			v->mem = NULL;
			return ret;
		}
	}
	memset(v->mem, 0, OFF_BUF);
	if (!vq_init(&vq, num, v->mem))
		return -EINVAL;
	/* from here a failure leaves no ring set up */
	v->vq.num = 0;
	if (!v->eventfds) {
		/* those of a setup that failed half way go first */
		close_fd(&v->dev.kick[VHOST_RXQ]);
		close_fd(&v->dev.call[VHOST_RXQ]);
	}
	if (v->eventfds ? vhost_vq_reset(&v->dev, VHOST_RXQ, &vq, err, sizeof(err))
			: vhost_vq_setup(&v->dev, VHOST_RXQ, &vq, err, sizeof(err)))
		return failed();
	v->eventfds = true;
	v->vq = vq;
	v->nfree = num;
	v->bad = false;
	for (unsigned int i = 0; i < num; i++) {
		v->free_ids[i] = (uint16_t)(num - 1 - i);
		v->posted[i] = false;
	}
	return 0;
}

int vh_backend(struct fz_vhost *v, int fd, int dev)
{
	char err[128];

	if (v->dev.fd < 0 || !v->vq.num)
		return -EBADFD;
	/* what the used ring holds stays used_dev's until a backend is set */
	if (fd >= 0)
		vh_reap(v);
	errno = 0;
	if (vhost_attach(&v->dev, VHOST_RXQ, fd, err, sizeof(err)))
		return failed();
	v->backend = fd;
	v->orphan = false;
	if (fd >= 0)
		v->used_dev = dev;
	return 0;
}

unsigned int vh_reap(struct fz_vhost *v)
{
	unsigned int n = 0;
	uint32_t len;
	uint16_t id;
	bool bad = false;

	if (!v->vq.num)
		return 0;
	while (vq_harvest(&v->vq, &id, &len, &bad)) {
		/* vq_harvest() checked the range */
		if (!v->posted[id] || len != USED_LEN) {
			v->bad = true;
			continue;
		}
		v->posted[id] = false;
		v->free_ids[v->nfree++] = id;
		n++;
	}
	v->bad |= bad;
	return n;
}

unsigned int vh_post(struct fz_vhost *v, unsigned int n)
{
	unsigned int posted = 0;

	if (!v->vq.num)
		return 0;
	for (; posted < n && v->nfree; posted++) {
		uint16_t id = v->free_ids[--v->nfree];

		v->posted[id] = true;
		vq_post(&v->vq, id, (uintptr_t)(v->mem + OFF_BUF + (size_t)id * VH_BUF), VH_BUF);
	}
	if (posted) {
		vq_publish(&v->vq);
		vhost_kick(&v->dev, VHOST_RXQ);
	}
	return posted;
}

int vh_call_fd(const struct fz_vhost *v)
{
	return v->dev.call[VHOST_RXQ];
}

void vh_clear_calls(struct fz_vhost *v)
{
	if (v->dev.call[VHOST_RXQ] >= 0)
		vhost_calls(&v->dev, VHOST_RXQ);
}

void vh_close(struct fz_vhost *v)
{
	if (v->dev.fd >= 0)
		vhost_close(&v->dev);
	if (v->mem)
		munmap(v->mem, MEM_SIZE);
	vh_init(v);
}
