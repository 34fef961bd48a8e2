/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzer's operations do to a network device, each in one call:
 * interface ioctls, tc and ethtool runs (their output discarded), sysfs
 * numbers, a packet socket's frames, and a qdisc's counters.
 */
#ifndef NET_H
#define NET_H

#include <stdbool.h>

/* IFF_BACKPRESSURE (the backpressure series; 0x0080 as upstream). */
#define FZ_IFF_BACKPRESSURE 0x0080

/* The device name of tap i ("fz0", ...) into name (IFNAMSIZ). */
void tap_name(int i, char *name);

/* Sets tx_queue_len; 0 or -errno. */
int net_set_txqlen(const char *ifname, unsigned int len);

/* The interface flags SIOCGIFFLAGS reports (IFF_RUNNING included), or -errno. */
int net_flags(const char *ifname);

/* Sets the link up or down; 0 or -errno. */
int net_set_up(const char *ifname, bool up);

/* Runs argv (PATH searched), output discarded; its exit status, or -1. */
int net_exec(char *const argv[]);

/* The number in /sys/class/net/IFNAME/ATTR, or -1. */
long long net_sysfs(const char *ifname, const char *attr);

/* The hexadecimal number in /sys/class/net/IFNAME/ATTR ("0x1003"), or 0. */
long long net_sysfs_hex(const char *ifname, const char *attr);

/* Writes s (no newline) to path; 0 or -errno. */
int net_write_file(const char *path, const char *s);

/* What sendto() answered for each frame of net_send(). */
struct send_counts {
	unsigned int sent;	/* the stack took it */
	unsigned int dropped;	/* ENOBUFS: a qdisc dropped it */
	unsigned int down;	/* ENETDOWN: on a running device, its tx queue is
				 * stopped and it has no qdisc (the core counts
				 * the frame in tx_dropped) */
	unsigned int other;	/* any other refusal */
};

/*
 * Sends n frames of 60 bytes from a packet socket to ifname, not waiting,
 * and counts the answers into *c. 0, or -errno when no socket could be
 * made.
 */
int net_send(const char *ifname, unsigned int n, struct send_counts *c);

/* The root qdisc's counters ("tc -s qdisc show dev IFNAME"); 0 or -1. */
struct qdisc_stats {
	long long drops;
	long long backlog;	/* packets */
	bool noqueue;		/* some qdisc listed is noqueue: frames do not wait */
};
int net_qdisc_stats(const char *ifname, struct qdisc_stats *q);

/* One 60-byte frame to write into a tap (broadcast, local EtherType). */
extern const unsigned char fz_frame[60];

#endif /* NET_H */
