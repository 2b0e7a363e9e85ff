// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for fare's weighted selection: the per-packet spray keeps
 * every plane within one packet of its weighted share (Tijdeman's bound),
 * skips unusable planes, and hash-threshold maps flows in proportion to the
 * weights.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include "select.c"
#include "buckets_check.h"

#define SPRAY_MAX_NH 8

struct spray_state {
	struct fare_spray st;
	u64 count[SPRAY_MAX_NH];
};

/*
 * Runs @picks spray picks and fails if, after any pick, an entry's count
 * strays from its exact share (p mod W) * w / W by more than
 * 1 - 1/(2k - 2), or if a period ends with a count other than the weight.
 */
static void spray_check_bound(struct kunit *test, const u32 *w,
			      unsigned int n, unsigned int picks, u64 *counts)
{
	static struct spray_state s;
	u64 total = 0, usable = (1ULL << n) - 1, in_period[SPRAY_MAX_NH];
	u64 d = n > 1 ? 2 * (n - 1) : 1;
	unsigned int i, p;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < n; i++) {
		total += w[i];
		counts[i] = 0;
		in_period[i] = 0;
	}
	for (p = 1; p <= picks; p++) {
		u64 pos = (p - 1) % total + 1;
		int idx = fare_spray_pick(w, &s.st, usable, n);

		KUNIT_ASSERT_GE(test, idx, 0);
		KUNIT_ASSERT_LT(test, idx, (int)n);
		if (pos == 1)
			memset(in_period, 0, sizeof(in_period));
		counts[idx]++;
		in_period[idx]++;
		for (i = 0; i < n; i++) {
			/* d * |c - pos * w / W| <= d - 1, scaled by W */
			__uint128_t cw = (__uint128_t)in_period[i] * total;
			__uint128_t pw = (__uint128_t)pos * w[i];
			__uint128_t lag = cw > pw ? cw - pw : pw - cw;

			KUNIT_ASSERT_TRUE_MSG(test,
					      lag * d <= (__uint128_t)(d - 1) * total ||
					      n == 1,
					      "entry %u after %u picks", i, p);
			if (pos == total)
				KUNIT_ASSERT_EQ(test, in_period[i], (u64)w[i]);
		}
	}
}

static void spray_splits_3_to_1_exactly(struct kunit *test)
{
	const u32 w[] = { 3, 1 };
	u64 counts[2];

	spray_check_bound(test, w, 2, 4000, counts);
	KUNIT_EXPECT_EQ(test, counts[0], 3000);
	KUNIT_EXPECT_EQ(test, counts[1], 1000);
}

static void spray_splits_5_3_2_within_one_packet(struct kunit *test)
{
	const u32 w[] = { 5, 3, 2 };
	u64 counts[3];

	spray_check_bound(test, w, 3, 10000, counts);
	KUNIT_EXPECT_EQ(test, counts[0], 5000);
	KUNIT_EXPECT_EQ(test, counts[1], 3000);
	KUNIT_EXPECT_EQ(test, counts[2], 2000);
}

/* FARE weights are bandwidths that differ by small fractions. */
static void spray_keeps_bound_for_random_u32_weights(struct kunit *test)
{
	struct rnd_state rnd;
	u64 counts[SPRAY_MAX_NH];
	u32 w[SPRAY_MAX_NH];
	unsigned int round, n, i;

	prandom_seed_state(&rnd, 0x66617265ULL);
	for (round = 0; round < 100; round++) {
		n = 1 + prandom_u32_state(&rnd) % SPRAY_MAX_NH;
		for (i = 0; i < n; i++)
			w[i] = 1 + prandom_u32_state(&rnd) %
				   (round & 1 ? U32_MAX : 64);
		spray_check_bound(test, w, n, 1000, counts);
	}
}

static void spray_never_picks_unusable_entries(struct kunit *test)
{
	const u32 w[] = { 5, 3, 2 };
	struct spray_state s = { };
	u64 counts[3] = { 0 };
	unsigned int p;

	for (p = 0; p < 800; p++) {
		int idx = fare_spray_pick(w, &s.st, 0x5, 3);

		KUNIT_ASSERT_TRUE(test, idx == 0 || idx == 2);
		counts[idx]++;
	}
	/* The remaining entries split 5:2, within one pick. */
	KUNIT_EXPECT_EQ(test, counts[1], 0);
	KUNIT_EXPECT_LE(test, abs((s64)counts[0] * 7 - 800 * 5), 7);
	KUNIT_EXPECT_LE(test, abs((s64)counts[2] * 7 - 800 * 2), 7);

	/* When entry 1 comes back, the split is 5:3:2 again. */
	memset(counts, 0, sizeof(counts));
	for (p = 0; p < 1000; p++)
		counts[fare_spray_pick(w, &s.st, 0x7, 3)]++;
	KUNIT_EXPECT_EQ(test, counts[0], 500);
	KUNIT_EXPECT_EQ(test, counts[1], 300);
	KUNIT_EXPECT_EQ(test, counts[2], 200);
}

