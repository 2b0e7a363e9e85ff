// SPDX-License-Identifier: GPL-2.0-only
/*
 * From the RIB's change feed to fare.ko (see fare_fib.h).
 *
 * The table keeps, per prefix, what fare.ko has (compact: mode and
 * {plane, weight} pairs sorted by plane, so that equal routes compare
 * equal byte for byte) and, while queued, what it should get. These
 * compact routes are interned and reference-counted: the 100,000 host
 * routes of a 4-plane host share a handful. Full struct fare_route
 * values (2 KiB each) exist only one chunk at a time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fare_best.h"
#include "fare_fib.h"
#include "fib_sync.h"

#define DEFAULT_CHUNK	4096

struct fib_nh {
	uint64_t bandwidth;
	uint32_t plane, weight, tier, pad;
};

struct fib_rt {
	struct fib_rt *next;	/* the intern table's chain */
	uint32_t hash;
	uint32_t refs;
	uint8_t mode;
	uint8_t tcp_mode;
	uint8_t stats;		/* FARE_ROUTE_STATS_* */
	uint8_t n;
	struct fib_nh nh[];
};

struct fib_ent {
	struct fib_ent *next;
	struct fare_prefix dst;
	bool queued;
	/* Found in fare.ko at start (adopted), not yet confirmed by the RIB. */
	bool stale;
	/*
	 * In a batch handed out by fare_fib_take() and not yet given back
	 * through fare_fib_done(): fare.ko gets sent (NULL: delete) or keeps
	 * have. It may be queued again meanwhile (a newer want).
	 */
	bool inflight;
	struct fib_rt *have;		/* NULL: fare.ko has no route */
	struct fib_rt *want;		/* queued: NULL means delete */
	struct fib_rt *sent;		/* in flight: what was sent */
};

struct fare_fib {
	fare_fib_apply_fn apply;
	void *apply_arg;
	struct fib_ent **buckets;
	size_t n_buckets, n_ents, n_programmed;
	size_t n_stale;
	size_t n_family[2];		/* programmed: IPv4, IPv6 */
	struct fib_ent **queue;
	size_t n_queue, queue_cap;
	struct fib_rt **rt_buckets;	/* interned routes */
	size_t n_rt_buckets, n_rts;
	size_t n_inflight;		/* entries in the taken batch */
};

void fare_fib_prefix(const struct bgp_prefix *p, struct fare_prefix *out)
{
	memset(out, 0, sizeof(*out));
	out->plen = p->len;
	if (p->family == BGP_FAM_IPV4_UNICAST) {
		out->family = AF_INET;
		memcpy(&out->addr.v4, p->addr, 4);
	} else {
		out->family = AF_INET6;
		memcpy(&out->addr.v6, p->addr, 16);
	}
}

static int nh_plane_cmp(const void *x, const void *y)
{
	const struct fare_nexthop *a = x, *b = y;

	return a->plane_id < b->plane_id ? -1 : a->plane_id > b->plane_id;
}

/*
 * The bandwidth a path's weight derives from, min(link, PB), in bytes
 * per second for fare.ko; 0 when the path has no PB or no bound.
 */
static uint64_t bw_bytes(const struct fare_path_out *o)
{
	if (o->origin == FARE_BW_NONE || o->bw_bps == FARE_BW_INF)
		return 0;
	return o->bw_bps / 8;
}

/*
 * Path i of e as the decision sees it: its peer (a plane past the
 * largest id counts as none), its tier and the community behind it, and
 * its view for the decision process (fare_best.h).
 */
struct path_view {
	struct fare_fib_peer peer;
	struct fare_best_path bp;
	uint8_t tier;
	int tier_by;
};

static void view_fill(const struct fare_fib_cfg *cfg,
		      const struct rib_entry *e, size_t i,
		      struct path_view *v)
{
	const struct rib_attrs *a = e->paths[i].attrs;

	cfg->peer_of(cfg->arg, e->paths[i].peer, &v->peer);
	v->bp.attrs = a;
	v->bp.ibgp = v->peer.ibgp;
	v->bp.router_id = v->peer.router_id;
	v->bp.addr_family = v->peer.addr_family;
	memcpy(v->bp.addr, v->peer.addr, sizeof(v->bp.addr));
	if (v->peer.plane > FARE_PLANE_ID_MAX)
		v->peer.plane = 0;
	v->tier = fare_tier_classify(&cfg->tiers, a->communities,
				     a->communities_len, a->large_communities,
				     a->large_communities_len, &v->tier_by);
}

/*
 * The first VIEWS_KEPT paths' views, filled once per computation: the
 * steps below ask for each path several times (a prefix with 4 paths
 * asked the peer table about 25 times, the tiers 8 times). Later paths
 * (ADD-PATH) are filled each time they are asked for.
 */
