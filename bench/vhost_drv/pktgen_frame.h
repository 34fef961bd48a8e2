/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recognises pktgen's frames: Ethernet, IPv4, UDP, then pktgen's header
 * starting with its magic (net/core/pktgen.c: PKTGEN_MAGIC). The tap also
 * carries what the guest's own stack sends on it; only pktgen's count
 * against pktgen's sent count.
 */
#ifndef PKTGEN_FRAME_H
#define PKTGEN_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#define PKTGEN_MAGIC 0xbe9be955u

bool pktgen_frame_is(const uint8_t *frame, uint32_t len);

#endif /* PKTGEN_FRAME_H */
