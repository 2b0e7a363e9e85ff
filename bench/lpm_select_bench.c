// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instructions per packet of fare.ko's per-packet work that does not touch
 * a device: the longest-prefix match (kmod/lpm.h), the tier choice and the
 * next-hop pick (kmod/select.h, kmod/select.c), built for userspace with
 * the kernel-type shim, under callgrind (bench/run-lpm-select). Only
 * bench_run(), the packet loop, is counted: the table is built and the
 * destinations drawn before it.
 *
 * What is the kernel's and what is a copy:
 *  - fare_lpm_index(), fare_prefix_hash(), fare_prefix_equal(),
 *    fare_agg_find() (the aggregates' interval index, built by
 *    fare_agg_build()), fare_tier_usable(), fare_sched_pick() (the
 *    precomputed spray period, fare_sched_build()), fare_spray_pick(),
 *    fare_bucket_pick() and fare_hash_pick() are fare.ko's own code;
 *    jhash2(), jhash_2words() and jhash_1word() are the kernel's
 *    (include/linux/jhash.h), restated in kmod/fare_shim.h;
 *  - rht_lookup() below is a line-by-line copy of the kernel's
 *    __rhashtable_lookup() (include/linux/rhashtable.h, 6.1 and 6.12):
 *    the bucket table pointer, hashfn and bucket index, the bucket's lock
 *    bit and nulls marker, the chain walk with fare's obj_cmpfn, the
 *    re-walk check and the future table check, over a bucket table grown
 *    as rhashtable grows it (at most 3/4 full); what it leaves out is the
 *    RCU and lockdep annotations, which compile to nothing without
 *    debugging, and nested bucket tables, which rhashtable only makes
 *    when a large allocation fails;
 *  - routes reach their next hops through a shared group, as fare.ko's
 *    rt->nhg->grp;
 *  - the plane scan copies fare_group_select()'s loop over an array of
 *    planes instead of fare_plane_get_rcu();
 *  - the flow hash (skb_get_hash(), the flow dissector) is drawn beforehand
 *    and not counted; mixing in the namespace seed (jhash_1word) is.
 *
 * "spill" is packet mode over tiers 0, 0, 1 with UGAL-L (fare_tier_spill(),
 * fare_vq_backlog(), fare_vq_add(): fare.ko's own code) decided on every
 * packet, an upper bound: fare.ko decides once per new flowlet and only
 * adds to the virtual queue per packet. The qdisc backlog read is not
 * counted (it touches the device). 1500-byte packets at 1 us intervals
 * (1.5 GB/s) over tier-0 paths of 0.5 GB/s each and a 1 GB/s tier-1 path:
 * tier 0 saturates and new decisions spill.
 *
 * "packet" with WEIGHTS (a third argument) sprays at those weights, for
 * weight sets whose period is too long to precompute.
 *
 * The flowlet modes copy fare_flowlet_select() (kmod/decide.c) over the
 * namespace's flowlet table (kmod/flowlet.h: fare_slot(),
 * fare_slot_touch(), fare_slot_set(), copied with plain reads for
 * atomic64_read()) and count each packet's bytes on this CPU as
 * fare_count_tx() does for the group (one add; the tier, plane and device
 * counters are left out, as in the other modes):
 *  - "flowlet": every packet's flow has a live slot (65536 flows in a
 *    table of 2^20 slots, set before the counted loop, a gap of 10 s):
 *    the per-packet cost of a flowlet in progress;
 *  - "flowlet-new": no packet finds a live slot (each flow hash is new):
 *    every packet is a new flowlet, its plane picked by the byte deficit
 *    (fare_deficit_pick_since()) over this CPU's counters: the cost of a
 *    new flowlet;
 *  - "flowlet-new-sum": the same, but the deficit summed over every CPU's
 *    counters with one baseline for the group, as fare.ko did up to
 *    cef09eb (fare_group_nh_tx(): packets and bytes of each CPU), kept to
 *    show what that cost with the CPU count;
 *  - "tier-" before any of them: next hops on tiers 0, 0, 1 and the new
 *    flowlet's tier chosen first, as fare_tier_choose() (the qdisc
 *    backlog is the plane's last sample, as fare_plane_backlog() reads it
 *    between samples; each virtual queue as fare_vq_backlog());
 *  - "tier-packet": packet mode over those tiers, as
 *    fare_packet_tier_select(): every packet's flowlet live in its tier
 *    (tier 0), sprayed over that tier's next hops.
 * FARE_BENCH_CPUS (default 2) is the CPU count the "-sum" modes read.
 *
 * usage: lpm_select_bench {4|6} {host|aggregate} MODE PACKETS [ROUTES [W0:W1:W2]]
 *   MODE: packet, flow, spill, tier-packet, [tier-]flowlet[-new[-sum]]
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <linux/fare.h>
#include "lpm.h"
#include "select.h"

