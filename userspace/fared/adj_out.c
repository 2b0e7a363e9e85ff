// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Adj-RIB-Out (see adj_out.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adj_out.h"
#include "fared.h"
#include "orf_sess.h"
#include "peer.h"
#include "pfx.h"

/* A neighbor's column: which of our routes for the prefix it has. */
#define ADJ_SENT_LEARNED	1u	/* the route passed on */
#define ADJ_SENT_ORIG		2u	/* the route this node originates */
#define ADJ_PENDING		4u	/* in its pending FIFO (adj_peer) */
#define ADJ_BITS		4u	/* bits per neighbor in a column */
#define ADJ_PER_BYTE		(8u / ADJ_BITS)
/* Records made into UPDATEs at once: packed by attributes per batch. */
#define ADJ_BATCH		1024u

/* ------------------------------------------------------------------ */
/* The table: records by prefix. */

static uint32_t adj_hash(const struct bgp_prefix *p)
{
	uint32_t h = 2166136261u ^ p->family ^ (uint32_t)p->len << 8;
	size_t i;

	for (i = 0; i < 16; i++)
		h = (h ^ p->addr[i]) * 16777619u;
	return h ^ h >> 15;
}

static struct adj_route **adj_slot(const struct adj_out *o,
				   const struct bgp_prefix *p)
{
	struct adj_route **pa;

	pa = &o->buckets[adj_hash(p) & (o->n_buckets - 1)];
	while (*pa && !pfx_eq(&(*pa)->prefix, p))
		pa = &(*pa)->next;
	return pa;
}

static int adj_grow(struct adj_out *o)
{
	size_t n = o->n_buckets ? o->n_buckets * 2 : 256, i;
	struct adj_route **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < o->n_buckets; i++) {
		struct adj_route *a = o->buckets[i], *next;

		for (; a; a = next) {
			size_t h = adj_hash(&a->prefix) & (n - 1);

			next = a->next;
			a->next = b[h];
			b[h] = a;
		}
	}
	free(o->buckets);
	o->buckets = b;
	o->n_buckets = n;
	return 0;
}

/* The record of prefix p (path_id 0), a new one when absent; NULL: none. */
static struct adj_route *adj_get(struct adj_out *o,
				 const struct bgp_prefix *p)
{
	struct adj_route **pa, *a;

	if (o->n >= o->n_buckets && adj_grow(o))
		return NULL;
	pa = adj_slot(o, p);
	if (*pa)
		return *pa;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->prefix = *p;
	*pa = a;
	o->n++;
	return a;
}

void adj_route_clear(struct adj_route *a)
{
	free(a->path);
	free(a->ecs);
	free(a->xattr);
	free(a->from);
	a->path = NULL;
	a->ecs = NULL;
	a->xattr = NULL;
	a->from = NULL;
	a->path_len = a->ecs_len = a->n_from = 0;
	a->comms_len = a->lcomms_len = a->raw_len = 0;
	a->no_export = a->no_advertise = false;
	a->from_ibgp = false;
	a->atomic_aggregate = a->has_aggregator = false;
	a->aggregator_as = 0;
	memset(a->aggregator_id, 0, sizeof(a->aggregator_id));
	a->live = false;
}

static void adj_free_one(struct adj_route *a)
{
	adj_route_clear(a);
	free(a->col);
	free(a);
}

static void adj_drop(struct adj_out *o, struct adj_route *a)
{
	struct adj_route **pa = adj_slot(o, &a->prefix);

	*pa = a->next;
	o->n--;
	adj_free_one(a);
}

struct adj_out *adj_out_new(struct fared *d)
{
	struct adj_out *o = calloc(1, sizeof(*o));

	if (o)
		o->d = d;
	return o;
}

void adj_out_free(struct adj_out *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n_buckets; i++) {
		struct adj_route *a = o->buckets[i], *next;

		for (; a; a = next) {
			next = a->next;
			adj_free_one(a);
		}
	}
	free(o->buckets);
	free(o->queue);
	for (i = 0; i < o->n_peers; i++)
		free(o->peers[i].v);
	free(o->peers);
	free(o);
}

/* ------------------------------------------------------------------ */
/* The neighbors' columns. */

