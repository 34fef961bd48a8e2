// SPDX-License-Identifier: GPL-2.0
/*
 * vhost_src: a vhost-user backend that floods a guest's virtio-net rx queue
 * at a set rate, as the DPDK testpmd + vhost setup of the 2019 min_numfree
 * thread did. It serves a vhost-user socket (QEMU connects to it), waits
 * until the guest has posted rx buffers, then enqueues UDP frames paced by
 * the TSC for a set time. A frame that finds no free guest buffer is
 * dropped and counted. One CSV row per interval: offered, delivered,
 * dropped, and the free guest buffers seen (min, mean); totals at the end.
 * With --phase-file, a change of the guest's phase also closes a row.
 *
 * DPDK: EAL without hugepages, no PCI, one lcore, its vhost library.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_vhost.h>

#include "frame.h"
#include "interval.h"
#include "opt_uint.h"
#include "pace.h"

#define GUEST_RXQ 0		/* virtqueue 0 is the guest's receive queue */
#define BURST_MAX 256

struct opts {
	const char *socket;
	const char *out;
	const char *phase_file;
	long lcore;
	uint64_t rate;
	long size, burst, duration, interval_ms, wait;
	uint8_t dst[6];
};

static atomic_int vid = -1;		/* the device, once the guest driver is up */
static atomic_bool lost;		/* the device went away during the run */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int new_device(int id)
{
	atomic_store(&vid, id);
	return 0;
}

static void destroy_device(int id)
{
	if (atomic_load(&vid) == id) {
		atomic_store(&vid, -1);
		atomic_store(&lost, true);
	}
}

static const struct rte_vhost_device_ops ops = {
	.new_device = new_device,
	.destroy_device = destroy_device,
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vhost_src --socket PATH --rate PPS [options]\n"
		"Serves a vhost-user socket for one virtio-net device and, once the guest\n"
		"has posted rx buffers, enqueues UDP frames into its rx queue at PPS for\n"
		"DURATION seconds. Frames finding no free guest buffer are dropped.\n"
		"  --socket PATH     vhost-user socket to create (QEMU connects to it)\n"
		"  --rate PPS        offered frames per second, 1-100000000\n"
		"  --size BYTES      frame size without FCS, 60-1514 (default 60)\n"
		"  --burst N         most frames per enqueue, 1-%d (default 32)\n"
		"  --duration S      seconds of traffic, 1-86400 (default 10)\n"
		"  --interval MS     CSV row every MS milliseconds, 10-60000 (default 1000)\n"
		"  --dst-mac MAC     destination MAC (default ff:ff:ff:ff:ff:ff)\n"
		"  --wait S          seconds to wait for the guest, 1-3600 (default 120)\n"
		"  --out FILE        CSV rows to FILE (default: standard output)\n"
		"  --phase-file F    the guest's phase (one line, e.g. \"3:auto\"), read every\n"
		"                    millisecond: a change closes the row, which carries the\n"
		"                    phase it was counted in; \"end\" ends the run\n"
		"  --lcore N         the host CPU the source runs on, 0-1023 (default 0)\n"
		"  -h, --help        this text\n"
		"Output: " INTERVAL_CSV_HEADER " per interval; totals on standard error.\n",
		BURST_MAX);
}

