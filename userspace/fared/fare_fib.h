// SPDX-License-Identifier: GPL-2.0-only
/*
 * From the RIB's change feed to fare.ko: for each changed prefix, the
 * FARE policy weighs its paths per plane (fare_policy.h), the result is
 * compared with what was last programmed (fib_sync.h), and the
 * differences wait in a batch that fare_fib_flush() hands to libfare
 * once per event-loop iteration, in fib_ops_order()'s order over the
 * whole batch. A plane's session going down makes every prefix it served
 * change in one drain, so that plane leaves every route in one batch.
 *
 * Nothing here opens sockets: the caller passes an apply function
 * (fare_routes_apply() in fared, a recorder in the unit tests).
 *
 * Paths on several planes from one neighbor node (the same AS and BGP
 * Identifier, and the same tier) are that node's parallel links: they
 * share the node's bandwidth (fare_policy.h, draft-xu-idr-fare-05).
 *
 * Equal cost is fare_best.h's multipath set: the paths equal to the best
 * in LOCAL_PREF, AS path length and ORIGIN (RFC 4271 §9.1.2.2 a to c).
 * Per plane one path of that set counts: a plane is one next hop in
 * fare.ko, so a second path from the same plane (an IPv4 and an IPv6
 * session of the same leaf both carrying the prefix, or ADD-PATH's
 * several paths of one session) is listed but not weighed; the plane's
 * path is the one of the lowest tier, then the best by the rest of the
 * decision process (MED, eBGP over iBGP, router id, peer address).
 *
 * Dragonfly+ tiers (cfg->tiers enabled, see tier.h): each path's tier
 * comes from its communities. A prefix with any intra-group path (none
 * of C1, C2, C3) on a plane uses only its intra-group paths, at tier 0
 * (draft §5: intra-group traffic MUST use minimal routing). Per plane
 * the path of the lowest (best) tier counts, the best of them by the
 * decision process on a tie: the plane's next hop gets that tier and that
 * path's FARE weight. Without tiers every path is tier 0, as before.
 */
#ifndef FARED_FARE_FIB_H
#define FARED_FARE_FIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_policy.h"
#include "libfare.h"
#include "rib.h"
#include "tier.h"

/* What fared knows of a RIB peer. */
struct fare_fib_peer {
	unsigned int plane;		/* its fare.ko plane; 0: none */
	uint64_t link_bps;		/* the link to it; 0: unknown */
	bool upstream;			/* a spine's super-spine */
	/* For the decision process (fare_best.h). */
	bool ibgp;
	uint32_t router_id;		/* its BGP Identifier */
	uint8_t addr_family;		/* enum bgp_family of addr */
	uint8_t addr[16];
	/* With router_id, the node behind the link (fare_policy.h). */
	uint32_t remote_as;
};

typedef void (*fare_fib_peer_fn)(void *arg, unsigned int peer,
				 struct fare_fib_peer *out);
/*
 * Per prefix: the mode (enum fare_mode; FARE_MODE_DEFAULT: the netns')
 * and opts->multihomed / multihome_multiply_link.
 */
typedef void (*fare_fib_prefix_fn)(void *arg, const struct bgp_prefix *p,
				   uint8_t *mode, uint8_t *tcp_mode,
				   struct fare_policy_opts *opts);

struct fare_fib_cfg {
	struct fare_ec_cfg ec;
	/*
	 * The node's role and options. A SPINE's prefix whose paths all
	 * come from upstream peers gets the REMOTE_SPINE rules (fare-04
	 * §4.2, S1@PoD-8 receiving from super-spines).
	 */
	struct fare_policy_opts opts;
	fare_fib_peer_fn peer_of;
	fare_fib_prefix_fn prefix_of;	/* NULL: default mode, no n */
	void *arg;
	struct fare_tier_cfg tiers;	/* Dragonfly+; not enabled: tier 0 */
	uint8_t route_stats;		/* FARE_ROUTE_STATS_ON or _OFF */
};

