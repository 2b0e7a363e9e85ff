/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fare.ko internals: per-namespace state, planes, routes and next-hop groups.
 *
 * Lifetime and locking, in one place:
 *  - struct fare_net lives as long as its network namespace (pernet ops).
 *  - RTNL serialises writers of the plane table and of the fare device
 *    pointer, so the netdevice notifier (which runs under RTNL) can track
 *    plane devices without another lock.
 *  - fare_net.lock serialises writers of routes, of the shared next-hop
 *    groups (the id xarray, the anonymous groups' hash, each group's
 *    route count and next hops) and of the namespace config.
 *  - The packet path never locks: it reads planes, routes, groups and a
 *    route's counters under RCU (route -> nhg -> grp). A plane or a
 *    group's next hops are immutable once published except for the
 *    fields marked "READ_ONCE"; a change publishes a new object with
 *    rcu_assign_pointer() and frees the old one after a grace period.
 *  - A route holds a reference (fare_nhg.refs, under the lock) on its
 *    group; a named group lives until GROUP_DEL with no route on it, an
 *    anonymous one until its last route lets go.
 */
#ifndef _FARE_H
#define _FARE_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/rhashtable.h>
#include <linux/hashtable.h>
#include <linux/xarray.h>
#include <linux/u64_stats_sync.h>
#include <linux/in6.h>
#include <net/netns/generic.h>
#include <linux/fare.h>

#include "compat/compat.h"
#include "lpm.h"
#include "select.h"

struct fare_pcpu_tx {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

struct fare_plane {
	struct rcu_head rcu;
	u32 id;
	struct net_device *dev;		/* held until the plane is freed */
	netdevice_tracker dev_tracker;
	bool has_gw4;
	bool has_gw6;
	__be32 gw4;
	struct in6_addr gw6;
	/*
	 * FARE_A_PLANE_ADMIN_DOWN (a daemon's failure detection, BFD): the
	 * plane is never oper up. Fixed for the object's life: a change is a
	 * new plane (PLANE_NEW with FARE_A_REPLACE).
	 */
	bool admin_down;
	bool oper_up;			/* READ_ONCE: set by the notifier */
	/*
	 * FARE_PLANE_C_*: which gateways the plane can send to now (none
	 * while it is down); READ_ONCE, written with oper_up.
	 */
	u8 carries;
	/*
	 * The device's qdisc backlog in bytes as last sampled (READ_ONCE),
	 * and when (ktime_get_mono_fast_ns(), 0 never): device.c,
	 * fare_plane_backlog().
	 */
	u64 backlog;
	atomic64_t backlog_at;
	struct fare_pcpu_tx __percpu *tx;
};

/* How old a plane's backlog sample may be before a decision takes anew. */
#define FARE_BACKLOG_SAMPLE_NS	(20 * NSEC_PER_USEC)

#define FARE_PLANE_C_GW4	BIT(0)
#define FARE_PLANE_C_GW6	BIT(1)

struct fare_nh {
	u32 plane_id;
	u32 weight;
	u8 tier;
	u64 bandwidth;			/* bytes/s of the path, 0 unknown */
	/*
	 * The virtual queue of the hop (select.h, fare_vq_add()): the time,
	 * ktime_get_mono_fast_ns(), at which it runs empty. Updated with a
	 * compare-and-swap, without a lock, once per FARE_VQ_BATCH bytes a
	 * CPU sends (device.c, fare_vq_count()), only while the group has
	 * more than one tier and bandwidth is set; copied into the group that
	 * replaces this one for the same plane.
	 */
	atomic64_t vq_vt;
};

/* Per-CPU counters of one group, one entry per next hop. */
struct fare_group_tx {
	struct u64_stats_sync syncp;
	/*
	 * This CPU's last scan of the group's planes (device.c,
	 * fare_group_up()): the next hops whose plane carried what @up_carry
	 * asks while fare_net.plane_gen was @up_gen.
	 */
	u64 up;
	u32 up_gen;
	u8 up_carry;
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
		/* Bytes not yet in the hop's virtual queue (fare_vq_count). */
		u32 vq_pending;
	} nh[];
};

/* Bytes a CPU gathers before it adds them to a virtual queue. */
#define FARE_VQ_BATCH		16384