#define NH 3

struct group {
	u32 weights[NH];
	u8 tiers[NH];
	u8 num_nh;
	u8 num_tiers;
	u32 plane_id[NH];
	u8 buckets[FARE_BUCKETS];
	/* Per tier, as fare.ko's struct fare_sched and fare_group.seq. */
	struct {
		u64 members;
		u16 off;
		u16 len;
	} sched[NH];
	u8 seq[NH * FARE_SCHED_MAX];
	struct fare_spray *spray[NH];	/* per tier; NH counts follow */
};

/* fare.ko's shared group (struct fare_nhg): routes point to it. */
struct nhg {
	struct group *grp;
};

/* The kernel's struct rhash_head and struct bucket_table (fast path). */
struct rhash_head {
	struct rhash_head *next;
};

struct bucket_table {
	unsigned int size;
	unsigned int nest;
	u32 hash_rnd;
	struct bucket_table *future_tbl;
	struct rhash_head *buckets[];
};

struct rhashtable {
	struct bucket_table *tbl;
};

struct route {
	struct rhash_head node;
	struct fare_prefix key;
	u8 mode;
	struct nhg *nhg;
};

#define NULLS_MARKER(v) (1UL | (((long)(v)) << 1))
#define RHT_NULLS_MARKER(ptr) ((void *)NULLS_MARKER(ptr))

static inline int rht_is_a_nulls(const struct rhash_head *ptr)
{
	return (unsigned long)ptr & 1;
}

static inline struct rhash_head *__rht_ptr(struct rhash_head *p,
					   struct rhash_head *const *bkt)
{
	return (struct rhash_head *)((unsigned long)p & ~1UL ?:
				     (unsigned long)RHT_NULLS_MARKER(bkt));
}

static inline struct rhash_head *const *rht_bucket(const struct bucket_table *tbl,
						   unsigned int hash)
{
	if (__builtin_expect(tbl->nest, 0))
		abort();	/* rht_bucket_nested(): never made here */
	return &tbl->buckets[hash];
}

/* READ_ONCE() is kmod/fare_shim.h's. */

/*
 * __rhashtable_lookup() with fare_route_params: hashfn fare_prefix_hash(),
 * obj_cmpfn fare_prefix_equal(), head_offset 0. The volatile reads stand
 * for rcu_dereference().
 */
static inline struct route *rht_lookup(struct rhashtable *ht,
				       const struct fare_prefix *key)
{
	struct rhash_head *const *bkt;
	struct bucket_table *tbl;
	struct rhash_head *he;
	unsigned int hash;

	tbl = READ_ONCE(ht->tbl);
restart:
	hash = fare_prefix_hash(key, tbl->hash_rnd) & (tbl->size - 1);
	bkt = rht_bucket(tbl, hash);
	do {
		__asm__ __volatile__("" ::: "memory");	/* barrier() */
		for (he = __rht_ptr(READ_ONCE(*bkt), bkt); !rht_is_a_nulls(he);
		     he = READ_ONCE(he->next)) {
			if (!fare_prefix_equal(key,
					       &((struct route *)he)->key))
				continue;
			return (struct route *)he;
		}
	} while (he != RHT_NULLS_MARKER(bkt));
	__asm__ __volatile__("" ::: "memory");		/* smp_rmb() on x86 */
	tbl = READ_ONCE(tbl->future_tbl);
	if (__builtin_expect(tbl != NULL, 0))
		goto restart;
	return NULL;
}

static unsigned long plens[(FARE_PLEN_SLOTS + 63) / 64];

static const u32 hash_seed = 0x1f2e3d4c;

