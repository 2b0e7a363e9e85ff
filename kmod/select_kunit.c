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
#include "select.h"
#include "buckets_check.h"
#include "plane.h"

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

/* Weight sets for the precomputed schedule, some with a common divisor. */
static const struct {
	unsigned int n;
	u32 w[SPRAY_MAX_NH];
	unsigned int period;		/* sum of w / gcd(w) */
} sched_sets[] = {
	{ 2, { 3, 1 }, 4 },
	{ 3, { 5, 3, 2 }, 10 },
	{ 4, { 60, 25, 10, 5 }, 20 },
	{ 3, { 255, 254, 1 }, 510 },
	{ 8, { 13, 7, 5, 3, 2, 1, 1, 1 }, 33 },
	{ 8, { 9, 9, 9, 9, 9, 9, 9, 9 }, 8 },
	{ 3, { 100000, 100000, 40000 }, 12 },
	{ 2, { 1000, 999 }, 0 },
	{ 1, { 7 }, 1 },
};

/*
 * The precomputed period is the computed schedule: the same pick at every
 * step over several periods, so Tijdeman's bound holds as it does for
 * fare_spray_pick(); every whole period splits exactly by the weights.
 */
static void sched_is_the_computed_schedule(struct kunit *test)
{
	static struct spray_state a, b, scratch;
	static u8 seq[FARE_SCHED_MAX];
	u64 counts[SPRAY_MAX_NH];
	unsigned int k, i, p, len, n;
	u32 w[SPRAY_MAX_NH];

	for (k = 0; k < ARRAY_SIZE(sched_sets); k++) {
		const u32 *wt = sched_sets[k].w;
		u64 members;

		n = sched_sets[k].n;
		members = BIT_ULL(n) - 1;
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		len = fare_sched_build(seq, FARE_SCHED_MAX, wt, members, n, w,
				       &scratch.st);
		KUNIT_ASSERT_EQ_MSG(test, len, sched_sets[k].period, "set %u",
				    k);
		if (!len)
			continue;
		memset(counts, 0, sizeof(counts));
		for (p = 0; p < 3 * len; p++) {
			int x = fare_sched_pick(seq, len, members, wt, &a.st,
						members, n);
			int y = fare_spray_pick(wt, &b.st, members, n);

			KUNIT_ASSERT_EQ_MSG(test, x, y, "set %u pick %u", k, p);
			counts[x]++;
			if ((p + 1) % len)
				continue;
			/* w[] holds the weights over their divisor. */
			for (i = 0; i < n; i++)
				KUNIT_ASSERT_EQ_MSG(test, counts[i],
						    (u64)w[i] * ((p + 1) / len),
						    "set %u entry %u", k, i);
		}
	}
}

/*
 * Starting anywhere in the period (a new group's random phase, or the
 * group that replaces one after a weight change), every window of one
 * period splits exactly and no prefix strays two picks from its share.
 */
static void sched_is_exact_over_every_window_after_a_change(struct kunit *test)
{
	static struct spray_state st, scratch;
	static u8 seq[FARE_SCHED_MAX];
	const u32 before[] = { 5, 3, 2 }, after[] = { 1, 1, 2 };
	unsigned int len, p, i, start;
	u64 win[3], pre[3];
	u32 w[3];
	int idx;

	len = fare_sched_build(seq, FARE_SCHED_MAX, before, 0x7, 3, w,
			       &scratch.st);
	KUNIT_ASSERT_EQ(test, len, 10U);
	memset(&st, 0, sizeof(st));
	for (p = 0; p < 7; p++)
		fare_sched_pick(seq, len, 0x7, before, &st.st, 0x7, 3);

	/* The new weights: a new schedule, a new state at some phase. */
	len = fare_sched_build(seq, FARE_SCHED_MAX, after, 0x7, 3, w,
			       &scratch.st);
	KUNIT_ASSERT_EQ(test, len, 4U);
	for (start = 0; start < len; start++) {
		memset(&st, 0, sizeof(st));
		st.st.cursor = start;
		memset(win, 0, sizeof(win));
		memset(pre, 0, sizeof(pre));
		for (p = 1; p <= 5 * len; p++) {
			idx = fare_sched_pick(seq, len, 0x7, after, &st.st,
					      0x7, 3);
			KUNIT_ASSERT_TRUE(test, idx >= 0 && idx < 3);
			pre[idx]++;
			win[idx]++;
			for (i = 0; i < 3; i++)
				KUNIT_ASSERT_LT(test,
						abs((s64)pre[i] * 4 -
						    (s64)p * after[i]), 8);
			if (p % len)
				continue;
			for (i = 0; i < 3; i++)
				KUNIT_ASSERT_EQ(test, win[i], (u64)after[i]);
			memset(win, 0, sizeof(win));
		}
	}
}

