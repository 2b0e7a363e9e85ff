/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The namespace's flowlet table (struct fare_flowlets below): the
 * packet path's slot accessors, inline, and the writer's side (flowlet.c):
 * making the table, resizing it, checking a requested size.
 */
#ifndef _FARE_FLOWLET_H
#define _FARE_FLOWLET_H

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/stringify.h>
#include <net/netlink.h>
#include "fare.h"

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
 * How far a slot's last_ns may lag its flow's last packet
 * (fare_slot_touch() below): an eighth of the gap.
 */
#define FARE_SLOT_LAG(gap_ns)	((gap_ns) / 8)

/* A slot of a per-packet flowlet holds its tier, not a plane. */
#define FARE_SLOT_TIER		BIT(31)
/*
 * Idle time after which a flow-mode flow of a route with several tiers
 * may be given a tier again (Documentation/datapath.md).
 */
#define FARE_FLOW_TIER_IDLE_NS	NSEC_PER_SEC

/*
 * The flowlet table slot of the flow @hash in the table @ft (read by the
 * caller under RCU: the mask is the table's own), whether it holds a
 * decision younger than @gap_ns, and that decision (@value), read with its
 * owner as one word; the caller then keeps it (by refreshing its last_ns,
 * fare_slot_touch()) or overwrites it with fare_slot_set().
 */
static inline struct fare_flowlet *fare_slot(struct fare_flowlets *ft,
					     u32 hash, u64 now, u64 gap_ns,
					     bool *live, u32 *value)
{
	struct fare_flowlet *fl = &ft->slot[hash & ft->mask];
	u64 owner = atomic64_read(&fl->owner);

	/*
	 * Signed: another CPU's clock may read a little ahead of ours, and
	 * a slot it just refreshed is live, not idle for 584 years.
	 */
	*live = owner >> 32 == hash &&
		(s64)(now - READ_ONCE(fl->last_ns)) <=
		(s64)(gap_ns + FARE_SLOT_LAG(gap_ns));
	*value = (u32)owner;
	return fl;
}

/*
 * Refreshes @fl's time to @now, but writes the shared slot only once its
 * time is FARE_SLOT_LAG(@gap_ns) old: a flow sending packet after packet
 * from several CPUs then writes it once per eighth of the gap, not once
 * per packet. The time may thus lag the flow's last packet by up to that
 * much, which fare_slot() adds to the gap: a flowlet ends after an idle
 * time between the gap and 9/8 of it, never sooner.
 */
static inline void fare_slot_touch(struct fare_flowlet *fl, u64 now,
				   u64 gap_ns)
{
	if ((s64)(now - READ_ONCE(fl->last_ns)) > (s64)FARE_SLOT_LAG(gap_ns))
		WRITE_ONCE(fl->last_ns, now);
}

static inline void fare_slot_set(struct fare_flowlet *fl, u32 hash,
				 u32 value, u64 now)
{
	atomic64_set(&fl->owner, fare_slot_owner(hash, value));
	WRITE_ONCE(fl->last_ns, now);
}

/* What a flowlet table of @slots slots holds (fare_flowlets_alloc()). */
static inline size_t fare_flowlets_bytes(u32 slots)
{
	return sizeof(struct fare_flowlets) +
	       (size_t)slots * sizeof(struct fare_flowlet);
}

/*
 * Whether @slots may be the size of the flowlet table: the genl policy
 * already bounded it to FARE_FLOWLET_SLOTS_MIN..MAX; it must be a power of
 * two, and above FARE_FLOWLET_SLOTS_DEFAULT only a caller with
 * CAP_NET_ADMIN in the initial user namespace (@may_grow) may ask for it.
 */
static inline int fare_flowlet_slots_check(u32 slots, bool may_grow,
					   const struct nlattr *attr,
					   struct netlink_ext_ack *extack)
{
	if (slots < FARE_FLOWLET_SLOTS_MIN || slots > FARE_FLOWLET_SLOTS_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "flowlet table size out of range ("
				    __stringify(FARE_FLOWLET_SLOTS_MIN) ".."
				    __stringify(FARE_FLOWLET_SLOTS_MAX) " slots)");
		return -ERANGE;
	}
	if (!is_power_of_2(slots)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "flowlet table size must be a power of two");
		return -EINVAL;
	}
	if (slots > FARE_FLOWLET_SLOTS_DEFAULT && !may_grow) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a flowlet table above "
				    __stringify(FARE_FLOWLET_SLOTS_DEFAULT)
				    " slots needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	return 0;
}

struct fare_flowlets *fare_flowlets_alloc(u32 slots);
int fare_flowlets_prepare(struct fare_net *fn);
int fare_flowlets_resize(struct fare_net *fn, u32 slots);
void fare_flowlets_destroy(struct fare_net *fn);
#if IS_ENABLED(CONFIG_FARE_KUNIT_TEST)
void fare_flowlets_free(struct fare_flowlets *ft);
#endif

#endif /* _FARE_FLOWLET_H */