static void *probe(void *t, const struct fare_prefix *key)
{
	return rht_lookup(t, key);
}

/* Every route of the bench shares the one group, as host routes do. */
static struct nhg *nhg_of(struct group *grp)
{
	static struct nhg shared;

	shared.grp = grp;
	return &shared;
}

/* The aggregates and their interval index, as fare.ko's struct fare_agg. */
static void *aggs[8];
static unsigned int n_aggs, agg_n;
static __uint128_t agg_start[2 * 8 + 1];
static void *agg_rt[2 * 8 + 1];

/* As rhashtable_insert_fast(): at the head of the chain. */
static void insert(struct rhashtable *ht, u8 family, const void *addr,
		   u8 plen, u8 mode, struct group *grp)
{
	struct route *rt = calloc(1, sizeof(*rt));
	struct bucket_table *tbl = ht->tbl;
	struct rhash_head *head;
	u32 h;

	if (!rt)
		exit(1);
	rt->key.family = family;
	rt->key.plen = plen;
	memcpy(rt->key.addr, addr, fare_family_bits(family) / 8);
	fare_mask(rt->key.addr, fare_family_bits(family), plen);
	rt->mode = mode;
	rt->nhg = nhg_of(grp);
	h = fare_prefix_hash(&rt->key, tbl->hash_rnd) & (tbl->size - 1);
	head = __rht_ptr(tbl->buckets[h], &tbl->buckets[h]);
	rt->node.next = head;
	tbl->buckets[h] = &rt->node;
	plens[plen / 64] |= 1UL << (plen % 64);
	if (plen < fare_family_bits(family))
		aggs[n_aggs++] = rt;
}

/* fare.ko's struct fare_plane, as far as the scan reads it. */
#define C_GW4 1
#define C_GW6 2

struct plane {
	u8 carries;
};

#define PLANE_ID_MAX 255
static struct plane *planes[PLANE_ID_MAX + 1];
static volatile bool have_nd = true;	/* READ_ONCE(ipv6_stub->nd_tbl) */

/* As fare_plane_get_rcu(). */
static inline const struct plane *plane_get(u32 id)
{
	if (!id || id > PLANE_ID_MAX)
		return NULL;
	return READ_ONCE(planes[id]);
}

/* fare_net.plane_gen and this CPU's struct fare_group_tx cache. */
static u32 plane_gen = 1;
static struct {
	u64 up;
	u32 up_gen;
	u8 up_carry;
} group_tx;

/* As fare_group_up(). */
static inline u64 group_up(const struct group *grp, u8 carry)
{
	u32 gen = READ_ONCE(plane_gen);
	const struct plane *pl;
	unsigned int i;
	u64 up = 0;

	if (__builtin_expect(group_tx.up_gen == gen &&
			     group_tx.up_carry == carry, 1))
		return group_tx.up;
	for (i = 0; i < grp->num_nh; i++) {
		pl = plane_get(grp->plane_id[i]);
		if (pl && (READ_ONCE(pl->carries) & carry))
			up |= 1ULL << i;
	}
	group_tx.up = up;
	group_tx.up_carry = carry;
	group_tx.up_gen = gen;
	return up;
}

struct pkt {
	u8 daddr[16];
	u32 flow_hash;
};

static u64 per_nh[NH];
static u64 misses;

/* UGAL-L state of the "spill" mode: H, T, each hop's path and queue. */
static bool spill;
static const u8 tier_hops[] = { 3, 4, 6 };
static const u64 path_bw[NH] = { 500000000, 500000000, 1000000000 };
static u64 vq_vt[NH], spills, now_ns;

/* The flowlet modes. */
#define BENCH_CPUS_MAX	256
enum fl_mode { FL_NONE, FL_KEEP, FL_NEW, FL_NEW_SUM, FL_PACKET };
static enum fl_mode fl_mode;
static unsigned int ncpus = 2;

/* struct fare_flowlet and the table's mask and slots. */
struct flowlet {
	u64 owner;
	u64 last_ns;
};

static struct flowlet *fl_slot;
static u32 fl_mask;
/* The flowlet gap: 100 us, 10 s for "flowlet" (no slot times out). */
static u64 fl_gap_ns = 100000;
#define SLOT_LAG(gap)	((gap) / 8)

