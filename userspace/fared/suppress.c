// SPDX-License-Identifier: GPL-2.0-only
/*
 * Route-table suppression rules (see suppress.h).
 */
#include <string.h>

#include "suppress.h"

bool fare_is_host_route(const struct bgp_prefix *p)
{
	return p->len == (p->family == BGP_FAM_IPV6_UNICAST ? 128 : 32);
}

static bool find_fs(const struct rib_attrs *a, uint8_t subtype,
		    struct fare_fs *fs)
{
	size_t k;

	for (k = 0; k + FARE_EC_LEN <= a->ext_communities_len; k += 8)
		if (fare_fs_decode(a->ext_communities + k, subtype, fs))
			return true;
	return false;
}

enum fare_fs_verdict fare_fs_check(const struct rib_entry *e,
				   uint8_t subtype, bool honour,
				   bool orf_wanted, struct fare_fs *fs)
{
	struct fare_fs one;
	size_t i, n = 0;

	for (i = 0; i < e->n_paths; i++)
		if (find_fs(e->paths[i].attrs, subtype, &one) && !n++)
			*fs = one;
	if (!n)
		return FARE_FS_NONE;
	if (!honour)
		return FARE_FS_NOT_HONOURED;
	if (n < e->n_paths)
		return FARE_FS_PARTIAL;
	if (orf_wanted)
		return FARE_FS_ORF_WANTED;
	return FARE_FS_SUPPRESS;
}

const char *fare_fs_verdict_text(enum fare_fs_verdict v)
{
	switch (v) {
	case FARE_FS_NONE:
		return "no FIB-Suppress";
	case FARE_FS_SUPPRESS:
		return "suppressed";
	case FARE_FS_NOT_HONOURED:
		return "FIB-Suppress not honoured here: programmed";
	case FARE_FS_PARTIAL:
		return "a path without FIB-Suppress: programmed";
	case FARE_FS_ORF_WANTED:
		return "asked for by ORF: programmed despite FIB-Suppress";
	}
	return "?";
}

size_t fare_fs_tag(uint8_t *ecs, size_t len, uint32_t local_as,
		   uint32_t router_id, uint8_t subtype)
{
	struct fare_fs fs;
	size_t k;

	for (k = 0; k + FARE_EC_LEN <= len; k += 8)
		if (fare_fs_decode(ecs + k, subtype, &fs))
			return len;
	fare_fs_encode(ecs + len, local_as, router_id, subtype);
	return len + FARE_EC_LEN;
}

enum fare_leaf_adv fare_leaf_host_step(const struct bgp_prefix *p,
				       const struct fare_leaf_host *h,
				       bool *seen)
{
	if (!h->upa || !h->covered || !fare_is_host_route(p)) {
		*seen = false;
		return FARE_LEAF_PASS;
	}
	if (h->n_rnic_paths) {
		*seen = true;
		return FARE_LEAF_HOLD;
	}
	return *seen ? FARE_LEAF_UPA : FARE_LEAF_PASS;
}

const char *fare_leaf_adv_text(enum fare_leaf_adv a)
{
	switch (a) {
	case FARE_LEAF_PASS:
		return "passed on";
	case FARE_LEAF_HOLD:
		return "RNIC host route: to RNICs only, the aggregate stands "
		       "for it upstream";
	case FARE_LEAF_UPA:
		return "RNIC lost: UPA route upstream (mpson-00 §4.1)";
	}
	return "?";
}
