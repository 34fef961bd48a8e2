/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rx queue 0's virtio_net counters, read in one ETHTOOL_GSTATS ioctl, and
 * the interface's rx_packets: the counters workload B's guest reads around
 * a block (rx_window). 6.1 names them rx_queue_0_NAME, 6.12 rx0_NAME.
 */
#ifndef RXQ_STATS_H
#define RXQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#define RXQ_NAMES_MAX 16

struct rxq_stats {
	const char *iface;
	int fd;				/* the ioctl socket */
	uint32_t n_stats;		/* the driver's ethtool -S count */
	size_t n;			/* names found */
	const char *name[RXQ_NAMES_MAX];
	uint32_t index[RXQ_NAMES_MAX];	/* their place in the driver's stats */
	uint64_t *buf;			/* ETHTOOL_GSTATS's reply */
};

/* 1 when the ethtool string s is rx queue 0's counter name, 0 otherwise. */
int rxq_stat_is(const char *s, const char *name);

/*
 * Finds the names (at most RXQ_NAMES_MAX) among iface's ethtool stats;
 * absent ones are left out. Returns 0, or -1 with the reason on stderr.
 */
int rxq_stats_open(struct rxq_stats *st, const char *iface, const char *const *names,
		   size_t n);
/*
 * Reads rx_packets into *rx and the found names' values into val (st->n
 * of them), rx_packets first: returns 0, or -1 with the reason on stderr.
 */
int rxq_stats_read(struct rxq_stats *st, uint64_t *rx, uint64_t *val);
void rxq_stats_close(struct rxq_stats *st);

#endif /* RXQ_STATS_H */
