// SPDX-License-Identifier: GPL-2.0
/*
 * vhost_drv: plays the guest for /dev/vhost-net, in userspace, so that
 * vhost-net's receive path (tap ptr_ring -> vhost_net_buf -> rx vring) can
 * be driven and measured inside one machine: pktgen transmits on the tap,
 * tun_net_xmit() queues into the tap's tx ptr_ring (or drops when full),
 * vhost-net consumes it in batches into the buffers this program posts.
 *
 * It creates the tap (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR), gives vhost-net
 * a memory table over its own memory, an rx and a tx split vring with
 * kick/call eventfds, attaches the tap, posts rx buffers, and harvests the
 * used ring and reposts, counting packets (and pktgen's among them) and
 * bytes. Modes: poll (as fast as it can, calls suppressed), event (sleeps
 * on the call eventfd), paced (takes at most RATE used buffers per second,
 * at most a NAPI budget at once however long it was idle: a slow guest).
 * Counters on SIGUSR1 and at exit (after draining what vhost-net
 * completed), with the tap's tx counters (read before the tap goes away).
 * With --reset-every, it resets the rx queue as a VMM does on a device
 * reset, again and again: detaches the tap (VHOST_NET_SET_BACKEND -1: vhost
 * puts the frames it had taken from the tap's ring back with
 * ptr_ring_unconsume()), harvests what was completed, lays the ring out
 * afresh, and attaches the tap again.
 *
 * Like the kernel's tools/virtio/vhost_net_test.c, but with a full ring
 * and for measuring; needs root, CONFIG_TUN and CONFIG_VHOST_NET.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/virtio_config.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pace.h"
#include "frame_work.h"
#include "opt_uint.h"
#include "pktgen_frame.h"
#include "tap.h"
#include "vhost.h"
#include "vring.h"

#define HDR_LEN 12	/* virtio_net_hdr_mrg_rxbuf: VIRTIO_F_VERSION_1 */
/* paced mode: most buffers owed at once, a NAPI budget (an idle guest banks no more) */
#define PACED_DEPTH 64

enum mode { MODE_POLL, MODE_EVENT, MODE_PACED };

struct opts {
	const char *tap;
	unsigned int ring;
	enum mode mode;
	uint64_t rate;
	int txqlen;
	unsigned int buf_size;
	int cpu;
	double duration;
	unsigned int idle_ms;
	unsigned int rx_batch;	/* 0: leave vhost-net's */
	unsigned int work;	/* rounds of work per frame: the consumer's cost */
	unsigned int reset_ms;	/* 0: never reset the rx queue */
	unsigned int churn_ms;	/* 0: never change the rx batch while running */
	bool backpressure;	/* the tap with IFF_BACKPRESSURE */
};

struct counters {
	uint64_t packets, bytes, pktgen, kicks, calls, harvests, resets, batch_sets;
};

