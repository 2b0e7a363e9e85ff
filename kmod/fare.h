/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fare.ko internals: the state of one fare device (struct fare_net, in
 * its netdev_priv) and what a namespace shares between its fare devices
 * (struct fare_ns, pernet). The objects a device holds have a header
 * each: plane.h, route.h, nhg.h, flowlet.h, stats.h; device.h, decide.h
 * and xmit.h are the fare device and its packet path; netlink.h and nl.h
 * the generic netlink family.
 *
 * Lifetime and locking, in one place:
 *  - struct fare_net is a fare device's private part: made by its
 *    ndo_init, its planes dropped by its ndo_uninit, the rest freed by
 *    its priv_destructor after the device's last reference
 *    (fare_dev_state_init(), device.c). A netlink request holds a
 *    reference on the device it works on.
 *  - struct fare_ns lives as long as its network namespace (pernet ops)
 *    and holds only the list of the namespace's fare devices and the
 *    memory budget they share, so that a tenant does not get more memory
 *    by making more devices.
 *  - RTNL serialises writers of each device's plane table and of the
 *    namespace's device list, so the netdevice notifier (which runs under
 *    RTNL) can track plane devices without another lock.
 *  - fare_net.lock serialises writers of a device's routes, of its shared
 *    next-hop groups (the id xarray, the anonymous groups' hash, each
 *    group's route count and next hops) and of its config.
 *  - fare_budget.lock, taken inside fare_net.lock, protects the
 *    namespace's budget and what it counts as used.
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
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/in6.h>
#include <net/netns/generic.h>
#include <linux/fare.h>

#include "compat/compat.h"
#include "limits.h"
#include "lpm.h"
#include "select.h"

struct fare_plane;
struct fare_agg;
struct fare_pcpu_net;
struct fare_flowlets;

/*
 * The memory budget of a namespace (uapi fare.h), shared by its fare
 * devices: the bytes their routes, counters and groups hold (limits.h,
 * fare_mem_charge()). msg is the refusal's extack text for limit,
 * rewritten with it (the ack that carries it is sent after the lock is
 * dropped, so it is never freed before the namespace and its last byte
 * stays 0).
 */
struct fare_budget {
	spinlock_t lock;	/* protects limit, used and msg */
	u64 limit;
	u64 used;
	char msg[FARE_MEM_MSG_LEN];
};

/* What a namespace's fare devices share: net_generic(net, fare_net_id). */
struct fare_ns {
	/*
	 * The namespace's fare devices (fare_net.list): changed under RTNL,
	 * read under RTNL or RCU (the neighbour events).
	 */
	struct list_head devs;
	struct fare_budget budget;
};

struct fare_net {
	struct net *net;
	/* The fare device this is the private part of; fixed. */
	struct net_device *dev;
	/* In fare_ns.devs, under RTNL (RCU readers). */
	struct list_head list;
	/* The namespace's budget, and the bytes this device holds of it. */
	struct fare_budget *budget;
	u64 mem_held;		/* under fare_budget.lock */
	/*
	 * What every packet reads (xmit.c, decide.c, the route lookup), up
	 * to the first line of @routes: written only when a plane, the
	 * configuration, a prefix length or an aggregate changes. What
	 * control operations write for every route or event (the lock,
	 * counts, the routes' element count) comes after it, so that those
	 * writes never take a line the packet path reads from other CPUs
	 * (the private area of a net_device starts a cache line).
	 */
	/* Under RTNL: the planes. */
	struct fare_plane __rcu *planes[FARE_PLANE_ID_MAX + 1]
		____cacheline_aligned_in_smp;
	/*
	 * Bumped (fare_planes_bump(): atomic, release) after every change
	 * of the planes or of what one carries, under RTNL or by the
	 * neighbour events (neigh.c); see fare_group_up().
	 */
	atomic_t plane_gen;
	u8 use_neigh;		/* FARE_A_CONFIG_USE_NEIGH, READ_ONCE */
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
	 * table, both written under the lock. The table is made by the
	 * device's ndo_init, so a transmitting device always finds one; it
	 * is replaced whole on a resize and freed with the device. Readers:
	 * rcu_dereference(), then mask and slots from the same object.
	 */
	u32 flowlet_slots;
	struct fare_flowlets __rcu *flowlets;
	/* Set when a route of that (family, prefix length) exists. */
	DECLARE_BITMAP(plens4, FARE_PLEN_SLOTS);
	DECLARE_BITMAP(plens6, FARE_PLEN_SLOTS);
	/* The index of the routes shorter than a host route, or NULL. */
	struct fare_agg __rcu *agg[2];
	/*
	 * Keyed by fare_prefix; RCU readers. A lookup reads its first line
	 * (the bucket table, the parameters), writers also the rest.
	 */
	struct rhashtable routes ____cacheline_aligned_in_smp;
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
	 * Gateway neighbours (neigh.c). gw_lock (BHs off) protects each
	 * plane's gw_failed and gw_fails and gw_exiting, and serialises the
	 * neighbour events so the last reads the entry's last state;
	 * gw_exiting stops gw_probe and gw_notify_work being queued again
	 * when the device goes; gw_notify holds the ids of the planes whose
	 * gw_failed changed since gw_notify_work last announced them.
	 */
	spinlock_t gw_lock;
	bool gw_exiting;
	struct delayed_work gw_probe;
	DECLARE_BITMAP(gw_notify, FARE_PLANE_ID_MAX + 1);
	struct work_struct gw_notify_work;
	/*
	 * Protects the routes, the groups and the configuration (the
	 * packet path's fields above are written under it).
	 */
	struct mutex lock;
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
	 * the anonymous ones by a hash of their content seeded with
	 * nhg_seed (random per namespace, so that nobody can aim many
	 * groups at one hash), in a table that grows with them.
	 */
	struct xarray nhgs;
	u32 nhg_next;			/* next anonymous id to try */
	unsigned int num_groups;	/* checked against max_groups */
	u32 nhg_seed;
	struct rhltable nhg_anon;
	bool route_stats;		/* default of FARE_A_ROUTE_STATS */
	/* Routes per (family, prefix length), behind plens4 and plens6. */
	unsigned int plen_count[2][FARE_PLEN_SLOTS];
	/* Routes shorter than a host route, behind agg[]. */
	unsigned int num_agg[2];
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

static inline struct fare_ns *fare_ns(const struct net *net)
{
	return net_generic(net, fare_net_id);
}

/* The state of fare device @dev. */
static inline struct fare_net *fare_dev_state(const struct net_device *dev)
{
	return netdev_priv(dev);
}

/*
 * Charges @bytes to @fn's namespace budget when @credit charged bytes are
 * about to be released (fare_mem_charge()); under @fn's lock.
 */
static inline int fare_budget_charge(struct fare_net *fn, size_t bytes,
				     size_t credit,
				     struct netlink_ext_ack *extack)
{
	struct fare_budget *b = fn->budget;
	int err;

	lockdep_assert_held(&fn->lock);
	spin_lock(&b->lock);
	err = fare_mem_charge(&b->used, b->limit, bytes, credit, b->msg,
			      extack);
	if (!err)
		fn->mem_held += bytes;
	spin_unlock(&b->lock);
	return err;
}

/* Whether @bytes more (@credit less) would fit; under @fn's lock. */
static inline int fare_budget_check(struct fare_net *fn, size_t bytes,
				    size_t credit,
				    struct netlink_ext_ack *extack)
{
	struct fare_budget *b = fn->budget;
	u64 used;
	int err;

	spin_lock(&b->lock);
	used = b->used;
	err = fare_mem_charge(&used, b->limit, bytes, credit, b->msg, extack);
	spin_unlock(&b->lock);
	return err;
}

/* Releases @bytes charged by fare_budget_charge(); under @fn's lock. */
static inline void fare_budget_uncharge(struct fare_net *fn, size_t bytes)
{
	struct fare_budget *b = fn->budget;

	spin_lock(&b->lock);
	fare_mem_uncharge(&fn->mem_held, bytes);
	fare_mem_uncharge(&b->used, bytes);
	spin_unlock(&b->lock);
}

/*
 * After a change of the planes or of what one carries: every CPU scans the
 * planes again (decide.c, fare_group_up()'s acquire sees the change).
 */
static inline void fare_planes_bump(struct fare_net *fn)
{
	atomic_inc_return_release(&fn->plane_gen);
}

#endif /* _FARE_H */