/*
 * While a member is down the pick is the computed schedule over the rest
 * (within one pick of 5:2); back up, the period resumes where it stopped
 * and splits exactly again.
 */
static void sched_falls_back_while_a_member_is_down(struct kunit *test)
{
	static struct spray_state st, scratch;
	static u8 seq[FARE_SCHED_MAX];
	const u32 wt[] = { 5, 3, 2 };
	u64 counts[3] = { 0 };
	unsigned int len, p, cursor;
	u32 w[3];
	int idx;

	len = fare_sched_build(seq, FARE_SCHED_MAX, wt, 0x7, 3, w,
			       &scratch.st);
	memset(&st, 0, sizeof(st));
	for (p = 0; p < 3; p++)
		fare_sched_pick(seq, len, 0x7, wt, &st.st, 0x7, 3);
	cursor = st.st.cursor;
	for (p = 0; p < 700; p++) {
		idx = fare_sched_pick(seq, len, 0x7, wt, &st.st, 0x5, 3);
		KUNIT_ASSERT_TRUE(test, idx == 0 || idx == 2);
		counts[idx]++;
	}
	KUNIT_EXPECT_EQ(test, counts[0], 500);
	KUNIT_EXPECT_EQ(test, counts[2], 200);
	KUNIT_EXPECT_EQ(test, st.st.cursor, cursor);
	memset(counts, 0, sizeof(counts));
	for (p = 0; p < 1000; p++)
		counts[fare_sched_pick(seq, len, 0x7, wt, &st.st, 0x7, 3)]++;
	KUNIT_EXPECT_EQ(test, counts[0], 500);
	KUNIT_EXPECT_EQ(test, counts[1], 300);
	KUNIT_EXPECT_EQ(test, counts[2], 200);
}

/* Weights whose period is too long are sprayed by the computed schedule. */
static void sched_leaves_long_periods_to_the_computed_schedule(struct kunit *test)
{
	static struct spray_state a, b, scratch;
	static u8 seq[FARE_SCHED_MAX];
	const u32 wt[] = { 1000, 999, 7 };
	unsigned int len, p;
	u32 w[3];

	len = fare_sched_build(seq, FARE_SCHED_MAX, wt, 0x7, 3, w,
			       &scratch.st);
	KUNIT_ASSERT_EQ(test, len, 0U);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (p = 0; p < 4012; p++)
		KUNIT_ASSERT_EQ(test,
				fare_sched_pick(seq, len, 0x7, wt, &a.st, 0x7, 3),
				fare_spray_pick(wt, &b.st, 0x7, 3));
}

