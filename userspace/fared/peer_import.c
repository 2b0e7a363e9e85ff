// SPDX-License-Identifier: GPL-2.0-only
/*
 * Import (peer_int.h): a neighbor's UPDATEs into the RIB through its
 * checks (negotiated family, AS loop), its import policy (RFC 8212: no
 * policy, no route) and max-prefix (RFC 4486); an import policy changed
 * by a reload; the ROUTE-REFRESH that asks the neighbor again.
 */
#include <errno.h>
#include <stdlib.h>

#include "fared.h"
#include "peer.h"
#include "peer_int.h"

void peer_refresh_in(struct peer *p)
{
	struct conn *c = p->est;
	uint8_t buf[64];
	unsigned int fam;

	if (!c)
		return;
	if (!c->params.route_refresh) {
		/* No other way to see the routes again (RFC 2918 §1). */
		conn_cease(c, BGP_CEASE_OTHER_CONFIG_CHANGE, NULL);
		return;
	}
	for (fam = 0; p->est && fam < BGP_FAM_COUNT; fam++)
		if (c->params.families & BGP_FAM_BIT(fam))
			conn_send(c, buf, bgp_route_refresh_build(buf,
				  sizeof(buf), bgp_family_afi(fam),
				  bgp_family_safi(fam), BGP_RR_NORMAL));
}

struct import_denied {
	const struct peer *p;
	const struct fared_policy *pol;	/* NULL: none, RFC 8212 */
	struct bgp_prefix *v;
	size_t n, cap;
	bool nomem;
};

/* Collects p's paths the new import policy denies (fn of rib_walk). */
static int collect_denied(const struct rib_entry *e, void *arg)
{
	struct import_denied *x = arg;
	size_t i;

	if (x->pol && fared_policy_permits(x->pol, &e->prefix))
		return 0;
	for (i = 0; i < e->n_paths; i++) {
		struct bgp_prefix pfx = e->prefix;

		if (e->paths[i].peer != x->p->index)
			continue;
		if (x->n == x->cap) {
			size_t cap = x->cap ? 2 * x->cap : 64;
			struct bgp_prefix *v = realloc(x->v, cap * sizeof(*v));

			if (!v) {
				x->nomem = true;
				return 1;
			}
			x->v = v;
			x->cap = cap;
		}
		pfx.path_id = e->paths[i].path_id;
		x->v[x->n++] = pfx;
	}
	return 0;
}

void peer_import_changed(struct peer *p)
{
	struct import_denied x = { .p = p };
	uint32_t fams = BGP_FAM_BIT(BGP_FAM_COUNT) - 1;
	size_t i;

	if (p->nb->import_policy >= 0)
		x.pol = &p->d->cfg.policies[p->nb->import_policy];
	rib_walk(p->d->rib, collect_denied, &x);
	if (x.nomem) {
		/* The old way: everything goes, the refresh brings it back. */
		plog(p, "import policy changed, out of memory: its routes "
		     "are flushed and asked for again");
		rib_peer_flush(p->d->rib, p->index, fams);
		free(x.v);
		peer_refresh_in(p);
		return;
	}
	/* What the new policy denies goes at once. */
	for (i = 0; i < x.n; i++)
		if (rib_withdraw(p->d->rib, p->index, &x.v[i]))
			fared_out_of_memory(p->d, "withdrawing a denied route");
	free(x.v);
	if (!p->est || !p->est->params.route_refresh) {
		peer_refresh_in(p);
		return;
	}
	/*
	 * The rest stays, stale, while the peer sends its routes again:
	 * what it re-sends is no change to fare.ko or to the routes passed
	 * on; what it does not is swept at its EoRR (RFC 7313) or after
	 * stale-time. Routes the old policy denied arrive as new ones.
	 */
	fams &= p->est->params.families;
	peer_gr_import_begin(p, fams);
	plog(p, "import policy changed: %zu path%s denied now, the rest "
	     "kept while the neighbor sends its routes again", x.n,
	     x.n == 1 ? "" : "s");
	peer_refresh_in(p);
}

/*
 * Whether pfx (with its path id) may be added: past the neighbor's
 * add-path max-paths, a path id it does not have yet for the prefix is
 * ignored (counted; logged once a session), the others stay. A
 * replacement of a path it has is always taken.
 */
