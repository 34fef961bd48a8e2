// SPDX-License-Identifier: GPL-2.0
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "account.h"
#include "net.h"

/* Values drawn more often than the rest: the edges. */
static const long txqlens[] = { 0, 1, 2, 3, 16, 64, 1000 };
static const long counts[] = { 1, 2, 16, 64, 300 };
static const long limits[] = { 0, 1, 2, 16, 1000 };
static const long rings[] = { 0, 1, 2, 64, 128, 256, 512, 1024, 4096 };
/* vhost-net rx batches: the series takes 1 to 256 */
static const long batches[] = { 0, 1, 2, 64, 256, 257, 65535, 4294967295L };
/* vhost-net's rx vring: powers of two (others refused), buffers to post */
static const long vnums[] = { 1, 2, 4, 64, 256 };
static const long bufs[] = { 0, 1, 2, 64, 256 };
static const char *const qdiscs[] = { "noqueue", "pfifo_fast", "fq_codel", "pfifo" };
static const char *const knobs[] = { "min_numfree", "refill_max" };
/* What is written to a knob: good values, bad ones, malformed strings. */
static const char *const knob_values[] = {
	"legacy", "auto", "adaptive", "adaptive-dry", "0", "1", "16", "64", "65", "32768",
	"32769", "-1", "", " 64", "64abc", "4294967296", "0x10", "auto\n", "\n", "adaptive-dryx",
};

#define N_OF(a) ((long)(sizeof(a) / sizeof((a)[0])))

enum arg { A_SLOT, A_DEV, A_BOOL, A_UP, A_TXQLEN, A_COUNT, A_QDISC, A_LIMIT, A_KNOB, A_KNOBVAL,
	   A_RING, A_CHANNELS, A_VQ, A_BATCH, A_VNUM, A_BUFS, A_NONE };

struct kind {
	const char *name;
	int weight;
	enum arg args[FZ_NARG];
	const char *what;	/* the arguments, for --help */
};

enum { K_OPEN, K_CLOSE, K_DETACH, K_ATTACH, K_PERSIST, K_TXQLEN, K_QDISC, K_LINK, K_WRITE,
       K_READ, K_SEND, K_ACCOUNT, K_KNOB, K_RING, K_CHANNELS, K_NETNS, K_RXBATCH, K_BACKEND,
       K_VRING, K_VACCOUNT, K_N };

#define NO A_NONE
static const struct kind kinds[K_N] = {
	[K_OPEN] = { "open", 12, { A_SLOT, A_DEV, A_BOOL, A_BOOL }, "SLOT DEV MULTI_QUEUE BACKPRESSURE" },
	[K_CLOSE] = { "close", 3, { A_SLOT, NO, NO, NO }, "SLOT" },
	[K_DETACH] = { "detach", 3, { A_SLOT, NO, NO, NO }, "SLOT" },
	[K_ATTACH] = { "attach", 3, { A_SLOT, NO, NO, NO }, "SLOT" },
	[K_PERSIST] = { "persist", 2, { A_SLOT, A_BOOL, NO, NO }, "SLOT ON" },
	[K_TXQLEN] = { "txqlen", 8, { A_DEV, A_TXQLEN, NO, NO }, "DEV LEN" },
	[K_QDISC] = { "qdisc", 8, { A_DEV, A_QDISC, A_LIMIT, NO }, "DEV KIND LIMIT" },
	[K_LINK] = { "link", 10, { A_DEV, A_UP, NO, NO }, "DEV UP" },
	[K_WRITE] = { "write", 5, { A_SLOT, A_COUNT, NO, NO }, "SLOT FRAMES" },
	[K_READ] = { "read", 8, { A_SLOT, A_COUNT, NO, NO }, "SLOT FRAMES" },
	[K_SEND] = { "send", 12, { A_DEV, A_COUNT, NO, NO }, "DEV FRAMES" },
	[K_ACCOUNT] = { "account", 8, { A_DEV, A_COUNT, NO, NO }, "DEV FRAMES" },
	[K_KNOB] = { "knob", 3, { A_KNOB, A_KNOBVAL, NO, NO }, "KNOB VALUE" },
	[K_RING] = { "ring", 2, { A_RING, NO, NO, NO }, "ENTRIES" },
	[K_CHANNELS] = { "channels", 1, { A_CHANNELS, NO, NO, NO }, "COMBINED" },
	[K_NETNS] = { "netns", 2, { A_BOOL, A_TXQLEN, A_COUNT, NO }, "BACKPRESSURE LEN FRAMES" },
	[K_RXBATCH] = { "rxbatch", 2, { A_VQ, A_BATCH, NO, NO }, "VRING BATCH" },
	[K_BACKEND] = { "backend", 6, { A_SLOT, A_BOOL, A_VNUM, NO }, "SLOT ON SIZE" },
	[K_VRING] = { "vring", 4, { A_BUFS, NO, NO, NO }, "BUFFERS" },
	[K_VACCOUNT] = { "vaccount", 4, { A_COUNT, NO, NO, NO }, "FRAMES" },
};

