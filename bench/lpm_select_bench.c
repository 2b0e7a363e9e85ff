// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instructions per packet of fare.ko's per-packet work that does not touch
 * a device: the longest-prefix walk (kmod/lpm.h), the tier choice and the
 * next-hop pick (kmod/select.c), built for userspace with the kernel-type
 * shim, under callgrind (bench/run-lpm-select). Only bench_run(), the
 * packet loop, is counted: the table is built and the destinations drawn
 * before it.
 *
 * What is the kernel's and what is a stand-in:
 *  - fare_lpm(), fare_mask(), fare_tier_usable(), fare_spray_pick(),
 *    fare_bucket_pick() and fare_hash_pick() are fare.ko's own code;
 *  - the probe is a stand-in for rhashtable_lookup(): the same 20-byte key
 *    hashed by a jhash2 (lookup3 "hashword") written here, into a
 *    power-of-two bucket array of chains at most 3/4 full, as rhashtable
 *    keeps it;
 *  - routes reach their next hops through a shared group, as fare.ko's
 *    rt->nhg->grp (one more load than a group of the route's own);
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
 * usage: lpm_select_bench {4|6} {host|aggregate} {packet|flow|spill} PACKETS [ROUTES]
 */
#include <stdbool.h>
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
	u32 plane_id[NH];
	u8 buckets[FARE_BUCKETS];
	struct fare_spray *spray;	/* NH counts follow */
};

/* fare.ko's shared group (struct fare_nhg): routes point to it. */
struct nhg {
	struct group *grp;
};

struct route {
	struct route *next;
	struct fare_prefix key;
	u8 mode;
	struct nhg *nhg;
};

struct table {
	struct route **buckets;
	u32 mask;
};

static unsigned long plens[(FARE_PLEN_SLOTS + 63) / 64];

#define ROL32(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* Bob Jenkins' lookup3 mix and final, as the kernel's jhash.h has them. */
#define MIX(a, b, c) do {						\
	a -= c; a ^= ROL32(c, 4); c += b;				\
	b -= a; b ^= ROL32(a, 6); a += c;				\
	c -= b; c ^= ROL32(b, 8); b += a;				\
	a -= c; a ^= ROL32(c, 16); c += b;				\
	b -= a; b ^= ROL32(a, 19); a += c;				\
	c -= b; c ^= ROL32(b, 4); b += a;				\
} while (0)

#define FINAL(a, b, c) do {						\
	c ^= b; c -= ROL32(b, 14);					\
	a ^= c; a -= ROL32(c, 11);					\
	b ^= a; b -= ROL32(a, 25);					\
	c ^= b; c -= ROL32(b, 16);					\
	a ^= c; a -= ROL32(c, 4);					\
	b ^= a; b -= ROL32(a, 14);					\
	c ^= b; c -= ROL32(b, 24);					\
} while (0)

#define JHASH_INITVAL 0xdeadbeef

/* lookup3's hashword() over the 5 words of a struct fare_prefix. */
static inline u32 key_hash(const struct fare_prefix *key, u32 seed)
{
	u32 k[5], a, b, c;

	memcpy(k, key, sizeof(k));
	a = b = c = JHASH_INITVAL + (5 << 2) + seed;
	a += k[0];
	b += k[1];
	c += k[2];
	MIX(a, b, c);
	b += k[4];
	a += k[3];
	FINAL(a, b, c);
	return c;
}

static inline u32 jhash_1word(u32 w, u32 seed)
{
	u32 a = w, b = 0, c = 0;

	seed += JHASH_INITVAL + (1 << 2);
	a += seed;
	b += seed;
	c += seed;
	FINAL(a, b, c);
	return c;
}

static const u32 table_seed = 0x9e3779b9;
static const u32 hash_seed = 0x1f2e3d4c;

static void *probe(void *t, const struct fare_prefix *key)
{
	const struct table *tab = t;
	struct route *rt;

	rt = tab->buckets[key_hash(key, table_seed) & tab->mask];
	for (; rt; rt = rt->next)
		if (!memcmp(&rt->key, key, sizeof(*key)))
			return rt;
	return NULL;
}

/* Every route of the bench shares the one group, as host routes do. */
static struct nhg *nhg_of(struct group *grp)
{
	static struct nhg shared;

	shared.grp = grp;
	return &shared;
}

static void insert(struct table *tab, u8 family, const void *addr, u8 plen,
		   u8 mode, struct group *grp)
{
	struct route *rt = calloc(1, sizeof(*rt));
	u32 h;

	if (!rt)
		exit(1);
	rt->key.family = family;
	rt->key.plen = plen;
	memcpy(rt->key.addr, addr, fare_family_bits(family) / 8);
	fare_mask(rt->key.addr, fare_family_bits(family), plen);
	rt->mode = mode;
	rt->nhg = nhg_of(grp);
	h = key_hash(&rt->key, table_seed) & tab->mask;
	rt->next = tab->buckets[h];
	tab->buckets[h] = rt;
	plens[plen / 64] |= 1UL << (plen % 64);
}

