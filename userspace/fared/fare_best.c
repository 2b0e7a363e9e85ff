// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP decision process between two paths (see fare_best.h).
 */
#include <string.h>

#include "fare_best.h"

#define DEFAULT_LOCAL_PREF	100

static uint32_t local_pref(const struct fare_best_path *p)
{
	/* The parser keeps LOCAL_PREF only from iBGP (RFC 4271 §5.1.5). */
	return p->attrs->has_local_pref ? p->attrs->local_pref :
					  DEFAULT_LOCAL_PREF;
}

uint32_t fare_best_neighbor_as(const struct rib_attrs *attrs)
{
	const uint32_t *w = attrs->as_packed;
	size_t i = 0;

	/* Confederation segments first (RFC 5065 §5.3), then the AS. */
	while (i < attrs->as_packed_len) {
		uint8_t type = (uint8_t)(w[i] >> 8);
		size_t count = w[i] & 0xff;

		if (type == BGP_AS_SEQUENCE && count && i + 1 <
		    attrs->as_packed_len)
			return w[i + 1];
		if (type != BGP_AS_CONFED_SEQUENCE &&
		    type != BGP_AS_CONFED_SET)
			return 0;
		i += 1 + count;
	}
	return 0;
}

/* -1 when x is better (lower), 1 when y is, else 0. */
static int lower(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

int fare_best_cmp(const struct fare_best_path *a,
		  const struct fare_best_path *b, enum fare_best_step *step)
{
	const struct rib_attrs *x = a->attrs, *y = b->attrs;
	enum fare_best_step s = FARE_BEST_LOCAL_PREF;
	int r = lower(local_pref(b), local_pref(a));

	if (!r) {
		s = FARE_BEST_AS_PATH;
		r = lower(x->as_path_len, y->as_path_len);
	}
	if (!r) {
		s = FARE_BEST_ORIGIN;
		r = lower(x->origin, y->origin);
	}
	if (!r && fare_best_neighbor_as(x) == fare_best_neighbor_as(y)) {
		s = FARE_BEST_MED;
		r = lower(x->has_med ? x->med : 0, y->has_med ? y->med : 0);
	}
	if (!r) {
		s = FARE_BEST_EBGP;
		r = lower(a->ibgp, b->ibgp);
	}
	if (!r) {
		s = FARE_BEST_ROUTER_ID;
		r = lower(a->router_id, b->router_id);
	}
	if (!r) {
		s = FARE_BEST_PEER_ADDR;
		r = lower(a->addr_family, b->addr_family);
		if (!r)
			r = memcmp(a->addr, b->addr, sizeof(a->addr));
	}
	if (step)
		*step = r ? s : FARE_BEST_EQUAL;
	return r < 0 ? -1 : r > 0;
}

const char *fare_best_step_name(enum fare_best_step step)
{
	static const char *const names[] = {
		[FARE_BEST_EQUAL] = "equal",
		[FARE_BEST_LOCAL_PREF] = "LOCAL_PREF",
		[FARE_BEST_AS_PATH] = "AS path length",
		[FARE_BEST_ORIGIN] = "ORIGIN",
		[FARE_BEST_MED] = "MED",
		[FARE_BEST_EBGP] = "eBGP over iBGP",
		[FARE_BEST_ROUTER_ID] = "router id",
		[FARE_BEST_PEER_ADDR] = "peer address",
	};

	return step <= FARE_BEST_PEER_ADDR ? names[step] : "?";
}
