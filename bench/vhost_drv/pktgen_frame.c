// SPDX-License-Identifier: GPL-2.0
#include "pktgen_frame.h"

#define ETH_HLEN 14
#define UDP_HLEN 8

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

bool pktgen_frame_is(const uint8_t *frame, uint32_t len)
{
	uint32_t ihl;

	if (len < ETH_HLEN + 20 || frame[12] != 0x08 || frame[13] != 0x00)
		return false;
	if ((frame[ETH_HLEN] >> 4) != 4 || frame[ETH_HLEN + 9] != 17)
		return false;
	ihl = (frame[ETH_HLEN] & 0xf) * 4u;
	if (ihl < 20 || len < ETH_HLEN + ihl + UDP_HLEN + 4)
		return false;
	return be32(frame + ETH_HLEN + ihl + UDP_HLEN) == PKTGEN_MAGIC;
}