/* The flow mix is a bijection of the hash for a seed, and seeds differ. */
static void flow_hash_mix_is_keyed(struct kunit *test)
{
	unsigned int i, same = 0;

	for (i = 0; i < 100000; i++) {
		KUNIT_ASSERT_NE(test, fare_flow_hash(i, 1),
				fare_flow_hash(i + 1, 1));
		same += fare_flow_hash(i, 1) % FARE_BUCKETS ==
			fare_flow_hash(i, 2) % FARE_BUCKETS;
	}
	/* Independent buckets agree 1 time in 256: about 391 of 100000. */
	KUNIT_EXPECT_LT(test, same, 600U);
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

static const u8 dfly_hops[] = { 3, 4, 6 };

static u64 spill(const u8 *tiers, u64 up, const u64 *q, unsigned int n,
		 u32 bias, bool *spilled)
{
	return fare_tier_spill(tiers, up, q, n, dfly_hops, 3, bias, spilled);
}

/*
 * Two tiers, H = 3 and 4, T = 65536: tier 0 keeps the flowlet while
 * 3 q0 <= 4 q1 + T, equal queues included; one byte more and it spills.
 */
static void spill_rule_and_bias(struct kunit *test)
{
	const u8 tiers[] = { 0, 1 };
	u64 q[2] = { 0, 0 };
	bool sp;

	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 65536, &sp), 0x1);
	KUNIT_EXPECT_FALSE(test, sp);
	q[0] = 1000000;
	q[1] = 1000000;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 0, &sp), 0x1);
	KUNIT_EXPECT_FALSE(test, sp);
	/* 3 * 21845 = 65535 and 3 * 21846 = 65538 against T = 65536 */
	q[1] = 0;
	q[0] = 21845;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 65536, &sp), 0x1);
	q[0] = 21846;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 65536, &sp), 0x2);
	KUNIT_EXPECT_TRUE(test, sp);
	/* Equality stays: 3 * 40000 = 4 * 10000 + 80000. */
	q[0] = 40000;
	q[1] = 10000;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 80000, &sp), 0x1);
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, 79999, &sp), 0x2);
	/* T = U32_MAX: a gigabyte of queue does not spill. */
	q[0] = 1ULL << 30;
	q[1] = 0;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, U32_MAX, &sp), 0x1);
	KUNIT_EXPECT_FALSE(test, sp);
	/* Absurd queues saturate instead of wrapping around. */
	q[0] = U64_MAX;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x3, q, 2, U32_MAX, &sp), 0x2);
}

/* From tier 0 to 1 and on to 2 when 1 is congested too; or stop at 1. */
static void spill_chains_to_tier_2(struct kunit *test)
{
	const u8 tiers[] = { 0, 1, 2 };
	u64 q[3] = { 1000000, 500000, 0 };
	bool sp;

	KUNIT_EXPECT_EQ(test, spill(tiers, 0x7, q, 3, 65536, &sp), 0x4);
	KUNIT_EXPECT_TRUE(test, sp);
	q[2] = 500000;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x7, q, 3, 65536, &sp), 0x2);
	KUNIT_EXPECT_TRUE(test, sp);
	/* Tier 1 is not worse than 0, so 2 is never looked at. */
	q[1] = 1000000;
	q[2] = 0;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x7, q, 3, 65536, &sp), 0x1);
	KUNIT_EXPECT_FALSE(test, sp);
}

/*
 * Tiers without an entry in up are skipped: tier 0 compares with tier 2
 * when tier 1 is down; with tier 0 down, tier 1 is the lowest and staying
 * there is no spill. Nothing up, nothing chosen.
 */
static void spill_skips_unusable_tiers(struct kunit *test)
{
	const u8 tiers[] = { 0, 1, 2, 1 };
	u64 q[4] = { 1000000, 0, 0, 0 };
	bool sp;

	KUNIT_EXPECT_EQ(test, spill(tiers, 0x5, q, 4, 65536, &sp), 0x4);
	KUNIT_EXPECT_TRUE(test, sp);
	KUNIT_EXPECT_EQ(test, spill(tiers, 0xe, q, 4, 65536, &sp), 0xa);
	KUNIT_EXPECT_FALSE(test, sp);
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x1, q, 4, 65536, &sp), 0x1);
	KUNIT_EXPECT_FALSE(test, sp);
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x0, q, 4, 65536, &sp), 0);
	KUNIT_EXPECT_FALSE(test, sp);
}

/* A tier's q is the mean over its usable entries only. */
static void spill_uses_the_tier_mean(struct kunit *test)
{
	const u8 tiers[] = { 0, 0, 1 };
	u64 q[3] = { 200000, 0, 0 };
	bool sp;

	/* mean 100000: 300000 > 65536 */
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x7, q, 3, 65536, &sp), 0x4);
	/* mean 20000: 60000 <= 65536 */
	q[0] = 40000;
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x7, q, 3, 65536, &sp), 0x3);
	/* entry 1 down: 40000 alone, 120000 > 65536 */
	KUNIT_EXPECT_EQ(test, spill(tiers, 0x5, q, 3, 65536, &sp), 0x4);
}

