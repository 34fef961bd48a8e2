// SPDX-License-Identifier: GPL-2.0
#include "interval.h"

void interval_reset(struct interval *iv)
{
	*iv = (struct interval){ .avail_min = UINT32_MAX };
}

void interval_avail(struct interval *iv, uint32_t avail)
{
	if (avail < iv->avail_min)
		iv->avail_min = avail;
	iv->avail_sum += avail;
	iv->samples++;
}

void interval_add(struct interval *iv, uint32_t offered, uint32_t delivered)
{
	iv->offered += offered;
	iv->delivered += delivered;
	iv->dropped += offered - delivered;
}

void interval_sum(struct interval *total, const struct interval *iv)
{
	total->offered += iv->offered;
	total->delivered += iv->delivered;
	total->dropped += iv->dropped;
	if (iv->avail_min < total->avail_min)
		total->avail_min = iv->avail_min;
	total->avail_sum += iv->avail_sum;
	total->samples += iv->samples;
}

void interval_row(FILE *f, double t, const struct interval *iv)
{
	if (iv->samples)
		fprintf(f, "%.3f,%llu,%llu,%llu,%u,%.1f\n", t, (unsigned long long)iv->offered,
			(unsigned long long)iv->delivered, (unsigned long long)iv->dropped,
			iv->avail_min, (double)iv->avail_sum / (double)iv->samples);
	else
		fprintf(f, "%.3f,%llu,%llu,%llu,,\n", t, (unsigned long long)iv->offered,
			(unsigned long long)iv->delivered, (unsigned long long)iv->dropped);
	fflush(f);
}
