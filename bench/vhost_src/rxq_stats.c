// SPDX-License-Identifier: GPL-2.0
#include "rxq_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define RXQ_STATS_SLACK 1024

int rxq_stat_is(const char *s, const char *name)
{
	static const char *const prefix[] = { "rx_queue_0_", "rx0_" };

	if (!*name)
		return 0;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		size_t p = strlen(prefix[i]);

		if (!strncmp(s, prefix[i], p) && !strcmp(s + p, name))
			return 1;
	}
	return 0;
}

static int ethtool(struct rxq_stats *st, void *cmd, const char *what)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", st->iface);
	ifr.ifr_data = cmd;
	if (ioctl(st->fd, SIOCETHTOOL, &ifr) < 0) {
		fprintf(stderr, "rx_window: %s: %s: %s\n", st->iface, what, strerror(errno));
		return -1;
	}
	return 0;
}

int rxq_stats_open(struct rxq_stats *st, const char *iface, const char *const *names,
		   size_t n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *gs;

	*st = (struct rxq_stats){ .iface = iface, .fd = -1 };
	if (strlen(iface) >= IFNAMSIZ || !*iface || strchr(iface, '/')) {
		fprintf(stderr, "rx_window: '%s' is not an interface name\n", iface);
		return -1;
	}
	if (n > RXQ_NAMES_MAX) {
		fprintf(stderr, "rx_window: at most %d counter names, not %zu\n", RXQ_NAMES_MAX, n);
		return -1;
	}
	st->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (st->fd < 0) {
		perror("rx_window: socket");
		return -1;
	}
	if (ethtool(st, &info, "ETHTOOL_GDRVINFO"))
		return -1;
	st->n_stats = info.n_stats;
	if (!n || !st->n_stats)
		return 0;	/* rx_packets only */
	/* room for a count that grew meanwhile: the kernel writes its own */
	gs = calloc(1, sizeof(*gs) + ((size_t)st->n_stats + RXQ_STATS_SLACK) * ETH_GSTRING_LEN);
	st->buf = calloc((size_t)st->n_stats + RXQ_STATS_SLACK + 1, sizeof(uint64_t));
	if (!gs || !st->buf) {
		free(gs);
		perror("rx_window: calloc");
		return -1;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = st->n_stats;
	/*
	 * The kernel writes as many strings as the driver has now, whatever
	 * len says: a count that changed since ETHTOOL_GDRVINFO (channels,
	 * XDP) would move the names. Refused; the knobs are set before.
	 */
	if (ethtool(st, gs, "ETHTOOL_GSTRINGS") || gs->len != st->n_stats) {
		if (gs->len != st->n_stats)
			fprintf(stderr, "rx_window: %s: the driver's stats changed from %u to %u\n",
				iface, st->n_stats, gs->len);
		free(gs);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		for (uint32_t i = 0; i < gs->len; i++) {
			char s[ETH_GSTRING_LEN + 1];

			memcpy(s, gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
			s[ETH_GSTRING_LEN] = 0;
			if (rxq_stat_is(s, names[k])) {
				st->name[st->n] = names[k];
				st->index[st->n++] = i;
				break;
			}
		}
	}
	free(gs);
	return 0;
}

static int read_rx_packets(const char *iface, uint64_t *rx)
{
	char path[64 + IFNAMSIZ], line[32];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", iface);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rx_window: %s: %s\n", path, strerror(errno));
		return -1;
	}
	len = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (len <= 0) {
		fprintf(stderr, "rx_window: %s: nothing read\n", path);
		return -1;
	}
	line[len] = 0;
	if (sscanf(line, "%" SCNu64, rx) != 1) {
		fprintf(stderr, "rx_window: %s: not a number\n", path);
		return -1;
	}
	return 0;
}

int rxq_stats_read(struct rxq_stats *st, uint64_t *rx, uint64_t *val)
{
	struct ethtool_stats *es = (struct ethtool_stats *)st->buf;

	if (read_rx_packets(st->iface, rx))
		return -1;
	if (!st->n)
		return 0;
	/* the header is one u64: cmd and n_stats, then the values */
	es->cmd = ETHTOOL_GSTATS;
	es->n_stats = st->n_stats;
	if (ethtool(st, es, "ETHTOOL_GSTATS"))
		return -1;
	if (es->n_stats != st->n_stats) {
		fprintf(stderr, "rx_window: %s: the driver's stats changed from %u to %u\n",
			st->iface, st->n_stats, es->n_stats);
		return -1;
	}
	for (size_t k = 0; k < st->n; k++)
		val[k] = es->data[st->index[k]];
	return 0;
}

void rxq_stats_close(struct rxq_stats *st)
{
	if (st->fd >= 0)
		close(st->fd);
	free(st->buf);
	st->buf = NULL;
	st->fd = -1;
}