static void spray_returns_none_without_usable_entries(struct kunit *test)
{
	const u32 w[] = { 1, 1 };
	struct spray_state s = { };

	KUNIT_EXPECT_EQ(test, fare_spray_pick(w, &s.st, 0, 2), -1);
	KUNIT_EXPECT_EQ(test, fare_hash_pick(w, 0, 2, 12345), -1);
}

static void hash_pick_maps_hash_space_by_weight(struct kunit *test)
{
	const u32 w[] = { 3, 1 };
	const unsigned int steps = 4096;
	u64 counts[2] = { 0 };
	unsigned int s;

	/* Evenly spaced hashes land in proportion to the weights. */
	for (s = 0; s < steps; s++) {
		int idx = fare_hash_pick(w, 0x3, 2, s * (U32_MAX / steps));

		KUNIT_ASSERT_TRUE(test, idx == 0 || idx == 1);
		counts[idx]++;
	}
	KUNIT_EXPECT_LE(test, abs((s64)counts[0] - 3072), 1);
	KUNIT_EXPECT_LE(test, abs((s64)counts[1] - 1024), 1);
	KUNIT_EXPECT_EQ(test, fare_hash_pick(w, 0x2, 2, 0), 1);
	KUNIT_EXPECT_EQ(test, fare_hash_pick(w, 0x3, 2, U32_MAX), 1);
}

/* 3:1 gives 192:64 buckets; 1:1 then moves exactly the 64 in excess. */
static void buckets_move_only_the_excess(struct kunit *test)
{
	const u32 w0[] = { 3, 1 }, w1[] = { 1, 1 };
	unsigned int moved;

	KUNIT_ASSERT_NULL(test, fare_buckets_check(w0, 0x3, w1, 0x3, 2,
						   &moved));
	KUNIT_EXPECT_EQ(test, moved, 64);
	/* Unchanged weights move nothing. */
	KUNIT_ASSERT_NULL(test, fare_buckets_check(w0, 0x3, w0, 0x3, 2,
						   &moved));
	KUNIT_EXPECT_EQ(test, moved, 0);
	/* A third equal entry joins 1:1: 85 or 86 buckets move to it. */
	KUNIT_ASSERT_NULL(test, fare_buckets_check(w1, 0x3,
						   (const u32[]){ 1, 1, 1 },
						   0x7, 3, &moved));
	KUNIT_EXPECT_EQ(test, moved, 85);
}

/* Random u32 weights, entries joining and leaving: the bound holds. */
static void buckets_bound_holds_for_random_weight_changes(struct kunit *test)
{
	static u32 w0[64], w1[64];
	unsigned int round, i, n, moved;
	struct rnd_state rnd;
	u64 m0, m1;

	prandom_seed_state(&rnd, 0x62756b74ULL);

	for (round = 0; round < 2000; round++) {
		n = 1 + prandom_u32_state(&rnd) % 64;
		m0 = 0;
		m1 = 0;
		for (i = 0; i < n; i++) {
			w0[i] = round & 1 ? 1 + prandom_u32_state(&rnd) % 10 :
					    max(prandom_u32_state(&rnd), 1U);
			w1[i] = prandom_u32_state(&rnd) % 4 ? w0[i] :
				max(prandom_u32_state(&rnd) >> (prandom_u32_state(&rnd) % 32), 1U);
			if (prandom_u32_state(&rnd) % 8)
				m0 |= 1ULL << i;
			if (prandom_u32_state(&rnd) % 8)
				m1 |= 1ULL << i;
		}
		if (!m0)
			m0 = 1;
		if (!m1)
			m1 = 1ULL << (n - 1);
		KUNIT_ASSERT_NULL_MSG(test, fare_buckets_check(w0, m0, w1, m1,
							       n, &moved),
				      "round %u, %u entries", round, n);
	}
}