static bool sent_to(const struct adj_route *a, unsigned int peer,
		    unsigned int what)
{
	return peer / ADJ_PER_BYTE < a->col_len &&
	       (a->col[peer / ADJ_PER_BYTE] >>
		(peer % ADJ_PER_BYTE * ADJ_BITS)) & what;
}

/* False when the column could not grow for it (ENOMEM). */
static bool set_sent(struct adj_route *a, unsigned int peer,
		     unsigned int what, bool on)
{
	size_t at = peer / ADJ_PER_BYTE;

	if (at >= a->col_len) {
		uint8_t *s;

		if (!on)
			return true;
		s = realloc(a->col, at + 1);
		if (!s)
			return false;
		memset(s + a->col_len, 0, at + 1 - a->col_len);
		a->col = s;
		a->col_len = at + 1;
	}
	if (on)
		a->col[at] |= what << (peer % ADJ_PER_BYTE * ADJ_BITS);
	else
		a->col[at] &= ~(what << (peer % ADJ_PER_BYTE * ADJ_BITS));
	return true;
}

/*
 * A record that p was sent a (what on): without it fared would send a
 * again or never withdraw it, so a failure is fared_out_of_memory().
 */
static void note_sent(struct adj_route *a, struct peer *p, unsigned int what)
{
	if (!set_sent(a, p->index, what, true))
		fared_out_of_memory(p->d, "the Adj-RIB-Out");
}

/* Whether any neighbor has what (ADJ_* bits) of a. */
static bool sent_any(const struct adj_route *a, unsigned int what)
{
	uint8_t mask = 0;
	size_t i;

	for (i = 0; i < ADJ_PER_BYTE; i++)
		mask |= what << (i * ADJ_BITS);
	for (i = 0; i < a->col_len; i++)
		if (a->col[i] & mask)
			return true;
	return false;
}

/*
 * Nothing passed on, to be, held by or pending for any neighbor: the
 * record can go.
 */
static bool dead(const struct adj_route *a)
{
	return !a->live && !a->queued &&
	       !sent_any(a, ADJ_SENT_LEARNED | ADJ_SENT_ORIG | ADJ_PENDING);
}

/* ------------------------------------------------------------------ */
/* Routes passed on. */

/*
 * A prefix this node originates: its own announcement wins over learned
 * paths (no fare route, nothing passed on), as RFC 4271 §9.1.1 lets
 * local policy prefer a locally originated route.
 */
bool adj_out_originates(const struct fared_config *cfg,
			const struct bgp_prefix *p)
{
	size_t i;

	for (i = 0; i < cfg->n_originates; i++)
		if (pfx_eq(&cfg->originates[i].prefix, p))
			return true;
	return false;
}

/* Whether a is to be announced to p (export_done aside). */
static bool adj_for(const struct adj_route *a, const struct peer *p)
{
	const struct fared_config *cfg = &p->d->cfg;
	const struct fared_policy *pol;
	size_t i;

	if (!a->live || p->nb->export_policy < 0)
		return false;
	pol = &cfg->policies[p->nb->export_policy];
	/* A UPA route goes where its aggregate goes, never to RNICs. */
	if (a->scope == FARE_LEAF_UPA)
		return !p->nb->rnic && fared_policy_permits(pol, &a->agg) &&
		       orf_permits(p, &a->prefix);
	if (a->scope == FARE_LEAF_HOLD && !p->nb->rnic)
		return false;
	if (!fared_policy_permits(pol, &a->prefix) ||
	    !orf_permits(p, &a->prefix))
		return false;
	if (a->no_advertise ||
	    (a->no_export && p->nb->remote_as != cfg->local_as))
		return false;
	/* RFC 4271 §9.2: learned from iBGP, not passed on to iBGP. */
	if (a->from_ibgp && p->nb->remote_as == cfg->local_as)
		return false;
	for (i = 0; i < a->n_from; i++)
		if (a->from[i] == p->index)
			return false;
	return true;
}

