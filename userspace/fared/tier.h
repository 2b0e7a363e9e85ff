// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dragonfly+ path tiers from BGP communities (draft-agt-rtgwg-dragonfly-
 * routing-01 §4.2, §5, §5.2; PROTOCOL.md §8.3, §8.5). Pure, no I/O.
 *
 * The draft's BGP design makes every tier's paths equal-cost (prepends
 * 2/1/0 on import) so that they land in one ECMP set; which tier a path
 * belongs to survives only in its communities:
 *
 *   C3 (reflect) present           tier 2, LGLLGL (reflected via a leaf
 *                                  of the transit group)
 *   else C2 (transit) present      tier 1, LGGL (via a transit spine)
 *   else C1 (minimal) present      tier 0, LGL (minimal)
 *   none of them                   intra-group: originated inside the
 *                                  destination's own group
 *
 * C1, C2 and C3 have no values in the draft: fared.conf gives them
 * ("tier-community minimal|transit|reflect VALUE"), each a standard
 * (ASN:VALUE) or a large (GLOBAL:LOCAL1:LOCAL2) community.
 *
 * Intra-group traffic MUST use minimal routing (draft §5): when any
 * usable path of a prefix is intra-group, only its intra-group paths are
 * used, all at tier 0, never the tiered ones (fare_fib.c applies that).
 */
#ifndef FARED_TIER_H
#define FARED_TIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fare_tier_comm {
	FARE_TIER_C1,			/* minimal: tier 0, LGL */
	FARE_TIER_C2,			/* transit: tier 1, LGGL */
	FARE_TIER_C3,			/* reflect: tier 2, LGLLGL */
	FARE_TIER_NCOMM,
};

/* The class of a path with none of C1, C2, C3. */
#define FARE_TIER_INTRA	0xff

struct fare_tier_community {
	bool set;
	bool large;
	/* standard: v[0] the high 16 bits, v[1] the low 16; large: all 3 */
	uint32_t v[3];
	int line;			/* of its fared.conf line */
};

struct fare_tier_cfg {
	bool enabled;			/* C1 and C2 configured */
	struct fare_tier_community c[FARE_TIER_NCOMM];
};

/* "65000:1" (standard) or "65000:0:1" (large) into *out, line 0; 0 or -1. */
int fare_tier_community_parse(const char *text,
			      struct fare_tier_community *out);
/* "65000:1" or "65000:0:1"; returns buf. */
char *fare_tier_community_str(const struct fare_tier_community *c, char *buf,
			      size_t len);
/* Whether two configured communities are the same one. */
bool fare_tier_community_eq(const struct fare_tier_community *a,
			    const struct fare_tier_community *b);

/*
 * The tier (0, 1, 2, or FARE_TIER_INTRA) of a path with these
 * COMMUNITIES (4 octets each) and LARGE_COMMUNITIES (12 each) wire bytes;
 * *by (may be NULL) gets the community that decided, or -1 when none did.
 * With tiers not enabled every path is tier 0, decided by none.
 */
uint8_t fare_tier_classify(const struct fare_tier_cfg *cfg,
			   const uint8_t *comms, size_t comms_len,
			   const uint8_t *large, size_t large_len, int *by);

/* "LGL", "LGGL", "LGLLGL", "intra-group". */
const char *fare_tier_signature(uint8_t tier);
/* "minimal", "transit", "reflect". */
const char *fare_tier_comm_name(enum fare_tier_comm c);

#endif /* FARED_TIER_H */