/* Hop counts: one value for every tier; a tier past the array is last. */
static void spill_hop_count_arrays(struct kunit *test)
{
	const u8 tiers[] = { 0, 2 };
	const u8 one[] = { 2 }, two[] = { 1, 10 };
	u64 q[2] = { 50000, 10000 };
	bool sp;

	KUNIT_EXPECT_EQ(test, fare_tier_spill(tiers, 0x3, q, 2, one, 1, 0, &sp),
			0x2);
	KUNIT_EXPECT_EQ(test, fare_tier_spill(tiers, 0x3, q, 2, one, 1, 80000,
					      &sp), 0x1);
	/* H0 = 1, H2 = 10 (past the array): 100000 > 90000, not > 110000 */
	q[0] = 100000;
	q[1] = 9000;
	KUNIT_EXPECT_EQ(test, fare_tier_spill(tiers, 0x3, q, 2, two, 2, 0, &sp),
			0x2);
	q[1] = 11000;
	KUNIT_EXPECT_EQ(test, fare_tier_spill(tiers, 0x3, q, 2, two, 2, 0, &sp),
			0x1);
}

/* The rule written out once more, over the sorted distinct tiers < 8. */
static u64 spill_reference(const u8 *tiers, u64 up, const u64 *q,
			   unsigned int n, u32 bias, bool *sp)
{
	u64 sum[8] = { 0 }, cnt[8] = { 0 }, mask[8] = { 0 }, mean[8];
	int order[8], k = 0, t, i, cur;

	for (i = 0; i < (int)n; i++) {
		if (!(up & (1ULL << i)))
			continue;
		sum[tiers[i]] += q[i];
		cnt[tiers[i]]++;
		mask[tiers[i]] |= 1ULL << i;
	}
	for (t = 0; t < 8; t++) {
		if (!cnt[t])
			continue;
		mean[t] = sum[t] / cnt[t];
		order[k++] = t;
	}
	*sp = false;
	if (!k)
		return 0;
	for (cur = 0; cur + 1 < k; cur++) {
		t = order[cur];
		i = order[cur + 1];
		if (mean[t] * dfly_hops[min(t, 2)] <=
		    mean[i] * dfly_hops[min(i, 2)] + bias)
			break;
		*sp = true;
	}
	return mask[order[cur]];
}

/* Every up mask and queue pattern over tiers 0, 0, 1, 2, 3. */
static void spill_matches_the_reference_exhaustively(struct kunit *test)
{
	static const u64 levels[] = { 0, 20000, 70000, 1000000 };
	const u8 tiers[] = { 0, 0, 1, 2, 3 };
	unsigned int up, code, i;
	u64 q[5], got, want;
	bool sp, sp_ref;

	for (code = 0; code < 4 * 4 * 4 * 4 * 4; code++) {
		for (i = 0, up = code; i < 5; i++, up /= 4)
			q[i] = levels[up % 4];
		for (up = 0; up < 32; up++) {
			got = spill(tiers, up, q, 5, 65536, &sp);
			want = spill_reference(tiers, up, q, 5, 65536, &sp_ref);
			KUNIT_ASSERT_EQ_MSG(test, got, want, "code %u up %#x",
					    code, up);
			KUNIT_ASSERT_EQ_MSG(test, sp, sp_ref, "code %u up %#x",
					    code, up);
		}
	}
}

/*
 * The virtual queue at 125000 B/s (8 us per byte): 1000 bytes drain in
 * 8 ms; a busy queue grows from its end, not from now; it never holds more
 * than 1 s worth; time that runs backwards drains nothing.
 */
