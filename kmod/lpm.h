/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The longest-prefix match of fare's table, free of kernel objects: the
 * same code runs in fare.ko and, with the shim, in userspace benchmarks.
 * The table itself (a hash of (family, length, masked address)) is the
 * caller's; this file gives it its key hash and compare, and the lookup:
 * one probe for a host route (the family's full length), then, for the
 * shorter prefixes ("aggregates"), a binary search in an interval index
 * when the caller keeps one, else one probe per shorter length in use.
 */
#ifndef _FARE_LPM_H
#define _FARE_LPM_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/jhash.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#else
#include "fare_shim.h"
#endif

struct fare_prefix {
	u8 family;			/* AF_INET or AF_INET6 */
	u8 plen;
	u8 pad[2];
	u8 addr[16];			/* masked to plen, zero beyond */
};

#define FARE_PLEN_SLOTS 129		/* prefix lengths 0..128 */

/*
 * The hash of a key for the route table (rhashtable's hashfn): an IPv4
 * key is two words (family and length, address), hashed whole by
 * jhash_2words(); an IPv6 key, all five by jhash2(). Keys are zero beyond
 * their family's address, so nothing is left out.
 */
static __always_inline u32 fare_prefix_hash(const struct fare_prefix *key,
					    u32 seed)
{
	u32 w[5];

	memcpy(w, key, sizeof(w));
	if (key->family == AF_INET)
		return jhash_2words(w[0], w[1], seed);
	return jhash2(w, 5, seed);
}

/* Whether two keys are the same: three word compares, no memcmp() call. */
static inline bool fare_prefix_equal(const struct fare_prefix *a,
				     const struct fare_prefix *b)
{
	u64 a1, a2, b1, b2;
	u32 a0, b0;

	memcpy(&a0, a, 4);
	memcpy(&b0, b, 4);
	memcpy(&a1, a->addr, 8);
	memcpy(&b1, b->addr, 8);
	memcpy(&a2, a->addr + 8, 8);
	memcpy(&b2, b->addr + 8, 8);
	return !((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2));
}

/* An address as a number, an IPv4 one in the top 32 of the 128 bits. */
static inline __uint128_t fare_addr_num(u8 family, const void *addr)
{
	__be64 hi, lo;
	__be32 v4;

	if (family == AF_INET) {
		memcpy(&v4, addr, 4);
		return (__uint128_t)be32_to_cpu(v4) << 96;
	}
	memcpy(&hi, addr, 8);
	memcpy(&lo, (const u8 *)addr + 8, 8);
	return (__uint128_t)be64_to_cpu(hi) << 64 | be64_to_cpu(lo);
}

/*
 * The interval index of a family's aggregates: the address space cut at
 * every aggregate's first address and at the address after its last, so
 * that every address of one interval has the same longest match. @start
 * holds the @n intervals' first addresses in increasing order, start[0]
 * being 0; @rt the route of each interval (NULL where none matches).
 * fare_agg_build() makes it, fare_agg_find() reads it: a binary search,
 * log2(n) compares, whatever the prefix lengths in use.
 */
static inline void *fare_agg_find(const __uint128_t *start, void *const *rt,
				  unsigned int n, __uint128_t addr)
{
	unsigned int lo = 0, hi = n, mid;

	/* start[lo] <= addr < start[hi], start[n] being past the end. */
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (start[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return rt[lo];
}

static inline __uint128_t fare_agg_mask(unsigned int plen)
{
	return plen ? ~(__uint128_t)0 << (128 - plen) : 0;
}

/*
 * Builds the index of the @m routes @rts of one family, each holding its
 * key at @key_offset, into @start and @rt (room for 2 * @m + 1 each).
 * Returns the number of intervals. O(m^2): for the few aggregates of a
 * host (the caller bounds m).
 */
static inline unsigned int fare_agg_build(__uint128_t *start, void **rt,
					  void *const *rts, unsigned int m,
					  size_t key_offset)
{
	const struct fare_prefix *p;
	unsigned int n = 0, i, j, k, best;
	__uint128_t s, e;

	start[n++] = 0;
	for (i = 0; i < m; i++) {
		p = (const void *)((const char *)rts[i] + key_offset);
		s = fare_addr_num(p->family, p->addr);
		start[n++] = s;
		if (!p->plen)
			continue;
		e = s + ((__uint128_t)1 << (128 - p->plen));
		if (e > s)	/* else the prefix ends the address space */
			start[n++] = e;
	}
	/* Insertion sort, then drop repeats. */
	for (i = 1; i < n; i++) {
		s = start[i];
		for (j = i; j > 0 && start[j - 1] > s; j--)
			start[j] = start[j - 1];
		start[j] = s;
	}
	for (i = 1, j = 1; i < n; i++)
		if (start[i] != start[j - 1])
			start[j++] = start[i];
	n = j;
	/* Each interval's longest match; a run of the same one merges. */
	for (i = 0, j = 0; i < n; i++) {
		void *hit = NULL;

		for (k = 0, best = 0; k < m; k++) {
			p = (const void *)((const char *)rts[k] + key_offset);
			if (hit && p->plen <= best)
				continue;
			if ((start[i] ^ fare_addr_num(p->family, p->addr)) &
			    fare_agg_mask(p->plen))
				continue;
			hit = rts[k];
			best = p->plen;
		}
		if (j && rt[j - 1] == hit)
			continue;
		start[j] = start[i];
		rt[j++] = hit;
	}
	return j;
}

static inline unsigned int fare_family_bits(u8 family)
{
	return family == AF_INET ? 32 : 128;
}

/* Clears the bits of @addr (@bits long) from bit @plen on. */
static inline void fare_mask(u8 *addr, unsigned int bits, unsigned int plen)
{
	unsigned int i = plen / 8;

	if (i >= bits / 8)
		return;
	if (plen % 8)
		addr[i++] &= 0xff << (8 - plen % 8);
	memset(addr + i, 0, bits / 8 - i);
}

/*
 * Longest match of @daddr among the lengths below @below set in @plens (a
 * bitmap of FARE_PLEN_SLOTS bits): probes the longest length in use first.
 * Each shorter key is the longer one masked further, so the address is
 * copied once. @probe is called with @table; inlined, so is a constant
 * @probe.
 */
static __always_inline void *
fare_lpm_below(const unsigned long *plens, u8 family, const void *daddr,
	       void *(*probe)(void *table, const struct fare_prefix *key),
	       void *table, unsigned long below)
{
	unsigned int bits = fare_family_bits(family);
	unsigned long plen = below, next;
	struct fare_prefix key;
	void *hit;

	memset(&key, 0, sizeof(key));
	key.family = family;
	memcpy(key.addr, daddr, bits / 8);
	/* find_last_bit() returns its bound when no length is left below. */
	while ((next = find_last_bit(plens, plen)) < plen) {
		plen = next;
		key.plen = plen;
		fare_mask(key.addr, bits, plen);
		hit = probe(table, &key);
		if (hit)
			return hit;
	}
	return NULL;
}

/* Longest match of @daddr, one probe per length in use. */
static __always_inline void *
fare_lpm(const unsigned long *plens, u8 family, const void *daddr,
	 void *(*probe)(void *table, const struct fare_prefix *key),
	 void *table)
{
	return fare_lpm_below(plens, family, daddr, probe, table,
			      fare_family_bits(family) + 1);
}

/*
 * Longest match of @daddr: a host route by one probe, else the
 * aggregates' interval index (@start, @rt, @n; fare_agg_find()) if the
 * caller keeps one (@start not NULL), else one probe per shorter length
 * in use.
 */
static __always_inline void *
fare_lpm_index(const unsigned long *plens, const __uint128_t *start,
	       void *const *rt, unsigned int n, u8 family, const void *daddr,
	       void *(*probe)(void *table, const struct fare_prefix *key),
	       void *table)
{
	unsigned int bits = fare_family_bits(family);
	struct fare_prefix key;
	void *hit;

	if (test_bit(bits, plens)) {
		memset(&key, 0, sizeof(key));
		key.family = family;
		key.plen = bits;
		/* Constant sizes: a move or two, not a copy loop. */
		if (family == AF_INET)
			memcpy(key.addr, daddr, 4);
		else
			memcpy(key.addr, daddr, 16);
		hit = probe(table, &key);
		if (hit)
			return hit;
	}
	if (start)
		return fare_agg_find(start, rt, n, fare_addr_num(family, daddr));
	return fare_lpm_below(plens, family, daddr, probe, table, bits);
}

#endif /* _FARE_LPM_H */
