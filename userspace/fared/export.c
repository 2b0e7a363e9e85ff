// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transit export (see export.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adj_out.h"
#include "export.h"
#include "fared.h"
#include "peer.h"

#define COMMUNITY_NO_EXPORT	0xffffff01u
#define COMMUNITY_NO_ADVERTISE	0xffffff02u

/* best's unknown optional transitive attribute k, to encode. */
static struct bgp_raw_attr kept_attr(const struct rib_attrs *best, size_t k)
{
	struct bgp_raw_attr r = {
		.flags = best->kept[k].flags, .type = best->kept[k].type,
		.value = best->kept[k].value, .len = best->kept[k].len,
	};

	return r;
}

/*
 * best's COMMUNITIES, LARGE_COMMUNITIES and unknown optional transitive
 * attributes (Partial set) into a->xattr; RFC 1997's NO_EXPORT and
 * NO_ADVERTISE noted.
 */
static int export_xattr(struct adj_route *a, const struct rib_attrs *best)
{
	size_t raw = 0, k, at;
	struct bgp_raw_attr r;
	uint8_t *x;

	for (k = 0; k < best->n_kept; k++) {
		r = kept_attr(best, k);
		raw += bgp_raw_attr_encode(NULL, &r, true);
	}
	for (k = 0; k + 4 <= best->communities_len; k += 4) {
		const uint8_t *c = best->communities + k;
		uint32_t v = (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 |
			     (uint32_t)c[2] << 8 | c[3];

		a->no_export |= v == COMMUNITY_NO_EXPORT;
		a->no_advertise |= v == COMMUNITY_NO_ADVERTISE;
	}
	if (!best->communities_len && !best->large_communities_len && !raw)
		return 0;
	x = malloc(best->communities_len + best->large_communities_len + raw);
	if (!x)
		return -ENOMEM;
	a->xattr = x;
	a->comms_len = best->communities_len;
	a->lcomms_len = best->large_communities_len;
	a->raw_len = raw;
	if (a->comms_len)
		memcpy(x, best->communities, a->comms_len);
	if (a->lcomms_len)
		memcpy(x + a->comms_len, best->large_communities,
		       a->lcomms_len);
	at = a->comms_len + a->lcomms_len;
	for (k = 0; k < best->n_kept; k++) {
		r = kept_attr(best, k);
		at += bgp_raw_attr_encode(x + at, &r, true);
	}
	return 0;
}

/* The extended communities to pass on: see struct adj_route. */
static int export_ecs(const struct fared_config *cfg,
		      const struct rib_attrs *best,
		      const struct fare_result *res, uint8_t **out,
		      size_t *len)
{
	/* Room for two PBs and a FIB-Suppress. */
	uint8_t *ecs = malloc(best->ext_communities_len + 24), *ec;
	struct fare_pb pb, kept = { 0 };
	bool have_kept = false;
	size_t k, n = 0;

	if (!ecs)
		return -ENOMEM;
	for (k = 0; k + 8 <= best->ext_communities_len; k += 8) {
		ec = best->ext_communities + k;
		if (fare_pb_decode(ec, cfg->ec.pb_subtype, &pb)) {
			if (pb.transitive && !have_kept) {
				kept = pb;
				have_kept = true;
			}
			continue;
		}
		if (ec[0] & 0x40)
			continue;
		memcpy(ecs + n, ec, 8);
		n += 8;
	}
	if (res->adv_t) {
		/* Passed on unchanged keeps who attached it. */
		if (!(res->adv_rule == FARE_ADV_UNCHANGED && have_kept &&
		      kept.value == res->adv_t_value)) {
			kept.router_id = cfg->router_id;
			kept.value = res->adv_t_value;
		}
		kept.transitive = true;
		fare_pb_encode(ecs + n, &kept, cfg->ec.pb_subtype);
		n += 8;
	}
	if (res->adv_nt) {
		pb.transitive = false;
		pb.router_id = cfg->router_id;
		pb.value = res->adv_nt_value;
		fare_pb_encode(ecs + n, &pb, cfg->ec.pb_subtype);
		n += 8;
	}
	*out = ecs;
	*len = n;
	return 0;
}

/* A leaf's UPA route for a lost host: its own, IGP, no AS path. */
static int export_upa(const struct fared_config *cfg, struct adj_route *now)
{
	struct fare_upa upa = {
		.drop = cfg->upa_drop,
		.router_id = cfg->router_id,
	};

	now->live = true;
	now->origin = BGP_ORIGIN_IGP;
	now->ecs = malloc(FARE_EC_LEN);
	if (!now->ecs)
		return -ENOMEM;
	fare_upa_encode(now->ecs, &upa);
	now->ecs_len = FARE_EC_LEN;
	return 0;
}

/* Whether RIB peer index is a leaf's RNIC host. */
static bool peer_rnic(const struct fared *d, unsigned int index)
{
	const struct peer_info *pi = peer_table_get(&d->peer_table, index);

	return pi && pi->rnic;
}

/* Whether RIB peer index is an iBGP neighbor. */
static bool peer_ibgp(const struct fared *d, unsigned int index)
{
	const struct peer_info *pi = peer_table_get(&d->peer_table, index);

	return pi && pi->ibgp;
}

/* The learned route to pass on for e, from its best path. */
static int export_learned(struct fared *d, const struct rib_entry *e,
			  const struct fare_fib_result *fr,
			  struct adj_route *now)
{
	const struct fared_config *cfg = &d->cfg;
	const struct rib_attrs *best = e->paths[fr->best].attrs;
	size_t i;

	now->live = true;
	now->origin = best->origin;
	/* The path with its segments (sets, confederations). */
	now->path_len = best->as_packed_len;
	now->path = malloc((now->path_len + 1) * sizeof(*now->path));
	now->from = malloc((e->n_paths + 1) * sizeof(*now->from));
	if (!now->path || !now->from ||
	    export_ecs(cfg, best, &fr->res, &now->ecs, &now->ecs_len) ||
	    export_xattr(now, best))
		return -ENOMEM;
	if (now->path_len)
		memcpy(now->path, best->as_packed,
		       now->path_len * sizeof(*now->path));
	for (i = 0; i < e->n_paths; i++)
		now->from[now->n_from++] = e->paths[i].peer;
	now->from_ibgp = peer_ibgp(d, e->paths[fr->best].peer);
	/* mpson-00 §4.2: a leaf tags what it learned from RNICs. */
	if (cfg->fs_tag && cfg->role == FARE_ROLE_LEAF &&
	    fare_is_host_route(&now->prefix) &&
	    peer_rnic(d, e->paths[fr->best].peer))
		now->ecs_len = fare_fs_tag(now->ecs, now->ecs_len,
					   cfg->local_as, cfg->router_id,
					   cfg->ec.fs_subtype);
	return 0;
}

int export_update(struct fared *d, struct leaf_upa *leaf,
		  const struct rib_entry *e, const struct fare_fib_result *fr)
{
	struct adj_route now = { .prefix = e->prefix };
	int err = 0;

	now.prefix.path_id = 0;
	now.scope = leaf_upa_step(leaf, e, &now.agg);
	if (now.scope == FARE_LEAF_UPA)
		err = export_upa(&d->cfg, &now);
	else if (fr->best >= 0 && fr->res.adv_rule != FARE_ADV_NONE &&
		 !adj_out_originates(&d->cfg, &now.prefix))
		err = export_learned(d, e, fr, &now);
	if (err) {
		adj_route_clear(&now);
		return err;
	}
	return adj_out_set(d->out, &now);
}
