// SPDX-License-Identifier: GPL-2.0-only
/*
 * A leaf's UPA state machine (see leaf_upa.h).
 */
#include <stdlib.h>
#include <string.h>

#include "fared.h"
#include "leaf_upa.h"
#include "link.h"
#include "peer.h"
#include "pfx.h"

static void poll_timer(struct timer *t);

/* Whether RIB peer index is a configured RNIC host. */
static bool rnic_path(const struct fared *d, unsigned int index)
{
	const struct peer_info *pi = peer_table_get(&d->peer_table, index);

	return pi && pi->rnic;
}

void leaf_upa_init(struct leaf_upa *l, struct fared *d,
		   void (*changed)(void *arg, const struct bgp_prefix *x),
		   void *arg)
{
	memset(l, 0, sizeof(*l));
	l->d = d;
	l->changed = changed;
	l->arg = arg;
	timer_init(&l->timer, poll_timer, l);
}

void leaf_upa_free(struct leaf_upa *l)
{
	timer_stop(&l->d->loop, &l->timer);
	free(l->rnic_up);
	free(l->hosts);
	l->rnic_up = NULL;
	l->hosts = NULL;
	l->n_rnic_up = l->n_hosts = 0;
}

enum fare_leaf_adv leaf_upa_step(struct leaf_upa *l,
				 const struct rib_entry *e,
				 struct bgp_prefix *agg)
{
	const struct fared_config *cfg = &l->d->cfg;
	struct fare_leaf_host h = {
		.upa = cfg->upa_originate && cfg->role == FARE_ROLE_LEAF,
	};
	struct bgp_prefix x = e->prefix;
	bool was = false, seen, stat = false;
	size_t i;

	x.path_id = 0;
	memset(agg, 0, sizeof(*agg));
	for (i = 0; h.upa && !h.covered && i < cfg->n_originates; i++)
		if (pfx_covers(&cfg->originates[i].prefix, &x)) {
			h.covered = true;
			*agg = cfg->originates[i].prefix;
		}
	for (i = 0; h.covered && i < e->n_paths; i++)
		if (rnic_path(l->d, e->paths[i].peer))
			h.n_rnic_paths++;
	/* A configured RNIC is known from the start; its link counts. */
	for (i = 0; h.covered && i < cfg->n_rnics && i < l->n_rnic_up; i++)
		if (pfx_eq(&cfg->rnics[i].prefix, &x)) {
			stat = true;
			if (l->rnic_up[i] > 0)
				h.n_rnic_paths++;
		}
	for (i = 0; i < l->n_hosts; i++)
		if (pfx_eq(&l->hosts[i], &x))
			was = true;
	seen = was || stat;
	i = fare_leaf_host_step(&x, &h, &seen);
	if (!stat && seen != was) {
		struct bgp_prefix key;

		/* Compared whole by pfx_set_track(): no stray bytes. */
		memset(&key, 0, sizeof(key));
		key.family = x.family;
		key.len = x.len;
		memcpy(key.addr, x.addr, sizeof(key.addr));
		if (pfx_set_track(&l->hosts, &l->n_hosts, &key, seen) < 0)
			fared_log("fare: out of memory for the RNIC hosts");
	}
	return (enum fare_leaf_adv)i;
}

void leaf_upa_poll(struct leaf_upa *l)
{
	const struct fared_config *cfg = &l->d->cfg;
	char pfx[BGP_PREFIX_STRLEN];
	bool changed = false;
	size_t i;

	for (i = 0; i < l->n_rnic_up && i < cfg->n_rnics; i++) {
		int up = link_running(cfg->rnics[i].interface);

		if (up == l->rnic_up[i])
			continue;
		if (l->rnic_up[i] >= 0 || !up)
			fared_log("fare: rnic %s: %s %s",
				  bgp_prefix_str(&cfg->rnics[i].prefix, pfx,
						 sizeof(pfx)),
				  cfg->rnics[i].interface,
				  up ? "up" : "down: UPA");
		l->rnic_up[i] = (int8_t)up;
		l->changed(l->arg, &cfg->rnics[i].prefix);
		changed = true;
	}
	if (changed)
		l->changed(l->arg, NULL);
	if (l->n_rnic_up)
		timer_set(&l->d->loop, &l->timer, 1000);
}

static void poll_timer(struct timer *t)
{
	leaf_upa_poll(t->arg);
}

bool leaf_upa_reset(struct leaf_upa *l)
{
	const struct fared_config *cfg = &l->d->cfg;
	int8_t *v = NULL;

	timer_stop(&l->d->loop, &l->timer);
	if (cfg->n_rnics) {
		v = malloc(cfg->n_rnics);
		if (!v) {
			fared_log("fare: out of memory for the rnic lines");
			return false;
		}
		memset(v, -1, cfg->n_rnics);
	}
	free(l->rnic_up);
	l->rnic_up = v;
	l->n_rnic_up = cfg->n_rnics;
	return true;
}