/* The attributes a goes out with. */
static void adj_attrs(const struct adj_route *a, struct peer_route *r)
{
	r->origin = a->origin;
	r->path = a->path;
	r->path_len = a->path_len;
	r->ecs = a->ecs;
	r->ecs_len = a->ecs_len;
	r->comms = a->xattr;
	r->comms_len = a->comms_len;
	r->lcomms = a->xattr ? a->xattr + a->comms_len : NULL;
	r->lcomms_len = a->lcomms_len;
	r->raw = a->xattr ? a->xattr + a->comms_len + a->lcomms_len : NULL;
	r->raw_len = a->raw_len;
	r->atomic_aggregate = a->atomic_aggregate;
	r->has_aggregator = a->has_aggregator;
	r->aggregator_as = a->aggregator_as;
	memcpy(r->aggregator_id, a->aggregator_id, sizeof(r->aggregator_id));
}

/*
 * Whether p's copy of a is to change: true when a is to be announced
 * (again, with resend); false otherwise, after noting a withdrawal in
 * *withdraw when p has a and is not to keep it.
 */
static bool adj_wants(struct adj_route *a, struct peer *p, bool resend,
		      bool *withdraw)
{
	*withdraw = false;
	if (adj_for(a, p))
		return resend || !sent_to(a, p->index, ADJ_SENT_LEARNED);
	if (sent_to(a, p->index, ADJ_SENT_LEARNED)) {
		/* Never withdraw what export_originated() announces. */
		*withdraw = !adj_out_originates(&p->d->cfg, &a->prefix);
		set_sent(a, p->index, ADJ_SENT_LEARNED, false);
	}
	return false;
}

/* Brings p's copy of a in line; resend: announce even if sent before. */
static void adj_to(struct adj_route *a, struct peer *p, bool resend)
{
	struct peer_route r;
	bool withdraw;

	if (adj_wants(a, p, resend, &withdraw)) {
		adj_attrs(a, &r);
		if (peer_announce(p, &a->prefix, 1, &r))
			note_sent(a, p, ADJ_SENT_LEARNED);
	} else if (withdraw) {
		peer_withdraw(p, &a->prefix, 1);
	}
}

static size_t x_len(const struct adj_route *a)
{
	return a->comms_len + a->lcomms_len + a->raw_len;
}

static int cmp_bytes(const void *x, size_t xn, const void *y, size_t yn)
{
	if (xn != yn)
		return xn < yn ? -1 : 1;
	return xn ? memcmp(x, y, xn) : 0;
}

/* The attributes a and b go out with, compared (prefix aside). */
static int attr_cmp(const struct adj_route *a, const struct adj_route *b)
{
	int r;

	if (a->prefix.family != b->prefix.family)
		return a->prefix.family < b->prefix.family ? -1 : 1;
	if (a->origin != b->origin)
		return a->origin < b->origin ? -1 : 1;
	if (a->comms_len != b->comms_len)
		return a->comms_len < b->comms_len ? -1 : 1;
	if (a->atomic_aggregate != b->atomic_aggregate)
		return a->atomic_aggregate < b->atomic_aggregate ? -1 : 1;
	if (a->has_aggregator != b->has_aggregator)
		return a->has_aggregator < b->has_aggregator ? -1 : 1;
	if (a->aggregator_as != b->aggregator_as)
		return a->aggregator_as < b->aggregator_as ? -1 : 1;
	r = memcmp(a->aggregator_id, b->aggregator_id,
		   sizeof(a->aggregator_id));
	if (r)
		return r;
	if (a->lcomms_len != b->lcomms_len)
		return a->lcomms_len < b->lcomms_len ? -1 : 1;
	r = cmp_bytes(a->path, a->path_len * sizeof(*a->path), b->path,
		      b->path_len * sizeof(*b->path));
	if (!r)
		r = cmp_bytes(a->ecs, a->ecs_len, b->ecs, b->ecs_len);
	if (!r)
		r = cmp_bytes(a->xattr, x_len(a), b->xattr, x_len(b));
	return r;
}

/* Orders routes so that those sent with equal attributes are adjacent. */
static int adj_attr_cmp(const void *x, const void *y)
{
	const struct adj_route *a = *(struct adj_route *const *)x;
	const struct adj_route *b = *(struct adj_route *const *)y;
	int r = attr_cmp(a, b);

	return r ? r : memcmp(&a->prefix, &b->prefix, sizeof(a->prefix));
}