/* The largest value each argument takes (the smallest is 0). */
static long arg_max(enum arg a)
{
	switch (a) {
	case A_SLOT: return FZ_NSLOT - 1;
	case A_DEV: return FZ_NDEV - 1;
	case A_BOOL:
	case A_UP: return 1;
	case A_TXQLEN: return 4096;
	case A_COUNT: return 2000;
	case A_QDISC: return N_OF(qdiscs) - 1;
	case A_LIMIT: return 1000;
	case A_KNOB: return N_OF(knobs) - 1;
	case A_KNOBVAL: return N_OF(knob_values) - 1;
	case A_RING: return 4096;
	case A_CHANNELS: return 3;
	case A_VQ: return 2;
	case A_BATCH: return 4294967295L;
	case A_VNUM:
	case A_BUFS: return VH_NUM_MAX;
	case A_NONE: break;
	}
	return 0;
}

static long pick(struct rng *g, const long *edges, long n, long max)
{
	if (rng_next(g) % 4)
		return edges[rng_next(g) % (uint64_t)n];
	return (long)(rng_next(g) % (uint64_t)(max + 1));
}

static long arg_generate(struct rng *g, enum arg a)
{
	switch (a) {
	case A_TXQLEN: return pick(g, txqlens, N_OF(txqlens), arg_max(a));
	case A_COUNT: return pick(g, counts, N_OF(counts), arg_max(a));
	case A_LIMIT: return pick(g, limits, N_OF(limits), arg_max(a));
	case A_RING: return pick(g, rings, N_OF(rings), arg_max(a));
	case A_BATCH: return pick(g, batches, N_OF(batches), 512);
	case A_VNUM:	/* a power of two: tunfuzz lays out no other */
		return rng_next(g) % 4 ? vnums[rng_next(g) % (uint64_t)N_OF(vnums)]
				       : 1L << (rng_next(g) % 9);
	case A_BUFS: return pick(g, bufs, N_OF(bufs), arg_max(a));
	case A_UP: return rng_next(g) % 4 != 0;	/* a link is up more often */
	case A_NONE: return 0;
	default: return (long)(rng_next(g) % (uint64_t)(arg_max(a) + 1));
	}
}

void op_generate(struct rng *g, struct op *op)
{
	int total = 0, r;

	for (int k = 0; k < K_N; k++)
		total += kinds[k].weight;
	r = (int)(rng_next(g) % (uint64_t)total);
	for (op->kind = 0; r >= kinds[op->kind].weight; op->kind++)
		r -= kinds[op->kind].weight;
	for (int i = 0; i < FZ_NARG; i++)
		op->a[i] = arg_generate(g, kinds[op->kind].args[i]);
}

