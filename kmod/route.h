/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Routes (route.c): fare's prefix table, its longest-prefix match and the
 * aggregates' interval index, and the routes' own counters.
 */
#ifndef _FARE_ROUTE_H
#define _FARE_ROUTE_H

#include "fare.h"
#include "nhg.h"

/*
 * Per-route counters, only for routes that asked for them: per CPU, per
 * slot; slot i counts the next hop to plane plane[i] (the group's next
 * hops when the counters were made; a plane a named group gains later is
 * counted in the group, not the route, until the route is replaced).
 */
struct fare_route_pcpu {
	struct u64_stats_sync syncp;
	u64_stats_t noplane;		/* dropped */
	u64_stats_t fallback;		/* sent by the kernel's normal route */
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
	} nh[];
};

struct fare_route_stats {
	struct rcu_head rcu;
	struct fare_route_pcpu __percpu *pcpu;
	u8 n;
	u8 plane[];
};

/*
 * A route: small (64 bytes), as there may be a million; what it steers by
 * lives in its shared group, and its counters only exist when asked for.
 */
struct fare_route {
	struct rhash_head node;
	union {
		/* fare_net.route_tree, under lock; no RCU reader walks it. */
		struct rb_node tree;
		/* Once unlinked from the tree and the table: its free. */
		struct rcu_head rcu;
	};
	struct fare_prefix key;
	u8 mode;			/* enum fare_mode */
	u8 tcp_mode;			/* of TCP packets; DEFAULT: mode */
	u8 flags;			/* FARE_ROUTE_F_*, for the object's life */
	/* Written under fare_net.lock, read under RCU. */
	struct fare_nhg __rcu *nhg;
};

/* The route is the start of a struct fare_route_ext. */
#define FARE_ROUTE_F_STATS	BIT(0)

/* A route with counters of its own. */
struct fare_route_ext {
	struct fare_route rt;
	/* Written under fare_net.lock, read under RCU; never NULL. */
	struct fare_route_stats __rcu *stats;
};

static inline struct fare_route_ext *fare_route_ext(struct fare_route *rt)
{
	return container_of(rt, struct fare_route_ext, rt);
}

/* The route's counters under RCU, or NULL if it has none. */
static inline struct fare_route_stats *fare_route_stats_rcu(struct fare_route *rt)
{
	if (!(rt->flags & FARE_ROUTE_F_STATS))
		return NULL;
	return rcu_dereference(fare_route_ext(rt)->stats);
}

/*
 * The per-route counters (fare_route.stats), in the packet path: in a
 * header so that KUnit counts with the very code fare0 uses.
 *
 * fare_route_count_tx() counts a packet sent via next hop @idx of @grp in
 * the route's own counters @st; BHs off.
 */
static inline void fare_route_count_tx(struct fare_route_stats *st,
				       struct fare_group *grp, int idx,
				       unsigned int len)
{
	struct fare_route_pcpu *rtx = this_cpu_ptr(st->pcpu);
	u32 plane_id = grp->nh[idx].plane_id;
	unsigned int i = idx;

	if (i >= st->n || st->plane[i] != plane_id) {
		/* The route's named group changed: find the plane's slot. */
		for (i = 0; i < st->n; i++)
			if (st->plane[i] == plane_id)
				break;
		if (i == st->n)
			return;
	}
	u64_stats_update_begin(&rtx->syncp);
	u64_stats_inc(&rtx->nh[i].packets);
	u64_stats_add(&rtx->nh[i].bytes, len);
	u64_stats_update_end(&rtx->syncp);
}

/* Counts a packet of @rt that found no plane, if @rt has counters. */
static inline void fare_route_count_drop(struct fare_route *rt,
					 bool fallback)
{
	struct fare_route_stats *rst = fare_route_stats_rcu(rt);
	struct fare_route_pcpu *rtx;

	if (!rst)
		return;
	rtx = this_cpu_ptr(rst->pcpu);
	u64_stats_update_begin(&rtx->syncp);
	if (fallback)
		u64_stats_inc(&rtx->fallback);
	else
		u64_stats_inc(&rtx->noplane);
	u64_stats_update_end(&rtx->syncp);
}

/*
 * The interval index of one family's aggregates (lpm.h, fare_agg_find()),
 * published under RCU and replaced whole under fare_net.lock whenever an
 * aggregate comes, goes or is replaced; freed after a grace period. The
 * routes it names are the table's own.
 */
struct fare_agg {
	struct rcu_head rcu;
	unsigned int n;			/* intervals */
	unsigned int m;			/* aggregates, in members[] */
	void **rt;			/* n: route of each interval */
	struct fare_route **members;	/* m: every aggregate */
	__uint128_t start[];		/* n: first address of each */
};

/*
 * At most this many aggregates per family are indexed; with more, a
 * lookup probes each length in use instead, until they are down to half
 * this many again.
 */
#define FARE_AGG_MAX		256

/*
 * A route's share of the table's bucket arrays (the rhashtable keeps 4/3
 * to 8/3 buckets of 8 bytes per entry), counted against the budget.
 */
#define FARE_ROUTE_INDEX_BYTES	24

void fare_budget_set(struct fare_budget *b, u64 budget);
void fare_budget_init(struct fare_budget *b, const struct net *net);
void fare_budget_release(struct fare_net *fn);
int fare_table_init(struct fare_net *fn);
void fare_table_destroy(struct fare_net *fn);
int fare_prefix_make(struct fare_prefix *key, u8 family, const void *addr,
		     u8 plen);
struct fare_route *fare_route_find(struct fare_net *fn,
				   const struct fare_prefix *key);
struct fare_route *fare_route_lookup(struct fare_net *fn, u8 family,
				     const void *daddr);
struct fare_route *fare_route_after(struct fare_net *fn,
				    const struct fare_prefix *key);
int fare_route_insert(struct fare_net *fn, struct fare_route *rt);
void fare_route_remove(struct fare_net *fn, struct fare_route *rt);
int fare_route_swap(struct fare_net *fn, struct fare_route *old,
		    struct fare_route *new);
void fare_route_free(struct fare_net *fn, struct fare_route *rt);
struct fare_route *fare_route_alloc(struct fare_route_stats *stats);
struct fare_route_stats *fare_route_stats_locked(struct fare_net *fn,
						 struct fare_route *rt);
int fare_route_set(struct fare_net *fn, struct fare_route *rt,
		   const struct fare_prefix *key, u8 mode, u8 tcp_mode,
		   bool stats,
		   struct fare_nhg *nhg, struct fare_route **rtp,
		   struct netlink_ext_ack *extack);

#if IS_ENABLED(CONFIG_FARE_KUNIT_TEST)
size_t fare_route_bytes(unsigned int stats_nh);
size_t fare_route_held(struct fare_net *fn, struct fare_route *rt);
#endif

#endif /* _FARE_ROUTE_H */
