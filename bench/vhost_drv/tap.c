// SPDX-License-Identifier: GPL-2.0
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SIOCSIFTXQLEN
#define SIOCSIFTXQLEN 0x8943
#endif

int tap_open(const char *name, int hdr_len, bool backpressure, char *err, int errlen)
{
	unsigned int features = 0;
	struct ifreq ifr;
	int fd;

	if (strlen(name) >= IFNAMSIZ) {
		snprintf(err, errlen, "tap name '%s' is longer than %d", name, IFNAMSIZ - 1);
		return -1;
	}
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "/dev/net/tun: %s (CONFIG_TUN, and root?)", strerror(errno));
		return -1;
	}
	if (backpressure && (ioctl(fd, TUNGETFEATURES, &features) < 0 ||
			     !(features & TAP_IFF_BACKPRESSURE))) {
		snprintf(err, errlen, "this kernel's tun has no IFF_BACKPRESSURE (the backpressure patches)");
		close(fd);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (backpressure)
		ifr.ifr_flags |= TAP_IFF_BACKPRESSURE;
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "TUNSETIFF %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr_len) < 0) {
		snprintf(err, errlen, "TUNSETVNETHDRSZ %d: %s", hdr_len, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int ifreq_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (s < 0)
		return -errno;
	memcpy(ifr->ifr_name, name, strlen(name) + 1);
	if (ioctl(s, req, ifr) < 0)
		ret = -errno;
	close(s);
	return ret;
}

int tap_set_txqlen(const char *name, int len)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_qlen = len;
	return ifreq_ioctl(name, SIOCSIFTXQLEN, &ifr);
}

int tap_up(const char *name)
{
	struct ifreq ifr;
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {	/* absent without IPv6: nothing to silence */
		ret = write(fd, "1", 1) == 1 ? 0 : -errno;
		close(fd);
		if (ret)
			return ret;
	}
	memset(&ifr, 0, sizeof(ifr));
	ret = ifreq_ioctl(name, SIOCGIFFLAGS, &ifr);
	if (ret)
		return ret;
	ifr.ifr_flags |= IFF_UP;
	return ifreq_ioctl(name, SIOCSIFFLAGS, &ifr);
}

long long tap_sysfs(const char *name, const char *attr)
{
	char path[160];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, attr);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