/* One path's fate, for the explanation. */
struct fare_fib_path {
	struct fare_fib_peer peer;
	bool duplicate;			/* its plane already has a path */
	/* Not in the multipath set: worse than the best by longer_by. */
	bool longer;
	uint8_t longer_by;		/* enum fare_best_step, a to c */
	/* Tiers: tiered, and the prefix has intra-group paths: not used. */
	bool minimal_only;
	uint8_t tier;			/* 0..2, or FARE_TIER_INTRA */
	int tier_by;			/* enum fare_tier_comm; -1: none */
	struct fare_path_out out;	/* valid when weighed */
};

static inline bool fare_fib_weighed(const struct fare_fib_path *p)
{
	return p->peer.plane && !p->duplicate && !p->longer &&
	       !p->minimal_only;
}

struct fare_fib_result {
	struct fare_result res;
	enum fare_role role;		/* the rules applied */
	/*
	 * The path whose attributes a transit role passes on, the best of
	 * the weighed paths by the decision process; -1: none.
	 */
	int best;
	bool tiers;			/* Dragonfly+ tiers applied */
	bool intra;			/* ... and intra-group: minimal only */
};

/*
 * The route fare.ko should have for e (want->n_nexthops == 0: none) and,
 * when paths is not NULL, each of e's n_paths paths' fate. Only the paths
 * of the multipath set are equal-cost; with a plane each, they are
 * weighed together. Pure.
 */
void fare_fib_compute(const struct fare_fib_cfg *cfg,
		      const struct rib_entry *e, struct fare_fib_path *paths,
		      struct fare_fib_result *fr, struct fare_route *want);

/*
 * Applies ops in order; returns 0, or an error with *failed its index.
 * Each op holds only its route's next hops (fare_routes_apply_ptrs()).
 */
typedef int (*fare_fib_apply_fn)(void *arg, const struct fare_op *const *ops,
				 size_t n, size_t *failed);

struct fare_fib;

struct fare_fib *fare_fib_new(fare_fib_apply_fn apply, void *apply_arg);
void fare_fib_free(struct fare_fib *fib);
/* The change-feed consumer: queues e's difference, if any. */
int fare_fib_update(struct fare_fib *fib, const struct fare_fib_cfg *cfg,
		    const struct rib_entry *e);

/* The same for a route fare_fib_compute() gave (want). */
int fare_fib_queue(struct fare_fib *fib, const struct fare_route *want);

struct fare_fib_flush_stats {
	size_t ops;			/* sent */
	size_t failed;			/* refused, each logged by the caller */
	size_t calls;			/* apply calls */
};

/*
 * Sends the queued differences, in chunks of at most chunk ops (0: a
 * default), and records what was applied as programmed. An op the kernel
 * refuses is reported through fail (may be NULL) and skipped; the prefix
 * is programmed again when it next changes.
 */
void fare_fib_flush(struct fare_fib *fib, size_t chunk,
		    void (*fail)(void *arg, const struct fare_op *op, int err),
		    void *fail_arg, struct fare_fib_flush_stats *stats);
/*
 * The same for the first max queued prefixes only (in the order they were
 * queued, ordered among themselves): the rest stays queued.
 */
void fare_fib_flush_part(struct fare_fib *fib, size_t chunk, size_t max,
			 void (*fail)(void *arg, const struct fare_op *op,
				      int err),
			 void *fail_arg, struct fare_fib_flush_stats *stats);
size_t fare_fib_pending(const struct fare_fib *fib);

/*
 * A batch applied elsewhere (fared's FIB worker thread, fib_worker.h):
 * fare_fib_take() hands out the ops for the first max queued prefixes
 * (ordered among themselves, as fare_fib_flush_part() would send them),
 * self-contained, so that another thread can apply them while the caller
 * goes on queueing; fare_fib_done() settles them. One batch at a time:
 * while it is out, fare_fib_flush*() and fare_fib_take() send nothing.
 *
 * A prefix in flight may be queued again (changed, withdrawn): fare.ko
 * gets the batch's op first, then, queued, the difference from what the
 * batch did. fare_fib_done(): ops[0..applied-1] were applied (fare.ko has
 * them); with err, ops[applied] was refused (reported through fail, and
 * counted, as by fare_fib_flush()) and the ops after it were not sent:
 * their prefixes are queued again unless queued since.
 */
struct fare_fib_batch {
	/*
	 * n ops, in the order to apply, for fare_routes_apply_ptrs(): each
	 * holds only its route's next hops (FARE_OP_SIZE).
	 */
	const struct fare_op **ops;
	size_t n;
	struct fib_ent **ents;		/* fare_fib's: ops[i]'s prefix */
	void *op_mem;			/* fare_fib's: where the ops are */
};

