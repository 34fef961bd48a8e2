// SPDX-License-Identifier: GPL-2.0
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SIOCSIFTXQLEN
#define SIOCSIFTXQLEN 0x8943
#endif

const unsigned char fz_frame[60] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* broadcast */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,	/* a local source */
	0x88, 0xb5,				/* local experimental EtherType */
};

void tap_name(int i, char *name)
{
	snprintf(name, IFNAMSIZ, "fz%d", i);
}

static int ifreq_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (s < 0)
		return -errno;
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", ifname);
	if (ioctl(s, req, ifr) < 0)
		ret = -errno;
	close(s);
	return ret;
}

int net_set_txqlen(const char *ifname, unsigned int len)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_qlen = (int)len;
	return ifreq_ioctl(ifname, SIOCSIFTXQLEN, &ifr);
}

int net_flags(const char *ifname)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ret = ifreq_ioctl(ifname, SIOCGIFFLAGS, &ifr);
	return ret ? ret : (unsigned short)ifr.ifr_flags;
}

int net_set_up(const char *ifname, bool up)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ret = ifreq_ioctl(ifname, SIOCGIFFLAGS, &ifr);
	if (ret)
		return ret;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ifreq_ioctl(ifname, SIOCSIFFLAGS, &ifr);
}

/* Runs argv with stdout to out_fd (-1: discarded); its exit status or -1. */
static int exec_to(char *const argv[], int out_fd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(out_fd >= 0 ? out_fd : null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int net_exec(char *const argv[])
{
	return exec_to(argv, -1);
}

long long net_sysfs(const char *ifname, const char *attr)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long long net_sysfs_hex(const char *ifname, const char *attr)
{
	char path[256];
	long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llx", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int net_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int net_send(const char *ifname, unsigned int n, struct send_counts *c)
{
	struct sockaddr_ll to;
	int s;

	memset(c, 0, sizeof(*c));
	s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&to, 0, sizeof(to));
	to.sll_family = AF_PACKET;
	to.sll_ifindex = (int)if_nametoindex(ifname);
	to.sll_halen = 6;
	memcpy(to.sll_addr, fz_frame, 6);
	for (unsigned int i = 0; i < n; i++) {
		ssize_t r = sendto(s, fz_frame, sizeof(fz_frame), MSG_DONTWAIT,
				   (struct sockaddr *)&to, sizeof(to));

		if (r == (ssize_t)sizeof(fz_frame))
			c->sent++;
		else if (r < 0 && errno == ENOBUFS)
			c->dropped++;
		else if (r < 0 && errno == ENETDOWN)
			c->down++;
		else
			c->other++;
	}
	close(s);
	return 0;
}

/*
 * The root qdisc's block is the first of "tc -s qdisc show dev X":
 *  qdisc pfifo_fast 0: root refcnt 2 bands 3 priomap ...
 *   Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0)
 *   backlog 0b 0p requeues 0
 */
int net_qdisc_stats(const char *ifname, struct qdisc_stats *q)
{
	char *argv[] = { "tc", "-s", "qdisc", "show", "dev", (char *)ifname, NULL };
	bool got_drops = false, got_backlog = false;
	char line[512];
	FILE *f;
	int fd;

	f = tmpfile();
	if (!f)
		return -1;
	fd = fileno(f);
	if (exec_to(argv, fd) != 0) {
		fclose(f);
		return -1;
	}
	rewind(f);
	q->noqueue = false;
	while (fgets(line, sizeof(line), f)) {
		const char *p;

		if (!strncmp(line, "qdisc noqueue ", 14))
			q->noqueue = true;
		if (!got_drops && (p = strstr(line, "(dropped "))) {
			q->drops = strtoll(p + 9, NULL, 10);
			got_drops = true;
		} else if (!got_backlog && (p = strstr(line, "backlog "))) {
			p = strchr(p + 8, ' ');
			if (p)
				q->backlog = strtoll(p + 1, NULL, 10);
			got_backlog = p != NULL;
		}
	}
	fclose(f);
	return got_drops && got_backlog ? 0 : -1;
}
