// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl route pick: largest-remainder placement of N connections over a
 * route's planes, and the order they are handed out in.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "pick.h"

static void planes(struct fc_pick_plane *p, const uint32_t *w, unsigned int n)
{
	unsigned int i;

	memset(p, 0, n * sizeof(*p));
	for (i = 0; i < n; i++) {
		p[i].plane_id = i + 1;
		p[i].weight = w[i];
	}
}

/* The case: 8 QPs over planes weighted 3:1 land 6 and 2. */
TEST(pick_8_over_3_to_1_is_6_and_2)
{
	static const uint32_t w[] = { 3, 1 };
	struct fc_pick_plane p[2];

	planes(p, w, 2);
	CHECK_INT(fc_pick_counts(p, 2, 8), 0);
	CHECK_INT(p[0].count, 6);
	CHECK_INT(p[1].count, 2);
}

/*
 * Hamilton's method by hand: 10 over 5:3:2 is exact (5, 3, 2); 7 over
 * 5:3:2 gives quotas 3.5, 2.1, 1.4: floors 3, 2, 1 and the one left over
 * to the largest remainder (0.5, plane 1): 4, 2, 1.
 */
TEST(pick_gives_the_leftover_to_the_largest_remainders)
{
	static const uint32_t w[] = { 5, 3, 2 };
	struct fc_pick_plane p[3];

	planes(p, w, 3);
	CHECK_INT(fc_pick_counts(p, 3, 10), 0);
	CHECK_INT(p[0].count, 5);
	CHECK_INT(p[1].count, 3);
	CHECK_INT(p[2].count, 2);
	CHECK_INT(fc_pick_counts(p, 3, 7), 0);
	CHECK_INT(p[0].count, 4);
	CHECK_INT(p[1].count, 2);
	CHECK_INT(p[2].count, 1);
}

/* Equal remainders: the earlier plane first, every time (deterministic). */
TEST(pick_breaks_ties_by_plane_order)
{
	static const uint32_t w[] = { 1, 1, 1, 1 };
	struct fc_pick_plane p[4];

	planes(p, w, 4);
	CHECK_INT(fc_pick_counts(p, 4, 6), 0);
	CHECK_INT(p[0].count, 2);
	CHECK_INT(p[1].count, 2);
	CHECK_INT(p[2].count, 1);
	CHECK_INT(p[3].count, 1);
	CHECK_INT(fc_pick_counts(p, 4, 1), 0);
	CHECK_INT(p[0].count, 1);
	CHECK_INT(p[1].count + p[2].count + p[3].count, 0);
}

/*
 * Every count is within one of its exact share and they sum to N, with
 * u32 weights that differ by small fractions (FARE bandwidths) and the
 * largest N.
 */
TEST(pick_counts_are_within_one_of_the_share_and_sum_to_n)
{
	static const uint32_t w[] = { 4294967295u, 4294967294u, 1, 77777 };
	static const unsigned int ns[] = { 1, 2, 3, 64, 1000, FC_PICK_MAX };
	struct fc_pick_plane p[4];
	unsigned int i, k, sum;

	for (k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		long double total = 0, share;

		planes(p, w, 4);
		CHECK_INT(fc_pick_counts(p, 4, ns[k]), 0);
		for (i = 0; i < 4; i++)
			total += w[i];
		for (i = 0, sum = 0; i < 4; i++) {
			share = (long double)ns[k] * w[i] / total;
			CHECK(p[i].count + 1 > share && p[i].count < share + 1);
			sum += p[i].count;
		}
		CHECK_INT(sum, ns[k]);
	}
}

TEST(pick_refuses_no_plane_a_zero_weight_and_too_many)
{
	static const uint32_t w[] = { 1, 0 };
	struct fc_pick_plane p[2];

	planes(p, w, 2);
	CHECK_INT(fc_pick_counts(p, 0, 1), -EINVAL);
	CHECK_INT(fc_pick_counts(p, 2, 1), -EINVAL);
	p[1].weight = 1;
	CHECK_INT(fc_pick_counts(p, 2, FC_PICK_MAX + 1), -EINVAL);
}

/*
 * The order hands out exactly the counts and spreads them: for 6 and 2,
 * every prefix of the list keeps plane 2 within one of a quarter.
 */
TEST(pick_order_spreads_the_counts)
{
	static const uint32_t w[] = { 3, 1 };
	struct fc_pick_plane p[2];
	unsigned int order[8], k, seen[2] = { 0 };

	planes(p, w, 2);
	CHECK_INT(fc_pick_counts(p, 2, 8), 0);
	fc_pick_order(p, 2, 8, order);
	for (k = 0; k < 8; k++) {
		CHECK(order[k] < 2);
		seen[order[k]]++;
		CHECK(seen[1] * 4 <= k + 1 + 4 && seen[1] * 4 + 4 >= k + 1);
	}
	CHECK_INT(seen[0], 6);
	CHECK_INT(seen[1], 2);
	/* Same input, same placement. */
	fc_pick_order(p, 2, 8, order);
	CHECK_INT(order[0], 0);
}