int op_parse(const char *line, struct op *op)
{
	char name[16], *end;
	const char *p = line;
	int len;

	if (*p < 'a' || *p > 'z' || sscanf(p, "%15s%n", name, &len) != 1)
		return -1;
	p += len;
	for (op->kind = 0; op->kind < K_N && strcmp(kinds[op->kind].name, name); op->kind++)
		;
	if (op->kind == K_N)
		return -1;
	for (int i = 0; i < FZ_NARG; i++) {
		enum arg a = kinds[op->kind].args[i];

		op->a[i] = 0;
		if (a == A_NONE)
			continue;
		if (*p != ' ' && *p != '\t')
			return -1;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		op->a[i] = strtol(p, &end, 10);
		if (errno || op->a[i] > arg_max(a))
			return -1;
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return *p ? -1 : 0;
}

void op_format(const struct op *op, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", kinds[op->kind].name);

	for (int i = 0; i < FZ_NARG && kinds[op->kind].args[i] != A_NONE && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %ld", op->a[i]);
}

void op_usage(FILE *f)
{
	for (int k = 0; k < K_N; k++)
		fprintf(f, "  %-9s %s\n", kinds[k].name, kinds[k].what);
}

static void say(const struct fz *st, const char *what, int ret)
{
	if (st->verbose)
		printf("  %s: %s\n", what, ret ? strerror(-ret) : "ok");
}

static int ioctl_ret(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/* Closes slot s; its fd is first removed as vhost-net's backend, as a VMM would. */
static void slot_close(struct fz *st, int s)
{
	if (st->fd[s] >= 0 && st->fd[s] == st->vh.backend) {
		int ret = vh_backend(&st->vh, -1, -1);

		say(st, "backend removed", ret);
		/* vhost-net keeps the file after a failed removal; not this fd */
		if (ret) {
			st->vh.backend = -1;
			st->vh.orphan = true;
		}
	}
	if (st->fd[s] >= 0)
		close(st->fd[s]);
	st->fd[s] = -1;
	st->detached[s] = false;
}

/* Opens /dev/net/tun and attaches it to tap name with flags: fd or -errno. */
static int tun_open(const char *name, short flags)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = flags;
	ret = ioctl_ret(fd, TUNSETIFF, &ifr);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static int op_open(struct fz *st, const long *a)
{
	short flags = IFF_TAP | IFF_NO_PI;
	char name[IFNAMSIZ];
	int fd;

	if (a[2])
		flags |= IFF_MULTI_QUEUE;
	if (a[3])
		flags |= FZ_IFF_BACKPRESSURE;
	slot_close(st, (int)a[0]);
	tap_name((int)a[1], name);
	fd = tun_open(name, flags);
	if (fd < 0)
		return fd;
	st->fd[a[0]] = fd;
	st->dev[a[0]] = (int)a[1];
	return 0;
}

static int op_queue(struct fz *st, int s, short flags)
{
	struct ifreq ifr;

	if (st->fd[s] < 0)
		return -EBADF;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	return ioctl_ret(st->fd[s], TUNSETQUEUE, &ifr);
}

/*
 * Why tap dev's tx queue may be stopped by IFF_BACKPRESSURE, or NULL: the
 * tap has the flag, and its qdisc holds frames, or no fd of it is attached,
 * or the ring of one of its queues holds frames (polls readable). A queue
 * is stopped only when its ring fills, and woken when its consumer has
 * read half of it or emptied it, when a queue is attached, or when its
 * ring is resized; the last queue detached or closed keeps its stop, and
 * its ring is purged, until a queue is attached again. So, that case aside,
 * a stopped queue's ring is not empty. The qdisc is looked at first: its
 * frames may refill a ring once polled empty (a wake leaves them to the
 * NET_TX softirq); with none there and the rings empty, only tunfuzz's
 * own sends refill them. When vhost-net still holds a backend whose fd
 * tunfuzz closed (an orphan: its removal failed), that ring cannot be
 * polled, and any tap with the flag may be stopped.
 */
static const char *may_be_stopped(const struct fz *st, int dev)
{
	struct qdisc_stats q;
	char name[IFNAMSIZ];
	bool attached = false;

	tap_name(dev, name);
	if (!(net_sysfs_hex(name, "tun_flags") & FZ_IFF_BACKPRESSURE))
		return NULL;
	if (st->vh.orphan)
		return "vhost-net may hold a ring tunfuzz cannot poll";
	if (net_qdisc_stats(name, &q))
		return "no qdisc stats to read (tc -s qdisc show failed)";
	if (q.backlog > 0)
		return "its qdisc holds frames";
	for (int s = 0; s < FZ_NSLOT; s++) {
		struct pollfd p = { .fd = st->fd[s], .events = POLLIN };

		if (st->fd[s] < 0 || st->dev[s] != dev || st->detached[s])
			continue;
		attached = true;
		if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
			return "a ring holds frames";
	}
	return attached ? NULL : "no fd of it is attached";
}

/*
 * Why op reaches a limitation the series' cover letters list as known and
 * not addressed (upstream behaves the same), which the fuzzer skips unless
 * st->known; NULL when it does not. The one: noqueue put in place of a
 * qdisc under which IFF_BACKPRESSURE may have stopped the tap's queue. The
 * core's noqueue path then refuses every frame sent to the tap with
 * ENETDOWN and "Virtual device fzN asks to queue packet!" until the queue
 * is woken.
 */
static const char *known_limitation(const struct fz *st, const struct op *op)
{
	if (st->known || op->kind != K_QDISC || strcmp(qdiscs[op->a[1]], "noqueue"))
		return NULL;
	return may_be_stopped(st, (int)op->a[0]);
}

static int op_qdisc(const long *a)
{
	char name[IFNAMSIZ], limit[16];
	char *argv[] = { "tc", "qdisc", "replace", "dev", name, "root", (char *)qdiscs[a[1]],
			 NULL, NULL, NULL };

	tap_name((int)a[0], name);
	if (!strcmp(qdiscs[a[1]], "pfifo")) {
		snprintf(limit, sizeof(limit), "%ld", a[2]);
		argv[7] = "limit";
		argv[8] = limit;
	}
	return net_exec(argv) ? -EINVAL : 0;
}

static int op_io(struct fz *st, int s, long n, bool wr)
{
	unsigned char buf[2048];
	int ret = 0;

	if (st->fd[s] < 0)
		return -EBADF;
	for (long i = 0; i < n; i++) {
		ssize_t r = wr ? write(st->fd[s], fz_frame, sizeof(fz_frame))
			       : read(st->fd[s], buf, sizeof(buf));

		if (r < 0) {
			ret = -errno;
			break;
		}
	}
	return ret == -EAGAIN ? 0 : ret;
}

static int op_send(const long *a)
{
	struct send_counts c;
	char name[IFNAMSIZ];

	tap_name((int)a[0], name);
	return net_send(name, (unsigned int)a[1], &c);
}

static int op_knob(const struct fz *st, const long *a)
{
	char path[256];

	if (!st->nic)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/virtio_net/%s", st->nic,
		 knobs[a[0]]);
	return net_write_file(path, knob_values[a[1]]);
}

static int op_ethtool(const struct fz *st, const char *opt, const char *what, long n)
{
	char num[16];
	char *argv[] = { "ethtool", (char *)opt, (char *)st->nic, (char *)what, num, NULL };

	if (!st->nic)
		return 0;
	snprintf(num, sizeof(num), "%ld", n);
	return net_exec(argv) ? -EINVAL : 0;
}

/*
 * A child in a network namespace of its own opens a tap (backpressure as
 * asked) with tx_queue_len len, sets it up, sends frames at it and exits
 * without reading them: the namespace goes away with its frames queued.
 */
static int op_netns(const long *a)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		short flags = IFF_TAP | IFF_NO_PI | (a[0] ? FZ_IFF_BACKPRESSURE : 0);
		struct send_counts c;
		int fd;

		if (unshare(CLONE_NEWNET)) {
			/* EINVAL: a kernel without CONFIG_NET_NS */
			printf("  netns: unshare: %s\n", strerror(errno));
			fflush(stdout);
			_exit(errno == EINVAL ? 0 : 1);
		}
		fd = tun_open("fzns", flags);
		if (fd < 0) {
			printf("  netns: open fzns: %s\n", strerror(-fd));
			fflush(stdout);
			_exit(2);
		}
		net_set_txqlen("fzns", (unsigned int)a[1]);
		net_set_up("fzns", true);
		net_send("fzns", (unsigned int)a[2], &c);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		printf("  netns: the child's step %d failed\n", WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

/*
 * The series' vhost-net rx batch on vring a[0], set to a[1], on a
 * /dev/vhost-net this process owns: a set must take a batch of 1 to 256
 * on the rx vring (0), refuse anything else with EINVAL, and leave the
 * batch unchanged when it refuses. 1 (FAIL printed) when it does not; 0
 * when it does, or the kernel has no such ioctl (ENOTTY: stock).
 */
static int op_rxbatch(struct fz *st, const long *a)
{
	struct vhost_vring_state s = { .index = 0 };
	bool valid = a[0] == 0 && a[1] >= 1 && a[1] <= 256;
	int own = vh_own(&st->vh), set;
	unsigned int before;

	if (own) {
		printf("FAIL: vhost-net unusable: /dev/vhost-net: %s\n", strerror(-own));
		return 1;
	}
	if (ioctl(st->vh.dev.fd, VHOST_NET_GET_VRING_RX_BATCH, &s) < 0) {
		if (errno == ENOTTY && !st->patched) {
			say(st, "rxbatch", -errno);
			return 0;
		}
		printf("FAIL: rxbatch get: %s\n", strerror(errno));
		return 1;
	}
	before = s.num;
	s.index = (unsigned int)a[0];
	s.num = (unsigned int)a[1];
	set = ioctl_ret(st->vh.dev.fd, VHOST_NET_SET_VRING_RX_BATCH, &s);
	say(st, "rxbatch", set);
	s.index = 0;
	if (ioctl(st->vh.dev.fd, VHOST_NET_GET_VRING_RX_BATCH, &s) < 0) {
		printf("FAIL: rxbatch get: after a set: %s\n", strerror(errno));
		return 1;
	}
	if (valid ? set || s.num != a[1] : set != -EINVAL || s.num != before) {
		printf("FAIL: rxbatch: set vring %ld to %ld: %s, the batch %u (it was %u)\n",
		       a[0], a[1], set ? strerror(-set) : "ok", s.num, before);
		return 1;
	}
	return 0;
}

/*
 * vhost-net's rx backend: with a[1], slot a[0]'s tap fd (the vring set up
 * first with a[2] entries when there is no backend yet, its buffers all
 * posted); without, none. A VMM's sequence; the kernel's answers are
 * printed, not judged, except that vhost-net must be there.
 */
static int op_backend(struct fz *st, const long *a)
{
	int s = (int)a[0], own = vh_own(&st->vh), ret;

	if (own) {
		printf("FAIL: vhost-net unusable: /dev/vhost-net: %s\n", strerror(-own));
		return 1;
	}
	if (!a[1]) {
		say(st, "backend", st->vh.backend < 0 && !st->vh.orphan ? 0 :
				   vh_backend(&st->vh, -1, -1));
		return 0;
	}
	if (st->fd[s] < 0) {
		say(st, "backend", -EBADF);
		return 0;
	}
	if (st->vh.backend < 0) {
		ret = vh_setup(&st->vh, (unsigned int)a[2]);
		say(st, "vring", ret);
		if (ret)
			return 0;
		vh_post(&st->vh, VH_NUM_MAX);
	}
	say(st, "backend", vh_backend(&st->vh, st->fd[s], st->dev[s]));
	return 0;
}

int op_run(struct fz *st, const struct op *op)
{
	const long *a = op->a;
	char name[IFNAMSIZ];
	const char *why;
	int ret = 0, s = (int)a[0];

	why = known_limitation(st, op);
	if (why) {
		/* counted by scripts/fuzz.sh: "  known: skipped" starts the line */
		printf("  known: skipped: fz%ld has IFF_BACKPRESSURE and %s: its queue may be stopped\n",
		       a[0], why);
		return 0;
	}
	switch (op->kind) {
	case K_OPEN:
		ret = op_open(st, a);
		break;
	case K_CLOSE:
		slot_close(st, s);
		break;
	case K_DETACH:
	case K_ATTACH:
		ret = op_queue(st, s, op->kind == K_DETACH ? IFF_DETACH_QUEUE : IFF_ATTACH_QUEUE);
		if (!ret)
			st->detached[s] = op->kind == K_DETACH;
		break;
	case K_PERSIST:
		ret = st->fd[s] < 0 ? -EBADF : ioctl_ret(st->fd[s], TUNSETPERSIST, (void *)(uintptr_t)a[1]);
		break;
	case K_TXQLEN:
		tap_name(s, name);
		ret = net_set_txqlen(name, (unsigned int)a[1]);
		break;
	case K_QDISC:
		ret = op_qdisc(a);
		break;
	case K_LINK:
		tap_name(s, name);
		ret = net_set_up(name, a[1]);
		break;
	case K_WRITE:
	case K_READ:
		ret = op_io(st, s, a[1], op->kind == K_WRITE);
		break;
	case K_SEND:
		ret = op_send(a);
		break;
	case K_ACCOUNT:
		return account_run(st, s, (unsigned int)a[1]);
	case K_KNOB:
		ret = op_knob(st, a);
		break;
	case K_RING:
		ret = op_ethtool(st, "-G", "rx", a[0]);
		break;
	case K_CHANNELS:
		ret = op_ethtool(st, "-L", "combined", a[0]);
		break;
	case K_NETNS:
		ret = op_netns(a);
		break;
	case K_RXBATCH:
		return op_rxbatch(st, a);
	case K_BACKEND:
		return op_backend(st, a);
	case K_VRING:
		vh_reap(&st->vh);
		ret = (int)vh_post(&st->vh, (unsigned int)a[0]);
		if (st->verbose)
			printf("  vring: %d posted\n", ret);
		return 0;
	case K_VACCOUNT:
		return account_vhost_run(st, (unsigned int)a[0]);
	}
	say(st, kinds[op->kind].name, ret);
	return 0;
}

static void delete_taps(void)
{
	for (int d = 0; d < FZ_NDEV; d++) {
		char name[IFNAMSIZ];
		char *argv[] = { "ip", "link", "del", name, NULL };

		tap_name(d, name);
		net_exec(argv);
	}
}

void fz_init(struct fz *st, const char *nic)
{
	for (int i = 0; i < FZ_NSLOT; i++) {
		st->fd[i] = -1;
		st->dev[i] = 0;
		st->detached[i] = false;
	}
	vh_init(&st->vh);
	st->nic = nic;
	st->verbose = false;
	st->patched = false;
	st->known = false;
	/* no IPv6: the stack sends nothing of its own on the taps */
	net_write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	delete_taps();
}

int fz_check_kernel(const struct fz *st)
{
	unsigned int features = 0;
	int fd;

	if (!st->patched)
		return 0;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, TUNGETFEATURES, &features) < 0) {
		printf("FAIL: tun unusable: TUNGETFEATURES: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	if (!(features & FZ_IFF_BACKPRESSURE)) {
		printf("FAIL: not patched: TUNGETFEATURES 0x%x has no IFF_BACKPRESSURE\n", features);
		return 1;
	}
	return 0;
}

void fz_cleanup(struct fz *st)
{
	for (int i = 0; i < FZ_NSLOT; i++)
		slot_close(st, i);
	vh_close(&st->vh);
	delete_taps();
}
