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

/* Reads every fd opened on dev until none has had a frame for IDLE_MS. */
static unsigned long drain(const struct fz *st, int dev)
{
	unsigned char buf[2048];
	unsigned long got = 0;

	for (;;) {
		struct pollfd p[FZ_NSLOT];
		int n = 0;

		for (int i = 0; i < FZ_NSLOT; i++) {
			if (st->fd[i] < 0 || st->dev[i] != dev)
				continue;
			while (read(st->fd[i], buf, sizeof(buf)) > 0)
				got++;
			p[n].fd = st->fd[i];
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
static int settle(const struct fz *st, int dev, const char *name, struct counts *c,
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

int account_run(struct fz *st, int dev, unsigned int n)
{
	struct account_phase p = { 0 };
	unsigned long got;
	struct send_counts c;
	struct counts b, a;
	int ret;
	char name[IFNAMSIZ];

	tap_name(dev, name);
	p.name = name;
	if (!dev_ready(name)) {
		printf("  account %s: not up with a carrier, skipped\n", name);
		return 0;
	}
	if (!queue_attached(st, dev)) {
		printf("  account %s: no queue attached, skipped\n", name);
		return 0;
	}
	ret = settle(st, dev, name, &b, &got);
	if (ret)
		return unsettled(name, ret);
	/* what the qdisc holds before the phase: a queue stopped already */
	p.backlog = b.q.backlog;
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
	ret = settle(st, dev, name, &a, &got);
	if (ret)
		return unsettled(name, ret);
	p.read = got;
	p.tx_dropped = a.tx_dropped - b.tx_dropped;
	p.qdisc_drops = a.q.drops - b.q.drops;
	p.backlog = a.q.backlog;
	printf("  account %s: sent %u refused %u down %u other %u; read %lu tx_dropped +%lld qdisc drops +%lld backlog %lld\n",
	       name, p.sent, p.refused, p.down, p.other, p.read, p.tx_dropped, p.qdisc_drops,
	       p.backlog);
	return judged(&p);
}