/* Withdraws the nw prefixes w from p, one family after the other. */
static void withdraw_by_family(struct peer *p, const struct bgp_prefix *w,
			       size_t nw, struct bgp_prefix *scratch)
{
	size_t i, k, m;

	for (k = 0; k < BGP_FAM_COUNT && p->est; k++) {
		for (i = 0, m = 0; i < nw; i++)
			if (w[i].family == k)
				scratch[m++] = w[i];
		if (m)
			peer_withdraw(p, scratch, m);
	}
}

/*
 * Brings p's copies of the n routes v in line (adj_to() for each), with
 * the prefixes that share their attributes packed into as few UPDATEs as
 * the session's message size allows, and the withdrawals of a family
 * likewise; the announcements stop once p's send queue holds high bytes.
 * v is reordered: v[0..n) loses the records done with, and the return
 * value is how many of it, at its end, were not announced yet. Falls
 * back to adj_to() without memory.
 */
static size_t adj_to_many(struct adj_route **v, size_t n, struct peer *p,
			  bool resend, size_t high)
{
	/* pfx: a run to send; w: the withdrawals. */
	struct bgp_prefix *pfx = malloc((2 * n + 1) * sizeof(*pfx)), *w;
	size_t i, k, m, na = 0, nw = 0;
	bool withdraw;

	if (!pfx) {
		for (i = 0; i < n && p->est; i++)
			adj_to(v[i], p, resend);
		return 0;
	}
	w = pfx + n;
	/* v[0..na): to announce. */
	for (i = 0; i < n; i++) {
		if (adj_wants(v[i], p, resend, &withdraw))
			v[na++] = v[i];
		else if (withdraw)
			w[nw++] = v[i]->prefix;
	}
	withdraw_by_family(p, w, nw, pfx);
	qsort(v, na, sizeof(*v), adj_attr_cmp);
	for (i = 0; i < na && p->est; i = k) {
		struct peer_route r;

		if (peer_send_queue(p) >= high)
			break;

		for (k = i, m = 0; k < na && !attr_cmp(v[k], v[i]); k++)
			pfx[m++] = v[k]->prefix;
		adj_attrs(v[i], &r);
		if (peer_announce(p, pfx, m, &r))
			for (m = i; m < k; m++)
				note_sent(v[m], p, ADJ_SENT_LEARNED);
	}
	free(pfx);
	/* v[i..na) to come; the rest of v is not needed by the caller. */
	memmove(v + n - (na - i), v + i, (na - i) * sizeof(*v));
	return na - i;
}

static bool same_route(const struct adj_route *a, const struct adj_route *b)
{
	return a->live == b->live && a->origin == b->origin &&
	       a->scope == b->scope && pfx_eq(&a->agg, &b->agg) &&
	       a->path_len == b->path_len && a->ecs_len == b->ecs_len &&
	       a->n_from == b->n_from && a->comms_len == b->comms_len &&
	       a->lcomms_len == b->lcomms_len && a->raw_len == b->raw_len &&
	       a->no_export == b->no_export &&
	       a->no_advertise == b->no_advertise &&
	       a->from_ibgp == b->from_ibgp &&
	       a->atomic_aggregate == b->atomic_aggregate &&
	       a->has_aggregator == b->has_aggregator &&
	       a->aggregator_as == b->aggregator_as &&
	       !memcmp(a->aggregator_id, b->aggregator_id,
		       sizeof(a->aggregator_id)) &&
	       (!x_len(a) || !memcmp(a->xattr, b->xattr, x_len(a))) &&
	       (!a->path_len ||
		!memcmp(a->path, b->path, a->path_len * sizeof(*a->path))) &&
	       (!a->ecs_len || !memcmp(a->ecs, b->ecs, a->ecs_len)) &&
	       (!a->n_from ||
		!memcmp(a->from, b->from, a->n_from * sizeof(*a->from)));
}

