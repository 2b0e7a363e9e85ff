/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Next-hop groups (nhg.c): the next hops a route steers by, shared by
 * content (anonymous) or by id (named), replaced whole under fare_net.lock.
 */
#ifndef _FARE_NHG_H
#define _FARE_NHG_H

#include "fare.h"

struct fare_nh {
	u32 plane_id;
	u32 weight;
	u8 tier;
	u64 bandwidth;			/* bytes/s of the path, 0 unknown */
};

/* Per-CPU counters of one group, one entry per next hop. */
struct fare_group_tx {
	struct u64_stats_sync syncp;
	/*
	 * This CPU's last scan of the group's planes (decide.c,
	 * fare_group_up()): the next hops whose plane carried what @up_carry
	 * asks while fare_net.plane_gen was @up_gen.
	 */
	u64 up;
	u32 up_gen;
	u8 up_carry;
	/*
	 * Where this CPU's byte deficit for a new flowlet counts from
	 * (select.h, fare_deficit_pick_since()): this CPU's bytes per next
	 * hop when it first saw the planes' generation @deficit.gen. Its
	 * sent[] follows nh[] in this CPU's allocation
	 * (fare_group_tx_size()). A CPU balances its own bytes, reading no
	 * line another CPU writes; the CPUs' sums are then balanced too.
	 */
	struct fare_deficit_base deficit;
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
		/* Bytes not yet in the hop's virtual queue (fare_vq_count). */
		u32 vq_pending;
	} nh[];
};

/* A CPU's fare_group_tx of @num_nh next hops and its deficit baselines. */
static inline size_t fare_group_tx_size(unsigned int num_nh)
{
	return struct_size_t(struct fare_group_tx, nh, num_nh) +
	       num_nh * sizeof(u64);
}

/* Bytes a CPU gathers before it adds them to a virtual queue. */
#define FARE_VQ_BATCH		16384

/*
 * The next hops of a group; immutable once published, replaced whole, so
 * the counters and the spray position start afresh with every new set of
 * weights. Sized to its next hops: nh[] is followed, in the same
 * allocation, by the num_nh weights, tiers and tier ranks that weights,
 * tiers and tier_ord point to. Nothing in it is written once it is
 * published: what packets write (counters, spray and deficit state,
 * virtual queues) is per CPU or in lines of its own.
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
	 * With more than one tier, each next hop's virtual queue (select.h,
	 * fare_vq_add()): the time, ktime_get_mono_fast_ns(), at which it
	 * runs empty, num_nh of them. Updated with a compare-and-swap,
	 * without a lock, once per FARE_VQ_BATCH bytes a CPU sends (xmit.c,
	 * fare_vq_count()) while bandwidth is set; copied into the group that
	 * replaces this one for the same plane. An allocation of its own,
	 * whole cache lines (fare_group_vq_bytes()), so those writes never
	 * touch a line that every packet reads. NULL with one tier.
	 */
	atomic64_t *vq;
	/*
	 * Bytes charged to the namespace's memory budget for the group and
	 * its fare_nhg (nhg.c, fare_group_bytes()); 0 until charged.
	 */
	size_t mem;
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
	struct rhlist_head anon;	/* in fare_net.nhg_anon, under it */
	struct rcu_head rcu;
};

/*
 * A group's share of the id index (an xarray node of 64 slots, about 9
 * bytes a slot) and of the anonymous groups' table (4/3 to 8/3 buckets of
 * 8 bytes each), counted with it.
 */
#define FARE_NHG_INDEX_BYTES	32

static inline bool fare_nhg_anon(const struct fare_nhg *nhg)
{
	return nhg->id > FARE_GROUP_ID_MAX;
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

int fare_nhgs_init(struct fare_net *fn);
void fare_nhgs_destroy(struct fare_net *fn);
struct fare_group *fare_group_alloc(unsigned int num_nh);
bool fare_group_same(const struct fare_group *a, const struct fare_group *b);
int fare_group_finish(struct fare_group *grp);
void fare_group_carry_vq(struct fare_group *grp,
			 const struct fare_group *old);
void fare_group_free_rcu(struct fare_group *grp);
void fare_group_discard(struct fare_group *grp);
void fare_group_set_buckets(struct fare_group *grp,
			    const struct fare_group *old);
void fare_group_nh_tx(struct fare_group *grp, unsigned int i, u64 *packets,
		      u64 *bytes);
struct fare_nhg *fare_nhg_find(struct fare_net *fn, u32 id);
int fare_nhg_get_anon(struct fare_net *fn, struct fare_group *grp,
		      const struct fare_group *prev, unsigned int slack,
		      size_t credit, struct fare_nhg **nhgp,
		      struct netlink_ext_ack *extack);
size_t fare_nhg_bytes(struct fare_net *fn, struct fare_nhg *nhg);
int fare_nhg_set(struct fare_net *fn, u32 id, struct fare_group *grp,
		 bool replace, struct fare_nhg **nhgp,
		 struct netlink_ext_ack *extack);
struct fare_nhg *fare_nhg_deletable(struct fare_net *fn, u32 id,
				    struct netlink_ext_ack *extack);
void fare_nhg_remove(struct fare_net *fn, struct fare_nhg *nhg);
int fare_nhg_del(struct fare_net *fn, u32 id, struct netlink_ext_ack *extack);
void fare_nhg_put(struct fare_net *fn, struct fare_nhg *nhg);

#endif /* _FARE_NHG_H */