#define VIEWS_KEPT	16

struct views {
	const struct fare_fib_cfg *cfg;
	const struct rib_entry *e;
	struct path_view kept[VIEWS_KEPT];
};

static void views_init(struct views *vs, const struct fare_fib_cfg *cfg,
		       const struct rib_entry *e)
{
	size_t i;

	vs->cfg = cfg;
	vs->e = e;
	for (i = 0; i < e->n_paths && i < VIEWS_KEPT; i++)
		view_fill(cfg, e, i, &vs->kept[i]);
}

/* Path i's view: a kept one, or one filled into tmp. */
static const struct path_view *view(const struct views *vs, size_t i,
				    struct path_view *tmp)
{
	if (i < VIEWS_KEPT)
		return &vs->kept[i];
	view_fill(vs->cfg, vs->e, i, tmp);
	return tmp;
}

/* Whether path i is better than path k by the decision process. */
static bool better(const struct views *vs, size_t i, size_t k)
{
	struct path_view ti, tk;

	return fare_best_cmp(&view(vs, i, &ti)->bp, &view(vs, k, &tk)->bp,
			     NULL) < 0;
}

/* Intra-group (Dragonfly+ tiers): some usable path carries no C1..C3. */
static bool tiers_intra(const struct views *vs)
{
	const struct path_view *v;
	struct path_view tmp;
	size_t i;

	for (i = 0; vs->cfg->tiers.enabled && i < vs->e->n_paths; i++) {
		v = view(vs, i, &tmp);
		if (v->peer.plane && v->tier == FARE_TIER_INTRA)
			return true;
	}
	return false;
}

/* The best path among those in the running (fare_best.h); SIZE_MAX. */
static size_t top_path(const struct views *vs, bool intra)
{
	struct path_view tmp;
	size_t i, top = SIZE_MAX;

	for (i = 0; i < vs->e->n_paths; i++) {
		if (intra && view(vs, i, &tmp)->tier != FARE_TIER_INTRA)
			continue;
		if (top == SIZE_MAX || better(vs, i, top))
			top = i;
	}
	return top;
}

/*
 * Per path, out of the multipath set by which step (0: in it): equal
 * cost is equal to the top path through FARE_BEST_MULTIPATH.
 */
static void multipath_steps(const struct views *vs, size_t top,
			    uint8_t *worse)
{
	struct path_view tt, tp;
	const struct path_view *vt = NULL;
	enum fare_best_step step;
	size_t i;

	if (top != SIZE_MAX)
		vt = view(vs, top, &tt);
	for (i = 0; i < vs->e->n_paths; i++) {
		step = FARE_BEST_EQUAL;
		if (vt)
			fare_best_cmp(&view(vs, i, &tp)->bp, &vt->bp, &step);
		if (worse)
			worse[i] = step <= FARE_BEST_MULTIPATH ?
				   (uint8_t)step : 0;
	}
}

/* Per plane, the lowest tier's best path of the multipath set. */
static void plane_picks(const struct views *vs, bool intra,
			const uint8_t *worse, size_t *pick)
{
	uint8_t pick_tier[FARE_PLANE_ID_MAX + 1];
	const struct path_view *v;
	struct path_view tmp;
	size_t i;

	for (i = 0; i <= FARE_PLANE_ID_MAX; i++)
		pick[i] = SIZE_MAX;
	for (i = 0; i < vs->e->n_paths; i++) {
		v = view(vs, i, &tmp);
		if (!v->peer.plane || (intra && v->tier != FARE_TIER_INTRA) ||
		    (worse && worse[i]))
			continue;
		if (pick[v->peer.plane] == SIZE_MAX ||
		    v->tier < pick_tier[v->peer.plane] ||
		    (v->tier == pick_tier[v->peer.plane] &&
		     better(vs, i, pick[v->peer.plane]))) {
			pick[v->peer.plane] = i;
			pick_tier[v->peer.plane] = v->tier;
		}
	}
}

/* The paths the policy weighs, in the order it sees them. */
struct weighed {
	struct fare_path_in in[FARE_NEXTHOP_MAX];
	struct fare_path_out out[FARE_NEXTHOP_MAX];
	struct fare_fib_peer peer[FARE_NEXTHOP_MAX];
	uint8_t tier[FARE_NEXTHOP_MAX];
	size_t idx[FARE_NEXTHOP_MAX];	/* into e->paths */
	size_t n;
	bool all_up;			/* every one from upstream */
};

/*
 * Each path's fate (into paths when not NULL): out of the multipath set,
 * minimal only, another path of its plane, or weighed (into wv).
 */
static void path_fates(const struct views *vs, bool intra,
		       const uint8_t *worse, const size_t *pick,
		       struct fare_fib_path *paths, struct weighed *wv,
		       struct fare_fib_result *fr)
{
	const struct fare_fib_cfg *cfg = vs->cfg;
	const struct rib_entry *e = vs->e;
	const struct path_view *v;
	struct path_view tmp;
	size_t i, m;

