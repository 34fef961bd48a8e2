// SPDX-License-Identifier: GPL-2.0
#include "rule.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rule_parse(const char *s, struct refill_rule *r)
{
	unsigned long v;
	char *end;

	r->refill_max = 0;
	if (!strcmp(s, "auto")) {
		r->kind = RULE_AUTO;
		r->n = 0;
		return 0;
	}
	if (!strcmp(s, "legacy")) {
		r->kind = RULE_LEGACY;
		r->n = 0;
		return 0;
	}
	if (!strcmp(s, "adaptive")) {
		r->kind = RULE_ADAPTIVE;
		r->n = 0;
		return 0;
	}
	if (!strcmp(s, "adaptive-dry")) {
		r->kind = RULE_ADAPTIVE_DRY;
		r->n = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 64)
		return -1;
	r->kind = RULE_FIXED;
	r->n = v;
	return 0;
}

unsigned int rule_threshold(const struct refill_rule *r, unsigned int budget, unsigned int ring,
			    unsigned int received, bool dry)
{
	unsigned int busy = budget && received >= budget;

	switch (r->kind) {
	case RULE_AUTO:
		return (budget < ring ? budget : ring) / 2;
	case RULE_LEGACY:
		return ring / 2;
	case RULE_ADAPTIVE:
		return busy ? ring / 2 : (budget < ring ? budget : ring) / 2;
	case RULE_ADAPTIVE_DRY:
		return busy && !dry ? ring / 2 : (budget < ring ? budget : ring) / 2;
	default:
		return r->n < ring / 2 ? r->n : ring / 2;
	}
}

unsigned int rule_limit(const struct refill_rule *r, unsigned int budget,
			unsigned int received, unsigned int taken)
{
	if (!r->refill_max || received < budget)
		return UINT_MAX;
	return r->refill_max > taken ? r->refill_max : taken;
}

void rule_name(const struct refill_rule *r, char *buf, int len)
{
	int n;

	if (r->kind == RULE_AUTO)
		n = snprintf(buf, len, "auto");
	else if (r->kind == RULE_LEGACY)
		n = snprintf(buf, len, "legacy");
	else if (r->kind == RULE_ADAPTIVE)
		n = snprintf(buf, len, "adaptive");
	else if (r->kind == RULE_ADAPTIVE_DRY)
		n = snprintf(buf, len, "adaptive-dry");
	else
		n = snprintf(buf, len, "%u", r->n);
	if (r->refill_max && n >= 0 && n < len)
		snprintf(buf + n, len - n, "+max%u", r->refill_max);
}
