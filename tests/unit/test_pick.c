// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl route pick: largest-remainder placement of N connections over a
 * route's planes, and the order they are handed out in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

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

TEST(pick_refuses_no_plane_no_weight_and_too_many)
{
	static const uint32_t w[] = { 0, 0 };
	struct fc_pick_plane p[2];

	planes(p, w, 2);
	CHECK_INT(fc_pick_counts(p, 0, 1), -EINVAL);
	CHECK_INT(fc_pick_counts(p, 2, 1), -EINVAL);
	p[1].weight = 1;
	CHECK_INT(fc_pick_counts(p, 2, FC_PICK_MAX + 1), -EINVAL);
	CHECK_INT(fc_pick_counts(p, 2, FC_PICK_MAX), 0);
	CHECK_INT(p[1].count, FC_PICK_MAX);
}

/*
 * A plane of weight 0 gets nothing, not even a leftover it would win on
 * plane order: 8 over 0:3:0:1 is 0, 6, 0, 2; 1 over 0:1:1 goes to the
 * second plane (equal remainders, the earlier of the weighted ones).
 */
TEST(pick_gives_nothing_to_a_zero_weight)
{
	static const uint32_t w[] = { 0, 3, 0, 1 };
	static const uint32_t w2[] = { 0, 1, 1 };
	struct fc_pick_plane p[4];

	planes(p, w, 4);
	CHECK_INT(fc_pick_counts(p, 4, 8), 0);
	CHECK_INT(p[0].count, 0);
	CHECK_INT(p[1].count, 6);
	CHECK_INT(p[2].count, 0);
	CHECK_INT(p[3].count, 2);
	planes(p, w2, 3);
	CHECK_INT(fc_pick_counts(p, 3, 1), 0);
	CHECK_INT(p[0].count, 0);
	CHECK_INT(p[1].count, 1);
	CHECK_INT(p[2].count, 0);
	CHECK_INT(fc_pick_counts(p, 3, 0), 0);
	CHECK_INT(p[1].count + p[2].count, 0);
}

/*
 * Fewer connections than planes: the largest weights first, and among
 * equal remainders the earlier plane. 1 over 1:3 goes to the second
 * plane; 2 over 2:1:1 is 1, 1, 0 (quotas 1, 0.5, 0.5); 2 over 1:1:1:5
 * (quotas 0.25, 0.25, 0.25, 1.25) is 1, 0, 0, 1: the floors give plane 4
 * one, and the leftover goes to plane 1, the earliest of four equal
 * remainders (plane 4's included).
 */
TEST(pick_with_fewer_connections_than_planes)
{
	static const uint32_t w1[] = { 1, 3 };
	static const uint32_t w2[] = { 2, 1, 1 };
	static const uint32_t w3[] = { 1, 1, 1, 5 };
	struct fc_pick_plane p[4];

	planes(p, w1, 2);
	CHECK_INT(fc_pick_counts(p, 2, 1), 0);
	CHECK_INT(p[0].count, 0);
	CHECK_INT(p[1].count, 1);
	planes(p, w2, 3);
	CHECK_INT(fc_pick_counts(p, 3, 2), 0);
	CHECK_INT(p[0].count, 1);
	CHECK_INT(p[1].count, 1);
	CHECK_INT(p[2].count, 0);
	planes(p, w3, 4);
	CHECK_INT(fc_pick_counts(p, 4, 2), 0);
	CHECK_INT(p[0].count, 1);
	CHECK_INT(p[1].count, 0);
	CHECK_INT(p[2].count, 0);
	CHECK_INT(p[3].count, 1);
}

static struct fare_plane plane_in(uint32_t flags, bool gw4, bool gw6)
{
	struct fare_plane pl;

	memset(&pl, 0, sizeof(pl));
	pl.id = 1;
	pl.flags = flags;
	pl.has_gw4 = gw4;
	pl.has_gw6 = gw6;
	pl.admin_down = flags & FARE_PLANE_F_ADMIN_DOWN;
	return pl;
}

