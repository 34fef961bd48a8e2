// SPDX-License-Identifier: GPL-2.0
#include "interval.h"

#include <string.h>

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

void interval_row(FILE *f, double t, const struct interval *iv, const char *phase)
{
	if (iv->samples)
		fprintf(f, "%.3f,%llu,%llu,%llu,%u,%.1f,%s\n", t, (unsigned long long)iv->offered,
			(unsigned long long)iv->delivered, (unsigned long long)iv->dropped,
			iv->avail_min, (double)iv->avail_sum / (double)iv->samples, phase);
	else
		fprintf(f, "%.3f,%llu,%llu,%llu,,,%s\n", t, (unsigned long long)iv->offered,
			(unsigned long long)iv->delivered, (unsigned long long)iv->dropped, phase);
	fflush(f);
}

int phase_ok(const char *s, size_t n)
{
	return n && n < PHASE_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") >= n;
}

void phase_read(const char *path, char phase[PHASE_MAX])
{
	char line[PHASE_MAX + 1];
	FILE *f = path ? fopen(path, "r") : NULL;
	size_t n;

	strcpy(phase, "-");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n");
		/* a whole line, of the allowed characters */
		if (line[n] == '\n' && phase_ok(line, n)) {
			memcpy(phase, line, n);
			phase[n] = 0;
		}
	}
	fclose(f);
}

void phase_watch_init(struct phase_watch *w, const char *path)
{
	phase_read(path, w->cur);
}

int phase_watch_poll(struct phase_watch *w, const char *path, char old[PHASE_MAX])
{
	char now[PHASE_MAX];

	phase_read(path, now);
	if (!strcmp(now, w->cur))
		return 0;
	memcpy(old, w->cur, PHASE_MAX);
	memcpy(w->cur, now, PHASE_MAX);
	return 1;
}