/*
 * The next hops of a group; immutable once published, replaced whole, so
 * the counters and the spray position start afresh with every new set of
 * weights. Sized to its next hops: nh[] is followed, in the same
 * allocation, by the num_nh deficit baselines, weights, tiers and tier
 * ranks that deficit.sent, weights, tiers and tier_ord point to.
 */
struct fare_group {
	struct rcu_head rcu;
	/*
	 * Per-packet schedule state: num_tiers states of spray_size bytes
	 * each, one per distinct tier (tier_ord[] maps a hop to its
	 * tier's state), so that flowlets on different tiers do not restart
	 * each other's schedule.
	 */
	void __percpu *spray;
	/*
	 * Per tier rank, the precomputed period of its schedule (select.h,
	 * fare_sched_build()) over all its next hops, if short enough
	 * (len 0 otherwise): seq[off..off + len). One allocation, made by
	 * fare_group_finish().
	 */
	struct fare_sched {
		u64 members;
		u16 off;
		u16 len;
	} *sched;
	u8 *seq;
	struct fare_group_tx __percpu *tx;
	u32 spray_size;
	u8 num_nh;
	u8 num_tiers;			/* distinct tiers among nh[] */
	u32 *weights;			/* copy of nh[].weight, for selection */
	u8 *tiers;			/* copy of nh[].tier, likewise */
	u8 *tier_ord;			/* rank of nh[].tier among them */
	/*
	 * Where a new flowlet's byte deficit counts from (select.h,
	 * fare_deficit_pick_since()): each next hop's bytes when the
	 * namespace's planes last changed, taken by the first decision that
	 * sees a new fare_net.plane_gen; lock-free, READ_ONCE/WRITE_ONCE.
	 * Its sent[] follows nh[] in the group's allocation.
	 */
	struct fare_deficit_base deficit;
	/* Flow mode: next hop per bucket, over the preferred tier. */
	u8 buckets[FARE_BUCKETS];
	struct fare_nh nh[];
};

/*
 * A shared next-hop group: what routes point to. Its next hops (@grp) are
 * replaced whole under fare_net.lock, so a change reaches every route that
 * uses the group at once. Named groups (id <= FARE_GROUP_ID_MAX) live until
 * GROUP_DEL, which needs @refs to be 0; anonymous ones (from routes given
 * their next hops inline) are found by content in fare_net.nhg_anon and
 * freed when their last route lets go. Freed after a grace period.
 */
struct fare_nhg {
	struct fare_group __rcu *grp;
	u32 id;				/* key in fare_net.nhgs */
	u32 hash;			/* of the content, anonymous only */
	unsigned int refs;		/* routes using it, under the lock */
	struct hlist_node anon;		/* in fare_net.nhg_anon, under it */
	struct rcu_head rcu;
};

static inline bool fare_nhg_anon(const struct fare_nhg *nhg)
{
	return nhg->id > FARE_GROUP_ID_MAX;
}

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
 * A per-packet pick among @usable next hops of @grp, by the schedule of
 * the tier of rank @ord on this CPU: the precomputed period while every
 * next hop of the tier is usable, else the computed schedule. BHs off.
 */
static inline int fare_group_spray_pick(struct fare_group *grp,
					unsigned int ord, u64 usable)
{
	struct fare_spray *st = (struct fare_spray *)
		((char *)this_cpu_ptr(grp->spray) + ord * grp->spray_size);
	const struct fare_sched *sc = &grp->sched[ord];

	return fare_sched_pick(grp->seq + sc->off, sc->len, sc->members,
			       grp->weights, st, usable, grp->num_nh);
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

struct fare_pcpu_net {
	struct u64_stats_sync syncp;
	u64_stats_t noroute;
	u64_stats_t noplane;
	u64_stats_t fallback;
	u64_stats_t error;
	/* Per tier; a tier above FARE_TIER_MAX counts in the last. */
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
		u64_stats_t spills;	/* decisions that spilled to it */
	} tier[FARE_TIER_MAX + 1];
};

/*
 * One slot of the namespace's flowlet table, indexed by the flow hash. A
 * TCP flow sends from several CPUs, so the table is shared, not per CPU.
 * The owner's hash and its decision are one word, read and written whole
 * (fare_slot_owner()), so a flow never sees another flow's decision; the
 * time is a word of its own, and a tear between the two costs at most one
 * early or late re-pick.
 */
struct fare_flowlet {
	atomic64_t owner;		/* hash << 32 | plane or tier */
	u64 last_ns;			/* last packet, monotonic ns */
};