static bool add_path_room(struct peer *p, const struct bgp_prefix *pfx)
{
	size_t n;
	bool has;

	if (!p->est || !(p->est->params.add_path_rx & BGP_FAM_BIT(pfx->family)))
		return true;
	n = rib_peer_prefix_paths(p->d->rib, p->index, pfx, &has);
	if (has || n < p->nb->add_path_max_paths)
		return true;
	if (!p->add_path_over++) {
		char text[BGP_PREFIX_STRLEN];

		plog(p, "%s: more than add-path max-paths %u paths: new path "
		     "ids ignored (here path id %u); further ones are counted",
		     bgp_prefix_str(pfx, text, sizeof(text)),
		     p->nb->add_path_max_paths, pfx->path_id);
	}
	return false;
}

static void import_run(struct peer *p, const struct bgp_update *u,
		       const struct bgp_nlri *run, bool withdraw)
{
	const struct fared_policy *pol = NULL;
	struct rib_attrs *ra = NULL;
	struct bgp_prefix pfx;
	size_t pos = 0, i;
	bool loop_detected = false;

	if (!run->present)
		return;
	/* RFC 4760 §7: a family not negotiated is ignored, with a log. */
	if (!run->known || !p->est ||
	    !(p->est->params.families & BGP_FAM_BIT(run->family))) {
		if (!p->unnegotiated++)
			plog(p, "UPDATE for AFI %u SAFI %u, not negotiated on "
			     "this session: ignored (RFC 4760 §7); "
			     "further ones are counted", run->afi, run->safi);
		return;
	}
	if (!withdraw) {
		if (p->nb->import_policy < 0) {
			p->rejected_8212 += bgp_nlri_count(run);
			return;
		}
		pol = &p->d->cfg.policies[p->nb->import_policy];
		/* RFC 4271 §9.1.2: our own AS in the path is a loop. */
		for (i = 0;
		     !peer_is_ibgp(p) && i < u->attrs.as_path.n_asns; i++)
			if (u->attrs.as_path.asns[i] == p->d->cfg.local_as)
				loop_detected = true;
		if (!loop_detected) {
			ra = rib_attrs_get(p->d->rib, &u->attrs, run->family);
			if (!ra) {
				fared_out_of_memory(p->d, "an UPDATE's attributes");
				return;
			}
		}
	}
	while (bgp_nlri_next(run, &pos, &pfx)) {
		if (!withdraw)
			p->prefixes_rx++;
		if (ra && fared_policy_permits(pol, &pfx)) {
			if (add_path_room(p, &pfx) &&
			    rib_update(p->d->rib, p->index, &pfx, ra) == -ENOMEM)
				fared_out_of_memory(p->d, "a route");
		} else {
			if (!withdraw)
				p->prefixes_denied++;
			if (rib_withdraw(p->d->rib, p->index, &pfx))
				fared_out_of_memory(p->d, "a withdrawal");
		}
	}
	if (ra)
		rib_attrs_put(p->d->rib, ra);
}

static void max_prefix_restart_expired(struct timer *t)
{
	struct peer *p = t->arg;

	plog(p, "max-prefix restart time over: connecting again");
	peer_clear_idle(p);
}

bool peer_clear_idle(struct peer *p)
{
	if (!p->max_prefix_idle)
		return false;
	p->max_prefix_idle = false;
	timer_stop(&p->d->loop, &p->max_prefix_restart);
	if (!p->est && !p->connect_retry.armed)
		timer_set(&p->d->loop, &p->connect_retry,
			  (uint64_t)(random() % 500));
	return true;
}

/*
 * RFC 4486 §4: past max-prefix paths the session ends with Cease 6/1,
 * data AFI, SAFI and the limit (of fam: the family whose UPDATE went
 * past it), inside a Hard Reset when the N bit was exchanged (RFC 8538
 * §5.1: neither side keeps the other's routes stale), its routes go,
 * and the peer is held Idle.
 */