static void vq_drains_at_the_rate_and_is_capped(struct kunit *test)
{
	const u64 rate = 125000, t0 = 1000000000ULL;
	u64 vt;
	int i;

	KUNIT_EXPECT_EQ(test, fare_vq_backlog(0, t0, rate), 0);
	vt = fare_vq_add(0, t0, rate, 1000);
	KUNIT_EXPECT_EQ(test, vt, t0 + 8000000);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0, rate), 1000);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0 + 4000000, rate), 500);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0 + 8000000, rate), 0);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0 + 9000000, rate), 0);
	/* Half drained, then 1000 more: 1500 queued. */
	vt = fare_vq_add(vt, t0 + 4000000, rate, 1000);
	KUNIT_EXPECT_EQ(test, vt, t0 + 16000000);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0 + 4000000, rate), 1500);
	/* Empty again: the next packet starts from now. */
	vt = fare_vq_add(vt, t0 + 20000000, rate, 500);
	KUNIT_EXPECT_EQ(test, vt, t0 + 24000000);
	/* 200 kB at once: capped at 1 s, 125000 bytes. */
	for (i = 0; i < 200; i++)
		vt = fare_vq_add(vt, t0 + 24000000, rate, 1000);
	KUNIT_EXPECT_EQ(test, vt, t0 + 24000000 + FARE_VQ_CAP_NS);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0 + 24000000, rate),
			125000);
	/* One jumbo larger than the cap is capped too. */
	KUNIT_EXPECT_EQ(test, fare_vq_add(0, t0, 1, 65535), t0 + FARE_VQ_CAP_NS);
	/* A CPU whose clock reads earlier than vt's start sees no drain. */
	vt = fare_vq_add(t0 + 8000000, t0 + 1000, rate, 1000);
	KUNIT_EXPECT_EQ(test, vt, t0 + 16000000);
	/* 10 GB/s: 1500 bytes are 150 ns; huge rates do not overflow. */
	vt = fare_vq_add(0, t0, 10000000000ULL, 1500);
	KUNIT_EXPECT_EQ(test, vt, t0 + 150);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(vt, t0, 10000000000ULL), 1500);
	KUNIT_EXPECT_EQ(test, fare_vq_backlog(t0 + FARE_VQ_CAP_NS, t0,
					      U64_MAX),
			(1ULL << 33) * FARE_VQ_CAP_NS +
			(U64_MAX % 1000000000ULL));
}

/*
 * New flowlets of 1000 bytes each over two planes 1:1, counted the way
 * fare0 counts them (a group's totals over its whole life) with the
 * generation of the usable set as fare0 gives it.
 */
static unsigned int deficit_run(const u32 *w, u64 *total,
				struct fare_deficit_base *base, u32 gen,
				u64 usable, unsigned int flowlets,
				unsigned int *on)
{
	unsigned int f, i;
	u64 sent[2];
	int idx;

	on[0] = 0;
	on[1] = 0;
	for (f = 0; f < flowlets; f++) {
		for (i = 0; i < 2; i++)
			sent[i] = total[i];
		idx = fare_deficit_pick_since(w, sent, base, gen, usable, 2);
		if (idx < 0 || !(usable & BIT_ULL(idx)))
			return f;
		total[idx] += 1000;
		on[idx]++;
	}
	return f;
}

/*
 * Plane 1 is down for 1000 flowlets; once it is back, the next 100
 * flowlets split 50:50, not 100:0 as they would if plane 1 were owed
 * everything plane 0 carried meanwhile.
 */
static void deficit_forgets_an_outage(struct kunit *test)
{
	const u32 w[2] = { 1, 1 };
	u64 total[2] = { 0 }, base_sent[2] = { 0 };
	struct fare_deficit_base base = { .gen = 0, .sent = base_sent };
	unsigned int on[2];

	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 1, 0x3, 100, on),
			100U);
	KUNIT_EXPECT_EQ(test, on[0], 50U);
	KUNIT_EXPECT_EQ(test, on[1], 50U);
	/* Plane 1 down: everything on plane 0. */
	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 2, 0x1, 1000, on),
			1000U);
	KUNIT_EXPECT_EQ(test, on[0], 1000U);
	/* Back: even from the first flowlet on. */
	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 3, 0x3, 100, on),
			100U);
	KUNIT_EXPECT_EQ(test, on[0], 50U);
	KUNIT_EXPECT_EQ(test, on[1], 50U);
	/* The totals are the group's counters: left as they were. */
	KUNIT_EXPECT_EQ(test, total[0], 1100ULL * 1000);
	KUNIT_EXPECT_EQ(test, total[1], 100ULL * 1000);
}

/*
 * While the usable set stands, the deficit keeps its history since the
 * last change: what a flowlet still in flight sends after the change
 * (here 20 flowlets' worth on plane 0) is owed to plane 1, which takes
 * the next 20 flowlets before the split evens out again.
 */
