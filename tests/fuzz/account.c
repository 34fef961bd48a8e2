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
/* How long a qdisc may keep frames once the fds read empty. */
#define STUCK_MS 2000

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
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
 * Whether dev is up with a carrier and its operstate says so (linkwatch
 * activates the qdisc right after): waits up to 200 ms for the operstate.
 */
static bool dev_ready(const char *name)
{
	char path[64], state[16] = "";

	if (!(net_sysfs_hex(name, "flags") & IFF_UP) || net_sysfs(name, "carrier") != 1)
		return false;
	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", name);
	for (int i = 0; i < 10; i++) {
		FILE *f = fopen(path, "re");

		if (!f)
			return false;
		if (!fgets(state, sizeof(state), f))
			state[0] = '\0';
		fclose(f);
		sleep_ms(20);
		if (!strcmp(state, "up\n"))
			return true;
	}
	return false;
}

struct counts {
	long long tx_dropped;
	struct qdisc_stats q;
};

static int snapshot(const char *name, struct counts *c)
{
	c->tx_dropped = net_sysfs(name, "statistics/tx_dropped");
	if (c->tx_dropped < 0 || net_qdisc_stats(name, &c->q))
		return -1;
	return 0;
}

/*
 * Reads dev's fds empty until its qdisc holds nothing too (or STUCK_MS
 * passed); c gets the counters then, *got the frames read. -1: unreadable.
 */
static int settle(const struct fz *st, int dev, const char *name, struct counts *c,
		  unsigned long *got)
{
	*got = drain(st, dev);
	for (int waited = 0;; waited += IDLE_MS) {
		if (snapshot(name, c))
			return -1;
		if (c->q.backlog <= 0 || waited >= STUCK_MS)
			return 0;
		*got += drain(st, dev);
	}
}

int account_judge(const struct account_phase *p, char *why, size_t len)
{
	long long seen = (long long)p->read + p->tx_dropped + p->qdisc_drops + p->backlog;
	long long took = (long long)p->sent + p->refused;

	if (p->backlog > 0) {
		snprintf(why, len,
			 "stopped queue: %s's qdisc kept %lld frames for %d ms while its fds read empty",
			 p->name, p->backlog, STUCK_MS);
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

int account_run(struct fz *st, int dev, unsigned int n)
{
	struct account_phase p = { 0 };
	unsigned long got;
	struct counts b, a;
	char name[IFNAMSIZ];

	tap_name(dev, name);
	p.name = name;
	if (!dev_ready(name)) {
		printf("  account %s: not up with a carrier, skipped\n", name);
		return 0;
	}
	if (settle(st, dev, name, &b, &got)) {
		printf("  account %s: counters unreadable, skipped\n", name);
		return 0;
	}
	/* what the qdisc holds before the phase: a queue stopped already */
	p.backlog = b.q.backlog;
	if (judged(&p))
		return 1;
	if (net_send(name, n, &p.sent, &p.refused, &p.other)) {
		printf("  account %s: no packet socket: %s\n", name, strerror(errno));
		return 0;
	}
	if (settle(st, dev, name, &a, &got)) {
		printf("  account %s: counters unreadable, skipped\n", name);
		return 0;
	}
	p.read = got;
	p.tx_dropped = a.tx_dropped - b.tx_dropped;
	p.qdisc_drops = a.q.drops - b.q.drops;
	p.backlog = a.q.backlog;
	printf("  account %s: sent %u refused %u other %u; read %lu tx_dropped +%lld qdisc drops +%lld backlog %lld\n",
	       name, p.sent, p.refused, p.other, p.read, p.tx_dropped, p.qdisc_drops, p.backlog);
	return judged(&p);
}
