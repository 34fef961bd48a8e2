// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "frame.h"

uint16_t frame_csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)(p[0] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int frame_build(uint8_t *buf, size_t len, const uint8_t dst[6], const uint8_t src[6])
{
	uint8_t *ip = buf + 14, *udp = ip + 20;

	if (len < FRAME_MIN || len > FRAME_MAX)
		return -1;
	memset(buf, 0, len);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	put16(buf + 12, 0x0800);		/* IPv4 */
	ip[0] = 0x45;				/* version 4, 20-byte header */
	put16(ip + 2, (uint16_t)(len - 14));	/* total length */
	ip[8] = 64;				/* TTL */
	ip[9] = 17;				/* UDP */
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	memcpy(ip + 16, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	put16(ip + 10, frame_csum(ip, 20));
	put16(udp, 9);				/* source port */
	put16(udp + 2, 9);			/* discard */
	put16(udp + 4, (uint16_t)(len - 34));	/* UDP length; checksum 0: none */
	return 0;
}

int frame_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}