static void deficit_keeps_what_was_sent_since_the_change(struct kunit *test)
{
	const u32 w[2] = { 1, 1 };
	u64 total[2] = { 5000000, 0 }, base_sent[2] = { 0 };
	struct fare_deficit_base base = { .gen = 0, .sent = base_sent };
	unsigned int on[2];

	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 7, 0x3, 2, on),
			2U);
	KUNIT_EXPECT_EQ(test, on[0], 1U);
	KUNIT_EXPECT_EQ(test, on[1], 1U);
	/* An elephant still on plane 0 sends 20 flowlets' worth. */
	total[0] += 20 * 1000;
	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 7, 0x3, 20, on),
			20U);
	KUNIT_EXPECT_EQ(test, on[1], 20U);
	KUNIT_ASSERT_EQ(test, deficit_run(w, total, &base, 7, 0x3, 40, on),
			40U);
	KUNIT_EXPECT_EQ(test, on[0], 20U);
	KUNIT_EXPECT_EQ(test, on[1], 20U);
}

/*
 * A plane's usable gateways (fare_plane_carries(), what the packet path's
 * scan honours): a gateway whose neighbour entry failed is left out while
 * use-neigh is on, each family on its own; a plane that is down carries
 * nothing either way.
 */
static void failed_gateway_carries_nothing_with_use_neigh(struct kunit *test)
{
	const u8 both = FARE_PLANE_C_GW4 | FARE_PLANE_C_GW6;
	struct fare_plane plane = { .carries = both };
	struct fare_net *fn;

	fn = kunit_kzalloc(test, sizeof(*fn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fn);
	fn->use_neigh = 1;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane), both);
	plane.gw_failed = FARE_PLANE_C_GW4;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane),
			FARE_PLANE_C_GW6);
	plane.gw_failed = FARE_PLANE_C_GW6;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane),
			FARE_PLANE_C_GW4);
	plane.gw_failed = both;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane), 0);
	fn->use_neigh = 0;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane), both);
	plane.carries = 0;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane), 0);
	fn->use_neigh = 1;
	plane.gw_failed = 0;
	KUNIT_EXPECT_EQ(test, fare_plane_carries(fn, &plane), 0);
}

static struct kunit_case fare_select_cases[] = {
	KUNIT_CASE(spray_splits_3_to_1_exactly),
	KUNIT_CASE(spray_splits_5_3_2_within_one_packet),
	KUNIT_CASE(spray_keeps_bound_for_random_u32_weights),
	KUNIT_CASE(spray_never_picks_unusable_entries),
	KUNIT_CASE(spray_returns_none_without_usable_entries),
	KUNIT_CASE(sched_is_the_computed_schedule),
	KUNIT_CASE(sched_is_exact_over_every_window_after_a_change),
	KUNIT_CASE(sched_falls_back_while_a_member_is_down),
	KUNIT_CASE(sched_leaves_long_periods_to_the_computed_schedule),
	KUNIT_CASE(flow_hash_mix_is_keyed),
	KUNIT_CASE(hash_pick_maps_hash_space_by_weight),
	KUNIT_CASE(buckets_move_only_the_excess),
	KUNIT_CASE(buckets_bound_holds_for_random_weight_changes),
	KUNIT_CASE(bucket_pick_refuses_only_unusable_entries),
	KUNIT_CASE(tier_falls_back_only_when_a_whole_tier_is_down),
	KUNIT_CASE(tier_is_lowest_present_in_any_order),
	KUNIT_CASE(tier_fallback_and_back_under_spray),
	KUNIT_CASE(spill_rule_and_bias),
	KUNIT_CASE(spill_chains_to_tier_2),
	KUNIT_CASE(spill_skips_unusable_tiers),
	KUNIT_CASE(spill_uses_the_tier_mean),
	KUNIT_CASE(spill_hop_count_arrays),
	KUNIT_CASE(spill_matches_the_reference_exhaustively),
	KUNIT_CASE(vq_drains_at_the_rate_and_is_capped),
	KUNIT_CASE(deficit_forgets_an_outage),
	KUNIT_CASE(deficit_keeps_what_was_sent_since_the_change),
	KUNIT_CASE(failed_gateway_carries_nothing_with_use_neigh),
	{}
};

static struct kunit_suite fare_select_suite = {
	.name = "fare_select",
	.test_cases = fare_select_cases,
};

kunit_test_suite(fare_select_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for fare: selection, table, flowlets, policies");
/* fare.ko's functions the suites call (visibility.h). */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
