/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fare.ko internals: per-namespace state, planes, routes and next-hop groups.
 *
 * Lifetime and locking, in one place:
 *  - struct fare_net lives as long as its network namespace (pernet ops).
 *  - RTNL serialises writers of the plane table and of the fare device
 *    pointer, so the netdevice notifier (which runs under RTNL) can track
 *    plane devices without another lock.
 *  - fare_net.lock serialises writers of routes and the namespace config.
 *  - The packet path never locks: it reads planes, routes and groups under
 *    RCU. A plane or group is immutable once published except for the
 *    fields marked "READ_ONCE"; a change publishes a new object with
 *    rcu_assign_pointer() and frees the old one after a grace period.
 */
#ifndef _FARE_H
#define _FARE_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rhashtable.h>
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
	bool oper_up;			/* READ_ONCE: set by the notifier */
	struct fare_pcpu_tx __percpu *tx;
};

struct fare_nh {
	u32 plane_id;
	u32 weight;
	u8 tier;
	u64 bandwidth;			/* bytes/s of the path, 0 unknown */
	/*
	 * The virtual queue of the hop (select.h, fare_vq_add()): the time,
	 * ktime_get_mono_fast_ns(), at which it runs empty. Updated per
	 * packet with a compare-and-swap, without a lock, only while the
	 * group has more than one tier and bandwidth is set; copied into the
	 * group that replaces this one for the same plane.
	 */
	atomic64_t vq_vt;
};

/* Per-CPU counters of one group, one entry per next hop. */
struct fare_group_tx {
	struct u64_stats_sync syncp;
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
	} nh[];
};

/*
 * A route's next hops; immutable once published, replaced whole, so the
 * counters and the spray position start afresh with every new set of
 * weights.
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
	size_t spray_size;
	struct fare_group_tx __percpu *tx;
	unsigned int num_nh;
	unsigned int num_tiers;		/* distinct tiers among nh[] */
	u32 weights[FARE_NEXTHOP_MAX];	/* copy of nh[].weight, for selection */
	u8 tiers[FARE_NEXTHOP_MAX];	/* copy of nh[].tier, likewise */
	u8 tier_ord[FARE_NEXTHOP_MAX];	/* rank of nh[].tier among them */
	/* Flow mode: next hop per bucket, over the preferred tier. */
	u8 buckets[FARE_BUCKETS];
	struct fare_nh nh[];
};

/* A route's packets that found no usable plane, per CPU. */
struct fare_route_ctr {
	u64 noplane;			/* dropped */
	u64 fallback;			/* sent by the kernel's normal route */
};

struct fare_route {
	struct rhash_head node;
	struct list_head list;		/* fare_net.route_list, under lock */
	struct rcu_head rcu;
	struct fare_prefix key;
	u64 seq;			/* insertion order: dumps resume by it */
	u8 mode;			/* enum fare_mode */
	struct fare_group __rcu *group;
	struct fare_route_ctr __percpu *ctr;
};

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

static inline u64 fare_slot_owner(u32 hash, u32 value)
{
	return (u64)hash << 32 | value;
}

/* A slot of a per-packet flowlet holds its tier, not a plane. */
#define FARE_SLOT_TIER		BIT(31)
/*
 * Idle time after which a flow-mode flow of a route with several tiers
 * may be given a tier again (Documentation/datapath.md).
 */
#define FARE_FLOW_TIER_IDLE_NS	NSEC_PER_SEC

#define FARE_FLOWLET_BITS 12
#define FARE_FLOWLET_SLOTS BIT(FARE_FLOWLET_BITS)

struct fare_net {
	struct net *net;
	/* Under RTNL: the planes and the fare device. */
	struct fare_plane __rcu *planes[FARE_PLANE_ID_MAX + 1];
	struct net_device __rcu *dev;
	unsigned int num_planes;	/* under RTNL, against max_planes */
	/* Protects the routes and the config below. */
	struct mutex lock;
	struct rhashtable routes;	/* RCU readers, keyed by fare_prefix */
	struct list_head route_list;	/* insertion order, for dumps */
	u64 route_seq;			/* the last fare_route.seq given */
	unsigned int num_routes;	/* checked against max_routes */
	/*
	 * Limits (uapi fare.h): written under the lock, read under it
	 * (routes, next hops) or under RTNL with READ_ONCE (planes).
	 */
	u32 max_routes;
	u32 max_planes;
	u32 max_nexthops;
	/* Routes per (family, prefix length); readers use the bitmaps. */
	unsigned int plen_count[2][FARE_PLEN_SLOTS];
	DECLARE_BITMAP(plens4, FARE_PLEN_SLOTS);
	DECLARE_BITMAP(plens6, FARE_PLEN_SLOTS);
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
	 * Allocated under RTNL before the fare device exists, freed at
	 * namespace exit; FARE_FLOWLET_SLOTS entries.
	 */
	struct fare_flowlet *flowlets;
};

extern unsigned int fare_net_id;

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
int fare_route_insert(struct fare_net *fn, struct fare_route *rt);
void fare_route_remove(struct fare_net *fn, struct fare_route *rt);
void fare_route_free(struct fare_net *fn, struct fare_route *rt);
struct fare_group *fare_group_alloc(unsigned int num_nh);
int fare_group_finish(struct fare_group *grp);
void fare_group_carry_vq(struct fare_group *grp,
			 const struct fare_group *old);
void fare_group_free_rcu(struct fare_group *grp);
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