/* A flow whose bucket's entry is unusable gets -1, every other its entry. */
static void bucket_pick_refuses_only_unusable_entries(struct kunit *test)
{
	const u32 w[] = { 1, 1, 2 };
	unsigned int h, miss = 0;
	u8 t[FARE_BUCKETS];
	int idx;

	fare_buckets_build(t, NULL, w, 0x7, 3);
	for (h = 0; h < 4 * FARE_BUCKETS; h++) {
		idx = fare_bucket_pick(t, 0x5, h);
		KUNIT_ASSERT_TRUE(test, idx == -1 ? t[h % FARE_BUCKETS] == 1 :
					idx == t[h % FARE_BUCKETS]);
		miss += idx < 0;
	}
	KUNIT_EXPECT_EQ(test, miss, 4 * 64);
}

/*
 * Tiers 0, 0, 1, 2: tier 0 carries while either of its planes is up, tier
 * 1 only once both are down, tier 2 once tier 1 is down too; traffic goes
 * back down as soon as a lower plane returns.
 */
static void tier_falls_back_only_when_a_whole_tier_is_down(struct kunit *test)
{
	const u8 tiers[] = { 0, 0, 1, 2 };

	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0xf, 4), 0x3);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0xe, 4), 0x2);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0xc, 4), 0x4);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x8, 4), 0x8);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x0, 4), 0);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x9, 4), 0x1);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0xd, 4), 0x1);
}

/* Order does not matter, tiers need not be contiguous, 255 is a tier. */
static void tier_is_lowest_present_in_any_order(struct kunit *test)
{
	const u8 tiers[] = { 255, 7, 3, 7, 3 };

	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x1f, 5), 0x14);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x0b, 5), 0x0a);
	KUNIT_EXPECT_EQ(test, fare_tier_usable(tiers, 0x01, 5), 0x01);
}

/*
 * Spray over tiers 0, 0, 1 at 3:1:5: the tier-1 plane takes nothing while
 * tier 0 is up, everything once both tier-0 planes are down, and nothing
 * again, with tier 0 back at exactly 3:1, once they return.
 */
static void tier_fallback_and_back_under_spray(struct kunit *test)
{
	static struct spray_state s;
	const u32 w[] = { 3, 1, 5 };
	const u8 tiers[] = { 0, 0, 1 };
	u64 c[3] = { 0 }, usable;
	unsigned int p;

	for (p = 0; p < 400; p++)
		c[fare_spray_pick(w, &s.st, fare_tier_usable(tiers, 0x7, 3),
				  3)]++;
	KUNIT_EXPECT_EQ(test, c[0], 300);
	KUNIT_EXPECT_EQ(test, c[1], 100);
	KUNIT_EXPECT_EQ(test, c[2], 0);

	usable = fare_tier_usable(tiers, 0x4, 3);
	for (p = 0; p < 50; p++)
		KUNIT_ASSERT_EQ(test, fare_spray_pick(w, &s.st, usable, 3), 2);

	memset(c, 0, sizeof(c));
	for (p = 0; p < 400; p++)
		c[fare_spray_pick(w, &s.st, fare_tier_usable(tiers, 0x7, 3),
				  3)]++;
	KUNIT_EXPECT_EQ(test, c[0], 300);
	KUNIT_EXPECT_EQ(test, c[1], 100);
	KUNIT_EXPECT_EQ(test, c[2], 0);
}

static struct kunit_case fare_select_cases[] = {
	KUNIT_CASE(spray_splits_3_to_1_exactly),
	KUNIT_CASE(spray_splits_5_3_2_within_one_packet),
	KUNIT_CASE(spray_keeps_bound_for_random_u32_weights),
	KUNIT_CASE(spray_never_picks_unusable_entries),
	KUNIT_CASE(spray_returns_none_without_usable_entries),
	KUNIT_CASE(hash_pick_maps_hash_space_by_weight),
	KUNIT_CASE(buckets_move_only_the_excess),
	KUNIT_CASE(buckets_bound_holds_for_random_weight_changes),
	KUNIT_CASE(bucket_pick_refuses_only_unusable_entries),
	KUNIT_CASE(tier_falls_back_only_when_a_whole_tier_is_down),
	KUNIT_CASE(tier_is_lowest_present_in_any_order),
	KUNIT_CASE(tier_fallback_and_back_under_spray),
	{}
};

static struct kunit_suite fare_select_suite = {
	.name = "fare_select",
	.test_cases = fare_select_cases,
};

kunit_test_suite(fare_select_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for fare's selection and prefix table");