static volatile sig_atomic_t stop_flag, dump_flag;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		dump_flag = 1;
	else
		stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vhost_drv [options]\n"
		"Plays the guest for /dev/vhost-net: creates a tap, attaches it to vhost-net,\n"
		"posts rx buffers and counts what vhost-net delivers.\n"
		"  --tap NAME        tap to create (default vtap0)\n"
		"  --ring N          rx (and tx) vring size, a power of 2, 2-32768 (default 256)\n"
		"  --mode M          poll, event or paced (default poll)\n"
		"  --rate PPS        paced mode: buffers harvested per second (64 at most at once)\n"
		"  --txqlen N        the tap's tx_queue_len (its ptr_ring), 1-65536 (default: the tap's)\n"
		"  --buf-size B      bytes per rx buffer, 128-65536 (default 2048)\n"
		"  --cpu N           pin to CPU N\n"
		"  --duration S      stop after S seconds (default: at SIGINT/SIGTERM)\n"
		"  --idle-exit MS    stop MS ms after the last packet, once one came\n"
		"  --work N          N rounds of dependent arithmetic over each frame, 0-1000000\n"
		"                    (default 0): the consumer's cost per frame, to make it\n"
		"                    the bottleneck (the tap's ring then fills, as with the\n"
		"                    2017 threads' pktgen against a busy guest)\n"
		"  --rx-batch N      vhost-net's rx batch for this device, 1-256\n"
		"                    (VHOST_NET_SET_VRING_RX_BATCH: needs the series)\n"
		"  --reset-every MS  reset the rx queue every MS ms, 1-60000: detach the tap,\n"
		"                    harvest, lay the ring out afresh, attach the tap again\n"
		"  --rx-batch-churn MS  set the device's rx batch to the next of 1, 256, 7, 64,\n"
		"                    16, 128, 2 every MS ms, 1-60000, and read it back (needs\n"
		"                    the series): the knob changed under load\n"
		"  --backpressure    the tap with IFF_BACKPRESSURE: a full ring stops its tx\n"
		"                    queue instead of dropping (needs the backpressure patches)\n"
		"  -h, --help        this text\n"
		"Prints \"vhost_drv: ready\" once vhost-net has the tap and buffers, counters\n"
		"on SIGUSR1, and \"vhost_drv: totals: key=value ...\" at exit.\n");
}

static int die(const char *msg)
{
	fprintf(stderr, "vhost_drv: %s\n", msg);
	return 1;
}