/* What fare.ko's dump says of a plane decides; weight 0 first. */
TEST(pick_usable_follows_the_plane_dump)
{
	struct fare_plane up = plane_in(FARE_PLANE_F_OPER_UP, true, false);
	struct fare_plane down = plane_in(0, true, true);
	struct fare_plane admin = plane_in(FARE_PLANE_F_ADMIN_DOWN, true, true);

	CHECK_INT(fc_pick_usable(1, &up, AF_INET), FC_PICK_USED);
	CHECK_INT(fc_pick_usable(0, &up, AF_INET), FC_PICK_WEIGHT_ZERO);
	CHECK_INT(fc_pick_usable(1, &up, AF_INET6), FC_PICK_NO_GATEWAY);
	CHECK_INT(fc_pick_usable(1, &down, AF_INET6), FC_PICK_DOWN);
	CHECK_INT(fc_pick_usable(1, &admin, AF_INET), FC_PICK_ADMIN_DOWN);
	CHECK_STR(fc_pick_why_name(FC_PICK_ADMIN_DOWN), "admin-down");
	CHECK_STR(fc_pick_why_name(FC_PICK_DOWN), "down");
}

/* The lowest tier with a usable plane takes it all. */
TEST(pick_uses_the_lowest_usable_tier)
{
	enum fc_pick_why why[4] = { FC_PICK_USED, FC_PICK_DOWN, FC_PICK_USED,
				    FC_PICK_USED };
	static const uint8_t tier[4] = { 1, 0, 0, 1 };

	CHECK_INT(fc_pick_tier(why, tier, 4), 1);
	CHECK_INT(why[0], FC_PICK_HIGHER_TIER);
	CHECK_INT(why[1], FC_PICK_DOWN);
	CHECK_INT(why[2], FC_PICK_USED);
	CHECK_INT(why[3], FC_PICK_HIGHER_TIER);
	/* Tier 0 all down: tier 1 carries it. */
	why[0] = FC_PICK_USED;
	why[2] = FC_PICK_DOWN;
	why[3] = FC_PICK_USED;
	CHECK_INT(fc_pick_tier(why, tier, 4), 2);
	CHECK_INT(why[0], FC_PICK_USED);
	CHECK_INT(why[3], FC_PICK_USED);
	why[0] = FC_PICK_DOWN;
	why[3] = FC_PICK_DOWN;
	CHECK_INT(fc_pick_tier(why, tier, 4), 0);
}

static struct fare_prefix pfx(const char *s)
{
	struct fare_prefix p;
	struct fare_err err;

	memset(&p, 0, sizeof(p));
	if (fare_prefix_parse(s, &p, &err))
		p.family = 0;
	return p;
}

TEST(pick_prefix_holds_by_the_prefix_bits)
{
	struct fare_prefix a = pfx("198.51.100.130");
	struct fare_prefix r;

	r = pfx("198.51.100.128/25");
	CHECK(fc_prefix_holds(&r, &a));
	r = pfx("198.51.100.0/25");
	CHECK(!fc_prefix_holds(&r, &a));
	r = pfx("0.0.0.0/0");
	CHECK(fc_prefix_holds(&r, &a));
	r = pfx("::/0");
	CHECK(!fc_prefix_holds(&r, &a));
	/* A prefix holds no shorter one. */
	a = pfx("198.51.100.0/24");
	r = pfx("198.51.100.0/25");
	CHECK(!fc_prefix_holds(&r, &a));
	CHECK(fc_prefix_holds(&a, &r));
	a = pfx("2001:db8:100::1");
	r = pfx("2001:db8:100::/47");
	CHECK(fc_prefix_holds(&r, &a));
	r = pfx("2001:db8:101::/48");
	CHECK(!fc_prefix_holds(&r, &a));
}