/* Takes now's route (and its allocations) into a. */
static void adj_take(struct adj_route *a, const struct adj_route *now)
{
	adj_route_clear(a);
	a->live = now->live;
	a->scope = now->scope;
	a->agg = now->agg;
	a->origin = now->origin;
	a->path = now->path;
	a->path_len = now->path_len;
	a->ecs = now->ecs;
	a->ecs_len = now->ecs_len;
	a->xattr = now->xattr;
	a->comms_len = now->comms_len;
	a->lcomms_len = now->lcomms_len;
	a->raw_len = now->raw_len;
	a->no_export = now->no_export;
	a->no_advertise = now->no_advertise;
	a->from_ibgp = now->from_ibgp;
	a->atomic_aggregate = now->atomic_aggregate;
	a->has_aggregator = now->has_aggregator;
	a->aggregator_as = now->aggregator_as;
	memcpy(a->aggregator_id, now->aggregator_id, sizeof(a->aggregator_id));
	a->from = now->from;
	a->n_from = now->n_from;
}

static int adj_queue(struct adj_out *o, struct adj_route *a)
{
	if (a->queued)
		return 0;
	if (o->n_queue == o->queue_cap) {
		size_t cap = o->queue_cap ? 2 * o->queue_cap : 64;
		struct adj_route **q = realloc(o->queue, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		o->queue = q;
		o->queue_cap = cap;
	}
	o->queue[o->n_queue++] = a;
	a->queued = true;
	return 0;
}

int adj_out_set(struct adj_out *o, struct adj_route *now)
{
	struct adj_route *a = NULL;

	if (o->n_buckets)
		a = *adj_slot(o, &now->prefix);
	if (!a) {
		if (!now->live)
			return 0;
		a = adj_get(o, &now->prefix);
		if (!a) {
			adj_route_clear(now);
			return -ENOMEM;
		}
	} else if (same_route(a, now)) {
		adj_route_clear(now);
		return 0;
	}
	adj_take(a, now);
	return adj_queue(o, a);
}

/* ------------------------------------------------------------------ */
/* Pending records per neighbor: the pull-based writer. */

static struct adj_peer *adj_peer_of(struct adj_out *o, unsigned int peer)
{
	if (peer >= o->n_peers) {
		size_t n = peer + 1 > 2 * o->n_peers ? peer + 1
						     : 2 * o->n_peers;
		struct adj_peer *v = realloc(o->peers, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + o->n_peers, 0, (n - o->n_peers) * sizeof(*v));
		o->peers = v;
		o->n_peers = n;
	}
	return &o->peers[peer];
}

/*
 * a is pending for p: what it is when p's socket takes more goes out.
 * Without memory for that, p's copy is brought in line at once instead.
 */
static void adj_pend(struct adj_out *o, struct adj_route *a, struct peer *p)
{
	struct adj_peer *ap;

	if (sent_to(a, p->index, ADJ_PENDING))
		return;
	ap = adj_peer_of(o, p->index);
	if (ap && ap->n == ap->cap && ap->head >= ap->cap / 2 && ap->head) {
		/* Half of it was taken already: room without growing. */
		memmove(ap->v, ap->v + ap->head,
			(ap->n - ap->head) * sizeof(*ap->v));
		ap->n -= ap->head;
		ap->head = 0;
	}
	if (ap && ap->n == ap->cap) {
		size_t cap = ap->cap ? 2 * ap->cap : 256;
		struct adj_route **v = realloc(ap->v, cap * sizeof(*v));

		if (v) {
			ap->v = v;
			ap->cap = cap;
		}
	}
	if (!ap || ap->n == ap->cap ||
	    !set_sent(a, p->index, ADJ_PENDING, true)) {
		adj_to(a, p, true);
		return;
	}
	ap->v[ap->n++] = a;
	ap->n_fam[a->prefix.family]++;
}

size_t adj_out_pending(const struct peer *p)
{
	const struct adj_out *o = p->d->out;

	if (!o || p->index >= o->n_peers)
		return 0;
	return o->peers[p->index].n - o->peers[p->index].head;
}

void adj_out_drain(struct peer *p)
{
	struct adj_out *o = p->d->out;
	struct adj_route *batch[ADJ_BATCH], *v[ADJ_BATCH];
	size_t high = p->d->cfg.send_buffer_limit / 2, i, k, left;
	struct adj_peer *ap;
	uint32_t fams;
	unsigned int fam;

	if (!o || p->index >= o->n_peers)
		return;
	if (high > ADJ_WRITE_HIGH)
		high = ADJ_WRITE_HIGH;
	ap = &o->peers[p->index];
	while (p->est && !p->est->broken && ap->head < ap->n &&
	       peer_send_queue(p) < high) {
		fams = 0;
		for (k = 0; k < ADJ_BATCH && ap->head < ap->n; k++) {
			struct adj_route *a = ap->v[ap->head++];

			set_sent(a, p->index, ADJ_PENDING, false);
			ap->n_fam[a->prefix.family]--;
			fams |= BGP_FAM_BIT(a->prefix.family);
			batch[k] = a;
		}
		memcpy(v, batch, k * sizeof(*v));
		left = adj_to_many(v, k, p, true, high);
		/* The socket is full: what was not announced waits again. */
		for (i = k - left; i < k; i++)
			adj_pend(o, v[i], p);
		for (i = 0; i < k; i++)
			if (dead(batch[i]))
				adj_drop(o, batch[i]);
		for (fam = 0; fam < BGP_FAM_COUNT; fam++)
			if ((fams & BGP_FAM_BIT(fam)) && !ap->n_fam[fam])
				peer_fam_sent(p, fam);
	}
	if (ap->head == ap->n) {
		ap->head = ap->n = 0;
		/* A refresh's FIFO is not kept once it was all sent. */
		if (ap->cap > 4096) {
			free(ap->v);
			ap->v = NULL;
			ap->cap = 0;
		}
	}
}

void adj_out_flush(struct adj_out *o)
{
	struct fared *d = o->d;
	size_t i, k;

	if (!o->n_queue)
		return;
	for (k = 0; k < d->n_peers; k++) {
		if (!d->peers[k]->export_done)
			continue;
		for (i = 0; i < o->n_queue; i++)
			adj_pend(o, o->queue[i], d->peers[k]);
		adj_out_drain(d->peers[k]);
	}
	for (i = 0; i < o->n_queue; i++) {
		struct adj_route *a = o->queue[i];

		a->queued = false;
		if (dead(a))
			adj_drop(o, a);
	}
	o->n_queue = 0;
}

/* Records of fam pending for p. */
static size_t adj_out_pending_fam(const struct adj_out *o,
				  const struct peer *p, unsigned int fam)
{
	return p->index < o->n_peers ? o->peers[p->index].n_fam[fam] : 0;
}

/*
 * The routes passed on of family fam that p is to be sent or no longer
 * to have, pending for p (resend: all of them, sent or not); then as
 * many as its socket takes.
 */
static void export_learned(struct peer *p, unsigned int fam, bool resend)
{
	struct adj_out *o = p->d->out;
	struct adj_route *a;
	size_t i;

	for (i = 0; i < o->n_buckets; i++)
		for (a = o->buckets[i]; a; a = a->next)
			if (a->prefix.family == fam &&
			    (resend || adj_for(a, p) !=
			     sent_to(a, p->index, ADJ_SENT_LEARNED)))
				adj_pend(o, a, p);
	if (!adj_out_pending_fam(o, p, fam))
		peer_fam_sent(p, fam);
	else
		adj_out_drain(p);
}

/* ------------------------------------------------------------------ */
/* Originated routes. */


static const struct fared_policy *export_policy(const struct peer *p)
{
	if (p->nb->export_policy < 0)
		return NULL;
	return &p->d->cfg.policies[p->nb->export_policy];
}

/* Whether p is still to have the originated route of pfx. */
static bool originated_for(const struct peer *p, const struct bgp_prefix *pfx)
{
	const struct fared_policy *pol = export_policy(p);

	return pol && adj_out_originates(&p->d->cfg, pfx) &&
	       fared_policy_permits(pol, pfx) && orf_permits(p, pfx);
}

/*
 * The originated routes of fam that p has and export no longer permits
 * are withdrawn, one UPDATE each; false when the session went.
 */
static bool withdraw_originated(struct peer *p, unsigned int fam)
{
	struct adj_out *o = p->d->out;
	struct adj_route **pa, *a;
	size_t i;

	for (i = 0; i < o->n_buckets; i++) {
		for (pa = &o->buckets[i]; (a = *pa);) {
			if (a->prefix.family != fam ||
			    !sent_to(a, p->index, ADJ_SENT_ORIG) ||
			    originated_for(p, &a->prefix)) {
				pa = &a->next;
				continue;
			}
			peer_withdraw(p, &a->prefix, 1);
			if (!p->est)
				return false;
			set_sent(a, p->index, ADJ_SENT_ORIG, false);
			if (!dead(a)) {
				pa = &a->next;
				continue;
			}
			*pa = a->next;
			o->n--;
			adj_free_one(a);
		}
	}
	return true;
}

/*
 * Announces the originated prefixes of fam that export permits and
 * withdraws those it no longer does.
 */
static void export_originated(struct peer *p, unsigned int fam)
{
	const struct fared_policy *pol = export_policy(p);
	const struct fared_config *cfg = &p->d->cfg;
	struct adj_route *a;
	size_t i;

	if (!withdraw_originated(p, fam))
		return;
	/* RFC 8212: no export policy, nothing sent. */
	if (!pol)
		return;
	for (i = 0; i < cfg->n_originates; i++) {
		const struct fared_originate *og = &cfg->originates[i];
		struct peer_route r = {
			.origin = BGP_ORIGIN_IGP,
			.ecs = og->ext_communities,
			.ecs_len = og->ext_communities_len,
		};

		if (og->prefix.family != fam ||
		    !fared_policy_permits(pol, &og->prefix) ||
		    !orf_permits(p, &og->prefix))
			continue;
		if (!peer_announce(p, &og->prefix, 1, &r)) {
			if (!p->est)
				return;
			continue;
		}
		a = adj_get(p->d->out, &og->prefix);
		if (a)
			note_sent(a, p, ADJ_SENT_ORIG);
	}
}

void adj_out_export(struct peer *p, unsigned int fam, bool resend)
{
	if (!p->d->out) {
		peer_fam_sent(p, fam);
		return;
	}
	export_originated(p, fam);
	if (p->est)
		export_learned(p, fam, resend);
}

void adj_out_peer_down(struct peer *p, bool gone)
{
	struct adj_out *o = p->d->out;
	unsigned int what = ADJ_SENT_LEARNED;
	struct adj_route **pa, *a;
	size_t i;

	if (gone)
		what |= ADJ_SENT_ORIG;
	if (o && p->index < o->n_peers) {
		struct adj_peer *ap = &o->peers[p->index];

		/* Its pending bits go in the walk below. */
		free(ap->v);
		memset(ap, 0, sizeof(*ap));
	}
	what |= ADJ_PENDING;
	for (i = 0; o && i < o->n_buckets; i++)
		for (pa = &o->buckets[i]; (a = *pa);) {
			set_sent(a, p->index, what, false);
			/*
			 * Only a neighbor that goes drops records: a session
			 * closing on a failed send may be inside a walk.
			 */
			if (!gone || !dead(a)) {
				pa = &a->next;
				continue;
			}
			*pa = a->next;
			o->n--;
			adj_free_one(a);
		}
}

enum fare_leaf_adv adj_out_scope(const struct adj_out *o,
				 const struct bgp_prefix *x)
{
	struct bgp_prefix p = *x;
	const struct adj_route *a;

	p.path_id = 0;
	if (!o || !o->n_buckets)
		return FARE_LEAF_PASS;
	a = *adj_slot(o, &p);
	return a && a->live ? a->scope : FARE_LEAF_PASS;
}

size_t adj_out_upa_routes(const struct adj_out *o, struct adj_upa *out,
			  size_t max)
{
	size_t i, n = 0;

	for (i = 0; o && i < o->n_buckets; i++) {
		const struct adj_route *a;

		for (a = o->buckets[i]; a; a = a->next) {
			if (!a->live || a->scope != FARE_LEAF_UPA)
				continue;
			if (n < max) {
				out[n].prefix = a->prefix;
				out[n].aggregate = a->agg;
				out[n].drop = o->d->cfg.upa_drop;
				out[n].sent = sent_any(a, ADJ_SENT_LEARNED);
			}
			n++;
		}
	}
	return n;
}