/* 0 (b->n ops taken; 0 when nothing is to be sent), -ENOMEM. */
int fare_fib_take(struct fare_fib *fib, size_t max, struct fare_fib_batch *b);
void fare_fib_done(struct fare_fib *fib, struct fare_fib_batch *b,
		   size_t applied, int err,
		   void (*fail)(void *arg, const struct fare_op *op, int err),
		   void *fail_arg, struct fare_fib_flush_stats *stats);
/*
 * The batch could not be sent at all: its prefixes are queued again as
 * before the take (a newer want queued since stands). Returns how many
 * could not be, for want of memory: they count as refused.
 */
size_t fare_fib_untake(struct fare_fib *fib, struct fare_fib_batch *b);
/* Prefixes in the batch taken and not yet done. */
size_t fare_fib_inflight(const struct fare_fib *fib);
/* Routes recorded as programmed. */
size_t fare_fib_count(const struct fare_fib *fib);
/* Of them, those of one address family (AF_INET, AF_INET6). */
size_t fare_fib_count_family(const struct fare_fib *fib, int family);

/*
 * Restart (fared.8, RESTART): a route fare.ko already holds, found at
 * start, recorded as programmed and stale. Queueing its prefix later
 * (fare_fib_queue(), even with an equal route, which then sends nothing)
 * clears the mark; fare_fib_sweep() queues the deletion of every route
 * still marked, once the RIB is complete. Returns 1 when adopted, 0 when
 * the prefix was known already or the route has no next hop, -ENOMEM.
 */
int fare_fib_adopt(struct fare_fib *fib, const struct fare_route *r);
/* Queues the deletion of each stale route; returns how many. */
size_t fare_fib_sweep(struct fare_fib *fib);
/* Routes adopted and not yet confirmed or swept. */
size_t fare_fib_stale(const struct fare_fib *fib);
/*
 * Start-up (fare_sync.h): whether dst was queued or programmed by this
 * fared since its start, rather than adopted and not yet confirmed.
 */
bool fare_fib_confirmed(const struct fare_fib *fib,
			const struct fare_prefix *dst);

/* A set of fare.ko planes, 1 to FARE_PLANE_ID_MAX. */
struct fare_plane_set {
	uint64_t bits[(FARE_PLANE_ID_MAX + 64) / 64];
	unsigned int n;			/* planes in it */
};

static inline bool fare_plane_set_has(const struct fare_plane_set *s,
				      unsigned int plane)
{
	return plane && plane <= FARE_PLANE_ID_MAX &&
	       (s->bits[plane / 64] >> (plane % 64) & 1);
}

/* Adds plane (1 to FARE_PLANE_ID_MAX); false when it was there already. */
bool fare_plane_set_add(struct fare_plane_set *s, unsigned int plane);

/*
 * Whether e has a path that is not stale (RFC 4724) from each plane of
 * planes, planes not empty. When each of those planes has one session
 * without ADD-PATH (fared_config_final_planes()), such a prefix has its
 * full path set: whatever comes for it later is an ordinary change.
 */
bool fare_fib_every_plane(const struct fare_fib_cfg *cfg,
			  const struct rib_entry *e,
			  const struct fare_plane_set *planes);

/* The programmed route for dst into *out; false when there is none. */
bool fare_fib_get(const struct fare_fib *fib, const struct fare_prefix *dst,
		  struct fare_route *out);

/* A RIB prefix as a fare.ko prefix. */
void fare_fib_prefix(const struct bgp_prefix *p, struct fare_prefix *out);

/* Enough for FARE_NEXTHOP_MAX next hops as "255:4294967295/t255 ". */
#define FARE_FIB_NEXTHOPS_STRLEN	(FARE_NEXTHOP_MAX * 21)
/*
 * r's next hops as "plane:weight ..." (e.g. "1:2 2:2 3:1"), a tier other
 * than 0 as "/tN" (e.g. "1:2 2:1/t1"); returns buf.
 */
char *fare_fib_nexthops_str(const struct fare_route *r, char *buf, size_t len);

#endif /* FARED_FARE_FIB_H */
