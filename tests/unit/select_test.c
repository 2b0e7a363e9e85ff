// SPDX-License-Identifier: GPL-2.0-only
/*
 * Userspace tests of fare.ko's selection core (kmod/select.c, built with
 * the kernel-type shim): the same properties the KUnit suite proves, run
 * on every machine without a test kernel, over many more weight vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lpm.h"
#include "select.h"
#include "buckets_check.h"

#define MAX_NH 64

static int failures, passes;

struct spray_state {
	struct fare_spray st;
	u64 count[MAX_NH];
};

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("    at %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			return 1;					\
		}							\
	} while (0)

static u64 rnd_state = 0x66617265;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Every pick of every period stays within 1 - 1/(2k-2) of the share. */
static int spray_bound_holds(const u32 *w, unsigned int n, u64 picks,
			     u64 *counts)
{
	static struct spray_state s;
	u64 total = 0, usable = n == 64 ? ~0ULL : (1ULL << n) - 1;
	u64 d = n > 1 ? 2 * (n - 1) : 1, in_period[MAX_NH] = { 0 };
	unsigned int i;
	u64 p;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < n; i++) {
		total += w[i];
		counts[i] = 0;
	}
	for (p = 1; p <= picks; p++) {
		u64 pos = (p - 1) % total + 1;
		int idx = fare_spray_pick(w, &s.st, usable, n);

		CHECK(idx >= 0 && idx < (int)n, "index %d of %u", idx, n);
		if (pos == 1)
			memset(in_period, 0, sizeof(in_period));
		counts[idx]++;
		in_period[idx]++;
		for (i = 0; i < n; i++) {
			__uint128_t cw = (__uint128_t)in_period[i] * total;
			__uint128_t pw = (__uint128_t)pos * w[i];
			__uint128_t lag = cw > pw ? cw - pw : pw - cw;

			CHECK(n == 1 || lag * d <= (__uint128_t)(d - 1) * total,
			      "entry %u strays after pick %llu (k=%u)", i,
			      (unsigned long long)p, n);
			if (pos == total)
				CHECK(in_period[i] == w[i],
				      "period ends with %llu picks of entry %u, weight %u",
				      (unsigned long long)in_period[i], i, w[i]);
		}
	}
	return 0;
}

static int test_spray_splits_3_to_1_exactly(void)
{
	const u32 w[] = { 3, 1 };
	u64 c[2];

	if (spray_bound_holds(w, 2, 4000, c))
		return 1;
	CHECK(c[0] == 3000 && c[1] == 1000, "%llu/%llu",
	      (unsigned long long)c[0], (unsigned long long)c[1]);
	return 0;
}

static int test_spray_bound_over_random_small_weights(void)
{
	u32 w[MAX_NH];
	u64 c[MAX_NH];
	unsigned int r, i, n;

	for (r = 0; r < 2000; r++) {
		n = 1 + rnd() % 8;
		for (i = 0; i < n; i++)
			w[i] = 1 + rnd() % 64;
		if (spray_bound_holds(w, n, 3000, c))
			return 1;
	}
	return 0;
}

static int test_spray_bound_over_random_u32_weights(void)
{
	u32 w[MAX_NH];
	u64 c[MAX_NH];
	unsigned int r, i, n;

	for (r = 0; r < 300; r++) {
		n = 1 + rnd() % MAX_NH;
		for (i = 0; i < n; i++)
			w[i] = 1 + rnd() % 0xffffffffu;
		if (spray_bound_holds(w, n, 2000, c))
			return 1;
	}
	return 0;
}

/* Bandwidths that differ by a fraction: 400, 400, 399.9 and 200 Gb/s. */
static int test_spray_follows_near_equal_bandwidths(void)
{
	const u32 w[] = { 400000, 400000, 399900, 200000 };
	u64 c[4];

	if (spray_bound_holds(w, 4, 1399900, c))
		return 1;
	CHECK(c[2] == 399900 && c[3] == 200000, "%llu %llu",
	      (unsigned long long)c[2], (unsigned long long)c[3]);
	return 0;
}

static int test_spray_skips_unusable_and_resumes(void)
{
	const u32 w[] = { 5, 3, 2 };
	static struct spray_state s;
	u64 c[3] = { 0 };
	int i;

	for (i = 0; i < 700; i++)
		c[fare_spray_pick(w, &s.st, 0x5, 3)]++;
	CHECK(c[1] == 0 && c[0] == 500 && c[2] == 200, "%llu %llu %llu",
	      (unsigned long long)c[0], (unsigned long long)c[1],
	      (unsigned long long)c[2]);
	memset(c, 0, sizeof(c));
	for (i = 0; i < 1000; i++)
		c[fare_spray_pick(w, &s.st, 0x7, 3)]++;
	CHECK(c[0] == 500 && c[1] == 300 && c[2] == 200, "%llu %llu %llu",
	      (unsigned long long)c[0], (unsigned long long)c[1],
	      (unsigned long long)c[2]);
	CHECK(fare_spray_pick(w, &s.st, 0, 3) == -1, "empty set picks");
	return 0;
}