struct plane {
	bool up;
	bool has_gw4, has_gw6;
};

static struct plane planes[256];

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
/* As fare.ko: each tier sprays with a schedule of its own. */
static struct fare_spray *tier1_spray;

/* The counted loop: one lookup and one pick per packet. */
__attribute__((noinline)) void bench_run(struct table *tab, u8 family,
					 const struct pkt *pkts, size_t n)
{
	size_t p;

	for (p = 0; p < n; p++) {
		struct route *rt = fare_lpm(plens, family, pkts[p].daddr,
					    probe, tab);
		struct group *grp;
		u64 up = 0, usable;
		unsigned int i;
		int idx;

		if (!rt) {
			misses++;
			continue;
		}
		grp = rt->nhg->grp;
		/* As fare_group_select(): which planes carry the family. */
		for (i = 0; i < NH; i++) {
			const struct plane *pl = &planes[grp->plane_id[i]];

			if (pl->up && (family == AF_INET ?
				       pl->has_gw4 || pl->has_gw6 :
				       pl->has_gw6))
				up |= 1ULL << i;
		}
		usable = fare_tier_usable(grp->tiers, up, NH);
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
			idx = fare_spray_pick(grp->weights,
					      spilled ? tier1_spray : grp->spray,
					      usable, NH);
			if (idx >= 0)
				vq_vt[idx] = fare_vq_add(vq_vt[idx], now_ns,
							 path_bw[idx], 1500);
		} else if (rt->mode == FARE_MODE_FLOW) {
			u32 h = jhash_1word(pkts[p].flow_hash, hash_seed);

			idx = fare_bucket_pick(grp->buckets, usable, h);
			if (idx < 0)
				idx = fare_hash_pick(grp->weights, usable, NH,
						     h);
		} else {
			idx = fare_spray_pick(grp->weights, grp->spray,
					      usable, NH);
		}
		if (idx >= 0)
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
	struct table tab;
	struct group grp = {
		.weights = { 5, 3, 2 },
		.tiers = { 0, 0, 0 },
		.plane_id = { 1, 2, 3 },
	};
	struct pkt *pkts;
	bool host;

	if (argc < 5) {
		fprintf(stderr, "usage: %s {4|6} {host|aggregate} {packet|flow|spill} PACKETS [ROUTES]\n",
			argv[0]);
		return 2;
	}
	family = argv[1][0] == '6' ? AF_INET6 : AF_INET;
	host = !strcmp(argv[2], "host");
	mode = !strcmp(argv[3], "flow") ? FARE_MODE_FLOW : FARE_MODE_PACKET;
	spill = !strcmp(argv[3], "spill");
	if (spill)
		grp.tiers[2] = 1;
	n = strtoul(argv[4], NULL, 0);
	if (argc > 5)
		routes = strtoul(argv[5], NULL, 0);

	for (i = 1; i <= NH; i++)
		planes[i] = (struct plane){ true, true, true };
	grp.spray = calloc(1, sizeof(*grp.spray) + NH * sizeof(u64));
	tier1_spray = calloc(1, sizeof(*grp.spray) + NH * sizeof(u64));
	if (!grp.spray || !tier1_spray)
		return 1;
	fare_buckets_build(grp.buckets, NULL, grp.weights, 0x7, NH);

	/* Chains at most 3/4 full, as rhashtable grows them. */
	while (buckets * 3 < (routes + 4) * 4)
		buckets *= 2;
	tab.buckets = calloc(buckets, sizeof(*tab.buckets));
	tab.mask = buckets - 1;
	if (!tab.buckets)
		return 1;
	for (i = 0; i < routes; i++) {
		host_addr(family, i, a);
		insert(&tab, family, a, family == AF_INET ? 32 : 128, mode,
		       &grp);
	}
	/* Aggregates: host routes sit in the first of them. */
	host_addr(family, 0, a);
	if (family == AF_INET) {
		insert(&tab, family, a, 24, mode, &grp);
		insert(&tab, family, a, 16, mode, &grp);
		insert(&tab, family, a, 8, mode, &grp);
	} else {
		insert(&tab, family, a, 64, mode, &grp);
		insert(&tab, family, a, 48, mode, &grp);
		insert(&tab, family, a, 32, mode, &grp);
	}
	memset(a, 0, sizeof(a));
	insert(&tab, family, a, 0, mode, &grp);

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

	bench_run(&tab, family, pkts, n);
	printf("packets %zu misses %llu split %llu %llu %llu", n,
	       (unsigned long long)misses, (unsigned long long)per_nh[0],
	       (unsigned long long)per_nh[1], (unsigned long long)per_nh[2]);
	if (spill)
		printf(" spills %llu", (unsigned long long)spills);
	printf("\n");
	return misses ? 1 : 0;
}
