// SPDX-License-Identifier: GPL-2.0
#include "account.h"

#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "net.h"

/* A drain is over after this long with nothing to read. */
#define IDLE_MS 50
/* How long a qdisc may keep frames with nothing moving. */
#define STUCK_MS 2000
/* The longest a phase waits for its counters to settle, moving or not. */
#define SETTLE_MAX_MS 30000

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Whether vhost-net's backend fd has frames in its tap's ring (not read). */
static bool backend_readable(const struct fz *st)
{
	struct pollfd p = { .fd = st->vh.backend, .events = POLLIN };

	return st->vh.backend >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/*
 * Takes every frame of dev until none has come for IDLE_MS: read from its
 * fds, except one that is vhost-net's backend, whose frames only vhost-net
 * takes (a read would hide a queue vhost-net's consumption fails to
 * wake); and, when the used ring holds dev's frames, taken back from it,
 * with (feed) its buffers posted again while vhost-net's backend is on
 * dev.
 */
static unsigned long drain(struct fz *st, int dev, bool feed)
{
	unsigned char buf[2048];
	unsigned long got = 0;
	bool vhost = st->vh.used_dev == dev;

	for (;;) {
		struct pollfd p[FZ_NSLOT + 1];
		int n = 0;

		for (int i = 0; i < FZ_NSLOT; i++) {
			if (st->fd[i] < 0 || st->dev[i] != dev || st->fd[i] == st->vh.backend)
				continue;
			while (read(st->fd[i], buf, sizeof(buf)) > 0)
				got++;
			p[n].fd = st->fd[i];
			p[n].events = POLLIN;
			n++;
		}
		if (vhost) {
			vh_clear_calls(&st->vh);
			got += vh_reap(&st->vh);
			if (feed && st->vh.backend >= 0)
				vh_post(&st->vh, VH_NUM_MAX);
			p[n].fd = vh_call_fd(&st->vh);
			p[n].events = POLLIN;
			n++;
		}
		if (!n || poll(p, n, IDLE_MS) <= 0)
			return got;
	}
}

/*
 * Whether dev is up with a carrier and running (its operstate up or, as a
 * tap's is, unknown; linkwatch activates the qdisc with it): waits up to
 * 200 ms for IFF_RUNNING, then 20 ms more for the qdisc.
 */
static bool dev_ready(const char *name)
{
	int flags = net_flags(name);

	if (flags < 0 || !(flags & IFF_UP) || net_sysfs(name, "carrier") != 1)
		return false;
	for (int i = 0; i < 10 && !(flags & IFF_RUNNING); i++) {
		sleep_ms(20);
		flags = net_flags(name);
	}
	if (flags < 0 || !(flags & IFF_RUNNING))
		return false;
	sleep_ms(20);
	return true;
}

/*
 * Whether some fd open on dev has its queue attached. Detaching a queue
 * purges its ring; when it was the last one attached, a tx queue
 * backpressure stopped stays stopped, its frames in the qdisc, until a
 * queue is attached again (as upstream has it), so the phase's judgement
 * does not hold then. With one still attached it does: the detached
 * queue's index goes to the last attached one, which is woken if its
 * ring is empty.
 */
static bool queue_attached(const struct fz *st, int dev)
{
	for (int i = 0; i < FZ_NSLOT; i++)
		if (st->fd[i] >= 0 && st->dev[i] == dev && !st->detached[i])
			return true;
	return false;
}

struct counts {
	long long tx_packets;
	long long tx_dropped;
	struct qdisc_stats q;
};

static int snapshot(const char *name, struct counts *c)
{
	c->tx_packets = net_sysfs(name, "statistics/tx_packets");
	c->tx_dropped = net_sysfs(name, "statistics/tx_dropped");
	if (c->tx_packets < 0 || c->tx_dropped < 0 || net_qdisc_stats(name, &c->q))
		return -1;
	return 0;
}

static bool same(const struct counts *a, const struct counts *b)
{
	return a->tx_packets == b->tx_packets && a->tx_dropped == b->tx_dropped &&
	       a->q.drops == b->q.drops && a->q.backlog == b->q.backlog;
}

/*
 * Reads dev's fds until nothing moves: an idle drain and two snapshots
 * IDLE_MS apart that agree, with an empty qdisc; or frames in the qdisc
 * and nothing moving for STUCK_MS (a stopped queue, for the judgement).
 * Frames in the ring of vhost-net's backend (its fd polls readable) are
 * moving: vhost-net has buffers for them. c gets the last snapshot, *got
 * the frames read. 0; 1 when things still moved after SETTLE_MAX_MS; -1
 * when the counters could not be read; -2 on a bad used entry (vh.bad).
 */
static int settle(struct fz *st, int dev, const char *name, struct counts *c,
		  unsigned long *got)
{
	long long start = now_ms(), moved = start;
	struct counts prev;

	*got = drain(st, dev, true);
	if (snapshot(name, &prev))
		return -1;
	for (;;) {
		unsigned long n = drain(st, dev, true);

		*got += n;
		if (st->vh.used_dev == dev && st->vh.bad)
			return -2;
		if (snapshot(name, c))
			return -1;
		/* frames vhost-net has buffers for and has not taken yet: moving */
		if (n || !same(c, &prev) || (st->vh.used_dev == dev && backend_readable(st)))
			moved = now_ms();
		else if (c->q.backlog <= 0 || now_ms() - moved >= STUCK_MS)
			return 0;
		if (now_ms() - start >= SETTLE_MAX_MS)
			return 1;
		prev = *c;
	}
}

int account_judge(const struct account_phase *p, char *why, size_t len)
{
	long long seen = (long long)p->read + p->tx_dropped + p->qdisc_drops;
	long long took = (long long)p->sent + p->refused + p->down;

	if (p->backlog > 0) {
		snprintf(why, len,
			 "stopped queue: %s's qdisc kept %lld frames, nothing moving for %d ms, its fds read empty",
			 p->name, p->backlog, STUCK_MS);
		return 1;
	}
	if (p->down > 0) {
		snprintf(why, len,
			 "stopped queue: %s refused %u frames with ENETDOWN (its tx queue stopped, no qdisc) after its fds read empty",
			 p->name, p->down);
		return 1;
	}
	if (seen != took) {
		snprintf(why, len, "accounting: %s took %lld frames, %lld are read or counted",
			 p->name, took, seen);
		return 1;
	}
	/* rings under BP_RING_MIN entries may lose a race: bp_ring is 0 there */
	if (p->bp_ring > 0 && p->tx_dropped) {
		snprintf(why, len,
			 "backpressure: %s dropped %lld frames at a ring of %lld with IFF_BACKPRESSURE and a qdisc that queues",
			 p->name, p->tx_dropped, p->bp_ring);
		return 1;
	}
	return 0;
}

/* Prints "FAIL: " and why when account_judge() fails p. */
static int judged(const struct account_phase *p)
{
	char why[256];

	if (!account_judge(p, why, sizeof(why)))
		return 0;
	printf("FAIL: %s\n", why);
	return 1;
}

/* Prints "FAIL: " and why settle() answered ret (not 0). */
static int unsettled(const char *name, int ret)
{
	if (ret == -2)
		printf("FAIL: vhost-net: a used entry of %s's frames names no buffer posted, or its length is not a header and a frame\n",
		       name);
	else if (ret < 0)
		printf("FAIL: counters unreadable: %s's statistics or \"tc -s qdisc show\"\n",
		       name);
	else
		printf("FAIL: not settled: %s's frames or counters still moving after %d ms\n",
		       name, SETTLE_MAX_MS);
	return 1;
}

/*
 * With the series, a tap with IFF_BACKPRESSURE whose qdiscs all queue
 * stops its queue instead of dropping at its ring: the ring's size when
 * that holds and the ring has BP_RING_MIN entries or more, else 0. Not on
 * vhost-net's backend: vhost-net credits a whole batch to the wake at
 * once, which may let the series' wake race drop on a larger ring than
 * the 1 or 2 entries its cover letter names (a reading of the code, not
 * seen in a run); nor while the backend is removed, which may fill the
 * ring.
 */
#define BP_RING_MIN 16
static long long backpressure_ring(const struct fz *st, int dev, const char *name,
				   const struct qdisc_stats *q)
{
	long long ring = net_sysfs(name, "tx_queue_len");

	if (!st->patched || q->noqueue || ring < BP_RING_MIN ||
	    (st->vh.backend >= 0 && st->vh.used_dev == dev) ||
	    !(net_sysfs_hex(name, "tun_flags") & FZ_IFF_BACKPRESSURE))
		return 0;
	return ring;
}

/* Adds what sendto() answered for n more frames to p; 0, or 1 (FAIL said). */
static int send_into(struct account_phase *p, unsigned int n)
{
	struct send_counts c;

	if (net_send(p->name, n, &c)) {
		printf("FAIL: no packet socket: for %s: %s\n", p->name, strerror(errno));
		return 1;
	}
	p->sent += c.sent;
	p->refused += c.dropped;
	p->down += c.down;
	p->other += c.other;
	return 0;
}

/* How long vhost-net may hold frames with no buffer to put them in. */
#define STARVED_MS 500

/*
 * Takes dev's frames, posting no buffer to vhost-net, until vhost-net is
 * idle: nothing taken for IDLE_MS with the backend's ring empty (it took
 * what was there), or for STARVED_MS with every buffer back and the ring
 * still readable (refilled by the sender or the qdisc after vhost-net
 * took a batch and, without a buffer, stopped listening). *got gets the
 * frames taken; 0, -2 on a bad used entry, or 1 when vhost-net left frames
 * in the ring with buffers posted for SETTLE_MAX_MS.
 */
static int starve(struct fz *st, int dev, unsigned long *got)
{
	long long start = now_ms(), moved = start;

	*got = 0;
	for (;;) {
		/* returns after IDLE_MS with nothing taken */
		unsigned long n = drain(st, dev, false);

		*got += n;
		if (st->vh.bad)
			return -2;
		if (n)
			moved = now_ms();
		else if (!backend_readable(st) ||
			 (st->vh.nfree == st->vh.vq.num && now_ms() - moved >= STARVED_MS))
			return 0;
		if (now_ms() - start >= SETTLE_MAX_MS)
			return 1;
	}
}

/* How long hold_batch() posts buffers one at a time. */
#define HOLD_MS 5000

/*
 * With vhost-net idle and out of buffers, gets it to hold a batch taken
 * from a full ring: the ring is filled (tx_queue_len frames more), then
 * one buffer at a time is posted until vhost-net has delivered what it
 * held and taken the ring's frames (its fd no longer readable; without a
 * buffer it takes no more). For HOLD_MS at most: a qdisc that refills the
 * ring can keep it readable. *got gets the frames delivered; 0, or 1
 * (FAIL said).
 */
static int hold_batch(struct fz *st, struct account_phase *p, unsigned long *got)
{
	long long start = now_ms();

	*got = 0;
	if (p->ring > 0 && send_into(p, (unsigned int)p->ring))
		return 1;
	while (backend_readable(st) && st->vh.nfree && now_ms() - start < HOLD_MS) {
		struct pollfd call = { .fd = vh_call_fd(&st->vh), .events = POLLIN };
		long long t = now_ms();
		unsigned int n = 0;

		vh_post(&st->vh, 1);
		/* the frame delivered, then the ring taken (or left: rxq not empty) */
		while (!n && now_ms() - t < 1000) {
			poll(&call, 1, 10);
			vh_clear_calls(&st->vh);
			n = vh_reap(&st->vh);
		}
		*got += n;
		while (backend_readable(st) && now_ms() - t < IDLE_MS)
			sleep_ms(2);
	}
	return 0;
}

/*
 * vaccount's middle, after its n frames: vhost-net starved until idle,
 * made to hold a batch from a full ring (hold_batch()), the ring filled
 * again, and the backend removed: the batch goes back to a full ring.
 * *got gets the frames taken meanwhile; held (LEN bytes) says what
 * vhost-net held when that is known, and what the removal dropped. 0, or
 * 1 (FAIL said).
 */
static int vhost_unset(struct fz *st, int dev, struct account_phase *p, const struct counts *b,
		       unsigned long *got, char *held, size_t len)
{
	unsigned long n;
	struct counts m, r;
	long long h = -1;
	int ret;

	ret = starve(st, dev, got);
	if (ret)
		return unsettled(p->name, ret);
	if (hold_batch(st, p, &n))
		return 1;
	*got += n;
	/* the tap's other queues, the used ring: vhost-net takes no more */
	*got += drain(st, dev, false);
	if (snapshot(p->name, &m))
		return unsettled(p->name, -1);
	/* with the ring empty: taken, less delivered, dropped or queued */
	if (!backend_readable(st))
		h = (long long)p->sent + p->refused + p->down - (long long)*got -
		    (m.tx_dropped - b->tx_dropped) - (m.q.drops - b->q.drops) - m.q.backlog;
	if (p->ring > 0 && send_into(p, (unsigned int)p->ring))
		return 1;
	if (snapshot(p->name, &m))
		return unsettled(p->name, -1);
	ret = vh_backend(&st->vh, -1, -1);
	if (ret) {
		printf("FAIL: vhost-net: removing %s's backend: %s\n", p->name, strerror(-ret));
		return 1;
	}
	if (snapshot(p->name, &r))
		return unsettled(p->name, -1);
	if (h >= 0)
		snprintf(held, len, "; vhost-net held %lld, its removal dropped %lld", h,
			 r.tx_dropped - m.tx_dropped);
	else
		snprintf(held, len, "; its removal dropped %lld", r.tx_dropped - m.tx_dropped);
	return 0;
}

/*
 * The phase on dev: n frames sent and everything taken and judged. For
 * vaccount (unset), dev is vhost-net's backend, removed after the frames
 * with a batch held (vhost_unset()).
 */
static int phase(struct fz *st, int dev, unsigned int n, bool unset)
{
	const char *what = unset ? "vaccount" : "account";
	struct account_phase p = { 0 };
	unsigned long got, mid = 0;
	struct counts b, a;
	char held[96] = "";
	int ret;
	char name[IFNAMSIZ];

	tap_name(dev, name);
	p.name = name;
	if (!dev_ready(name)) {
		printf("  %s %s: not up with a carrier, skipped\n", what, name);
		return 0;
	}
	if (!queue_attached(st, dev)) {
		printf("  %s %s: no queue attached, skipped\n", what, name);
		return 0;
	}
	ret = settle(st, dev, name, &b, &got);
	if (ret)
		return unsettled(name, ret);
	/* what the qdisc holds before the phase: a queue stopped already */
	p.backlog = b.q.backlog;
	p.ring = net_sysfs(name, "tx_queue_len");
	p.bp_ring = unset ? 0 : backpressure_ring(st, dev, name, &b.q);
	if (judged(&p) || send_into(&p, n))
		return 1;
	if (unset && vhost_unset(st, dev, &p, &b, &mid, held, sizeof(held)))
		return 1;
	ret = settle(st, dev, name, &a, &got);
	if (ret)
		return unsettled(name, ret);
	p.read = got + mid;
	p.tx_dropped = a.tx_dropped - b.tx_dropped;
	p.qdisc_drops = a.q.drops - b.q.drops;
	p.backlog = a.q.backlog;
	printf("  %s %s: sent %u refused %u down %u other %u; read %lu tx_dropped +%lld qdisc drops +%lld backlog %lld%s%s\n",
	       what, name, p.sent, p.refused, p.down, p.other, p.read, p.tx_dropped, p.qdisc_drops,
	       p.backlog, held, p.bp_ring ? "; backpressure: no ring drop allowed" : "");
	if (unset && !st->patched && account_stock_unconsume(&p)) {
		printf("  %s %s: stock: %lld frames lost uncounted as the backend went (vhost-net's unconsume into a full ring)\n",
		       what, name, account_shortfall(&p));
		return 0;
	}
	return judged(&p);
}

long long account_shortfall(const struct account_phase *p)
{
	return (long long)p->sent + p->refused + p->down -
	       ((long long)p->read + p->tx_dropped + p->qdisc_drops);
}

bool account_stock_unconsume(const struct account_phase *p)
{
	long long lost = account_shortfall(p);
	long long batch = p->ring < STOCK_RX_BATCH ? p->ring : STOCK_RX_BATCH;

	return p->backlog <= 0 && !p->down && lost > 0 && lost <= batch;
}

int account_run(struct fz *st, int dev, unsigned int n)
{
	return phase(st, dev, n, false);
}

int account_vhost_run(struct fz *st, unsigned int n)
{
	if (st->vh.backend < 0) {
		printf("  vaccount: no vhost-net backend, skipped\n");
		return 0;
	}
	return phase(st, st->vh.used_dev, n, true);
}