	wv->n = 0;
	wv->all_up = true;
	for (i = 0; i < e->n_paths; i++) {
		const struct rib_attrs *a = e->paths[i].attrs;
		struct fare_fib_path fp = { 0 };

		v = view(vs, i, &tmp);
		fp.peer = v->peer;
		fp.tier = v->tier;
		fp.tier_by = v->tier_by;
		fp.minimal_only = fp.peer.plane && intra &&
				  fp.tier != FARE_TIER_INTRA;
		/* Out of memory for worse[]: every path is equal cost. */
		fp.longer = !fp.minimal_only && worse && worse[i];
		fp.longer_by = fp.longer ? worse[i] : 0;
		if (fp.peer.plane && !fp.longer && !fp.minimal_only &&
		    (pick[fp.peer.plane] != i || wv->n == FARE_NEXTHOP_MAX))
			fp.duplicate = true;
		if (fare_fib_weighed(&fp)) {
			m = wv->n++;
			fare_ec_find_bw(a->ext_communities,
					a->ext_communities_len, &cfg->ec,
					&wv->in[m].bw);
			wv->in[m].link_bps = fp.peer.link_bps;
			wv->all_up &= fp.peer.upstream;
			wv->peer[m] = fp.peer;
			/* Intra-group paths are minimal: tier 0. */
			wv->tier[m] = fp.tier == FARE_TIER_INTRA ? 0 : fp.tier;
			/* draft-xu-idr-fare-05: one node, several links. */
			wv->in[m].node.as = fp.peer.remote_as;
			wv->in[m].node.id = fp.peer.router_id;
			wv->in[m].node.tier = wv->tier[m];
			wv->idx[m] = i;
			if (fr->best < 0 || better(vs, i, (size_t)fr->best))
				fr->best = (int)i;
		}
		if (paths)
			paths[i] = fp;
	}
}

void fare_fib_compute(const struct fare_fib_cfg *cfg,
		      const struct rib_entry *e, struct fare_fib_path *paths,
		      struct fare_fib_result *fr, struct fare_route *want)
{
	struct weighed wv;
	struct views vs;
	struct fare_policy_opts opts = cfg->opts;
	/* Per plane, the path that counts. */
	size_t pick[FARE_PLANE_ID_MAX + 1], i;
	/* Per path: out of the multipath set, by which step (0: in it). */
	uint8_t *worse = NULL, worse_small[16];

	memset(want, 0, sizeof(*want));
	fare_fib_prefix(&e->prefix, &want->dst);
	want->mode = FARE_MODE_DEFAULT;
	want->stats = cfg->route_stats;
	if (cfg->prefix_of)
		cfg->prefix_of(cfg->arg, &e->prefix, &want->mode,
			       &want->tcp_mode, &opts);
	fr->best = -1;
	fr->tiers = cfg->tiers.enabled;
	worse = e->n_paths <= sizeof(worse_small) ? worse_small :
		calloc(e->n_paths, 1);
	views_init(&vs, cfg, e);
	fr->intra = tiers_intra(&vs);
	multipath_steps(&vs, top_path(&vs, fr->intra), worse);
	plane_picks(&vs, fr->intra, worse, pick);
	path_fates(&vs, fr->intra, worse, pick, paths, &wv, fr);
	if (worse != worse_small)
		free(worse);
	if (opts.role == FARE_ROLE_SPINE && wv.n && wv.all_up)
		opts.role = FARE_ROLE_REMOTE_SPINE;
	fr->role = opts.role;
	fare_policy_compute(&opts, wv.in, wv.n, wv.out, &fr->res);
	for (i = 0; i < wv.n; i++) {
		struct fare_nexthop *nh;

		if (paths)
			paths[wv.idx[i]].out = wv.out[i];
		if (!wv.out[i].weight)
			continue;
		nh = &want->nexthops[want->n_nexthops++];
		nh->plane_id = wv.peer[i].plane;
		nh->weight = wv.out[i].weight;
		nh->tier = wv.tier[i];
		nh->bandwidth = bw_bytes(&wv.out[i]);
	}
	qsort(want->nexthops, want->n_nexthops, sizeof(want->nexthops[0]),
	      nh_plane_cmp);
}

static uint32_t prefix_hash(const struct fare_prefix *p)
{
	const uint8_t *b = (const uint8_t *)&p->addr;
	size_t i, n = p->family == AF_INET ? 4 : 16;
	uint32_t h = 2166136261u ^ p->family ^ (uint32_t)p->plen << 8;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h ^ h >> 15;
}

static bool prefix_eq(const struct fare_prefix *a, const struct fare_prefix *b)
{
	return !fib_prefix_cmp(a, b);
}

