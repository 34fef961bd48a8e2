/* SPDX-License-Identifier: GPL-2.0 */
/* The frame the source sends: Ethernet + IPv4 + UDP to the discard port. */
#ifndef FRAME_H
#define FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MIN 60		/* Ethernet minimum without FCS */
#define FRAME_MAX 1514

/* Writes a frame of len bytes (FRAME_MIN..FRAME_MAX) into buf; 0 or -1. */
int frame_build(uint8_t *buf, size_t len, const uint8_t dst[6], const uint8_t src[6]);

/* The Internet checksum of len bytes (RFC 1071), as stored in a header. */
uint16_t frame_csum(const void *data, size_t len);

/* Parses "aa:bb:cc:dd:ee:ff"; 0 or -1. */
int frame_parse_mac(const char *s, uint8_t mac[6]);

#endif /* FRAME_H */
