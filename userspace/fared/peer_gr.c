// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stale routes (peer_int.h): graceful restart (RFC 4724, RFC 8538) as
 * helper, keeping a restarting neighbor's routes stale until its
 * End-of-RIB, and as restarting speaker, deferring the first export;
 * enhanced route refresh (RFC 7313), stale from BoRR to EoRR; an import
 * change, stale until the neighbor sent its routes again. gr.h holds
 * the rules; this part applies them to the RIB, one refresh epoch per
 * family and reason.
 */
#include "fared.h"
#include "gr.h"
#include "peer.h"
#include "peer_int.h"

static void deferral_expired(struct timer *t)
{
	struct peer *p = t->arg;

	plog(p, "not every End-of-RIB within the selection deferral time; "
	     "advertising now");
	/* p's timer is no longer armed: peers_selection_done() skips it. */
	peer_initial_export(p);
	peers_selection_done(p->d);
}

void peers_selection_done(struct fared *d)
{
	struct peer *p;
	size_t i;

	d->selected = true;
	for (i = 0; i < d->n_peers; i++) {
		p = d->peers[i];
		if (!p->deferral.armed || !p->est)
			continue;
		plog(p, "routes selected: advertising");
		peer_initial_export(p);
	}
}

/*
 * RFC 4724 §4.1: the restarting speaker selects its routes once it has
 * every neighbor's End-of-RIB (or its deferral timer ran out), not per
 * neighbor: an End-of-RIB sent before then lets the helper sweep routes
 * fared has yet to pass on again.
 */
void peer_gr_eor(struct fared *d)
{
	size_t i;

	if (d->hooks && d->hooks->selecting && d->hooks->selecting(d))
		return;
	for (i = 0; i < d->n_peers; i++)
		if (!peer_has_first_table(d->peers[i]))
			return;
	peers_selection_done(d);
}

/*
 * Stale routes as refresh epochs per (family, reason), in the manner of
 * BIRD's rt_refresh_begin()/rt_refresh_end(): each reason's begin is a
 * generation of the neighbor's paths in the RIB; its end sweeps the
 * paths that have not arrived since. An EoRR ends only a BoRR's epoch,
 * an End-of-RIB only a restart's, so neither sweeps what the other
 * holds; a graceful drop counts as a consecutive restart only when a
 * restart's epoch is open (RFC 4724 §4.2), never because of a refresh.
 */

static const char *const reason_name[PEER_REFRESH_REASONS] = {
	[PEER_REFRESH_GR] = "graceful restart",
	[PEER_REFRESH_RR] = "enhanced route refresh",
	[PEER_REFRESH_IMPORT] = "import change",
};

static void stale_families_update(struct peer *p)
{
	unsigned int fam, r;

	p->stale_families = 0;
	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		for (r = 0; r < PEER_REFRESH_REASONS; r++)
			if (p->epoch[fam][r].open)
				p->stale_families |= BGP_FAM_BIT(fam);
}

/* Arms ep's timer for ms from now, but not past its bound. */
static void epoch_timer(struct peer_epoch *ep, uint64_t ms)
{
	uint64_t now = loop_now_ms();

	if (ep->bound_ms && now + ms > ep->bound_ms)
		ms = ep->bound_ms > now ? ep->bound_ms - now : 0;
	timer_set(&ep->p->d->loop, &ep->timer, ms);
}

/*
 * Opens (or, already open, begins again) the epoch of fam for reason:
 * every path of p in fam is stale until it arrives again.
 */
static void epoch_begin(struct peer *p, unsigned int fam,
			enum peer_refresh_reason reason, uint64_t timeout_ms)
{
	struct peer_epoch *ep = &p->epoch[fam][reason];
	size_t n;

	ep->begin = rib_refresh_begin(p->d->rib, p->index, BGP_FAM_BIT(fam),
				      &n);
	ep->open = true;
	epoch_timer(ep, timeout_ms);
	stale_families_update(p);
	if (reason != PEER_REFRESH_GR)
		plog(p, "%s %s: %zu route%s stale", peer_fam_name(fam),
		     reason_name[reason], n, n == 1 ? "" : "s");
}

/* Closes the epoch without a sweep (its session went). */
static void epoch_drop(struct peer_epoch *ep)
{
	if (!ep->open)
		return;
	ep->open = false;
	ep->bound_ms = 0;
	timer_stop(&ep->p->d->loop, &ep->timer);
	stale_families_update(ep->p);
}

/* Ends an open epoch: what has not arrived since its begin goes. */
static void epoch_end(struct peer_epoch *ep, const char *why)
{
	struct peer *p = ep->p;
	size_t n;

	if (!ep->open)
		return;
	n = rib_refresh_end(p->d->rib, p->index, BGP_FAM_BIT(ep->fam),
			    ep->begin);
	epoch_drop(ep);
	plog(p, "%s %s: %zu stale route%s swept (%s)", peer_fam_name(ep->fam),
	     reason_name[ep->reason], n, n == 1 ? "" : "s", why);
}

static void epoch_expired(struct timer *t)
{
	struct peer_epoch *ep = t->arg;

	epoch_end(ep, ep->reason == PEER_REFRESH_GR && ep->bound_ms &&
		  loop_now_ms() >= ep->bound_ms ?
		  "restart-time and stale-time over since the first drop" :
		  ep->reason == PEER_REFRESH_GR && !ep->p->est ?
		  "peer's restart time over" : "not refreshed within stale-time");
}

