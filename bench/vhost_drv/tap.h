/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tap vhost-net reads: IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, its vnet
 * header size, tx_queue_len (the size of the ptr_ring between
 * tun_net_xmit() and vhost-net), link state and counters.
 */
#ifndef TAP_H
#define TAP_H

#include <stdbool.h>

/* IFF_BACKPRESSURE (the backpressure series; 0x0080 upstream from 7.2). */
#define TAP_IFF_BACKPRESSURE 0x0080

/*
 * Creates tap name (IFNAMSIZ) with a vnet header of hdr_len bytes, with
 * IFF_BACKPRESSURE when backpressure (a kernel without it is an error: its
 * TUNSETIFF ignores the flag); returns its fd, or -1 with a message in err
 * (size errlen).
 */
int tap_open(const char *name, int hdr_len, bool backpressure, char *err, int errlen);

/* Sets tx_queue_len (the tx ring size); 0 or -errno. */
int tap_set_txqlen(const char *name, int len);

/* No IPv6 (no router solicitations in the counts), then link up; 0 or -errno. */
int tap_up(const char *name);

/* The number in /sys/class/net/NAME/ATTR (e.g. "statistics/tx_dropped"), or -1. */
long long tap_sysfs(const char *name, const char *attr);

#endif /* TAP_H */
