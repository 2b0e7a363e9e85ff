// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stale routes (peer_int.h): graceful restart (RFC 4724, RFC 8538) as
 * helper, keeping a restarting neighbor's routes stale until its
 * End-of-RIB, and as restarting speaker, deferring the first export;
 * enhanced route refresh (RFC 7313), stale from BoRR to EoRR. gr.h holds
 * the rules; this part applies them to the RIB.
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

/* Graceful restart, helper side. */

void peer_gr_sweep(struct peer *p, uint32_t families, const char *why)
{
	size_t n;

	families &= p->stale_families;
	if (!families)
		return;
	n = rib_peer_sweep_stale(p->d->rib, p->index, families);
	p->stale_families &= ~families;
	plog(p, "%zu stale route%s swept (%s)", n, n == 1 ? "" : "s", why);
	p->rr_families &= p->stale_families;
	if (!p->rr_families)
		timer_stop(&p->d->loop, &p->rr_stale);
	if (!p->stale_families) {
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_stop(&p->d->loop, &p->gr_restart);
	}
}

static void gr_restart_expired(struct timer *t)
{
	struct peer *p = t->arg;

	peer_gr_sweep(p, p->stale_families, "peer's restart time over");
}

static void gr_stale_expired(struct timer *t)
{
	struct peer *p = t->arg;

	peer_gr_sweep(p, p->stale_families, "no End-of-RIB within stale-time");
}

/* RFC 7313 §4: stale since a BoRR, bounded by stale-time. */
static void rr_stale_expired(struct timer *t)
{
	struct peer *p = t->arg;

	peer_gr_sweep(p, p->rr_families, "no EoRR within stale-time");
}

/*
 * The session c went down (notified: a NOTIFICATION was sent or
 * received): keep the routes stale, or flush them (gr_session_down()).
 */
void peer_gr_session_down(struct peer *p, const struct conn *c, bool notified)
{
	uint32_t keep, all = BGP_FAM_BIT(BGP_FAM_COUNT) - 1;
	struct gr_session s = {
		.helper = p->params.graceful_restart &&
			  p->peer_caps.gr_restart_time,
		.n = conn_gr_n(c),
		.families = p->peer_caps.gr_families & p->params.families,
		.stale = p->stale_families,
	};
	struct gr_down g;
	size_t n;

	gr_session_down(&s, notified, c->hard, &g);
	keep = g.keep;
	p->rr_families = 0;
	timer_stop(&p->d->loop, &p->rr_stale);
	if (g.drop_stale) {
		n = rib_peer_sweep_stale(p->d->rib, p->index, g.drop_stale);
		p->stale_families &= ~g.drop_stale;
		plog(p, "consecutive restart: %zu route%s still stale from "
		     "before deleted", n, n == 1 ? "" : "s");
	}
	if (keep) {
		n = rib_peer_mark_stale(p->d->rib, p->index, keep);
		p->stale_families |= keep;
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_set(&p->d->loop, &p->gr_restart,
			  p->peer_caps.gr_restart_time * 1000ull);
		plog(p, "graceful restart: %zu route%s kept stale for %u s",
		     n, n == 1 ? "" : "s", p->peer_caps.gr_restart_time);
	}
	n = rib_peer_flush(p->d->rib, p->index, all & ~keep);
	if (n)
		plog(p, "%zu route%s flushed", n, n == 1 ? "" : "s");
	p->stale_families &= keep;
	if (!keep) {
		timer_stop(&p->d->loop, &p->gr_stale);
		timer_stop(&p->d->loop, &p->gr_restart);
	}
}

void peer_gr_established(struct peer *p, const struct conn *c)
{
	uint32_t fl;

	if (!p->stale_families)
		return;
	fl = gr_established_drop(&c->open.caps, p->stale_families);
	peer_gr_sweep(p, fl, "forwarding state not kept");
	if (p->stale_families)
		timer_set(&p->d->loop, &p->gr_stale,
			  p->d->cfg.gr_stale_time * 1000ull);
}

void peer_gr_refresh_begin(struct peer *p, unsigned int fam)
{
	/* RFC 7313 §4.2: what is not re-sent before EoRR goes. */
	rib_peer_mark_stale(p->d->rib, p->index, BGP_FAM_BIT(fam));
	p->stale_families |= BGP_FAM_BIT(fam);
	p->rr_families |= BGP_FAM_BIT(fam);
	timer_set(&p->d->loop, &p->rr_stale,
		  p->d->cfg.gr_stale_time * 1000ull);
}

void peer_gr_init(struct peer *p)
{
	timer_init(&p->gr_restart, gr_restart_expired, p);
	timer_init(&p->gr_stale, gr_stale_expired, p);
	timer_init(&p->deferral, deferral_expired, p);
	timer_init(&p->rr_stale, rr_stale_expired, p);
}