/*
 * struct fare_group_tx of each CPU (CPU 0 is this one): bytes and packets
 * per next hop, and this CPU's deficit baseline; the group's shared
 * baseline of the "-sum" modes.
 */
static struct {
	u64 packets[NH];
	u64 bytes[NH];
	struct fare_deficit_base deficit;
	u64 base[NH];
} gtx[BENCH_CPUS_MAX];
static struct fare_deficit_base grp_deficit;
static u64 grp_base[NH];

/* As fare_plane's sampled backlog, one per plane. */
static u64 plane_backlog[NH];
static u64 new_flowlets;

/* As fare_tier_choose() (kmod/decide.c). */
static inline u64 tier_choose(const struct group *grp, u64 up, u64 now)
{
	u64 mask, q[NH], real, virt;
	unsigned int i;
	bool spilled;

	mask = fare_tier_usable(grp->tiers, up, grp->num_nh);
	if (mask == up)
		return mask;
	for (i = 0; i < grp->num_nh; i++) {
		q[i] = 0;
		if (!(up & (1ULL << i)))
			continue;
		real = READ_ONCE(plane_backlog[i]);
		virt = fare_vq_backlog(READ_ONCE(vq_vt[i]), now, path_bw[i]);
		q[i] = real > virt ? real : virt;
	}
	mask = fare_tier_spill(grp->tiers, up, q, grp->num_nh, tier_hops, 3,
			       65536, &spilled);
	spills += spilled;
	return mask;
}

#define SLOT_TIER	(1U << 31)

/* As fare_packet_tier_select() (kmod/decide.c). */
static inline int packet_tier_select(const struct group *grp, u32 hash,
				     u64 up)
{
	struct flowlet *fl = &fl_slot[hash & fl_mask];
	u64 owner = READ_ONCE(fl->owner), members, usable = 0;
	u32 v = (u32)owner;
	unsigned int ord;
	bool live;

	now_ns += 1000;
	live = owner >> 32 == hash &&
	       (s64)(now_ns - READ_ONCE(fl->last_ns)) <=
	       (s64)(fl_gap_ns + SLOT_LAG(fl_gap_ns));
	for (ord = 0; live && (v & SLOT_TIER) && ord < grp->num_tiers;
	     ord++) {
		members = grp->sched[ord].members;
		if (grp->tiers[__builtin_ctzll(members)] ==
		    (u8)(v & ~SLOT_TIER)) {
			usable = up & members;
			break;
		}
	}
	if (usable) {
		if ((s64)(now_ns - READ_ONCE(fl->last_ns)) >
		    (s64)SLOT_LAG(fl_gap_ns))
			fl->last_ns = now_ns;
	} else {
		usable = tier_choose(grp, up, now_ns);
		if (!usable)
			return -1;
		fl->owner = (u64)hash << 32 |
			    (SLOT_TIER | grp->tiers[__builtin_ctzll(usable)]);
		fl->last_ns = now_ns;
		new_flowlets++;
		ord = grp->tiers[__builtin_ctzll(usable)];  /* rank == tier */
	}
	return fare_sched_pick(grp->seq + grp->sched[ord].off,
			       grp->sched[ord].len, grp->sched[ord].members,
			       grp->weights, grp->spray[ord], usable, NH);
}

