// SPDX-License-Identifier: GPL-2.0
/*
 * Drives the per-device vhost-net rx batch ioctls of the series
 * (VHOST_NET_SET_VRING_RX_BATCH / VHOST_NET_GET_VRING_RX_BATCH) on two
 * /dev/vhost-net devices at once, one operation per argument, and prints
 * one line per operation with what the kernel answered, for
 * check-ring-knobs.sh to judge.
 *
 * Usage: vhost_rx_batch OP...
 *   OP: DEV:get          GET on the rx vring
 *       DEV:set:N        SET N on the rx vring
 *       DEV:setidx:I:N   SET N on vring index I
 *   DEV: a or b (two devices, each opened and owned by this process)
 * Prints per OP: "DEV get N" or "DEV get ERRNO", "DEV set N ok" or
 * "DEV set N ERRNO" (ERRNO: EINVAL, ENOTTY, ...), with "idx I" for setidx.
 * Exit: 0 all operations ran (whatever the kernel answered); 1 a device
 * could not be opened; 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/vhost.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef VHOST_NET_SET_VRING_RX_BATCH
#define VHOST_NET_SET_VRING_RX_BATCH _IOW(VHOST_VIRTIO, 0x38, struct vhost_vring_state)
#define VHOST_NET_GET_VRING_RX_BATCH _IOWR(VHOST_VIRTIO, 0x39, struct vhost_vring_state)
#endif

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	default: return strerror(e);
	}
}

static int open_dev(void)
{
	int fd = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, VHOST_SET_OWNER) < 0) {
		perror("vhost_rx_batch: /dev/vhost-net");
		exit(1);
	}
	return fd;
}

static int parse_num(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > 0xffffffffUL)
		return -1;
	*out = v;
	return 0;
}

/* Runs one OP; returns 0, or -1 if it is malformed. */
static int run_op(const int fd[2], char *op)
{
	char *dev = strtok(op, ":"), *what = strtok(NULL, ":");
	char *a1 = strtok(NULL, ":"), *a2 = strtok(NULL, ":");
	struct vhost_vring_state s = { .index = 0 };
	int d, r;

	if (!dev || !what || strlen(dev) != 1 || (dev[0] != 'a' && dev[0] != 'b'))
		return -1;
	d = dev[0] - 'a';
	if (!strcmp(what, "get") && !a1) {
		r = ioctl(fd[d], VHOST_NET_GET_VRING_RX_BATCH, &s);
		if (r < 0)
			printf("%s get %s\n", dev, errname(errno));
		else
			printf("%s get %u\n", dev, s.num);
		return 0;
	}
	if (!strcmp(what, "set") && a1 && !a2) {
		if (parse_num(a1, &s.num))
			return -1;
	} else if (!strcmp(what, "setidx") && a1 && a2) {
		if (parse_num(a1, &s.index) || parse_num(a2, &s.num))
			return -1;
	} else {
		return -1;
	}
	r = ioctl(fd[d], VHOST_NET_SET_VRING_RX_BATCH, &s);
	if (a2)
		printf("%s set %u idx %u %s\n", dev, s.num, s.index, r < 0 ? errname(errno) : "ok");
	else
		printf("%s set %u %s\n", dev, s.num, r < 0 ? errname(errno) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	int fd[2];

	if (argc < 2) {
		fprintf(stderr, "usage: vhost_rx_batch OP... (OP: a|b:get, a|b:set:N, a|b:setidx:I:N)\n");
		return 2;
	}
	fd[0] = open_dev();
	fd[1] = open_dev();
	for (int i = 1; i < argc; i++) {
		if (run_op(fd, argv[i])) {
			fprintf(stderr, "vhost_rx_batch: bad operation '%s'\n", argv[i]);
			return 2;
		}
	}
	fflush(stdout);
	close(fd[0]);
	close(fd[1]);
	return 0;
}
