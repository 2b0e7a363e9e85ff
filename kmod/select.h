/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Weighted next-hop selection, free of kernel objects so that the same
 * code runs in fare.ko, in KUnit and in userspace unit tests/benchmarks.
 */
#ifndef _FARE_SELECT_H
#define _FARE_SELECT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "fare_shim.h"
#endif

/*
 * Per-packet spray state of one route on one CPU. A period is W picks,
 * W being the sum of the usable weights; the state restarts at each period
 * and whenever the usable set changes.
 */
struct fare_spray {
	u64 usable;		/* the set the period was built for */
	u64 picks;		/* picks so far in this period */
	u32 cursor;		/* next pick in a precomputed period */
	u64 count[];		/* picks per entry in this period */
};

/*
 * Tijdeman's "chairman assignment" schedule: among the entries whose next
 * pick is already due, take the one whose deadline comes first. With k
 * usable entries, after every pick n of a period each entry's count c_i
 * satisfies |c_i - n * w_i / W| <= 1 - 1 / (2k - 2) < 1, for exact u32
 * weights (nothing is scaled or rounded), and a period ends with every
 * count equal to its weight. Smooth weighted round-robin, the usual
 * choice, strays slightly beyond one pick for some weight vectors.
 *
 * Returns the chosen index, or -1 when @usable has no entry.
 */
int fare_spray_pick(const u32 *weights, struct fare_spray *st, u64 usable,
		    unsigned int n);

/*
 * The same schedule precomputed: one period of fare_spray_pick()'s picks
 * over the entries of @members, for their weights divided by their
 * greatest common divisor (the picks of that period, repeated, are the
 * picks fare_spray_pick() makes for the weights themselves, so the bound
 * above holds unchanged). Writes the entry of each pick to @seq and
 * returns the period's length, or 0 if it would exceed @max picks (the
 * caller then sprays with fare_spray_pick()). @scratch is a spray state of
 * @n counts and @w room for @n weights, both the caller's.
 */
unsigned int fare_sched_build(u8 *seq, unsigned int max, const u32 *weights,
			      u64 members, unsigned int n, u32 *w,
			      struct fare_spray *scratch);

/* Periods longer than this are not precomputed. */
#define FARE_SCHED_MAX		1024

/*
 * A per-packet pick: from @seq, the precomputed period of @len picks over
 * @members (fare_sched_build()), while every one of them is usable, at
 * @st's cursor; otherwise, or without a period (@len 0), by
 * fare_spray_pick() over @usable with @st. The cursor and the state of
 * fare_spray_pick() are apart, so the period resumes where it was once
 * the missing entries are back.
 */
static inline int fare_sched_pick(const u8 *seq, unsigned int len,
				  u64 members, const u32 *weights,
				  struct fare_spray *st, u64 usable,
				  unsigned int n)
{
	unsigned int c = st->cursor;

	if (len && usable == members) {
		if (c >= len)
			c = 0;
		st->cursor = c + 1 < len ? c + 1 : 0;
		return seq[c];
	}
	return fare_spray_pick(weights, st, usable, n);
}

/*
 * Byte-deficit selection for a new flowlet: picks the usable entry that is
 * furthest behind its target share of the bytes sent so far, i.e. the
 * largest sum(sent) * w_i / W - sent_i. Flowlet sizes are unknown and
 * heavy-tailed, so shares are kept in bytes, not in flowlets. Ties go to
 * the lowest index. Returns the chosen index, or -1 when @usable has no
 * entry.
 */
int fare_deficit_pick(const u32 *weights, const u64 *sent, u64 usable,
		      unsigned int n);

/*
 * Where a byte deficit counts from: each entry's bytes when the usable set
 * last changed (@sent, one per entry) and a generation naming that set
 * (@gen). fare.ko keeps one per group and CPU, over that CPU's bytes
 * (struct fare_group_tx), so only that CPU reads or writes it.
 */
struct fare_deficit_base {
	u32 gen;
	u64 *sent;
};

/*
 * fare_deficit_pick() over the bytes each entry sent since @base, not over
 * the group's whole life: a plane that returns after an outage is owed
 * only what flowlets still in flight send after its return, not everything
 * the others sent while it was away. @gen names the current usable set and
 * must change whenever that set may have (a plane leaves or returns); when
 * it is not @base->gen, every entry's total becomes the new baseline
 * first. @sent holds every entry's bytes over the group's whole life (on
 * one CPU, in fare.ko) and is left holding, for the entries of @usable,
 * the bytes since the baseline (0 where a total is below it).
 */
int fare_deficit_pick_since(const u32 *weights, u64 *sent,
			    struct fare_deficit_base *base, u32 gen,
			    u64 usable, unsigned int n);

/*
 * A flow's hash for the flow buckets and hash-threshold: @hash (the skb's
 * flow hash) mixed with the namespace's @seed by murmur3's 32-bit
 * finalizer, a bijection in which every output bit depends on every input
 * bit, so hosts with different seeds place the same flows independently.
 */