static int test_hash_pick_splits_hash_space_by_weight(void)
{
	const u32 w[] = { 5, 3, 2 };
	u64 c[3] = { 0 };
	u64 h;

	for (h = 0; h < (1ULL << 32); h += 1 << 12)
		c[fare_hash_pick(w, 0x7, 3, (u32)h)]++;
	/* 2^20 evenly spaced hashes: shares exact to one step. */
	CHECK(llabs((long long)c[0] - 524288) <= 1 &&
	      llabs((long long)c[1] - 314573) <= 1 &&
	      llabs((long long)c[2] - 209715) <= 1, "%llu %llu %llu",
	      (unsigned long long)c[0], (unsigned long long)c[1],
	      (unsigned long long)c[2]);
	CHECK(fare_hash_pick(w, 0, 3, 1) == -1, "empty set picks");
	CHECK(fare_hash_pick(w, 0x2, 3, 0xffffffffu) == 1, "lone entry");
	return 0;
}

/*
 * Hash-threshold is not resilient: removing one of k equal next hops moves
 * its own 1/k of the flows plus those whose range shifts. For k = 4 with
 * the second entry removed that is at most half of all flows; the removed
 * entry is never picked again.
 */
static int test_hash_pick_moves_bounded_share_on_removal(void)
{
	const u32 w[] = { 1, 1, 1, 1 };
	u64 moved = 0, on_removed = 0, h, steps = 0;

	for (h = 0; h < (1ULL << 32); h += 1 << 12, steps++) {
		int before = fare_hash_pick(w, 0xf, 4, (u32)h);
		int after = fare_hash_pick(w, 0xd, 4, (u32)h);

		CHECK(after != 1, "removed entry still picked");
		on_removed += before == 1;
		moved += before != after;
	}
	CHECK(on_removed * 4 <= steps + 4, "entry share %llu of %llu",
	      (unsigned long long)on_removed, (unsigned long long)steps);
	CHECK(moved * 2 <= steps, "moved %llu of %llu",
	      (unsigned long long)moved, (unsigned long long)steps);
	return 0;
}

/*
 * Flowlets of heavy-tailed sizes placed by byte deficit: no plane ever
 * gets ahead of its byte share by more than the largest flowlet, and the
 * plane picked is always one that was behind (or at) its share.
 */
static int test_deficit_keeps_bytes_within_one_flowlet(void)
{
	const u32 w[] = { 50, 50, 25, 50 };
	u64 sent[4] = { 0 }, total = 0, largest = 0, size;
	unsigned int f, i;

	for (f = 0; f < 20000; f++) {
		int idx = fare_deficit_pick(w, sent, 0xf, 4);

		CHECK(idx >= 0 && idx < 4, "index %d", idx);
		/* Behind or at its share: sent * W <= total * w. */
		CHECK((__uint128_t)sent[idx] * 175 <=
		      (__uint128_t)total * w[idx], "picked an entry ahead");
		/* Pareto-like sizes: 1 KB to 64 MB, mostly small. */
		size = 1024ULL << (rnd() % 17 * (rnd() % 4 == 0));
		sent[idx] += size;
		total += size;
		if (size > largest)
			largest = size;
		for (i = 0; i < 4; i++) {
			__int128_t ahead = (__int128_t)sent[i] * 175 -
					   (__int128_t)total * w[i];

			CHECK(ahead <= (__int128_t)largest * 175,
			      "entry %u ahead by more than one flowlet", i);
		}
	}
	CHECK(fare_deficit_pick(w, sent, 0, 4) == -1, "empty set picks");
	CHECK(fare_deficit_pick(w, sent, 0x4, 4) == 2, "lone entry");
	return 0;
}

