// SPDX-License-Identifier: GPL-2.0
/*
 * rx_window: workload B's guest side of a block. After a short sleep
 * (WAKE_MS: both phase writes then follow a wake-up), writes the block's phase
 * (vhost_src, polling it every millisecond, starts the block's row), reads
 * rx queue 0's counters and rx_packets, waits, writes "switch" (the row
 * ends) and reads them again: the guest's counters and the source's rows
 * cover the same frames, to the poll and a counter read (one ioctl and one
 * sysfs read, where `ethtool -S` from a shell took seconds under TCG and a
 * flood). Prints the deltas on one line:
 *   rx=N NAME=N ... seconds=S write0_ms=W write1_ms=W
 * (seconds: CLOCK_MONOTONIC between the ends of the two phase writes,
 * each followed at once by its counter read; write0_ms, write1_ms:
 * how long each phase write took, the window's uncertainty at its start
 * and its end). Runs in the guest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "interval.h"
#include "opt_uint.h"
#include "rxq_stats.h"

/* the sleep before the first phase write (main) */
#define WAKE_MS 50

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rx_window IFACE PHASE_FILE LABEL MS [NAME...]\n"
		"Sleeps %d ms, writes LABEL (1-47 of A-Z a-z 0-9 _ . : -) to PHASE_FILE,\n"
		"reads IFACE's rx_packets and rx queue 0's ethtool counters NAME\n"
		"(rx_queue_0_NAME or rx0_NAME; absent ones left out), waits until MS\n"
		"milliseconds (10-3600000) after the sleep's end,\n"
		"writes \"switch\" to PHASE_FILE and reads them again. Prints\n"
		"\"rx=N NAME=N ... seconds=S write0_ms=W write1_ms=W\": the deltas, the\n"
		"time between the reads and how long each phase write took.\n", WAKE_MS);
}

/* PHASE_FILE renamed into place: vhost_src never reads it half-written. */
static int phase_write(const char *path, const char *label)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "rx_window: %s: path too long\n", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s\n", label) < 0 || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "rx_window: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* sleep_until T: CLOCK_MONOTONIC's absolute T; 0, or -1 with the reason on stderr. */
static int sleep_until(const struct timespec *t)
{
	int e;

	while ((e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL)) == EINTR)
		;
	if (e)
		fprintf(stderr, "rx_window: clock_nanosleep: %s\n", strerror(e));
	return e ? -1 : 0;
}

/* t plus ms milliseconds. */
static struct timespec after_ms(struct timespec t, unsigned long long ms)
{
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t rx0, rx1, v0[RXQ_NAMES_MAX], v1[RXQ_NAMES_MAX];
	struct timespec now;
	unsigned long long ms;
	struct rxq_stats st;
	double w0, w1, t0, t1;
	int rc = 1;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 5) {
		usage(stderr);
		return 2;
	}
	if (!phase_ok(argv[3], strlen(argv[3]))) {
		fprintf(stderr, "rx_window: LABEL '%s' is not 1-47 of A-Z a-z 0-9 _ . : -\n", argv[3]);
		return 2;
	}
	if (opt_uint("rx_window", "MS", argv[4], 10, 3600000, &ms))
		return 2;
	if (rxq_stats_open(&st, argv[1], (const char *const *)argv + 5, (size_t)(argc - 5)))
		goto out;
	/*
	 * Both phase writes follow a wake-up: under a flood a task that has
	 * just slept runs ahead of the softirq thread, one that has just
	 * started does not. Without this sleep the first write took 34 ms on
	 * average and the second 6 ms, and the guest saw 0.47 % fewer frames
	 * than the source delivered (results/20261206T090647Z-B-6.1's guest
	 * logs).
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	now = after_ms(now, WAKE_MS);
	if (sleep_until(&now))
		goto out;
	w0 = now_s();
	if (phase_write(argv[2], argv[3]))
		goto out;
	t0 = now_s();
	if (rxq_stats_read(&st, &rx0, v0))
		goto out;
	now = after_ms(now, ms);
	if (sleep_until(&now))
		goto out;
	w1 = now_s();
	if (phase_write(argv[2], "switch"))
		goto out;
	t1 = now_s();
	if (rxq_stats_read(&st, &rx1, v1))
		goto out;
	printf("rx=%" PRIu64, rx1 - rx0);
	for (size_t k = 0; k < st.n; k++)
		printf(" %s=%" PRIu64, st.name[k], v1[k] - v0[k]);
	printf(" seconds=%.3f write0_ms=%.3f write1_ms=%.3f\n", t1 - t0, 1000 * (t0 - w0),
	       1000 * (t1 - w1));
	rc = 0;
out:
	rxq_stats_close(&st);
	return rc;
}
