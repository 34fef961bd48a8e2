// SPDX-License-Identifier: GPL-2.0
/* The accounting oracle's judgement (account_judge), without a kernel. */
#include <string.h>

#include "account.h"
#include "check.h"

static struct account_phase phase(void)
{
	struct account_phase p = { .name = "fz0", .sent = 60, .refused = 4, .other = 9,
				   .read = 50, .tx_dropped = 6, .qdisc_drops = 8 };
	return p;
}

static int every_frame_counted_passes(void)
{
	struct account_phase p = phase();
	char why[256] = "";

	CHECK(account_judge(&p, why, sizeof(why)) == 0);
	CHECK(why[0] == '\0');
	return 0;
}

static int a_lost_frame_fails(void)
{
	struct account_phase p = phase();
	char why[256];

	p.read--;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "accounting: fz0 took 64 frames, 63 are read or counted"));
	return 0;
}

static int a_frame_counted_twice_fails(void)
{
	struct account_phase p = phase();
	char why[256];

	p.tx_dropped++;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "accounting:"));
	return 0;
}

static int frames_left_in_the_qdisc_fail(void)
{
	struct account_phase p = phase();
	char why[256];

	p.read -= 2;
	p.backlog = 2;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "stopped queue: fz0's qdisc kept 2 frames"));
	return 0;
}

static int enetdown_is_a_stopped_queue(void)
{
	struct account_phase p = phase();
	char why[256];

	/* counted by the core as tx_dropped: the sum holds, the queue does not */
	p.down = 3;
	p.tx_dropped += 3;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "stopped queue: fz0 refused 3 frames with ENETDOWN"));
	return 0;
}

static int an_empty_phase_passes(void)
{
	struct account_phase p = { .name = "fz1" };
	char why[256];

	CHECK(account_judge(&p, why, sizeof(why)) == 0);
	p.backlog = 1;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "stopped queue: fz1"));
	return 0;
}

static int backpressure_forbids_ring_drops(void)
{
	struct account_phase p = phase();
	char why[256];

	p.bp_ring = 16;
	CHECK(account_judge(&p, why, sizeof(why)) == 1);
	CHECK(strstr(why, "backpressure: fz0 dropped 6 frames at a ring of 16"));
	p.read += p.tx_dropped;
	p.tx_dropped = 0;
	CHECK(account_judge(&p, why, sizeof(why)) == 0);
	return 0;
}

static int a_stock_unconsume_loss_is_at_most_a_batch(void)
{
	struct account_phase p = phase();

	p.ring = 1000;
	CHECK(!account_stock_unconsume(&p));
	p.sent += STOCK_RX_BATCH;
	CHECK(account_shortfall(&p) == STOCK_RX_BATCH);
	CHECK(account_stock_unconsume(&p));
	p.sent++;
	CHECK(!account_stock_unconsume(&p));
	p.sent -= STOCK_RX_BATCH;
	CHECK(account_shortfall(&p) == 1);
	CHECK(account_stock_unconsume(&p));
	p.backlog = 1;
	CHECK(!account_stock_unconsume(&p));
	p.backlog = 0;
	p.sent--;
	p.down = 1;
	CHECK(account_shortfall(&p) == 1);
	CHECK(!account_stock_unconsume(&p));
	/* the batch vhost-net took came from a ring of 16 */
	p.down = 0;
	p.ring = 16;
	p.sent += 16;
	CHECK(account_shortfall(&p) == 16);
	CHECK(account_stock_unconsume(&p));
	p.sent++;
	CHECK(!account_stock_unconsume(&p));
	return 0;
}

int main(void)
{
	static const struct check_test tests[] = {
		{ "every frame read or counted: passes", every_frame_counted_passes },
		{ "a frame neither read nor counted: fails", a_lost_frame_fails },
		{ "a frame counted twice: fails", a_frame_counted_twice_fails },
		{ "frames left in the qdisc: a stopped queue", frames_left_in_the_qdisc_fail },
		{ "ENETDOWN after the fds read empty: a stopped queue", enetdown_is_a_stopped_queue },
		{ "no frames: passes; a backlog alone fails", an_empty_phase_passes },
		{ "backpressure on, a ring of 16: a ring drop fails", backpressure_forbids_ring_drops },
		{ "stock unconsume: a loss of 1 to a batch or a ring, nothing stuck",
		  a_stock_unconsume_loss_is_at_most_a_batch },
	};

	return check_run("account", tests, sizeof(tests) / sizeof(tests[0]));
}
