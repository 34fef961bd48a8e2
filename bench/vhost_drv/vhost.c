// SPDX-License-Identifier: GPL-2.0
#include "vhost.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/vhost.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int vhost_open(struct vhost *v, char *err, int errlen)
{
	for (int i = 0; i < VHOST_NQ; i++)
		v->kick[i] = v->call[i] = -1;
	v->fd = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
	if (v->fd < 0)
		FAIL("/dev/vhost-net: %s (CONFIG_VHOST_NET, and root?)", strerror(errno));
	if (ioctl(v->fd, VHOST_SET_OWNER) < 0)
		FAIL("VHOST_SET_OWNER: %s", strerror(errno));
	if (ioctl(v->fd, VHOST_GET_FEATURES, &v->features) < 0)
		FAIL("VHOST_GET_FEATURES: %s", strerror(errno));
	return 0;
}

int vhost_configure(struct vhost *v, uint64_t features, void *mem, size_t len,
		    char *err, int errlen)
{
	struct vhost_memory *m;
	int ret;

	if ((v->features & features) != features)
		FAIL("vhost-net lacks features 0x%llx (offers 0x%llx)",
		     (unsigned long long)(features & ~v->features),
		     (unsigned long long)v->features);
	if (ioctl(v->fd, VHOST_SET_FEATURES, &features) < 0)
		FAIL("VHOST_SET_FEATURES 0x%llx: %s", (unsigned long long)features, strerror(errno));
	m = calloc(1, sizeof(*m) + sizeof(m->regions[0]));
	if (!m)
		FAIL("out of memory");
	m->nregions = 1;
	m->regions[0].guest_phys_addr = (uintptr_t)mem;
	m->regions[0].userspace_addr = (uintptr_t)mem;
	m->regions[0].memory_size = len;
	ret = ioctl(v->fd, VHOST_SET_MEM_TABLE, m);
	free(m);
	if (ret < 0)
		FAIL("VHOST_SET_MEM_TABLE: %s", strerror(errno));
	return 0;
}

int vhost_vq_reset(struct vhost *v, int index, const struct vq *vq, char *err, int errlen)
{
	struct vhost_vring_state num = { .index = index, .num = vq->num };
	struct vhost_vring_state base = { .index = index, .num = vq->last_used };
	struct vhost_vring_addr addr = {
		.index = index,
		.desc_user_addr = (uintptr_t)vq->vr.desc,
		.avail_user_addr = (uintptr_t)vq->vr.avail,
		.used_user_addr = (uintptr_t)vq->vr.used,
	};

	if (ioctl(v->fd, VHOST_SET_VRING_NUM, &num) < 0)
		FAIL("VHOST_SET_VRING_NUM %u: %s", vq->num, strerror(errno));
	if (ioctl(v->fd, VHOST_SET_VRING_BASE, &base) < 0)
		FAIL("VHOST_SET_VRING_BASE: %s", strerror(errno));
	if (ioctl(v->fd, VHOST_SET_VRING_ADDR, &addr) < 0)
		FAIL("VHOST_SET_VRING_ADDR: %s", strerror(errno));
	return 0;
}

int vhost_vq_setup(struct vhost *v, int index, const struct vq *vq, char *err, int errlen)
{
	struct vhost_vring_file kick, call;

	/* where the device starts reading avail: what it has used so far */
	if (vhost_vq_reset(v, index, vq, err, errlen))
		return -1;
	v->kick[index] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	v->call[index] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->kick[index] < 0 || v->call[index] < 0)
		FAIL("eventfd: %s", strerror(errno));
	kick = (struct vhost_vring_file){ .index = index, .fd = v->kick[index] };
	call = (struct vhost_vring_file){ .index = index, .fd = v->call[index] };
	if (ioctl(v->fd, VHOST_SET_VRING_KICK, &kick) < 0)
		FAIL("VHOST_SET_VRING_KICK: %s", strerror(errno));
	if (ioctl(v->fd, VHOST_SET_VRING_CALL, &call) < 0)
		FAIL("VHOST_SET_VRING_CALL: %s", strerror(errno));
	return 0;
}

int vhost_attach(struct vhost *v, int index, int tap_fd, char *err, int errlen)
{
	struct vhost_vring_file b = { .index = index, .fd = tap_fd };

	if (ioctl(v->fd, VHOST_NET_SET_BACKEND, &b) < 0)
		FAIL("VHOST_NET_SET_BACKEND vq %d: %s", index, strerror(errno));
	return 0;
}

int vhost_set_rx_batch(struct vhost *v, unsigned int batch, unsigned int *got,
		       char *err, int errlen)
{
	struct vhost_vring_state s = { .index = VHOST_RXQ, .num = batch };

	if (ioctl(v->fd, VHOST_NET_SET_VRING_RX_BATCH, &s) < 0)
		FAIL("VHOST_NET_SET_VRING_RX_BATCH %u: %s%s", batch, strerror(errno),
		     errno == ENOTTY ? " (a kernel without the series' rx batch patch)" : "");
	s.num = 0;
	if (ioctl(v->fd, VHOST_NET_GET_VRING_RX_BATCH, &s) < 0)
		FAIL("VHOST_NET_GET_VRING_RX_BATCH: %s", strerror(errno));
	*got = s.num;
	return 0;
}

void vhost_kick(struct vhost *v, int index)
{
	uint64_t one = 1;

	/* an eventfd write fails only on counter overflow: not with 1s */
	if (write(v->kick[index], &one, sizeof(one)) != sizeof(one))
		perror("vhost_drv: kick");
}

uint64_t vhost_calls(struct vhost *v, int index)
{
	uint64_t n = 0;

	if (read(v->call[index], &n, sizeof(n)) != sizeof(n))
		return 0;	/* EAGAIN: none */
	return n;
}

void vhost_close(struct vhost *v)
{
	for (int i = 0; i < VHOST_NQ; i++) {
		if (v->kick[i] >= 0)
			close(v->kick[i]);
		if (v->call[i] >= 0)
			close(v->call[i]);
	}
	if (v->fd >= 0)
		close(v->fd);
}