/*
 * The flowlet table: its mask and its slots in one small object, published
 * under RCU in fare_net.flowlets, so that a reader always indexes a slot
 * array with that array's own mask. The slots are an allocation of their
 * own, of exactly 16 bytes a slot (a power of two, so no allocator rounds
 * it up). A resize (flowlet.c) publishes a new, empty table and frees the
 * old one after a grace period: every flowlet in progress then starts anew.
 */
struct fare_flowlets {
	u32 mask;			/* slots - 1 */
	struct fare_flowlet *slot;	/* mask + 1 slots */
	struct rcu_head rcu;
};

static inline u64 fare_slot_owner(u32 hash, u32 value)
{
	return (u64)hash << 32 | value;
}

/*
 * How far a slot's last_ns may lag its flow's last packet (device.c,
 * fare_slot_touch()): an eighth of the gap.
 */
#define FARE_SLOT_LAG(gap_ns)	((gap_ns) / 8)

/* A slot of a per-packet flowlet holds its tier, not a plane. */
#define FARE_SLOT_TIER		BIT(31)
/*
 * Idle time after which a flow-mode flow of a route with several tiers
 * may be given a tier again (Documentation/datapath.md).
 */
#define FARE_FLOW_TIER_IDLE_NS	NSEC_PER_SEC

#define FARE_NHG_ANON_BITS 10

struct fare_net {
	struct net *net;
	/* Under RTNL: the planes and the fare device. */
	struct fare_plane __rcu *planes[FARE_PLANE_ID_MAX + 1];
	struct net_device __rcu *dev;
	/*
	 * Under RTNL: the MTU an admin gave the fare device below its
	 * planes' smallest (0: none, it follows the planes), and whether
	 * fare_dev_sync() is the one changing it.
	 */
	unsigned int dev_mtu_admin;
	bool dev_mtu_syncing;
	/* Under RTNL, against max_planes; READ_ONCE by config dumps. */
	unsigned int num_planes;
	/*
	 * Bumped (under RTNL, store-release) after every change of the
	 * planes or of what one carries; see fare_group_up().
	 */
	u32 plane_gen;
	/* Protects the routes and the config below. */
	struct mutex lock;
	struct rhashtable routes;	/* RCU readers, keyed by fare_prefix */
	struct rb_root route_tree;	/* by key, for dumps */
	/*
	 * Bumped, never to 0, by every change of the routes or groups, for
	 * dumps' NLM_F_DUMP_INTR (fare_dump_gen_bump()).
	 */
	u32 dump_gen;
	unsigned int num_routes;	/* checked against max_routes */
	/*
	 * Limits (uapi fare.h): written under the lock, read under it
	 * (routes, next hops) or under RTNL with READ_ONCE (planes).
	 */
	u32 max_routes;
	u32 max_planes;
	u32 max_nexthops;
	u32 max_groups;
	/*
	 * Next-hop groups, under the lock: by id (named and anonymous), and
	 * the anonymous ones by a hash of their content.
	 */
	struct xarray nhgs;
	u32 nhg_next;			/* next anonymous id to try */
	unsigned int num_groups;	/* checked against max_groups */
	DECLARE_HASHTABLE(nhg_anon, FARE_NHG_ANON_BITS);
	bool route_stats;		/* default of FARE_A_ROUTE_STATS */
	/* Routes per (family, prefix length); readers use the bitmaps. */
	unsigned int plen_count[2][FARE_PLEN_SLOTS];
	DECLARE_BITMAP(plens4, FARE_PLEN_SLOTS);
	DECLARE_BITMAP(plens6, FARE_PLEN_SLOTS);
	/* Routes shorter than a host route, and their index or NULL. */
	unsigned int num_agg[2];
	struct fare_agg __rcu *agg[2];
	u8 default_mode;		/* READ_ONCE in the packet path */
	u32 flowlet_us;
	u32 hash_seed;			/* READ_ONCE in the packet path */
	/*
	 * Tier spill-over: hop count per tier and bias. Written under the
	 * lock, read with READ_ONCE by the packet path, which may see a mix
	 * of the old and new hop counts during a set: a few decisions by
	 * either, harmless.
	 */
	u8 tier_hops[FARE_TIER_MAX + 1];
	u8 n_tier_hops;			/* 1..FARE_TIER_MAX + 1 */
	u32 spill_bias;			/* bytes */
	struct fare_pcpu_net __percpu *stats;
	/*
	 * The flowlet table's size (FARE_A_CONFIG_FLOWLET_SLOTS) and the
	 * table, both written under the lock. The table is made (with RTNL
	 * held too) before the fare device exists, so a transmitting device
	 * always finds one; it is replaced whole on a resize and freed at
	 * namespace exit. Readers: rcu_dereference(), then mask and slots
	 * from the same object.
	 */
	u32 flowlet_slots;
	struct fare_flowlets __rcu *flowlets;
};