/* As fare_flowlet_select() (kmod/decide.c) with fare_slot_keep(). */
static inline int flowlet_select(const struct group *grp, u32 hash, u64 up)
{
	struct flowlet *fl = &fl_slot[hash & fl_mask];
	u64 owner = READ_ONCE(fl->owner), sent[NH], usable;
	u32 v = (u32)owner;
	unsigned int i, c;
	bool live;
	int idx;

	now_ns += 1000;
	live = owner >> 32 == hash &&
	       (s64)(now_ns - READ_ONCE(fl->last_ns)) <=
	       (s64)(fl_gap_ns + SLOT_LAG(fl_gap_ns));
	if (live) {
		for (i = 0; i < grp->num_nh; i++)
			if (grp->plane_id[i] == v && (up & (1ULL << i))) {
				if ((s64)(now_ns - READ_ONCE(fl->last_ns)) >
				    (s64)SLOT_LAG(fl_gap_ns))
					fl->last_ns = now_ns;
				return i;
			}
	}
	usable = grp->num_tiers > 1 ? tier_choose(grp, up, now_ns) : up;
	if (fl_mode == FL_NEW_SUM) {
		for (i = 0; i < grp->num_nh; i++) {
			u64 b = 0;

			/* fare_group_nh_tx() read both; the packets went unused. */
			for (c = 0; c < ncpus; c++) {
				(void)READ_ONCE(gtx[c].packets[i]);
				b += READ_ONCE(gtx[c].bytes[i]);
			}
			sent[i] = b;
		}
		idx = fare_deficit_pick_since(grp->weights, sent, &grp_deficit,
					      group_tx.up_gen, usable,
					      grp->num_nh);
	} else {
		for (i = 0; i < grp->num_nh; i++)
			sent[i] = gtx[0].bytes[i];
		idx = fare_deficit_pick_since(grp->weights, sent,
					      &gtx[0].deficit, group_tx.up_gen,
					      usable, grp->num_nh);
	}
	if (idx >= 0) {
		fl->owner = (u64)hash << 32 | grp->plane_id[idx];
		fl->last_ns = now_ns;
	}
	new_flowlets++;
	return idx;
}

/* The counted loop: one lookup and one pick per packet. */
__attribute__((noinline)) void bench_run(struct rhashtable *ht, u8 family,
					 const struct pkt *pkts, size_t n)
{
	size_t p;

	for (p = 0; p < n; p++) {
		struct route *rt = fare_lpm_index(plens, agg_start, agg_rt,
						  agg_n, family,
						  pkts[p].daddr, probe, ht);
		struct group *grp;
		const struct plane *pl;
		u64 up, usable;
		unsigned int i, ord;
		u8 carry;
		int idx;

		if (!rt) {
			misses++;
			continue;
		}
		grp = rt->nhg->grp;
		/* As fare_group_select(), with fare_group_up()'s cache. */
		carry = family == AF_INET ? C_GW4 | (have_nd ? C_GW6 : 0) :
			have_nd ? C_GW6 : 0;
		up = group_up(grp, carry);
		if (!up) {
			misses++;
			continue;
		}
		/* One tier: all that is up; several: chosen below. */
		usable = up;
		if (spill) {
			u64 q[NH];
			bool spilled;

			now_ns += 1000;
			for (i = 0; i < NH; i++)
				q[i] = fare_vq_backlog(vq_vt[i], now_ns,
						       path_bw[i]);
			usable = fare_tier_spill(grp->tiers, up, q, NH,
						 tier_hops, 3, 65536,
						 &spilled);
			spills += spilled;
			ord = grp->tiers[__builtin_ctzll(usable)];
			idx = fare_sched_pick(grp->seq + grp->sched[ord].off,
					      grp->sched[ord].len,
					      grp->sched[ord].members,
					      grp->weights, grp->spray[ord],
					      usable, NH);
			if (idx >= 0)
				vq_vt[idx] = fare_vq_add(vq_vt[idx], now_ns,
							 path_bw[idx], 1500);
		} else if (fl_mode == FL_PACKET) {
			idx = packet_tier_select(grp, pkts[p].flow_hash, up);
		} else if (fl_mode != FL_NONE) {
			idx = flowlet_select(grp, pkts[p].flow_hash, up);
			if (idx >= 0) {
				gtx[0].packets[idx]++;
				gtx[0].bytes[idx] += 1500;
			}
		} else if (rt->mode == FARE_MODE_FLOW) {
			u32 h = fare_flow_hash(pkts[p].flow_hash, hash_seed);

			idx = fare_bucket_pick(grp->buckets, usable, h);
			if (idx < 0)
				idx = fare_hash_pick(grp->weights, usable, NH,
						     h);
		} else {
			idx = fare_sched_pick(grp->seq + grp->sched[0].off,
					      grp->sched[0].len,
					      grp->sched[0].members,
					      grp->weights, grp->spray[0],
					      usable, NH);
		}
		if (idx < 0 || !(up & (1ULL << idx))) {
			misses++;
			continue;
		}
		/* The chosen plane, read again and checked. */
		pl = plane_get(grp->plane_id[idx]);
		if (!pl || !(READ_ONCE(pl->carries) & carry)) {
			misses++;
			continue;
		}
		per_nh[idx]++;
	}
}

