// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "upa.h"

static bool is_upa(const struct rib_path *p)
{
	bool drop;

	return fare_ec_find_upa(p->attrs->ext_communities,
				p->attrs->ext_communities_len, &drop) > 0;
}

void fare_upa_classify(const struct fare_fib_cfg *cfg,
		       const struct rib_entry *e, struct fare_upa_info *ui)
{
	struct fare_fib_peer peer;
	size_t i;

	memset(ui, 0, sizeof(*ui));
	for (i = 0; i < e->n_paths; i++) {
		if (!is_upa(&e->paths[i])) {
			ui->n_plain++;
			continue;
		}
		ui->n_upa++;
		memset(&peer, 0, sizeof(peer));
		cfg->peer_of(cfg->arg, e->paths[i].peer, &peer);
		if (peer.plane && peer.plane <= FARE_PLANE_ID_MAX)
			ui->plane[peer.plane] = true;
	}
}

unsigned int fare_upa_exception(const struct fare_route *agg,
				const struct fare_upa_info *ui,
				struct fare_route *x)
{
	struct fare_prefix dst = x->dst;
	uint64_t all = 0, left = 0, w;
	unsigned int i;

	memset(x, 0, sizeof(*x));
	x->dst = dst;
	x->mode = agg->mode;
	for (i = 0; i < agg->n_nexthops; i++) {
		const struct fare_nexthop *nh = &agg->nexthops[i];

		all += nh->weight;
		if (nh->plane_id <= FARE_PLANE_ID_MAX && ui->plane[nh->plane_id])
			continue;
		left += nh->weight;
		x->nexthops[x->n_nexthops] = *nh;
		x->nexthops[x->n_nexthops].tx_packets = 0;
		x->nexthops[x->n_nexthops++].tx_bytes = 0;
	}
	/* Rounded to nearest; the ratios are what forwarding sees. */
	for (i = 0; i < x->n_nexthops; i++) {
		w = (x->nexthops[i].weight * all + left / 2) / left;
		x->nexthops[i].weight = w > UINT32_MAX ? UINT32_MAX :
					w ? (uint32_t)w : 1;
	}
	return x->n_nexthops;
}

void fare_upa_strip(const struct rib_entry *e, struct rib_path *paths,
		    struct rib_entry *out)
{
	size_t i;

	out->prefix = e->prefix;
	out->paths = paths;
	out->n_paths = 0;
	for (i = 0; i < e->n_paths; i++)
		if (!is_upa(&e->paths[i]))
			paths[out->n_paths++] = e->paths[i];
}
