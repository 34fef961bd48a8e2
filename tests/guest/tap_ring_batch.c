// SPDX-License-Identifier: GPL-2.0
/*
 * Measures, from userspace, the consumer zeroing batch of a tap's tx ring
 * (the ptr_ring between tun_net_xmit() and a reader of the tap fd).
 *
 * It makes a tap with tx_queue_len SIZE, fills the ring with frames sent
 * through an AF_PACKET socket (qdisc bypassed) until tun drops one, then
 * reads frames from the tap fd one at a time, sending one probe frame after
 * each read. While the consumer has not completed a zeroing batch no slot is
 * free and the probe is dropped; the first read after which the probe gets
 * in is the batch. Then it checks that exactly batch slots were freed.
 *
 * Usage: tap_ring_batch IFNAME SIZE
 * Prints: size=SIZE filled=N batch=B freed=F
 * Exit: 0 measured; 1 the kernel did something unexpected; 2 bad usage.
 * Needs CAP_NET_ADMIN and CAP_NET_RAW (run it in the test guest as root).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SIOCSIFTXQLEN
#define SIOCSIFTXQLEN 0x8943
#endif

struct tap {
	const char *name;
	int fd;		/* the tap: reading it consumes from the ring */
	int pkt;	/* AF_PACKET socket bound to the tap: sending produces */
	long dropped;	/* tx_dropped seen last */
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("tap_ring_batch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static long tx_dropped(const struct tap *t)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", t->name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &v) != 1)
		fail("cannot read %s: %s", path, strerror(errno));
	fclose(f);
	return v;
}

static void tap_open(struct tap *t, int size)
{
	struct sockaddr_ll sll = { 0 };
	struct ifreq ifr = { 0 };
	int one = 1, s;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (t->fd < 0)
		fail("/dev/net/tun: %s", strerror(errno));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", t->name);
	if (ioctl(t->fd, TUNSETIFF, &ifr))
		fail("TUNSETIFF %s: %s", t->name, strerror(errno));

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		fail("socket: %s", strerror(errno));
	ifr.ifr_qlen = size;	/* resizes the tx ring */
	if (ioctl(s, SIOCSIFTXQLEN, &ifr))
		fail("tx_queue_len %d: %s", size, strerror(errno));
	ifr.ifr_flags = IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		fail("set %s up: %s", t->name, strerror(errno));
	close(s);

	t->pkt = socket(AF_PACKET, SOCK_RAW, 0);
	if (t->pkt < 0)
		fail("AF_PACKET socket: %s", strerror(errno));
	if (setsockopt(t->pkt, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		fail("PACKET_QDISC_BYPASS: %s", strerror(errno));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(t->name);
	if (!sll.sll_ifindex || bind(t->pkt, (struct sockaddr *)&sll, sizeof(sll)))
		fail("bind to %s: %s", t->name, strerror(errno));
	t->dropped = tx_dropped(t);
}

/* Sends one frame into the tap; 1 if it went into the ring, 0 if tun dropped it. */
static int produce(struct tap *t)
{
	unsigned char frame[ETH_ZLEN] = { 0 };
	long d;

	memset(frame, 0xff, ETH_ALEN);			/* broadcast */
	frame[ETH_ALEN] = 0x02;				/* locally administered source */
	frame[2 * ETH_ALEN] = 0x88;			/* local experimental ethertype */
	frame[2 * ETH_ALEN + 1] = 0xb5;
	/* tun_net_xmit() returns NET_XMIT_DROP for a dropped frame, which
	 * the packet socket reports as ENOBUFS; tx_dropped says it too.
	 */
	if (send(t->pkt, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame) &&
	    errno != ENOBUFS)
		fail("send: %s", strerror(errno));
	d = tx_dropped(t);
	if (d != t->dropped && d != t->dropped + 1)
		fail("tx_dropped went from %ld to %ld on one frame", t->dropped, d);
	if (d != t->dropped) {
		t->dropped = d;
		return 0;
	}
	return 1;
}

/* Reads one frame from the tap (the ring's consumer); fails if there is none. */
static void consume(struct tap *t)
{
	unsigned char buf[2048];

	if (read(t->fd, buf, sizeof(buf)) < 0)
		fail("read from the tap: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct tap t = { 0 };
	int size, filled = 0, batch = 0, freed = 0;
	char *end;

	if (argc != 3 || strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: tap_ring_batch IFNAME SIZE\n");
		return 2;
	}
	size = (int)strtol(argv[2], &end, 10);
	if (*end || size < 2 || size > 4096) {
		fprintf(stderr, "tap_ring_batch: SIZE must be 2-4096, not '%s'\n", argv[2]);
		return 2;
	}
	t.name = argv[1];
	tap_open(&t, size);

	while (filled <= size && produce(&t))
		filled++;
	if (filled != size)
		fail("the ring took %d frames before dropping one, not %d (did the kernel send on the tap too? IPv6 must be off)",
		     filled, size);

	/* Read one, probe one, until a probe gets in: that read completed a batch. */
	while (!batch) {
		consume(&t);
		freed++;
		if (produce(&t))
			batch = freed;
		else if (freed >= size)
			fail("%d frames read and still no free slot", freed);
	}
	/* The probe took one freed slot; the other batch - 1 must be free too. */
	for (freed = 1; freed <= size && produce(&t); freed++)
		;
	printf("size=%d filled=%d batch=%d freed=%d\n", size, filled, batch, freed);
	close(t.pkt);
	close(t.fd);
	return 0;
}
