// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dragonfly+ path tiers from BGP communities (see tier.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tier.h"

static int parse_part(const char *s, const char **end, uint32_t max,
		      uint32_t *v)
{
	unsigned long long n;
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &e, 10);
	if (errno || n > max)
		return -1;
	*v = (uint32_t)n;
	*end = e;
	return 0;
}

int fare_tier_community_parse(const char *text,
			      struct fare_tier_community *out)
{
	struct fare_tier_community c = { .set = true };
	const char *p = text;
	int n = 0;

	for (;;) {
		if (n == 3 || parse_part(p, &p, UINT32_MAX, &c.v[n]))
			return -1;
		n++;
		if (!*p)
			break;
		if (*p++ != ':')
			return -1;
	}
	if (n == 2) {
		/* RFC 1997: two 16-bit halves. */
		if (c.v[0] > 0xffff || c.v[1] > 0xffff)
			return -1;
	} else if (n == 3) {
		c.large = true;		/* RFC 8092 */
	} else {
		return -1;
	}
	*out = c;
	return 0;
}

char *fare_tier_community_str(const struct fare_tier_community *c, char *buf,
			      size_t len)
{
	if (c->large)
		snprintf(buf, len, "%u:%u:%u", c->v[0], c->v[1], c->v[2]);
	else
		snprintf(buf, len, "%u:%u", c->v[0], c->v[1]);
	return buf;
}

bool fare_tier_community_eq(const struct fare_tier_community *a,
			    const struct fare_tier_community *b)
{
	return a->set && b->set && a->large == b->large &&
	       a->v[0] == b->v[0] && a->v[1] == b->v[1] &&
	       (!a->large || a->v[2] == b->v[2]);
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static bool has(const struct fare_tier_community *c, const uint8_t *comms,
		size_t comms_len, const uint8_t *large, size_t large_len)
{
	size_t k;

	if (!c->set)
		return false;
	if (!c->large) {
		uint32_t want = c->v[0] << 16 | c->v[1];

		for (k = 0; comms && k + 4 <= comms_len; k += 4)
			if (be32(comms + k) == want)
				return true;
		return false;
	}
	for (k = 0; large && k + 12 <= large_len; k += 12)
		if (be32(large + k) == c->v[0] &&
		    be32(large + k + 4) == c->v[1] &&
		    be32(large + k + 8) == c->v[2])
			return true;
	return false;
}

uint8_t fare_tier_classify(const struct fare_tier_cfg *cfg,
			   const uint8_t *comms, size_t comms_len,
			   const uint8_t *large, size_t large_len, int *by)
{
	int c;

	if (by)
		*by = -1;
	if (!cfg || !cfg->enabled)
		return 0;
	/* The highest tier's community decides: C3 over C2 over C1. */
	for (c = FARE_TIER_C3; c >= FARE_TIER_C1; c--)
		if (has(&cfg->c[c], comms, comms_len, large, large_len)) {
			if (by)
				*by = c;
			return (uint8_t)c;
		}
	return FARE_TIER_INTRA;
}

const char *fare_tier_signature(uint8_t tier)
{
	switch (tier) {
	case 0:
		return "LGL";
	case 1:
		return "LGGL";
	case 2:
		return "LGLLGL";
	default:
		return "intra-group";
	}
}

const char *fare_tier_comm_name(enum fare_tier_comm c)
{
	static const char *const names[] = {
		[FARE_TIER_C1] = "minimal",
		[FARE_TIER_C2] = "transit",
		[FARE_TIER_C3] = "reflect",
	};

	return c < FARE_TIER_NCOMM ? names[c] : "?";
}
