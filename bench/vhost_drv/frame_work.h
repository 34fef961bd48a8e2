/* SPDX-License-Identifier: GPL-2.0 */
/* The consumer's cost per frame (--work N), shared by vhost_drv and tap_read. */
#ifndef FRAME_WORK_H
#define FRAME_WORK_H

#include <stdint.h>

/* n rounds of dependent arithmetic (FNV-1a) over a frame's len bytes. */
void frame_work(const uint8_t *p, uint32_t len, unsigned int n);

#endif /* FRAME_WORK_H */