static inline u32 fare_flow_hash(u32 hash, u32 seed)
{
	hash ^= seed;
	hash ^= hash >> 16;
	hash *= 0x85ebca6b;
	hash ^= hash >> 13;
	hash *= 0xc2b2ae35;
	hash ^= hash >> 16;
	return hash;
}

/*
 * Hash-threshold selection over the usable entries: maps @hash onto the
 * cumulative weights, as the kernel's multipath routes do. Returns the
 * chosen index, or -1 when @usable has no entry.
 */
int fare_hash_pick(const u32 *weights, u64 usable, unsigned int n, u32 hash);

/*
 * The entries traffic may use: those of @up (usable planes) in the lowest
 * tier that has one; 0 if none. A higher tier takes traffic only when
 * every entry of each lower tier is down, or when fare_tier_spill() sends
 * a new flowlet there.
 */
u64 fare_tier_usable(const u8 *tiers, u64 up, unsigned int n);

/*
 * Tier spill-over, UGAL-L (Documentation/datapath.md, "Tier spill-over").
 * @q[i] is entry i's congestion in bytes (only read for entries of @up),
 * @hops[] the hop count H of tiers 0..@n_hops - 1 (a higher tier counts as
 * the last; @n_hops >= 1) and @bias the bias T in bytes. A tier's q is the
 * mean q of its entries in @up. Starting from the lowest tier t with an
 * entry in @up, the choice moves to the next higher tier u with one when
 * q_t * H_t > q_u * H_u + T, and goes on from u. Returns the entries of
 * @up in the chosen tier (0 if @up is empty); *@spilled tells whether that
 * tier is above the lowest one.
 */
u64 fare_tier_spill(const u8 *tiers, u64 up, const u64 *q, unsigned int n,
		    const u8 *hops, unsigned int n_hops, u32 bias,
		    bool *spilled);

/*
 * A next hop's virtual ("phantom") queue: the bytes sent to it that a path
 * of @rate bytes per second would still hold. It is kept as the virtual
 * time at which that queue runs empty, @vt (ns, the clock of @now), so a
 * packet's update is one compare-and-swap: the queue at @now is
 * (vt - now) * rate / 1 s when vt > now, else 0; a packet of @len bytes
 * moves vt to max(vt, now) + len / rate, and vt never goes beyond
 * now + FARE_VQ_CAP_NS, so the queue holds at most 1 s of the rate.
 * @rate must not be 0.
 */
#define FARE_VQ_CAP_NS	1000000000ULL

u64 fare_vq_add(u64 vt, u64 now, u64 rate, u32 len);
u64 fare_vq_backlog(u64 vt, u64 now, u64 rate);

/*
 * Resilient flow buckets. A group holds FARE_BUCKETS buckets, each naming
 * one entry; a flow's hash picks a bucket. Entry i of the member set owns
 * exactly q_i buckets, its quota: B * w_i / W rounded down, plus one for
 * the B - sum(floor) entries with the largest remainders (ties to the
 * lower index), so |q_i - B * w_i / W| < 1.
 *
 * fare_buckets_build() fills a new table from the previous one, keeping
 * every bucket whose entry is still a member and within its new quota and
 * handing only the rest to entries below their quota. With o_i the
 * previous table's buckets of entry i and q_i the new quota, exactly
 * sum_i max(0, o_i - q_i) buckets move: the least any table with the new
 * quotas must move. Since o_i and q_i are both within one bucket of their
 * exact shares p_i and p'_i, the moved fraction of flows is at most
 * TV(p, p') + k / B, k being the number of entries in either set and
 * TV(p, p') = sum_i max(0, p_i - p'_i) the total variation distance.
 */
#define FARE_BUCKETS		256
#define FARE_BUCKET_NONE	0xff

/* The quota of each member entry; 0 for the others. */
void fare_buckets_quota(u32 *quota, const u32 *weights, u64 members,
			unsigned int n);

/*
 * Fills @buckets (FARE_BUCKETS entries) for the member entries of
 * @weights. @prev, if not NULL, is the previous table with its entries
 * already renumbered into this set (FARE_BUCKET_NONE for an entry that is
 * gone). @members must not be empty.
 */
void fare_buckets_build(u8 *buckets, const u8 *prev, const u32 *weights,
			u64 members, unsigned int n);

/*
 * The entry of @hash's bucket, or -1 if that entry is not in @usable (the
 * caller then re-picks among the usable entries). The bucket comes from
 * the hash's low bits, so that a re-pick by hash-threshold, which uses the
 * high bits, spreads a dead entry's flows by weight.
 */
static inline int fare_bucket_pick(const u8 *buckets, u64 usable, u32 hash)
{
	unsigned int idx = buckets[hash % FARE_BUCKETS];

	return idx < 64 && (usable & (1ULL << idx)) ? (int)idx : -1;
}

#endif /* _FARE_SELECT_H */
