// SPDX-License-Identifier: GPL-2.0
/*
 * tap_read: the tap's other consumer, a process reading the tap fd (tun's
 * read path, tun_ring_recv()), where vhost_drv has vhost-net read it.
 *
 * Creates the tap (optionally with IFF_BACKPRESSURE and a tx_queue_len),
 * brings it up, prints "tap_read: ready", then reads frames until
 * SIGINT/SIGTERM, doing --work N per frame (the consumer's cost) and, with
 * --pause-every, stopping for --pause-for ms that often (a consumer that
 * stops and restarts). At exit it prints, as vhost_drv does,
 *   tap_read: totals: rx_packets=N rx_bytes=B pauses=P tap_tx_packets=T tap_tx_dropped=D
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frame_work.h"
#include "opt_uint.h"
#include "tap.h"

#define HDR_LEN 12	/* struct virtio_net_hdr_mrg_rxbuf, as vhost_drv */

struct opts {
	const char *tap;
	int txqlen;
	bool backpressure;
	unsigned int work, pause_every_ms, pause_for_ms;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tap_read [options]\n"
		"Creates a tap and reads its frames from the fd until SIGINT/SIGTERM.\n"
		"  --tap NAME          tap to create (default vtapR)\n"
		"  --txqlen N          the tap's tx_queue_len (its ptr_ring), 1-65536\n"
		"  --backpressure      the tap with IFF_BACKPRESSURE (needs the backpressure patches)\n"
		"  --work N            N rounds of arithmetic per frame, 0-1000000 (default 0)\n"
		"  --pause-every MS    stop reading every MS ms, 1-60000 ...\n"
		"  --pause-for MS      ... for MS ms, 1-60000 (default 50)\n"
		"  -h, --help          this text\n"
		"Prints \"tap_read: ready\", and \"tap_read: totals: key=value ...\" at exit.\n");
}

static int parse_uint(const char *opt, const char *s, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	return opt_uint("tap_read", opt, s, lo, hi, out);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "tap", required_argument, 0, 't' },
		{ "txqlen", required_argument, 0, 'q' },
		{ "backpressure", no_argument, 0, 'P' },
		{ "work", required_argument, 0, 'w' },
		{ "pause-every", required_argument, 0, 'e' },
		{ "pause-for", required_argument, 0, 'f' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	unsigned long long v;
	int c;

	*o = (struct opts){ .tap = "vtapR", .txqlen = -1, .pause_for_ms = 50 };
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tap = optarg;
			break;
		case 'q':
			if (parse_uint("--txqlen", optarg, 1, 65536, &v))
				return -1;
			o->txqlen = (int)v;
			break;
		case 'P':
			o->backpressure = true;
			break;
		case 'w':
			if (parse_uint("--work", optarg, 0, 1000000, &v))
				return -1;
			o->work = (unsigned int)v;
			break;
		case 'e':
			if (parse_uint("--pause-every", optarg, 1, 60000, &v))
				return -1;
			o->pause_every_ms = (unsigned int)v;
			break;
		case 'f':
			if (parse_uint("--pause-for", optarg, 1, 60000, &v))
				return -1;
			o->pause_for_ms = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tap_read: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t packets = 0, bytes = 0, pauses = 0, next_pause;
	static uint8_t buf[65536];
	struct opts o;
	char err[256];
	int fd;

	if (parse_opts(argc, argv, &o))
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = tap_open(o.tap, HDR_LEN, o.backpressure, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "tap_read: %s\n", err);
		return 1;
	}
	if (o.txqlen > 0 && tap_set_txqlen(o.tap, o.txqlen)) {
		fprintf(stderr, "tap_read: cannot set %s's txqlen to %d\n", o.tap, o.txqlen);
		return 1;
	}
	if (tap_up(o.tap)) {
		fprintf(stderr, "tap_read: cannot bring %s up\n", o.tap);
		return 1;
	}
	printf("tap_read: ready: tap=%s txqlen=%lld backpressure=%d work=%u pause_every_ms=%u pause_for_ms=%u\n",
	       o.tap, tap_sysfs(o.tap, "tx_queue_len"), o.backpressure, o.work,
	       o.pause_every_ms, o.pause_for_ms);
	fflush(stdout);
	next_pause = now_ms() + o.pause_every_ms;
	while (!stop_flag) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (o.pause_every_ms && now_ms() >= next_pause) {
			usleep(o.pause_for_ms * 1000);
			pauses++;
			next_pause = now_ms() + o.pause_every_ms;
		}
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			perror("tap_read: read");
			return 1;
		}
		if (n <= HDR_LEN)
			continue;
		packets++;
		bytes += (uint64_t)n - HDR_LEN;
		if (o.work)
			frame_work(buf + HDR_LEN, (uint32_t)(n - HDR_LEN), o.work);
	}
	printf("tap_read: totals: rx_packets=%llu rx_bytes=%llu pauses=%llu tap_tx_packets=%lld tap_tx_dropped=%lld\n",
	       (unsigned long long)packets, (unsigned long long)bytes,
	       (unsigned long long)pauses, tap_sysfs(o.tap, "statistics/tx_packets"),
	       tap_sysfs(o.tap, "statistics/tx_dropped"));
	close(fd);
	return 0;
}
