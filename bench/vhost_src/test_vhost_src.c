// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side tests of vhost_src's parts that need no vhost: pacing (rate
 * kept over time, catch-up bounded by the burst, no overflow), the frame
 * (headers, IPv4 checksum), MAC parsing, and the interval counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "frame.h"
#include "interval.h"
#include "pace.h"
#include "rxq_stats.h"

static int test_pace_rate(void)
{
	const uint64_t hz = 2000000000ULL;	/* a 2 GHz counter */
	struct pace p;
	uint64_t sent = 0;

	pace_init(&p, hz, 1000, 100000, 0);	/* 100 kpps */
	CHECK(pace_take(&p, 1000, 32) == 0);	/* nothing due at the start */
	/* one second in steps of 10 us: every frame due, never more than 32 at once */
	for (uint64_t t = 1000; t <= 1000 + hz; t += hz / 100000) {
		uint32_t n = pace_take(&p, t, 32);

		CHECK(n <= 32);
		sent += n;
	}
	CHECK(sent == 100000);
	CHECK(p.offered == 100000);
	return 0;
}

static int test_pace_catch_up(void)
{
	struct pace p;

	pace_init(&p, 1000, 0, 1000, 0);	/* one frame per tick */
	CHECK(pace_take(&p, 100, 32) == 32);	/* 100 due, burst-limited */
	CHECK(pace_take(&p, 100, 32) == 32);
	CHECK(pace_take(&p, 100, 64) == 36);	/* the rest */
	CHECK(pace_take(&p, 100, 64) == 0);
	CHECK(pace_take(&p, 50, 64) == 0);	/* the past owes nothing */
	return 0;
}

static int test_pace_depth(void)
{
	struct pace p;

	pace_init(&p, 1000, 0, 1000, 16);	/* one frame per tick, 16 banked at most */
	CHECK(pace_take(&p, 100, 64) == 16);	/* idle for 100: only 16 owed */
	CHECK(pace_take(&p, 100, 64) == 0);
	CHECK(pace_take(&p, 110, 4) == 4);	/* the rate holds after the idle stretch */
	CHECK(pace_take(&p, 110, 64) == 6);
	CHECK(pace_take(&p, 200, 8) == 8);	/* 90 idle: 16 owed, 8 taken */
	CHECK(pace_take(&p, 201, 64) == 9);	/* the other 8 stayed owed, plus 1 */
	CHECK(p.offered == 201);		/* taken + forgone = all due */
	return 0;
}

static int test_pace_no_overflow(void)
{
	struct pace p;

	/* 100 Mpps after 10 hours on a 4 GHz counter: ticks * rate overflows 64 bits */
	pace_init(&p, 4000000000ULL, 0, 100000000, 0);
	p.offered = 100000000ULL * 36000 - 10;
	CHECK(pace_take(&p, 4000000000ULL * 36000, 256) == 10);
	return 0;
}

static int test_frame(void)
{
	const uint8_t dst[6] = { 1, 2, 3, 4, 5, 6 }, src[6] = { 7, 8, 9, 10, 11, 12 };
	uint8_t f[FRAME_MAX + 1];

	CHECK(frame_build(f, FRAME_MIN - 1, dst, src) == -1);
	CHECK(frame_build(f, FRAME_MAX + 1, dst, src) == -1);
	CHECK(frame_build(f, 100, dst, src) == 0);
	CHECK(!memcmp(f, dst, 6) && !memcmp(f + 6, src, 6));
	CHECK(f[12] == 0x08 && f[13] == 0x00);
	CHECK(f[14] == 0x45 && f[23] == 17);
	CHECK((f[16] << 8 | f[17]) == 100 - 14);	/* IPv4 total length */
	CHECK((f[38] << 8 | f[39]) == 100 - 34);	/* UDP length */
	CHECK(frame_csum(f + 14, 20) == 0);		/* a valid header sums to 0 */
	f[22]++;					/* a changed TTL does not */
	CHECK(frame_csum(f + 14, 20) != 0);
	/* RFC 1071's example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 */
	CHECK(frame_csum((uint8_t[]){ 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 }, 8) ==
	      (uint16_t)~0xddf2);
	return 0;
}

static int test_mac(void)
{
	uint8_t m[6];

	CHECK(frame_parse_mac("52:54:00:ab:cd:EF", m) == 0);
	CHECK(m[0] == 0x52 && m[3] == 0xab && m[5] == 0xef);
	CHECK(frame_parse_mac("52:54:00:ab:cd", m) == -1);
	CHECK(frame_parse_mac("52:54:00:ab:cd:ef:00", m) == -1);
	CHECK(frame_parse_mac("x", m) == -1);
	return 0;
}

static int test_interval(void)
{
	struct interval a, t;
	char row[128];
	FILE *f;

	interval_reset(&a);
	interval_reset(&t);
	interval_add(&a, 32, 30);
	interval_add(&a, 32, 32);
	interval_avail(&a, 100);
	interval_avail(&a, 50);
	CHECK(a.offered == 64 && a.delivered == 62 && a.dropped == 2);
	interval_sum(&t, &a);
	interval_reset(&a);
	interval_avail(&a, 70);
	interval_sum(&t, &a);
	CHECK(t.avail_min == 50 && t.samples == 3 && t.offered == 64);
	f = fmemopen(row, sizeof(row), "w");
	CHECK(f);
	interval_row(f, 1.5, &t, "3:auto");
	fclose(f);
	CHECK(!strcmp(row, "1.500,64,62,2,50,73.3,3:auto\n"));
	return 0;
}