/* A numeric option from MIN to MAX (both >= 0): bench/common's parser. */
static int num(const char *opt, const char *s, long long min, long long max, long long *v)
{
	unsigned long long u;

	if (opt_uint("vhost_src", opt, s, min, max, &u))
		return -1;
	*v = (long long)u;
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'z' },
		{ "burst", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "wait", required_argument, NULL, 'w' },
		{ "out", required_argument, NULL, 'o' },
		{ "phase-file", required_argument, NULL, 'p' },
		{ "lcore", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	long long v;
	int c;

	*o = (struct opts){ .size = 60, .burst = 32, .duration = 10, .interval_ms = 1000,
			    .wait = 120, .dst = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'o': o->out = optarg; break;
		case 'p': o->phase_file = optarg; break;
		case 'l': if (num("--lcore", optarg, 0, 1023, &v)) return -1;
			o->lcore = (long)v; break;
		case 'r': if (num("--rate", optarg, 1, 100000000, &v)) return -1;
			o->rate = (uint64_t)v; break;
		case 'z': if (num("--size", optarg, FRAME_MIN, FRAME_MAX, &v)) return -1;
			o->size = (long)v; break;
		case 'b': if (num("--burst", optarg, 1, BURST_MAX, &v)) return -1;
			o->burst = (long)v; break;
		case 'd': if (num("--duration", optarg, 1, 86400, &v)) return -1;
			o->duration = (long)v; break;
		case 'i': if (num("--interval", optarg, 10, 60000, &v)) return -1;
			o->interval_ms = (long)v; break;
		case 'w': if (num("--wait", optarg, 1, 3600, &v)) return -1;
			o->wait = (long)v; break;
		case 'm':
			if (frame_parse_mac(optarg, o->dst)) {
				fprintf(stderr, "vhost_src: --dst-mac: '%s' is not a MAC address\n",
					optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vhost_src: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->socket || !o->rate) {
		fprintf(stderr, "vhost_src: --socket and --rate are required\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* A stale socket file from an earlier run would make the bind fail. */
static int clear_socket(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "vhost_src: %s exists and is not a socket\n", path);
		return -1;
	}
	return unlink(path);
}

static int eal_start(const struct opts *o)
{
	char prefix[32], lcore[16];
	char *eal_argv[] = { "vhost_src", "-l", lcore, "--no-huge", "-m", "64", "--no-pci",
			     "--no-shconf", "--file-prefix", prefix, "--no-telemetry",
			     "--log-level", "lib.eal:warning", NULL };
	int eal_argc = (int)(sizeof(eal_argv) / sizeof(eal_argv[0])) - 1;

	snprintf(prefix, sizeof(prefix), "vhost_src%d", (int)getpid());
	snprintf(lcore, sizeof(lcore), "%ld", o->lcore);

	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "vhost_src: DPDK EAL init failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* burst copies of the frame; the vhost enqueue copies from them, so they are reused. */
static int make_frames(const struct opts *o, struct rte_mbuf **m)
{
	static const uint8_t src[6] = { 0x02, 0x76, 0x72, 0x62, 0x00, 0x01 };
	struct rte_mempool *pool;

	pool = rte_pktmbuf_pool_create("frames", 2 * BURST_MAX, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!pool) {
		fprintf(stderr, "vhost_src: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (long i = 0; i < o->burst; i++) {
		uint8_t *d;

		m[i] = rte_pktmbuf_alloc(pool);
		d = m[i] ? (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)o->size) : NULL;
		if (!d || frame_build(d, (size_t)o->size, o->dst, src)) {
			fprintf(stderr, "vhost_src: cannot build frame %ld\n", i);
			return -1;
		}
	}
	return 0;
}

/* Waits until the device is up and the guest has posted rx buffers. */
static int wait_guest(const struct opts *o)
{
	uint64_t end = rte_rdtsc() + (uint64_t)o->wait * rte_get_tsc_hz();
	int id;

	while (!stop && rte_rdtsc() < end) {
		id = atomic_load(&vid);
		if (id >= 0 && rte_vhost_avail_entries(id, GUEST_RXQ) > 0)
			return id;
		rte_delay_us_sleep(10000);
	}
	if (!stop)
		fprintf(stderr, "vhost_src: no guest rx buffers on %s after %ld s\n", o->socket,
			o->wait);
	return -1;
}

static int run(const struct opts *o, int id, struct rte_mbuf **m, FILE *out)
{
	uint64_t hz = rte_get_tsc_hz(), t0, now, next, end, step, poll, next_poll;
	struct interval iv, total;
	struct phase_watch w;
	struct pace p;

	interval_reset(&iv);
	interval_reset(&total);
	phase_watch_init(&w, o->phase_file);
	fprintf(out, "%s\n", INTERVAL_CSV_HEADER);
	t0 = rte_rdtsc();
	now = t0;
	step = hz * (uint64_t)o->interval_ms / 1000;
	next = t0 + step;
	poll = hz * PHASE_POLL_US / 1000000;
	next_poll = t0 + poll;
	end = t0 + hz * (uint64_t)o->duration;
	pace_init(&p, hz, t0, o->rate, 0);
	while (!stop && !atomic_load(&lost)) {
		char old[PHASE_MAX];
		uint32_t n, got;

		now = rte_rdtsc();
		/* a phase change closes the row: a row lies within one phase */
		if (o->phase_file && now >= next_poll) {
			next_poll = now + poll;
			if (phase_watch_poll(&w, o->phase_file, old)) {
				interval_row(out, (double)(now - t0) / (double)hz, &iv, old);
				interval_sum(&total, &iv);
				interval_reset(&iv);
				next = now + step;
				if (!strcmp(w.cur, "end"))
					break;
			}
		}
		if (now >= next || now >= end) {
			interval_row(out, (double)(now - t0) / (double)hz, &iv, w.cur);
			interval_sum(&total, &iv);
			interval_reset(&iv);
			/* after a stall, the next row is a whole interval away, not at once */
			while (next <= now)
				next += step;
			if (now >= end)
				break;
		}
		n = pace_take(&p, now, (uint32_t)o->burst);
		if (!n) {
			rte_delay_us_sleep(20);	/* leave the CPU to QEMU */
			continue;
		}
		interval_avail(&iv, rte_vhost_avail_entries(id, GUEST_RXQ));
		got = rte_vhost_enqueue_burst(id, GUEST_RXQ, m, (uint16_t)n);
		interval_add(&iv, n, got);
	}
	interval_sum(&total, &iv);
	fprintf(stderr, "vhost_src: totals: offered=%llu delivered=%llu dropped=%llu seconds=%.3f%s\n",
		(unsigned long long)total.offered, (unsigned long long)total.delivered,
		(unsigned long long)total.dropped, (double)(rte_rdtsc() - t0) / (double)hz,
		atomic_load(&lost) ? " (the guest went away)" : stop ? " (stopped by a signal)" :
		now < end ? " (the guest said end)" : "");
	return atomic_load(&lost) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct rte_mbuf *m[BURST_MAX];
	FILE *out = stdout;
	struct opts o;
	int id, rc = 1;

	if (parse(argc, argv, &o))
		return 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (clear_socket(o.socket)) {
		fprintf(stderr, "vhost_src: cannot use socket path %s: %s\n", o.socket,
			strerror(errno));
		return 1;
	}
	if (eal_start(&o) || make_frames(&o, m))
		goto out;
	if (rte_vhost_driver_register(o.socket, 0) ||
	    rte_vhost_driver_callback_register(o.socket, &ops) ||
	    rte_vhost_driver_start(o.socket)) {
		fprintf(stderr, "vhost_src: cannot serve vhost-user on %s (see DPDK's message above)\n",
			o.socket);
		goto out;
	}
	fprintf(stderr, "vhost_src: serving %s; waiting for the guest's rx buffers\n", o.socket);
	id = wait_guest(&o);
	if (id >= 0 && o.out && !(out = fopen(o.out, "w"))) {
		fprintf(stderr, "vhost_src: %s: %s\n", o.out, strerror(errno));
		id = -1;
	}
	if (id >= 0) {
		fprintf(stderr, "vhost_src: guest up (%u free rx buffers): %llu pps for %ld s\n",
			rte_vhost_avail_entries(id, GUEST_RXQ), (unsigned long long)o.rate,
			o.duration);
		rc = run(&o, id, m, out) ? 1 : 0;
	} else if (stop) {
		rc = 0;
	}
	rte_vhost_driver_unregister(o.socket);
out:
	if (out != stdout)
		fclose(out);
	rte_eal_cleanup();
	return rc;
}