/* put DIR/REL with TEXT, making the directories on the way. */
static int put(const char *dir, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;
	char *s;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >=
	    sizeof(path))
		return -1;
	for (s = path + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/*
 * A GID table as the kernel shows it (drivers/infiniband/core/sysfs.c):
 * rxe1's port 1 on eth-p1 with a link-local and the loopback address in
 * both RoCE types, an entry of another device, and an unused one with no
 * ndev; rxe2 on eth-p2 without the address.
 */
TEST(pick_rdma_finds_the_roce_v2_gid_of_the_address)
{
	static const char *const tbl[][2] = {
		{ "rxe1/ports/1/gids/0", "fe80:0000:0000:0000:0000:00ff:fe00:0001\n" },
		{ "rxe1/ports/1/gid_attrs/ndevs/0", "eth-p1\n" },
		{ "rxe1/ports/1/gid_attrs/types/0", "IB/RoCE v1\n" },
		{ "rxe1/ports/1/gids/1", "0000:0000:0000:0000:0000:ffff:c000:0207\n" },
		{ "rxe1/ports/1/gid_attrs/ndevs/1", "eth-p1\n" },
		{ "rxe1/ports/1/gid_attrs/types/1", "IB/RoCE v1\n" },
		{ "rxe1/ports/1/gids/2", "0000:0000:0000:0000:0000:ffff:c000:0207\n" },
		{ "rxe1/ports/1/gid_attrs/ndevs/2", "eth-p1.100\n" },
		{ "rxe1/ports/1/gid_attrs/types/2", "RoCE v2\n" },
		{ "rxe1/ports/1/gids/3", "0000:0000:0000:0000:0000:ffff:c000:0207\n" },
		{ "rxe1/ports/1/gid_attrs/ndevs/3", "eth-p1\n" },
		{ "rxe1/ports/1/gid_attrs/types/3", "RoCE v2\n" },
		{ "rxe1/ports/1/gids/4", "2001:0db8:0007:0000:0000:0000:0000:0007\n" },
		{ "rxe1/ports/1/gid_attrs/ndevs/4", "eth-p1\n" },
		{ "rxe1/ports/1/gid_attrs/types/4", "RoCE v2\n" },
		{ "rxe1/ports/1/gids/5", "0000:0000:0000:0000:0000:0000:0000:0000\n" },
		{ "rxe2/ports/1/gids/0", "fe80:0000:0000:0000:0000:00ff:fe00:0002\n" },
		{ "rxe2/ports/1/gid_attrs/ndevs/0", "eth-p2\n" },
		{ "rxe2/ports/1/gid_attrs/types/0", "RoCE v2\n" },
	};
	char root[] = "/tmp/fare-pick-XXXXXX", dir[256], cmd[512];
	struct fare_prefix lo4 = pfx("192.0.2.7"), lo6 = pfx("2001:db8:7::7");
	struct fc_rdma r;
	unsigned int i;

	CHECK(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/class/infiniband", root);
	for (i = 0; i < sizeof(tbl) / sizeof(tbl[0]); i++)
		CHECK_INT(put(dir, tbl[i][0], tbl[i][1]), 0);

	CHECK_INT(fc_rdma_find(root, "eth-p1", AF_INET, &lo4.addr, &r), 0);
	CHECK_STR(r.dev, "rxe1");
	CHECK_INT(r.port, 1);
	CHECK_INT(r.gid_index, 3);
	CHECK(r.roce_v2);
	CHECK_INT(fc_rdma_find(root, "eth-p1", AF_INET6, &lo6.addr, &r), 0);
	CHECK_INT(r.gid_index, 4);
	CHECK_INT(fc_rdma_find(root, "eth-p2", AF_INET, &lo4.addr, &r), 0);
	CHECK_STR(r.dev, "rxe2");
	CHECK_INT(r.gid_index, -1);
	CHECK_INT(fc_rdma_find(root, "eth-p3", AF_INET, &lo4.addr, &r),
		  -ENOENT);
	CHECK_INT(fc_rdma_find("/nonexistent", "eth-p1", AF_INET, &lo4.addr,
			       &r), -ENOENT);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
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

/*
 * A plane's own address is one "lo" does not also hold: every address of
 * lo is shared by definition, and a device that does not exist has none.
 */
TEST(pick_dev_addr_skips_what_lo_holds)
{
	union fare_addr a;

	CHECK_INT(fc_dev_addr("lo", AF_INET, &a), -ENOENT);
	CHECK_INT(fc_dev_addr("lo", AF_INET6, &a), -ENOENT);
	CHECK_INT(fc_dev_addr("fare-no-such", AF_INET, &a), -ENOENT);
}