static u64 rnd_state = 0x66617265;

static u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (u32)rnd_state;
}

/* Host route i: 10.0.0.0/8 + i (IPv4), or 2001:db8::i/128 (IPv6). */
static void host_addr(u8 family, u32 i, u8 *a)
{
	memset(a, 0, 16);
	if (family == AF_INET) {
		u32 v = htonl(0x0a000000 + 1 + i);

		memcpy(a, &v, 4);
	} else {
		u32 v = htonl(1 + i);

		a[0] = 0x20;
		a[1] = 0x01;
		a[2] = 0x0d;
		a[3] = 0xb8;
		memcpy(a + 12, &v, 4);
	}
}

int main(int argc, char **argv)
{
	size_t n, routes = 100000, i, buckets = 1;
	u8 family, mode, a[16] = { 0 };
	struct rhashtable ht;
	struct bucket_table *tbl;
	static struct group grp = {
		.weights = { 5, 3, 2 },
		.tiers = { 0, 0, 0 },
		.plane_id = { 1, 2, 3 },
	};
	struct fare_spray *scratch;
	u32 w[NH];
	struct pkt *pkts;
	unsigned int off = 0, t;
	const char *fl;
	bool host;

	if (argc < 5) {
		fprintf(stderr, "usage: %s {4|6} {host|aggregate} {packet|flow|spill|tier-packet|[tier-]flowlet[-new[-sum]]} PACKETS [ROUTES [W0:W1:W2]]\n",
			argv[0]);
		return 2;
	}
	family = argv[1][0] == '6' ? AF_INET6 : AF_INET;
	host = !strcmp(argv[2], "host");
	mode = !strcmp(argv[3], "flow") ? FARE_MODE_FLOW : FARE_MODE_PACKET;
	spill = !strcmp(argv[3], "spill");
	fl = argv[3];
	if (!strncmp(fl, "tier-", 5)) {
		grp.tiers[2] = 1;
		fl += 5;
	}
	if (!strcmp(fl, "flowlet"))
		fl_mode = FL_KEEP;
	else if (!strcmp(fl, "flowlet-new"))
		fl_mode = FL_NEW;
	else if (!strcmp(fl, "flowlet-new-sum"))
		fl_mode = FL_NEW_SUM;
	else if (fl != argv[3] && !strcmp(fl, "packet"))
		fl_mode = FL_PACKET;
	else if (fl != argv[3] || (!spill && strcmp(fl, "flow") &&
				  strcmp(fl, "packet")))
		return 2;
	if (getenv("FARE_BENCH_CPUS"))
		ncpus = strtoul(getenv("FARE_BENCH_CPUS"), NULL, 0);
	if (!ncpus || ncpus > BENCH_CPUS_MAX)
		return 2;
	if (spill)
		grp.tiers[2] = 1;
	n = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		routes = strtoul(argv[5], NULL, 0);
	if (argc > 6 &&
	    sscanf(argv[6], "%u:%u:%u", &grp.weights[0], &grp.weights[1],
		   &grp.weights[2]) != 3)
		return 2;

	for (i = 1; i <= NH; i++) {
		planes[i] = calloc(1, sizeof(*planes[i]));
		if (!planes[i])
			return 1;
		planes[i]->carries = C_GW4 | C_GW6;
	}
	grp.num_nh = NH;
	/* As fare_group_finish(): a schedule per tier (here tier == rank). */
	grp.num_tiers = grp.tiers[2] ? 2 : 1;
	for (i = 0; i < BENCH_CPUS_MAX; i++)
		gtx[i].deficit.sent = gtx[i].base;
	grp_deficit.sent = grp_base;
	/*
	 * Tier 0 busier than tier 1 but not enough to spill: a decision
	 * weighs both tiers and stays (UGAL-L's common case).
	 */
	plane_backlog[0] = 30000;
	plane_backlog[1] = 20000;
	plane_backlog[2] = 10000;
	scratch = calloc(1, sizeof(*scratch) + NH * sizeof(u64));
	if (!scratch)
		return 1;
	for (t = 0; t < grp.num_tiers; t++) {
		for (i = 0; i < NH; i++)
			if (grp.tiers[i] == t)
				grp.sched[t].members |= 1ULL << i;
		grp.sched[t].off = off;
		grp.sched[t].len = fare_sched_build(grp.seq + off,
						    FARE_SCHED_MAX,
						    grp.weights,
						    grp.sched[t].members, NH,
						    w, scratch);
		off += grp.sched[t].len;
		grp.spray[t] = calloc(1, sizeof(*scratch) + NH * sizeof(u64));
		if (!grp.spray[t])
			return 1;
	}
	fare_buckets_build(grp.buckets, NULL, grp.weights, 0x7, NH);

	/* At most 3/4 full, as rhashtable grows its bucket table. */
	while (buckets * 3 < (routes + 4) * 4)
		buckets *= 2;
	tbl = calloc(1, sizeof(*tbl) + buckets * sizeof(tbl->buckets[0]));
	if (!tbl)
		return 1;
	tbl->size = buckets;
	tbl->hash_rnd = 0x9e3779b9;
	ht.tbl = tbl;
	for (i = 0; i < routes; i++) {
		host_addr(family, i, a);
		insert(&ht, family, a, family == AF_INET ? 32 : 128, mode,
		       &grp);
	}
	/* Aggregates: host routes sit in the first of them. */
	host_addr(family, 0, a);
	if (family == AF_INET) {
		insert(&ht, family, a, 24, mode, &grp);
		insert(&ht, family, a, 16, mode, &grp);
		insert(&ht, family, a, 8, mode, &grp);
	} else {
		insert(&ht, family, a, 64, mode, &grp);
		insert(&ht, family, a, 48, mode, &grp);
		insert(&ht, family, a, 32, mode, &grp);
	}
	memset(a, 0, sizeof(a));
	insert(&ht, family, a, 0, mode, &grp);
	agg_n = fare_agg_build(agg_start, agg_rt, aggs, n_aggs,
			       offsetof(struct route, key));

	pkts = calloc(n, sizeof(*pkts));
	if (!pkts)
		return 1;
	for (i = 0; i < n; i++) {
		/*
		 * host: a random host route; aggregate: an address beyond
		 * them that only the shortest aggregate (/8, /32) covers.
		 */
		host_addr(family, host ? rnd() % routes : 0, pkts[i].daddr);
		if (!host)
			pkts[i].daddr[family == AF_INET ? 1 : 5] ^= 0x80;
		pkts[i].flow_hash = rnd();
	}

	if (fl_mode != FL_NONE) {
		if (fl_mode == FL_KEEP || fl_mode == FL_PACKET)
			fl_gap_ns = 10000000000ULL;
		fl_mask = (1U << 20) - 1;
		fl_slot = calloc(fl_mask + 1, sizeof(*fl_slot));
		if (!fl_slot)
			return 1;
		for (i = 0; i < n; i++) {
			/*
			 * 65536 flows, each in a slot of its own and live
			 * (FL_KEEP); else every hash new: each of the first
			 * 2^20 slots once, the slots older than the gap.
			 */
			if (fl_mode == FL_KEEP || fl_mode == FL_PACKET) {
				u32 f = rnd() % 65536, h = f * 16 + 1;

				pkts[i].flow_hash = h;
				fl_slot[h & fl_mask].owner = (u64)h << 32 |
					(fl_mode == FL_PACKET ? SLOT_TIER :
					 grp.plane_id[f % NH]);
				fl_slot[h & fl_mask].last_ns = 1ULL << 40;
			} else {
				pkts[i].flow_hash = (u32)i * 2654435761U;
			}
		}
		now_ns = 1ULL << 40;
	}
	bench_run(&ht, family, pkts, n);
	printf("packets %zu misses %llu split %llu %llu %llu", n,
	       (unsigned long long)misses, (unsigned long long)per_nh[0],
	       (unsigned long long)per_nh[1], (unsigned long long)per_nh[2]);
	if (spill || grp.tiers[2])
		printf(" spills %llu", (unsigned long long)spills);
	if (fl_mode != FL_NONE)
		printf(" new-flowlets %llu", (unsigned long long)new_flowlets);
	printf("\n");
	return misses ? 1 : 0;
}
