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

/*
 * Takes every frame of dev until none has come for IDLE_MS: read from its
 * fds, except one that is vhost-net's backend, whose frames only vhost-net
 * takes (a read would hide a queue vhost-net's consumption fails to
 * wake); and, when the used ring holds dev's frames, taken back from it,
 * with its buffers posted again while vhost-net's backend is on dev.
 */
static unsigned long drain(struct fz *st, int dev)
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
			if (st->vh.backend >= 0)
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
 * c gets the last snapshot, *got the frames read. 0; 1 when things still
 * moved after SETTLE_MAX_MS; -1 when the counters could not be read.
 */
static int settle(struct fz *st, int dev, const char *name, struct counts *c,
		  unsigned long *got)
{
	long long start = now_ms(), moved = start;
	struct counts prev;

	*got = drain(st, dev);
	if (snapshot(name, &prev))
		return -1;
	for (;;) {
		unsigned long n = drain(st, dev);

		*got += n;
		if (snapshot(name, c))
			return -1;
		if (n || !same(c, &prev))
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
	/* races a ring of 1 or 2 entries may lose are out of bp_ring's range */
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
	if (ret < 0)
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
 * that holds and the ring has BP_RING_MIN entries or more, else 0. Not
 * while vhost-net's backend is removed, which may fill the ring.
 */
#define BP_RING_MIN 16
static long long backpressure_ring(const struct fz *st, const char *name,
				   const struct qdisc_stats *q)
{
	long long ring = net_sysfs(name, "tx_queue_len");

	if (!st->patched || q->noqueue || ring < BP_RING_MIN ||
	    !(net_sysfs_hex(name, "tun_flags") & FZ_IFF_BACKPRESSURE))
		return 0;
	return ring;
}

/*
 * The phase on dev: n frames sent, then (with unset) vhost-net's backend
 * removed, which gives the frames vhost-net took and did not deliver back
 * to the tap's ring; then everything taken and judged.
 */
static int phase(struct fz *st, int dev, unsigned int n, bool unset)
{
	const char *what = unset ? "vaccount" : "account";
	struct account_phase p = { 0 };
	unsigned long got;
	struct send_counts c;
	struct counts b, a;
	int ret;
	char name[IFNAMSIZ];

	tap_name(dev, name);
	p.name = name;
	if (unset && (st->vh.backend < 0 || st->vh.used_dev != dev)) {
		printf("  %s %s: not vhost-net's backend, skipped\n", what, name);
		return 0;
	}
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
	p.bp_ring = unset ? 0 : backpressure_ring(st, name, &b.q);
	if (judged(&p))
		return 1;
	if (net_send(name, n, &c)) {
		printf("FAIL: no packet socket: for %s: %s\n", name, strerror(errno));
		return 1;
	}
	p.sent = c.sent;
	p.refused = c.dropped;
	p.down = c.down;
	p.other = c.other;
	if (unset) {
		/* vhost-net's worker takes a batch meanwhile */
		sleep_ms(20);
		ret = vh_backend(&st->vh, -1, -1);
		if (ret) {
			printf("FAIL: vhost-net: removing %s's backend: %s\n", name, strerror(-ret));
			return 1;
		}
	}
	ret = settle(st, dev, name, &a, &got);
	if (ret)
		return unsettled(name, ret);
	if (st->vh.bad) {
		printf("FAIL: vhost-net: a used entry of %s's frames names no buffer posted\n", name);
		return 1;
	}
	p.read = got;
	p.tx_dropped = a.tx_dropped - b.tx_dropped;
	p.qdisc_drops = a.q.drops - b.q.drops;
	p.backlog = a.q.backlog;
	printf("  %s %s: sent %u refused %u down %u other %u; read %lu tx_dropped +%lld qdisc drops +%lld backlog %lld%s\n",
	       what, name, p.sent, p.refused, p.down, p.other, p.read, p.tx_dropped, p.qdisc_drops,
	       p.backlog, p.bp_ring ? "; backpressure: no ring drop allowed" : "");
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

	return p->backlog <= 0 && !p->down && lost > 0 && lost <= STOCK_RX_BATCH;
}

int account_run(struct fz *st, int dev, unsigned int n)
{
	return phase(st, dev, n, false);
}

int account_vhost_run(struct fz *st, int dev, unsigned int n)
{
	return phase(st, dev, n, true);
}