extern unsigned int fare_net_id;

/*
 * After a change of the routes or groups, under fare_net.lock: a dump
 * that spans it is marked NLM_F_DUMP_INTR. Never 0, which to netlink
 * means "no generation".
 */
static inline void fare_dump_gen_bump(struct fare_net *fn)
{
	lockdep_assert_held(&fn->lock);
	if (!++fn->dump_gen)
		fn->dump_gen = 1;
}

/*
 * netdev_alloc_pcpu_stats(), charged to the caller's memory cgroup: for
 * the per-CPU counters a netlink request makes the kernel allocate.
 */
#define fare_alloc_pcpu_stats(type)					\
({									\
	typeof(type) __percpu *__s;					\
	unsigned int __cpu;						\
									\
	__s = __alloc_percpu_gfp(sizeof(type), __alignof__(type),	\
				 GFP_KERNEL_ACCOUNT);			\
	if (__s)							\
		for_each_possible_cpu(__cpu)				\
			u64_stats_init(&per_cpu_ptr(__s, __cpu)->syncp);\
	__s;								\
})

static inline struct fare_net *fare_pernet(const struct net *net)
{
	return net_generic(net, fare_net_id);
}

/* table.c */
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
struct fare_group *fare_group_alloc(unsigned int num_nh);
bool fare_group_same(const struct fare_group *a, const struct fare_group *b);
struct fare_nhg *fare_nhg_find(struct fare_net *fn, u32 id);
int fare_nhg_get_anon(struct fare_net *fn, struct fare_group *grp,
		      const struct fare_group *prev, unsigned int slack,
		      struct fare_nhg **nhgp, struct netlink_ext_ack *extack);
int fare_nhg_set(struct fare_net *fn, u32 id, struct fare_group *grp,
		 bool replace, struct fare_nhg **nhgp,
		 struct netlink_ext_ack *extack);
struct fare_nhg *fare_nhg_deletable(struct fare_net *fn, u32 id,
				    struct netlink_ext_ack *extack);
void fare_nhg_remove(struct fare_net *fn, struct fare_nhg *nhg);
int fare_nhg_del(struct fare_net *fn, u32 id, struct netlink_ext_ack *extack);
void fare_nhg_put(struct fare_net *fn, struct fare_nhg *nhg);
struct fare_route_stats *fare_route_stats_alloc(const struct fare_group *grp);
void fare_route_stats_free_rcu(struct fare_route_stats *st);
void fare_route_stats_read(struct fare_route_stats *st, u32 plane_id,
			   u64 *packets, u64 *bytes);
void fare_route_stats_drops(struct fare_route_stats *st, u64 *noplane,
			    u64 *fallback);
int fare_group_finish(struct fare_group *grp);
void fare_group_carry_vq(struct fare_group *grp,
			 const struct fare_group *old);
void fare_group_free_rcu(struct fare_group *grp);
void fare_group_discard(struct fare_group *grp);
void fare_group_set_buckets(struct fare_group *grp,
			    const struct fare_group *old);
void fare_group_nh_tx(struct fare_group *grp, unsigned int i, u64 *packets,
		      u64 *bytes);
struct fare_plane *fare_plane_get_rcu(struct fare_net *fn, u32 id);
void fare_plane_free_rcu(struct fare_plane *plane);

/* device.c */
extern struct rtnl_link_ops fare_link_ops;
int fare_dev_ensure(struct fare_net *fn, struct netlink_ext_ack *extack);
void fare_plane_update_oper(struct fare_plane *plane);
void fare_dev_sync(struct fare_net *fn);
int fare_notifier_register(void);
void fare_notifier_unregister(void);

/* netlink.c */
int fare_genl_register(void);
void fare_genl_unregister(void);
void fare_nl_notify_plane(struct fare_net *fn, u8 cmd,
			  struct fare_plane *plane);

#endif /* _FARE_H */