/*
 * The session c went down (notified: a NOTIFICATION was sent or
 * received): keep the routes stale, or flush them (gr_session_down()).
 */
void peer_gr_session_down(struct peer *p, const struct conn *c, bool notified)
{
	uint32_t keep, all = BGP_FAM_BIT(BGP_FAM_COUNT) - 1, restarting = 0;
	uint64_t restart_ms = p->peer_caps.gr_restart_time * 1000ull;
	struct gr_down g;
	unsigned int fam;
	size_t n;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (p->epoch[fam][PEER_REFRESH_GR].open)
			restarting |= BGP_FAM_BIT(fam);
	struct gr_session s = {
		.helper = p->params.graceful_restart &&
			  p->peer_caps.gr_restart_time,
		.n = conn_gr_n(c),
		.families = p->peer_caps.gr_families & p->params.families,
		.stale = restarting,
	};

	gr_session_down(&s, notified, c->hard, &g);
	keep = g.keep;
	/* A refresh or an import change dies with its session. */
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		epoch_drop(&p->epoch[fam][PEER_REFRESH_RR]);
		epoch_drop(&p->epoch[fam][PEER_REFRESH_IMPORT]);
	}
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		struct peer_epoch *ep = &p->epoch[fam][PEER_REFRESH_GR];

		if (g.drop_stale & BGP_FAM_BIT(fam))
			epoch_end(ep, "consecutive restart");
		if (!(keep & BGP_FAM_BIT(fam))) {
			epoch_drop(ep);
			continue;
		}
		/*
		 * With the N bit a restart's epoch outlives the session
		 * (RFC 8538 §4.1), but not its first bound.
		 */
		if (!ep->open)
			ep->bound_ms = loop_now_ms() + restart_ms +
				       p->d->cfg.gr_stale_time * 1000ull;
		epoch_begin(p, fam, PEER_REFRESH_GR, restart_ms);
	}
	if (keep)
		plog(p, "graceful restart: %zu route%s kept stale for %u s",
		     rib_peer_count(p->d->rib, p->index, keep),
		     rib_peer_count(p->d->rib, p->index, keep) == 1 ? "" : "s",
		     p->peer_caps.gr_restart_time);
	n = rib_peer_flush(p->d->rib, p->index, all & ~keep);
	if (n)
		plog(p, "%zu route%s flushed", n, n == 1 ? "" : "s");
}

void peer_gr_established(struct peer *p, const struct conn *c)
{
	uint32_t restarting = 0, drop;
	unsigned int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (p->epoch[fam][PEER_REFRESH_GR].open)
			restarting |= BGP_FAM_BIT(fam);
	drop = gr_established_drop(&c->open.caps, restarting);
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		struct peer_epoch *ep = &p->epoch[fam][PEER_REFRESH_GR];

		if (drop & BGP_FAM_BIT(fam))
			epoch_end(ep, "forwarding state not kept");
		else if (ep->open)
			/* Its End-of-RIB, within stale-time (and the bound). */
			epoch_timer(ep, p->d->cfg.gr_stale_time * 1000ull);
	}
}

void peer_gr_eor_rx(struct peer *p, unsigned int fam)
{
	epoch_end(&p->epoch[fam][PEER_REFRESH_GR], "End-of-RIB");
}

void peer_gr_refresh_begin(struct peer *p, unsigned int fam)
{
	/* RFC 7313 §4.2: what is not re-sent before EoRR goes. */
	epoch_begin(p, fam, PEER_REFRESH_RR,
		    p->d->cfg.gr_stale_time * 1000ull);
}

void peer_gr_refresh_end(struct peer *p, unsigned int fam)
{
	struct peer_epoch *rr = &p->epoch[fam][PEER_REFRESH_RR];
	struct peer_epoch *imp = &p->epoch[fam][PEER_REFRESH_IMPORT];

	if (!rr->open) {
		plog(p, "EoRR for %s without BoRR: ignored",
		     peer_fam_name(fam));
		return;
	}
	/*
	 * The refresh our import change asked for is answered by this one
	 * when it began after ours: what it left stale goes with it.
	 */
	if (imp->open && imp->begin <= rr->begin)
		epoch_drop(imp);
	epoch_end(rr, "EoRR");
}

void peer_gr_import_begin(struct peer *p, uint32_t families)
{
	unsigned int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		if (families & BGP_FAM_BIT(fam))
			epoch_begin(p, fam, PEER_REFRESH_IMPORT,
				    p->d->cfg.gr_stale_time * 1000ull);
}

void peer_gr_stop(struct peer *p)
{
	unsigned int fam, r;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		for (r = 0; r < PEER_REFRESH_REASONS; r++)
			epoch_drop(&p->epoch[fam][r]);
}

void peer_gr_init(struct peer *p)
{
	unsigned int fam, r;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		for (r = 0; r < PEER_REFRESH_REASONS; r++) {
			struct peer_epoch *ep = &p->epoch[fam][r];

			ep->p = p;
			ep->fam = (uint8_t)fam;
			ep->reason = (uint8_t)r;
			timer_init(&ep->timer, epoch_expired, ep);
		}
	timer_init(&p->deferral, deferral_expired, p);
}
