/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's operations on tun/tap and the state they touch: one
 * operation is a kind and up to four numbers, drawn from a seeded
 * generator or read back from a log line ("txqlen 0 0"), so that a logged
 * sequence replays as the same operations. Each kind's line, arguments and
 * effect are in the table in ops.c.
 */
#ifndef OPS_H
#define OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rng.h"
#include "vhost_rx.h"

#define FZ_NDEV 2	/* taps fz0, fz1 */
#define FZ_NSLOT 4	/* open tun fds */
#define FZ_NARG 4

struct op {
	int kind;		/* index into the table in ops.c */
	long a[FZ_NARG];
};

struct fz {
	int fd[FZ_NSLOT];	/* -1: closed */
	int dev[FZ_NSLOT];	/* which tap the fd was opened on */
	bool detached[FZ_NSLOT];	/* its queue detached (TUNSETQUEUE) */
	struct fz_vhost vh;	/* vhost-net, its rx vring and backend (vhost_rx.h) */
	const char *nic;	/* a virtio-net device for its knobs, or NULL */
	bool verbose;		/* each operation's answer on stdout */
	bool patched;		/* the kernel carries the series: its ioctls exist */
	bool known;		/* run the operations that reach known limitations */
};

/* Draws one operation. */
void op_generate(struct rng *g, struct op *op);

/* Parses a log line ("NAME N..."); 0, or -1 when it is not an operation. */
int op_parse(const char *line, struct op *op);

/* Writes op as a log line (no newline) into buf. */
void op_format(const struct op *op, char *buf, size_t len);

/* Lists the operations and their arguments on f. */
void op_usage(FILE *f);

/* Creates nothing; all fds closed; the taps of an earlier run deleted. */
void fz_init(struct fz *st, const char *nic);

/*
 * Runs op: 0 when it ran (whatever the kernel answered), 1 when an
 * invariant failed (the reason printed on stdout with "FAIL: ").
 */
int op_run(struct fz *st, const struct op *op);

/*
 * With st->patched: 0 when TUNGETFEATURES offers IFF_BACKPRESSURE, else 1
 * ("FAIL: " on stdout). 0 without.
 */
int fz_check_kernel(const struct fz *st);

/* Closes every fd and deletes the taps. */
void fz_cleanup(struct fz *st);

#endif /* OPS_H */