static struct fib_ent **slot(const struct fare_fib *fib,
			     const struct fare_prefix *dst)
{
	struct fib_ent **pe;

	if (!fib->n_buckets)
		return NULL;
	pe = &fib->buckets[prefix_hash(dst) & (fib->n_buckets - 1)];
	while (*pe && !prefix_eq(&(*pe)->dst, dst))
		pe = &(*pe)->next;
	return pe;
}

static size_t *family_count(struct fare_fib *fib, const struct fare_prefix *p)
{
	return &fib->n_family[p->family == AF_INET ? 0 : 1];
}

static int grow_buckets(struct fare_fib *fib)
{
	size_t n = fib->n_buckets ? fib->n_buckets * 2 : 1024, i;
	struct fib_ent **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < fib->n_buckets; i++) {
		struct fib_ent *e = fib->buckets[i], *next;

		for (; e; e = next) {
			size_t h = prefix_hash(&e->dst) & (n - 1);

			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	free(fib->buckets);
	fib->buckets = b;
	fib->n_buckets = n;
	return 0;
}

static size_t rt_size(unsigned int n)
{
	return sizeof(struct fib_rt) + n * sizeof(struct fib_nh);
}

/* The modes, stats, n and the next hops: what makes two routes the same. */
static uint32_t rt_hash(const struct fib_rt *rt)
{
	const uint8_t *b = &rt->mode;
	size_t i, n = rt_size(rt->n) - offsetof(struct fib_rt, mode);
	uint32_t h = 2166136261u;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static bool rt_same(const struct fib_rt *a, const struct fib_rt *b)
{
	return a->n == b->n &&
	       !memcmp(&a->mode, &b->mode,
		       rt_size(a->n) - offsetof(struct fib_rt, mode));
}

static void rt_grow(struct fare_fib *fib)
{
	size_t n = fib->n_rt_buckets ? fib->n_rt_buckets * 2 : 16, i;
	struct fib_rt **b = calloc(n, sizeof(*b));

	/* Failing to grow only makes the chains longer. */
	if (!b)
		return;
	for (i = 0; i < fib->n_rt_buckets; i++) {
		struct fib_rt *rt = fib->rt_buckets[i], *next;

		for (; rt; rt = next) {
			next = rt->next;
			rt->next = b[rt->hash & (n - 1)];
			b[rt->hash & (n - 1)] = rt;
		}
	}
	free(fib->rt_buckets);
	fib->rt_buckets = b;
	fib->n_rt_buckets = n;
}

/* The interned compact form of r, one reference taken; NULL: ENOMEM. */
static struct fib_rt *rt_from(struct fare_fib *fib, const struct fare_route *r)
{
	struct fib_rt *rt = calloc(1, rt_size(r->n_nexthops)), *x;
	unsigned int i;
	size_t b;

	if (!rt)
		return NULL;
	rt->mode = r->mode;
	rt->tcp_mode = r->tcp_mode;
	rt->stats = r->stats;
	rt->n = (uint8_t)r->n_nexthops;
	for (i = 0; i < r->n_nexthops; i++) {
		rt->nh[i].plane = r->nexthops[i].plane_id;
		rt->nh[i].weight = r->nexthops[i].weight;
		rt->nh[i].tier = r->nexthops[i].tier;
		rt->nh[i].bandwidth = r->nexthops[i].bandwidth;
		rt->nh[i].pad = 0;
	}
	rt->hash = rt_hash(rt);
	if (fib->n_rts >= fib->n_rt_buckets)
		rt_grow(fib);
	if (!fib->n_rt_buckets) {
		free(rt);
		return NULL;
	}
	b = rt->hash & (fib->n_rt_buckets - 1);
	for (x = fib->rt_buckets[b]; x; x = x->next)
		if (x->hash == rt->hash && rt_same(x, rt)) {
			free(rt);
			x->refs++;
			return x;
		}
	rt->refs = 1;
	rt->next = fib->rt_buckets[b];
	fib->rt_buckets[b] = rt;
	fib->n_rts++;
	return rt;
}

static void rt_put(struct fare_fib *fib, struct fib_rt *rt)
{
	struct fib_rt **pp;

	if (!rt || --rt->refs)
		return;
	pp = &fib->rt_buckets[rt->hash & (fib->n_rt_buckets - 1)];
	while (*pp != rt)
		pp = &(*pp)->next;
	*pp = rt->next;
	fib->n_rts--;
	free(rt);
}

static void rt_to(const struct fare_prefix *dst, const struct fib_rt *rt,
		  struct fare_route *r)
{
	unsigned int i;

	memset(r, 0, offsetof(struct fare_route, nexthops));
	r->dst = *dst;
	r->mode = rt->mode;
	r->tcp_mode = rt->tcp_mode;
	r->stats = rt->stats;
	r->n_nexthops = rt->n;
	for (i = 0; i < rt->n; i++) {
		memset(&r->nexthops[i], 0, sizeof(r->nexthops[i]));
		r->nexthops[i].plane_id = rt->nh[i].plane;
		r->nexthops[i].weight = rt->nh[i].weight;
		r->nexthops[i].tier = (uint8_t)rt->nh[i].tier;
		r->nexthops[i].bandwidth = rt->nh[i].bandwidth;
	}
}

static bool rt_eq(const struct fib_rt *a, const struct fib_rt *b)
{
	if (!a || !b)
		return a == b;
	if (fib_stats_differ(a->stats, b->stats))
		return false;
	return a->mode == b->mode && a->tcp_mode == b->tcp_mode &&
	       a->n == b->n && !memcmp(a->nh, b->nh, a->n * sizeof(a->nh[0]));
}

struct fare_fib *fare_fib_new(fare_fib_apply_fn apply, void *apply_arg)
{
	struct fare_fib *fib = calloc(1, sizeof(*fib));

	if (!fib)
		return NULL;
	fib->apply = apply;
	fib->apply_arg = apply_arg;
	return fib;
}

void fare_fib_free(struct fare_fib *fib)
{
	size_t i;

	if (!fib)
		return;
	for (i = 0; i < fib->n_buckets; i++) {
		struct fib_ent *e = fib->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			rt_put(fib, e->have);
			if (e->queued)
				rt_put(fib, e->want);
			if (e->inflight)
				rt_put(fib, e->sent);
			free(e);
		}
	}
	free(fib->buckets);
	free(fib->queue);
	free(fib->rt_buckets);
	free(fib);
}

static void drop_ent(struct fare_fib *fib, struct fib_ent *ent)
{
	struct fib_ent **pe = slot(fib, &ent->dst);

	*pe = ent->next;
	fib->n_ents--;
	free(ent);
}

int fare_fib_update(struct fare_fib *fib, const struct fare_fib_cfg *cfg,
		    const struct rib_entry *e)
{
	static struct fare_route want;
	struct fare_fib_result fr;

	fare_fib_compute(cfg, e, NULL, &fr, &want);
	return fare_fib_queue(fib, &want);
}

/* Queues ent with want rt (NULL: delete); -ENOMEM leaves it as it was. */
static int enqueue(struct fare_fib *fib, struct fib_ent *ent,
		   struct fib_rt *rt)
{
	if (fib->n_queue == fib->queue_cap) {
		size_t cap = fib->queue_cap ? fib->queue_cap * 2 : 256;
		struct fib_ent **q = realloc(fib->queue, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		fib->queue = q;
		fib->queue_cap = cap;
	}
	ent->want = rt;
	ent->queued = true;
	fib->queue[fib->n_queue++] = ent;
	return 0;
}

int fare_fib_queue(struct fare_fib *fib, const struct fare_route *r)
{
	struct fib_ent **pe, *ent;
	struct fib_rt *rt = NULL;

	if (r->n_nexthops) {
		rt = rt_from(fib, r);
		if (!rt)
			return -ENOMEM;
	}
	if (fib->n_ents >= fib->n_buckets && grow_buckets(fib))
		goto nomem;
	pe = slot(fib, &r->dst);
	ent = *pe;
	if (!ent) {
		if (!rt)
			return 0;
		ent = calloc(1, sizeof(*ent));
		if (!ent)
			goto nomem;
		ent->dst = r->dst;
		*pe = ent;
		fib->n_ents++;
	}
	if (ent->stale) {
		/* The RIB has the prefix again: no longer the sweep's. */
		ent->stale = false;
		fib->n_stale--;
	}
	if (ent->queued) {
		rt_put(fib, ent->want);
		ent->want = rt;
		return 0;
	}
	/*
	 * In flight: fare.ko gets sent unless the batch fails, and a failure
	 * is repaired by its own path (fare_fib_done()); compare with sent.
	 */
	if (rt_eq(rt, ent->inflight ? ent->sent : ent->have)) {
		rt_put(fib, rt);
		return 0;
	}
	if (enqueue(fib, ent, rt))
		goto nomem;
	return 0;
nomem:
	rt_put(fib, rt);
	pe = slot(fib, &r->dst);
	if (pe && *pe && !(*pe)->have && !(*pe)->queued && !(*pe)->inflight)
		drop_ent(fib, *pe);
	return -ENOMEM;
}

static int queue_cmp(const void *x, const void *y)
{
	const struct fib_ent *a = *(struct fib_ent *const *)x;
	const struct fib_ent *b = *(struct fib_ent *const *)y;

	return fib_op_cmp(!a->want, &a->dst, !b->want, &b->dst);
}

/* fare.ko has rt (NULL: no route) for ent now; takes rt's reference. */
static void programmed(struct fare_fib *fib, struct fib_ent *ent,
		       struct fib_rt *rt)
{
	fib->n_programmed += !ent->have - !rt;
	*family_count(fib, &ent->dst) += !ent->have - !rt;
	rt_put(fib, ent->have);
	ent->have = rt;
}

/* Ends ent's queued state; applied: fare.ko now has ent->want. */
static void settle(struct fare_fib *fib, struct fib_ent *ent, bool applied)
{
	if (applied) {
		programmed(fib, ent, ent->want);
	} else {
		rt_put(fib, ent->want);
	}
	ent->want = NULL;
	ent->queued = false;
	if (!ent->have && !ent->inflight)
		drop_ent(fib, ent);
}

/*
 * The op that takes fare.ko from queued ent's have to its want, in *op;
 * false when there is none (the same route): ent is settled then.
 */
static bool queued_op(struct fare_fib *fib, struct fib_ent *ent,
		      struct fare_op *op)
{
	static struct fare_route want, have;

	if (ent->want)
		rt_to(&ent->dst, ent->want, &want);
	if (ent->have)
		rt_to(&ent->dst, ent->have, &have);
	if (fib_diff_one(ent->want ? &want : NULL, ent->have ? &have : NULL,
			 op))
		return true;
	settle(fib, ent, true);
	return false;
}

/*
 * Ops for queued entries, each at its own size (FARE_OP_SIZE of the next
 * hops it carries, libfare.h) in one block: a full struct fare_op is
 * 2 KiB, most of it room for next hops a route does not have, which made
 * a batch of 1,024 host routes 2 MiB instead of about 200 KiB.
 */
struct op_block {
	const struct fare_op **ops;
	struct fib_ent **ents;		/* ops[i]'s prefix */
	size_t n;
	char *mem;
	size_t used;
};

static size_t op_size(const struct fib_ent *ent)
{
	size_t size = FARE_OP_SIZE(ent->want ? ent->want->n : 0);
	size_t align = _Alignof(struct fare_op);

	return (size + align - 1) / align * align;
}

static void op_block_free(struct op_block *b)
{
	free(b->mem);
	free(b->ops);
	free(b->ents);
	memset(b, 0, sizeof(*b));
}

/* Room for the ops of queue entries from..to-1; false: no memory. */
static bool op_block_alloc(const struct fare_fib *fib, size_t from, size_t to,
			   struct op_block *b)
{
	size_t i, bytes = 0;

	memset(b, 0, sizeof(*b));
	for (i = from; i < to; i++)
		bytes += op_size(fib->queue[i]);
	b->mem = malloc(bytes ? bytes : 1);
	b->ops = malloc((to - from ? to - from : 1) * sizeof(*b->ops));
	b->ents = malloc((to - from ? to - from : 1) * sizeof(*b->ents));
	if (b->mem && b->ops && b->ents)
		return true;
	op_block_free(b);
	return false;
}

/* Queued ent's op, when it needs one, appended to b; false: none. */
static bool op_block_add(struct fare_fib *fib, struct op_block *b,
			 struct fib_ent *ent)
{
	struct fare_op *op = (struct fare_op *)(b->mem + b->used);

	/* queued_op() may settle ent: its size first. */
	b->used += op_size(ent);
	if (!queued_op(fib, ent, op))
		return false;
	b->ops[b->n] = op;
	b->ents[b->n++] = ent;
	return true;
}

/* The queue's first end entries are gone: the rest waits, in its order. */
static void queue_consumed(struct fare_fib *fib, size_t end)
{
	memmove(fib->queue, fib->queue + end,
		(fib->n_queue - end) * sizeof(*fib->queue));
	fib->n_queue -= end;
	if (!fib->n_queue && fib->queue_cap > 4096) {
		free(fib->queue);
		fib->queue = NULL;
		fib->queue_cap = 0;
	}
}

void fare_fib_flush(struct fare_fib *fib, size_t chunk,
		    void (*fail)(void *arg, const struct fare_op *op, int err),
		    void *fail_arg, struct fare_fib_flush_stats *stats)
{
	fare_fib_flush_part(fib, chunk, SIZE_MAX, fail, fail_arg, stats);
}

void fare_fib_flush_part(struct fare_fib *fib, size_t chunk, size_t max,
			 void (*fail)(void *arg, const struct fare_op *op,
				      int err),
			 void *fail_arg, struct fare_fib_flush_stats *stats)
{
	struct op_block b;
	size_t i = 0, k, failed, end, to;
	int err;

	memset(stats, 0, sizeof(*stats));
	/*
	 * A taken batch comes back first (fare_fib_done()): an op sent now
	 * could overtake one of its ops for the same prefix.
	 */
	if (!fib->n_queue || fib->n_inflight)
		return;
	end = max < fib->n_queue ? max : fib->n_queue;
	if (!chunk)
		chunk = DEFAULT_CHUNK;
	/* Compare what is queued in the order the whole batch needs. */
	qsort(fib->queue, end, sizeof(*fib->queue), queue_cmp);
	while (i < end) {
		to = end - i > chunk ? i + chunk : end;
		if (!op_block_alloc(fib, i, to, &b)) {
			/* No memory to send anything: forget the batch. */
			for (; i < end; i++) {
				if (fail)
					fail(fail_arg, NULL, -ENOMEM);
				stats->failed++;
				settle(fib, fib->queue[i], false);
			}
			break;
		}
		while (i < to)
			op_block_add(fib, &b, fib->queue[i++]);
		for (k = 0; k < b.n; ) {
			stats->calls++;
			err = fib->apply(fib->apply_arg, b.ops + k, b.n - k,
					 &failed);
			if (!err)
				failed = b.n - k;
			for (; failed; failed--, k++) {
				settle(fib, b.ents[k], true);
				stats->ops++;
			}
			if (!err)
				break;
			if (fail)
				fail(fail_arg, b.ops[k], err);
			stats->failed++;
			settle(fib, b.ents[k++], false);
		}
		op_block_free(&b);
	}
	/*
	 * What is left waits, in the order it came; a big batch (the first
	 * full table) leaves no big queue behind.
	 */
	queue_consumed(fib, end);
}

int fare_fib_take(struct fare_fib *fib, size_t max, struct fare_fib_batch *b)
{
	struct op_block ob;
	size_t i, end;

	memset(b, 0, sizeof(*b));
	if (!fib->n_queue || fib->n_inflight || !max)
		return 0;
	end = max < fib->n_queue ? max : fib->n_queue;
	qsort(fib->queue, end, sizeof(*fib->queue), queue_cmp);
	if (!op_block_alloc(fib, 0, end, &ob))
		return -ENOMEM;
	for (i = 0; i < end; i++) {
		struct fib_ent *ent = fib->queue[i];

		if (!op_block_add(fib, &ob, ent))
			continue;
		/* The queue's reference to want becomes the batch's. */
		ent->sent = ent->want;
		ent->want = NULL;
		ent->queued = false;
		ent->inflight = true;
	}
	queue_consumed(fib, end);
	fib->n_inflight = ob.n;
	if (!ob.n) {
		op_block_free(&ob);
		return 0;
	}
	b->ops = ob.ops;
	b->ents = ob.ents;
	b->n = ob.n;
	b->op_mem = ob.mem;
	return 0;
}

/*
 * b's ops before applied were applied, the one at refused (SIZE_MAX: none)
 * was refused with err, the others were never sent.
 */
static void batch_settle(struct fare_fib *fib, struct fare_fib_batch *b,
			 size_t applied, size_t refused, int err,
			 void (*fail)(void *arg, const struct fare_op *op,
				      int err),
			 void *fail_arg, struct fare_fib_flush_stats *stats)
{
	size_t k;

	memset(stats, 0, sizeof(*stats));
	stats->calls = applied > 0 || refused < b->n;
	for (k = 0; k < b->n; k++) {
		struct fib_ent *ent = b->ents[k];

		ent->inflight = false;
		if (k < applied) {
			/* fare.ko has it now, whatever was queued since. */
			programmed(fib, ent, ent->sent);
			stats->ops++;
		} else if (k == refused) {
			/* Refused: the caller repairs it (fare_sync.c). */
			if (fail)
				fail(fail_arg, b->ops[k], err);
			stats->failed++;
			rt_put(fib, ent->sent);
		} else if (ent->queued || enqueue(fib, ent, ent->sent)) {
			/*
			 * Never sent: a newer want queued meanwhile stands;
			 * otherwise it waits again (failing that, for want
			 * of memory, it counts as refused).
			 */
			if (!ent->queued)
				stats->failed++;
			rt_put(fib, ent->sent);
		}
		ent->sent = NULL;
		if (!ent->have && !ent->queued)
			drop_ent(fib, ent);
	}
	fib->n_inflight = 0;
	free(b->ops);
	free(b->ents);
	free(b->op_mem);
	memset(b, 0, sizeof(*b));
}

void fare_fib_done(struct fare_fib *fib, struct fare_fib_batch *b,
		   size_t applied, int err,
		   void (*fail)(void *arg, const struct fare_op *op, int err),
		   void *fail_arg, struct fare_fib_flush_stats *stats)
{
	if (!err || applied >= b->n)
		applied = b->n;
	batch_settle(fib, b, applied, err ? applied : SIZE_MAX, err, fail,
		     fail_arg, stats);
}

size_t fare_fib_untake(struct fare_fib *fib, struct fare_fib_batch *b)
{
	struct fare_fib_flush_stats st;

	batch_settle(fib, b, 0, SIZE_MAX, 0, NULL, NULL, &st);
	return st.failed;
}

size_t fare_fib_inflight(const struct fare_fib *fib)
{
	return fib->n_inflight;
}

int fare_fib_adopt(struct fare_fib *fib, const struct fare_route *r)
{
	struct fare_route sorted;
	struct fib_ent **pe, *ent;
	struct fib_rt *rt;

	if (!r->n_nexthops || r->n_nexthops > FARE_NEXTHOP_MAX ||
	    (r->dst.family != AF_INET && r->dst.family != AF_INET6))
		return 0;
	/* As fare_fib_compute() lists them, so that equal compares equal. */
	memcpy(&sorted, r, sizeof(sorted));
	qsort(sorted.nexthops, sorted.n_nexthops, sizeof(sorted.nexthops[0]),
	      nh_plane_cmp);
	rt = rt_from(fib, &sorted);
	if (!rt)
		return -ENOMEM;
	if (fib->n_ents >= fib->n_buckets && grow_buckets(fib)) {
		rt_put(fib, rt);
		return -ENOMEM;
	}
	pe = slot(fib, &r->dst);
	if (*pe) {
		/* Known already: what fared itself programmed stands. */
		rt_put(fib, rt);
		return 0;
	}
	ent = calloc(1, sizeof(*ent));
	if (!ent) {
		rt_put(fib, rt);
		return -ENOMEM;
	}
	ent->dst = r->dst;
	ent->have = rt;
	ent->stale = true;
	*pe = ent;
	fib->n_ents++;
	fib->n_programmed++;
	(*family_count(fib, &ent->dst))++;
	fib->n_stale++;
	return 1;
}

size_t fare_fib_sweep(struct fare_fib *fib)
{
	size_t i, n = 0;

	for (i = 0; fib->n_stale && i < fib->n_buckets; i++) {
		struct fib_ent *e;

		for (e = fib->buckets[i]; e; e = e->next) {
			if (!e->stale)
				continue;
			/* A stale entry is never queued: queueing clears it. */
			if (enqueue(fib, e, NULL))
				return n;
			e->stale = false;
			fib->n_stale--;
			n++;
		}
	}
	return n;
}

size_t fare_fib_stale(const struct fare_fib *fib)
{
	return fib->n_stale;
}

size_t fare_fib_count_family(const struct fare_fib *fib, int family)
{
	return fib->n_family[family == AF_INET ? 0 : 1];
}

size_t fare_fib_pending(const struct fare_fib *fib)
{
	return fib->n_queue;
}

size_t fare_fib_count(const struct fare_fib *fib)
{
	return fib->n_programmed;
}

bool fare_fib_get(const struct fare_fib *fib, const struct fare_prefix *dst,
		  struct fare_route *out)
{
	struct fib_ent **pe = slot(fib, dst);

	if (!pe || !*pe || !(*pe)->have)
		return false;
	rt_to(dst, (*pe)->have, out);
	return true;
}

bool fare_fib_confirmed(const struct fare_fib *fib,
			const struct fare_prefix *dst)
{
	struct fib_ent **pe = slot(fib, dst);

	/* An entry lives while it has a route or is queued. */
	return pe && *pe && !(*pe)->stale;
}

bool fare_plane_set_add(struct fare_plane_set *s, unsigned int plane)
{
	if (!plane || plane > FARE_PLANE_ID_MAX ||
	    fare_plane_set_has(s, plane))
		return false;
	s->bits[plane / 64] |= 1ull << (plane % 64);
	s->n++;
	return true;
}

bool fare_fib_every_plane(const struct fare_fib_cfg *cfg,
			  const struct rib_entry *e,
			  const struct fare_plane_set *planes)
{
	struct fare_plane_set seen = { .n = 0 };
	struct fare_fib_peer peer;
	uint32_t i;

	if (!planes->n || e->n_paths < planes->n)
		return false;
	for (i = 0; i < e->n_paths && seen.n < planes->n; i++) {
		if (e->paths[i].stale)
			continue;
		cfg->peer_of(cfg->arg, e->paths[i].peer, &peer);
		if (fare_plane_set_has(planes, peer.plane))
			fare_plane_set_add(&seen, peer.plane);
	}
	return seen.n == planes->n;
}

char *fare_fib_nexthops_str(const struct fare_route *r, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < r->n_nexthops && at < len; i++) {
		at += snprintf(buf + at, len - at, "%s%u:%u", i ? " " : "",
			       r->nexthops[i].plane_id,
			       r->nexthops[i].weight);
		if (r->nexthops[i].tier && at < len)
			at += snprintf(buf + at, len - at, "/t%u",
				       r->nexthops[i].tier);
	}
	return buf;
}