/* phase_write PATH TEXT: the file the guest writes (fwrite: no newline added). */
static int phase_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int test_phase(void)
{
	char path[] = "/tmp/vrb-phase-XXXXXX", phase[PHASE_MAX];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK(!phase_write(path, "12:legacy_aa\n"));
	phase_read(path, phase);
	CHECK(!strcmp(phase, "12:legacy_aa"));
	/* no newline yet: a write in progress is not taken */
	CHECK(!phase_write(path, "12:leg"));
	phase_read(path, phase);
	CHECK(!strcmp(phase, "-"));
	for (const char *const *bad = (const char *const[]){ "\n", "a,b\n", "a b\n", "x\xff\n",
		"0123456789012345678901234567890123456789012345678\n", NULL }; *bad; bad++) {
		CHECK(!phase_write(path, *bad));
		phase_read(path, phase);
		CHECK(!strcmp(phase, "-"));
	}
	CHECK(!phase_write(path, "end\nmore\n"));
	phase_read(path, phase);
	CHECK(!strcmp(phase, "end"));
	unlink(path);
	phase_read(path, phase);
	CHECK(!strcmp(phase, "-"));
	phase_read(NULL, phase);
	CHECK(!strcmp(phase, "-"));
	return 0;
}

static int test_phase_ok(void)
{
	CHECK(phase_ok("12:legacy_aa", 12));
	CHECK(phase_ok("switch\n", 6));	/* the first n bytes */
	CHECK(!phase_ok("switch\n", 7));
	CHECK(!phase_ok("", 0));
	CHECK(!phase_ok("1 a", 3));
	CHECK(!phase_ok("a,b", 3));
	CHECK(phase_ok("01234567890123456789012345678901234567890123456", 47));
	CHECK(!phase_ok("012345678901234567890123456789012345678901234567", 48));
	return 0;
}

static int test_phase_watch(void)
{
	char path[] = "/tmp/vrb-phase-XXXXXX", old[PHASE_MAX];
	struct phase_watch w;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	phase_watch_init(&w, path);
	CHECK(!strcmp(w.cur, "-"));	/* empty: no phase yet */
	CHECK(!phase_watch_poll(&w, path, old));
	CHECK(!phase_write(path, "switch\n"));
	CHECK(phase_watch_poll(&w, path, old) == 1);
	CHECK(!strcmp(old, "-") && !strcmp(w.cur, "switch"));
	CHECK(!phase_watch_poll(&w, path, old));	/* no change: the row goes on */
	CHECK(!phase_write(path, "1:auto\n"));
	CHECK(phase_watch_poll(&w, path, old) == 1);
	CHECK(!strcmp(old, "switch") && !strcmp(w.cur, "1:auto"));
	/* a half-written line reads as no phase: it closes the row too */
	CHECK(!phase_write(path, "swi"));
	CHECK(phase_watch_poll(&w, path, old) == 1);
	CHECK(!strcmp(old, "1:auto") && !strcmp(w.cur, "-"));
	CHECK(!phase_write(path, "end\n"));
	CHECK(phase_watch_poll(&w, path, old) == 1);
	CHECK(!strcmp(old, "-") && !strcmp(w.cur, "end"));
	unlink(path);
	/* no file: "-", a change from end */
	CHECK(phase_watch_poll(&w, path, old) == 1);
	CHECK(!strcmp(old, "end") && !strcmp(w.cur, "-"));
	phase_watch_init(&w, NULL);
	CHECK(!strcmp(w.cur, "-") && !phase_watch_poll(&w, NULL, old));
	return 0;
}

static int test_rxq_names(void)
{
	CHECK(rxq_stat_is("rx_queue_0_refills", "refills"));	/* 6.1 */
	CHECK(rxq_stat_is("rx0_refills", "refills"));		/* 6.12 */
	CHECK(!rxq_stat_is("rx_queue_1_refills", "refills"));	/* another queue */
	CHECK(!rxq_stat_is("rx1_refills", "refills"));
	CHECK(!rxq_stat_is("rx_queue_0_refill_bufs", "refills"));	/* a longer name */
	CHECK(!rxq_stat_is("rx_queue_0_refills", "refill"));	/* a prefix of it */
	CHECK(!rxq_stat_is("tx_queue_0_kicks", "kicks"));
	CHECK(!rxq_stat_is("rx_queue_0_", ""));
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "pace: rate", test_pace_rate },
		{ "pace: catch up", test_pace_catch_up },
		{ "pace: depth", test_pace_depth },
		{ "pace: no overflow", test_pace_no_overflow },
		{ "frame", test_frame },
		{ "mac", test_mac },
		{ "interval", test_interval },
		{ "phase", test_phase },
		{ "phase names", test_phase_ok },
		{ "phase watch", test_phase_watch },
		{ "rx queue 0 counter names", test_rxq_names },
	};

	return CHECK_RUN("vhost_src parts", tests);
}
