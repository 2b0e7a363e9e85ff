// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP decision process between two paths of one prefix (RFC 4271
 * §9.1.2.2), step by step, so that the caller can both pick the best path
 * and tell which paths are equal up to a given step:
 *
 *   a. the higher degree of preference: LOCAL_PREF as received over iBGP,
 *      100 for a path learned over eBGP (fared sets no other);
 *   b. the shorter AS path (an AS_SET counts 1, confederation segments 0);
 *   c. the lower ORIGIN (IGP < EGP < INCOMPLETE);
 *   d. the lower MULTI_EXIT_DISC, between paths from the same neighboring
 *      AS only (the first AS of the path; a path without MED has 0);
 *   e. a path learned over eBGP over one learned over iBGP (there is no
 *      interior cost to compare: every next hop is on a shared link);
 *   f. the lower BGP Identifier of the peer it came from;
 *   g. the lower peer address (IPv4 before IPv6).
 *
 * fared weighs the paths of a prefix across planes rather than keep one:
 * the multipath set is the paths equal to the best through step c
 * (FARE_BEST_MULTIPATH: LOCAL_PREF, AS path length and ORIGIN). Steps d
 * to g only choose between the paths of one plane, and the path whose
 * attributes a transit role passes on. Pure.
 */
#ifndef FARED_FARE_BEST_H
#define FARED_FARE_BEST_H

#include <stdbool.h>
#include <stdint.h>

#include "rib.h"

enum fare_best_step {
	FARE_BEST_EQUAL = 0,
	FARE_BEST_LOCAL_PREF,		/* a */
	FARE_BEST_AS_PATH,		/* b */
	FARE_BEST_ORIGIN,		/* c */
	FARE_BEST_MED,			/* d */
	FARE_BEST_EBGP,			/* e */
	FARE_BEST_ROUTER_ID,		/* f */
	FARE_BEST_PEER_ADDR,		/* g */
};

/* The last step the paths of the multipath set are equal through. */
#define FARE_BEST_MULTIPATH	FARE_BEST_ORIGIN

/* A path and what the decision needs of the peer it came from. */
struct fare_best_path {
	const struct rib_attrs *attrs;
	bool ibgp;			/* learned over iBGP */
	uint32_t router_id;		/* the peer's BGP Identifier */
	uint8_t addr_family;		/* enum bgp_family of addr */
	uint8_t addr[16];		/* the peer's address */
};

/*
 * < 0 when a is better, > 0 when b is, 0 when they are equal through
 * step g; *step (may be NULL) is the step that decided, or
 * FARE_BEST_EQUAL.
 */
int fare_best_cmp(const struct fare_best_path *a,
		  const struct fare_best_path *b, enum fare_best_step *step);

/* The neighboring AS of a path (RFC 4271 §9.1.2.2 d); 0: none (local). */
uint32_t fare_best_neighbor_as(const struct rib_attrs *attrs);

/* "LOCAL_PREF", "AS path length", ... for explanations. */
const char *fare_best_step_name(enum fare_best_step step);

#endif /* FARED_FARE_BEST_H */