static void check_max_prefix(struct conn *c, unsigned int fam)
{
	struct peer *p = c->peer;
	const struct fared_neighbor *nb = p->nb;
	uint16_t afi = bgp_family_afi(fam);
	uint8_t data[7];
	size_t n;

	if (!nb->max_prefix || p->est != c)
		return;
	n = rib_peer_count(p->d->rib, p->index,
			   BGP_FAM_BIT(BGP_FAM_COUNT) - 1);
	if (n <= nb->max_prefix)
		return;
	if (nb->max_prefix_warning_only) {
		if (!p->max_prefix_warned)
			plog(p, "%zu paths, past max-prefix %u (warning-only)",
			     n, nb->max_prefix);
		p->max_prefix_warned = true;
		return;
	}
	data[0] = (uint8_t)(afi >> 8);
	data[1] = (uint8_t)afi;
	data[2] = bgp_family_safi(fam);
	data[3] = (uint8_t)(nb->max_prefix >> 24);
	data[4] = (uint8_t)(nb->max_prefix >> 16);
	data[5] = (uint8_t)(nb->max_prefix >> 8);
	data[6] = (uint8_t)nb->max_prefix;
	p->max_prefix_hits++;
	p->max_prefix_idle = true;
	timer_stop(&p->d->loop, &p->connect_retry);
	if (nb->max_prefix_restart)
		timer_set(&p->d->loop, &p->max_prefix_restart,
			  nb->max_prefix_restart * 1000ull);
	plog(p, "%zu paths, past max-prefix %u: held Idle %s", n,
	     nb->max_prefix, nb->max_prefix_restart ?
	     "for the restart time" : "until cleared");
	conn_cease_data(c, BGP_CEASE_MAX_PREFIXES, data, sizeof(data),
			"maximum number of prefixes reached");
}

/*
 * RFC 4271 §6.3: the AS_PATH of an eBGP route begins with the neighbor's
 * AS (enforced by default, as OpenBGPD does): an empty one, or one led by
 * another AS, would make a route look shorter than it is.
 */
static bool neighbor_as_ok(const struct peer *p, const struct bgp_update *u)
{
	const struct bgp_as_path *path = &u->attrs.as_path;

	if (peer_is_ibgp(p) || p->nb->neighbor_as_unchecked ||
	    !(u->nlri.present || u->mp_reach.present))
		return true;
	return path->n_segments && path->segments[0].count &&
	       path->segments[0].type == BGP_AS_SEQUENCE &&
	       path->segments[0].asns[0] == p->nb->remote_as;
}

void peer_import_update(struct conn *c, const struct bgp_update *u, bool tw)
{
	struct peer *p = c->peer;
	unsigned int fam = BGP_FAM_IPV4_UNICAST;

	/* RFC 7606 §7.2: a malformed AS_PATH, treat-as-withdraw. */
	if (!tw && !neighbor_as_ok(p, u)) {
		if (!p->neighbor_as_bad++)
			plog(p, "UPDATE whose AS_PATH does not begin with the "
			     "neighbor's AS %u: treated as withdraw (RFC 4271 "
			     "§6.3, RFC 7606 §7.2); further ones are counted",
			     p->nb->remote_as);
		p->withdraw_7606++;
		tw = true;
	}

	import_run(p, u, &u->withdrawn, true);
	import_run(p, u, &u->mp_unreach, true);
	import_run(p, u, &u->nlri, tw);
	import_run(p, u, &u->mp_reach, tw);
	if (u->mp_reach.present && u->mp_reach.known)
		fam = u->mp_reach.family;
	check_max_prefix(c, fam);
}

void peer_import_init(struct peer *p)
{
	timer_init(&p->max_prefix_restart, max_prefix_restart_expired, p);
}

void peer_import_flush(struct peer *p)
{
	rib_peer_flush(p->d->rib, p->index, BGP_FAM_BIT(BGP_FAM_COUNT) - 1);
}

size_t peer_import_bytes(const struct peer *p)
{
	return rib_peer_bytes(p->d->rib, p->index);
}

/* p goes: its stale epochs, then every path it gave the RIB. */
static void rib_gone(struct peer *p)
{
	peer_gr_stop(p);
	peer_import_flush(p);
}

const struct peer_rib_ops peer_rib_ops = {
	.update = peer_import_update,
	.eor = peer_gr_eor_rx,
	.refresh_begin = peer_gr_refresh_begin,
	.refresh_end = peer_gr_refresh_end,
	.established = peer_gr_established,
	.down = peer_gr_session_down,
	.gone = rib_gone,
	.bytes = peer_import_bytes,
};