#define RUN(t)								\
	do {								\
		if (t()) {						\
			printf("not ok %s\n", #t);			\
			failures++;					\
		} else {						\
			printf("ok %s\n", #t);				\
			passes++;					\
		}							\
	} while (0)

/* Exact cases: 3:1 -> 1:1 moves the 64 excess buckets; a third joins. */
static int test_buckets_move_only_the_excess(void)
{
	const u32 w31[] = { 3, 1 }, w11[] = { 1, 1 }, w111[] = { 1, 1, 1 };
	unsigned int moved;
	const char *err;

	err = fare_buckets_check(w31, 0x3, w11, 0x3, 2, &moved);
	CHECK(!err && moved == 64, "%s, moved %u", err ? err : "ok", moved);
	err = fare_buckets_check(w31, 0x3, w31, 0x3, 2, &moved);
	CHECK(!err && moved == 0, "%s, moved %u", err ? err : "ok", moved);
	err = fare_buckets_check(w11, 0x3, w111, 0x7, 3, &moved);
	CHECK(!err && moved == 85, "%s, moved %u", err ? err : "ok", moved);
	/* The only member leaves: everything moves, to the newcomer. */
	err = fare_buckets_check(w11, 0x1, w11, 0x2, 2, &moved);
	CHECK(!err && moved == FARE_BUCKETS, "%s, moved %u",
	      err ? err : "ok", moved);
	return 0;
}

/*
 * 200000 random changes: small and u32 weights, a quarter of the weights
 * changed, entries joining and leaving. Every table holds exactly its
 * quotas, only the excess moves, and moved <= B * TV + k.
 */
static int test_buckets_bound_over_random_changes(void)
{
	u32 w0[MAX_NH], w1[MAX_NH];
	unsigned int round, i, n, moved;
	const char *err;
	u64 m0, m1;

	for (round = 0; round < 200000; round++) {
		n = 1 + rnd() % MAX_NH;
		m0 = m1 = 0;
		for (i = 0; i < n; i++) {
			w0[i] = round & 1 ? 1 + rnd() % 10 :
					    (u32)rnd() | 1;
			w1[i] = rnd() % 4 ? w0[i] :
				((u32)rnd() >> (rnd() % 32)) | 1;
			if (rnd() % 8)
				m0 |= 1ULL << i;
			if (rnd() % 8)
				m1 |= 1ULL << i;
		}
		if (!m0)
			m0 = 1;
		if (!m1)
			m1 = 1ULL << (n - 1);
		err = fare_buckets_check(w0, m0, w1, m1, n, &moved);
		CHECK(!err, "round %u, %u entries: %s", round, n, err);
	}
	return 0;
}

/* The LPM walk against a linear scan; the "table" is an array. */
#define LPM_ROUTES 300

static struct fare_prefix lpm_routes[LPM_ROUTES];
static unsigned int lpm_n;

static void *lpm_probe(void *table, const struct fare_prefix *key)
{
	unsigned int i;

	(void)table;
	for (i = 0; i < lpm_n; i++)
		if (!memcmp(&lpm_routes[i], key, sizeof(*key)))
			return &lpm_routes[i];
	return NULL;
}

static int lpm_bits_match(const u8 *a, const u8 *b, unsigned int plen)
{
	unsigned int i;

	for (i = 0; i < plen; i++)
		if ((a[i / 8] ^ b[i / 8]) & (0x80 >> (i % 8)))
			return 0;
	return 1;
}

static int test_lpm_matches_linear_scan(void)
{
	unsigned long plens[(FARE_PLEN_SLOTS + 63) / 64];
	unsigned int fam, i, j, k, bits;
	struct fare_prefix *hit, *best;
	unsigned int misses = 0;
	u8 addr[16];

	for (fam = 0; fam < 2; fam++) {
		u8 family = fam ? AF_INET6 : AF_INET;

		bits = fare_family_bits(family);
		memset(plens, 0, sizeof(plens));
		lpm_n = 0;
		for (i = 0; i < LPM_ROUTES; i++) {
			struct fare_prefix *p = &lpm_routes[lpm_n];
			/*
			 * IPv4 has a default route; IPv6 only lengths from
			 * 32 on, so probes flipped early in the address
			 * match nothing.
			 */
			u8 plen = fam ? 32 + rnd() % 97 :
				  i ? rnd() % (bits + 1) : 0;

			memset(p, 0, sizeof(*p));
			p->family = family;
			p->plen = plen;
			for (k = 0; k < bits / 8; k++)
				p->addr[k] = k < 2 ? 0x20 : rnd() & 0x3;
			fare_mask(p->addr, bits, plen);
			if (lpm_probe(NULL, p))
				continue;
			plens[plen / 64] |= 1UL << (plen % 64);
			lpm_n++;
		}
		for (j = 0; j < 20000; j++) {
			memcpy(addr, lpm_routes[j % lpm_n].addr, 16);
			k = rnd() % bits;
			addr[k / 8] ^= 0x80 >> (k % 8);
			best = NULL;
			for (i = 0; i < lpm_n; i++)
				if (lpm_bits_match(addr, lpm_routes[i].addr,
						   lpm_routes[i].plen) &&
				    (!best || lpm_routes[i].plen > best->plen))
					best = &lpm_routes[i];
			hit = fare_lpm(plens, family, addr, lpm_probe, NULL);
			misses += !best;
			CHECK(hit == best, "IPv%d probe %u: /%d, not /%d",
			      fam ? 6 : 4, j, hit ? hit->plen : -1,
			      best ? best->plen : -1);
		}
	}
	CHECK(misses > 100, "only %u probes matched nothing", misses);
	return 0;
}

int main(void)
{
	RUN(test_spray_splits_3_to_1_exactly);
	RUN(test_spray_bound_over_random_small_weights);
	RUN(test_spray_bound_over_random_u32_weights);
	RUN(test_spray_follows_near_equal_bandwidths);
	RUN(test_spray_skips_unusable_and_resumes);
	RUN(test_hash_pick_splits_hash_space_by_weight);
	RUN(test_hash_pick_moves_bounded_share_on_removal);
	RUN(test_deficit_keeps_bytes_within_one_flowlet);
	RUN(test_buckets_move_only_the_excess);
	RUN(test_buckets_bound_over_random_changes);
	RUN(test_lpm_matches_linear_scan);
	printf("select: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