static int parse_uint(const char *opt, const char *s, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	return opt_uint("vhost_drv", opt, s, lo, hi, out);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "tap", required_argument, 0, 't' },
		{ "ring", required_argument, 0, 'r' },
		{ "mode", required_argument, 0, 'm' },
		{ "rate", required_argument, 0, 'R' },
		{ "txqlen", required_argument, 0, 'q' },
		{ "buf-size", required_argument, 0, 'b' },
		{ "cpu", required_argument, 0, 'c' },
		{ "duration", required_argument, 0, 'd' },
		{ "idle-exit", required_argument, 0, 'i' },
		{ "rx-batch", required_argument, 0, 'B' },
		{ "work", required_argument, 0, 'w' },
		{ "reset-every", required_argument, 0, 'X' },
		{ "rx-batch-churn", required_argument, 0, 'C' },
		{ "backpressure", no_argument, 0, 'P' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	unsigned long long v;
	int c;

	*o = (struct opts){ .tap = "vtap0", .ring = 256, .mode = MODE_POLL, .txqlen = -1,
			    .buf_size = 2048, .cpu = -1 };
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->tap = optarg;
			break;
		case 'r':
			if (parse_uint("--ring", optarg, 2, 32768, &v))
				return -1;
			if (v & (v - 1)) {
				fprintf(stderr, "vhost_drv: --ring must be a power of 2, not %llu\n", v);
				return -1;
			}
			o->ring = v;
			break;
		case 'm':
			if (!strcmp(optarg, "poll")) {
				o->mode = MODE_POLL;
			} else if (!strcmp(optarg, "event")) {
				o->mode = MODE_EVENT;
			} else if (!strcmp(optarg, "paced")) {
				o->mode = MODE_PACED;
			} else {
				fprintf(stderr, "vhost_drv: unknown --mode '%s' (poll, event, paced)\n", optarg);
				return -1;
			}
			break;
		case 'R':
			if (parse_uint("--rate", optarg, 1, 1000000000ULL, &v))
				return -1;
			o->rate = v;
			break;
		case 'q':
			if (parse_uint("--txqlen", optarg, 1, 65536, &v))
				return -1;
			o->txqlen = v;
			break;
		case 'b':
			if (parse_uint("--buf-size", optarg, 128, 65536, &v))
				return -1;
			o->buf_size = v;
			break;
		case 'c':
			if (parse_uint("--cpu", optarg, 0, CPU_SETSIZE - 1, &v))
				return -1;
			o->cpu = v;
			break;
		case 'd':
			if (parse_uint("--duration", optarg, 1, 86400, &v))
				return -1;
			o->duration = v;
			break;
		case 'i':
			if (parse_uint("--idle-exit", optarg, 1, 3600000, &v))
				return -1;
			o->idle_ms = v;
			break;
		case 'B':
			if (parse_uint("--rx-batch", optarg, 1, 256, &v))
				return -1;
			o->rx_batch = v;
			break;
		case 'w':
			if (parse_uint("--work", optarg, 0, 1000000, &v))
				return -1;
			o->work = v;
			break;
		case 'X':
			if (parse_uint("--reset-every", optarg, 1, 60000, &v))
				return -1;
			o->reset_ms = v;
			break;
		case 'C':
			if (parse_uint("--rx-batch-churn", optarg, 1, 60000, &v))
				return -1;
			o->churn_ms = v;
			break;
		case 'P':
			o->backpressure = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vhost_drv: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if ((o->mode == MODE_PACED) != (o->rate != 0)) {
		fprintf(stderr, "vhost_drv: --rate goes with --mode paced, and only with it\n");
		return -1;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void print_counters(const char *what, const struct opts *o, const struct counters *c,
			   double seconds)
{
	printf("vhost_drv: %s: rx_packets=%" PRIu64 " rx_bytes=%" PRIu64 " pktgen_packets=%" PRIu64
	       " kicks=%" PRIu64 " calls=%" PRIu64 " harvests=%" PRIu64 " resets=%" PRIu64
	       " batch_sets=%" PRIu64 " tap_tx_packets=%lld tap_tx_dropped=%lld seconds=%.3f\n",
	       what, c->packets, c->bytes, c->pktgen, c->kicks, c->calls, c->harvests, c->resets,
	       c->batch_sets,
	       tap_sysfs(o->tap, "statistics/tx_packets"), tap_sysfs(o->tap, "statistics/tx_dropped"), seconds);
	fflush(stdout);
}

struct driver {
	struct opts o;
	struct vhost vh;
	struct vq rx, tx;
	uint8_t *bufs;
	int tap;	/* kept open to attach again after a reset */
	struct counters c;
};


/* Harvests up to max used rx buffers, counts and reposts them; kicks if asked. */
static int rx_round(struct driver *d, uint32_t max)
{
	uint32_t n = 0, len;
	uint16_t id;
	bool bad = false;

	while (n < max && vq_harvest(&d->rx, &id, &len, &bad)) {
		uint8_t *buf = d->bufs + (size_t)id * d->o.buf_size;

		if (len > HDR_LEN) {
			d->c.packets++;
			d->c.bytes += len - HDR_LEN;
			d->c.pktgen += pktgen_frame_is(buf + HDR_LEN, len - HDR_LEN);
			if (d->o.work)
				frame_work(buf + HDR_LEN, len - HDR_LEN, d->o.work);
		}
		vq_post(&d->rx, id, (uintptr_t)buf, d->o.buf_size);
		n++;
	}
	if (bad)
		return -1;
	if (n) {
		d->c.harvests++;
		vq_publish(&d->rx);
		if (vq_needs_kick(&d->rx)) {
			vhost_kick(&d->vh, VHOST_RXQ);
			d->c.kicks++;
		}
	}
	return n;
}

/* Posts every rx buffer on a freshly laid out ring and publishes them. */
static void rx_post_all(struct driver *d)
{
	for (unsigned int i = 0; i < d->o.ring; i++)
		vq_post(&d->rx, i, (uintptr_t)(d->bufs + (size_t)i * d->o.buf_size), d->o.buf_size);
	vq_publish(&d->rx);
	vq_set_interrupts(&d->rx, d->o.mode == MODE_EVENT);
}

static int setup(struct driver *d)
{
	size_t rings = vq_ring_bytes(d->o.ring), len;
	char err[256];
	uint8_t *mem;
	int tap;

	d->tap = -1;
	len = 2 * rings + (size_t)d->o.ring * d->o.buf_size;
	len = (len + 4095) & ~(size_t)4095;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		   -1, 0);
	if (mem == MAP_FAILED)
		return die("cannot map the ring memory");
	vq_init(&d->rx, d->o.ring, mem);
	vq_init(&d->tx, d->o.ring, mem + rings);
	d->bufs = mem + 2 * rings;

	/* vhost-net first: without it, no tap is left behind */
	if (vhost_open(&d->vh, err, sizeof(err)))
		return die(err);
	tap = tap_open(d->o.tap, HDR_LEN, d->o.backpressure, err, sizeof(err));
	if (tap < 0)
		return die(err);
	if (d->o.txqlen > 0 && tap_set_txqlen(d->o.tap, d->o.txqlen)) {
		fprintf(stderr, "vhost_drv: cannot set %s's txqlen to %d: %s\n", d->o.tap,
			d->o.txqlen, strerror(errno));
		return 1;
	}
	if (vhost_configure(&d->vh, 1ULL << VIRTIO_F_VERSION_1, mem, len, err, sizeof(err)))
		return die(err);
	if (d->o.rx_batch) {
		unsigned int got;

		if (vhost_set_rx_batch(&d->vh, d->o.rx_batch, &got, err, sizeof(err)))
			return die(err);
		if (got != d->o.rx_batch) {
			fprintf(stderr, "vhost_drv: rx batch set to %u, reads back %u\n",
				d->o.rx_batch, got);
			return 1;
		}
	}
	rx_post_all(d);
	vq_set_interrupts(&d->tx, false);
	if (vhost_vq_setup(&d->vh, VHOST_RXQ, &d->rx, err, sizeof(err)) ||
	    vhost_vq_setup(&d->vh, VHOST_TXQ, &d->tx, err, sizeof(err)) ||
	    vhost_attach(&d->vh, VHOST_RXQ, tap, err, sizeof(err)) ||
	    vhost_attach(&d->vh, VHOST_TXQ, tap, err, sizeof(err)))
		return die(err);
	/* vhost holds its own reference to the tap's file: ours is for resets */
	if (d->o.reset_ms)
		d->tap = tap;
	else
		close(tap);
	{
		int ret = tap_up(d->o.tap);

		if (ret) {
			fprintf(stderr, "vhost_drv: cannot bring %s up: %s\n", d->o.tap, strerror(-ret));
			return 1;
		}
	}
	vhost_kick(&d->vh, VHOST_RXQ);
	return 0;
}

/*
 * A device reset of the rx queue, as a VMM does it: the backend goes
 * (vhost-net gives back what it took from the tap's ring and touches the
 * ring no more), the driver harvests what was completed and starts over
 * with an empty ring, the backend comes back.
 */
static int rx_reset(struct driver *d)
{
	char err[256];
	void *mem = d->rx.vr.desc;

	if (vhost_attach(&d->vh, VHOST_RXQ, -1, err, sizeof(err)))
		return die(err);
	if (rx_round(d, UINT32_MAX) < 0)
		return die("vhost-net wrote a bad used entry");
	memset(mem, 0, vq_ring_bytes(d->o.ring));
	vq_init(&d->rx, d->o.ring, mem);
	rx_post_all(d);
	if (vhost_vq_reset(&d->vh, VHOST_RXQ, &d->rx, err, sizeof(err)) ||
	    vhost_attach(&d->vh, VHOST_RXQ, d->tap, err, sizeof(err)))
		return die(err);
	vhost_kick(&d->vh, VHOST_RXQ);
	d->c.resets++;
	return 0;
}

/* Sets the next rx batch of a fixed cycle and reads it back. */
static int rx_batch_churn(struct driver *d)
{
	static const unsigned int cycle[] = { 1, 256, 7, 64, 16, 128, 2 };
	unsigned int want = cycle[d->c.batch_sets % (sizeof(cycle) / sizeof(cycle[0]))], got;
	char err[256];

	if (vhost_set_rx_batch(&d->vh, want, &got, err, sizeof(err)))
		return die(err);
	if (got != want) {
		fprintf(stderr, "vhost_drv: rx batch set to %u under load, reads back %u\n", want, got);
		return 1;
	}
	d->c.batch_sets++;
	return 0;
}

static int run(struct driver *d)
{
	uint64_t t0 = now_ns(), last_pkt = 0, t = t0, end, next_reset, next_churn;
	struct pollfd pfd = { .fd = d->vh.call[VHOST_RXQ], .events = POLLIN };
	struct pace pace;
	unsigned int spins = 0;

	end = d->o.duration ? t0 + (uint64_t)(d->o.duration * 1e9) : UINT64_MAX;
	next_reset = d->o.reset_ms ? t0 + d->o.reset_ms * 1000000ULL : UINT64_MAX;
	next_churn = d->o.churn_ms ? t0 + d->o.churn_ms * 1000000ULL : UINT64_MAX;
	pace_init(&pace, 1000000000ULL, t0, d->o.rate, PACED_DEPTH);
	while (!stop_flag) {
		uint32_t max = UINT32_MAX;
		int n;

		if (d->o.mode == MODE_PACED)
			max = pace_take(&pace, now_ns(), vq_used_pending(&d->rx));
		n = rx_round(d, max);
		if (n < 0) {
			fprintf(stderr, "vhost_drv: vhost-net wrote a bad used entry\n");
			return 1;
		}
		if (d->o.mode == MODE_EVENT && !n) {
			if (poll(&pfd, 1, 100) > 0)
				d->c.calls += vhost_calls(&d->vh, VHOST_RXQ);
		}
		if (n || d->o.mode == MODE_EVENT || ++spins >= 256) {
			spins = 0;
			t = now_ns();
			if (n)
				last_pkt = t;
			if (t >= end)
				break;
			if (t >= next_reset) {
				if (rx_reset(d))
					return 1;
				next_reset = now_ns() + d->o.reset_ms * 1000000ULL;
			}
			if (t >= next_churn) {
				if (rx_batch_churn(d))
					return 1;
				next_churn = now_ns() + d->o.churn_ms * 1000000ULL;
			}
			if (d->o.idle_ms && last_pkt && t - last_pkt >= d->o.idle_ms * 1000000ULL)
				break;
		}
		if (dump_flag) {
			dump_flag = 0;
			print_counters("counters", &d->o, &d->c, (now_ns() - t0) / 1e9);
		}
	}
	/* what vhost-net completed by now still counts: drain until 50 ms quiet */
	for (uint64_t quiet = now_ns(); now_ns() - quiet < 50000000ULL;) {
		int n = rx_round(d, UINT32_MAX);

		if (n < 0)
			return 1;
		if (n)
			quiet = now_ns();
	}
	if (d->o.mode != MODE_EVENT)
		d->c.calls += vhost_calls(&d->vh, VHOST_RXQ);
	print_counters("totals", &d->o, &d->c, (now_ns() - t0) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct driver d = { 0 };
	int ret;

	if (parse_opts(argc, argv, &d.o))
		return 2;
	if (d.o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(d.o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "vhost_drv: cannot run on CPU %d: %s\n", d.o.cpu, strerror(errno));
			return 1;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	d.vh.fd = -1;
	ret = setup(&d);
	if (ret)
		return ret;
	printf("vhost_drv: ready: tap=%s ring=%u txqlen=%lld rx_batch=%u mode=%s work=%u reset_ms=%u backpressure=%d\n",
	       d.o.tap, d.o.ring, tap_sysfs(d.o.tap, "tx_queue_len"), d.o.rx_batch ? d.o.rx_batch : 64,
	       d.o.mode == MODE_POLL ? "poll" : d.o.mode == MODE_EVENT ? "event" : "paced",
	       d.o.work, d.o.reset_ms, d.o.backpressure);
	fflush(stdout);
	ret = run(&d);
	vhost_close(&d.vh);
	if (d.tap >= 0)
		close(d.tap);
	return ret;
}
