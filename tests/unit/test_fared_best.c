// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP decision process (fare_best.h): each step of RFC 4271
 * §9.1.2.2 decides when the steps before it tie, and only then.
 */
#include <string.h>

#include "fare_best.h"
#include "harness.h"

struct two {
	struct rib_attrs xa, ya;
	uint32_t xpath[4], ypath[4];
	struct fare_best_path x, y;
};

/* Two paths equal in every step: eBGP from AS 65001, no MED. */
static void two_equal(struct two *t)
{
	memset(t, 0, sizeof(*t));
	t->xpath[0] = t->ypath[0] = BGP_AS_PACKED_HEAD(BGP_AS_SEQUENCE, 2);
	t->xpath[1] = t->ypath[1] = 65001;
	t->xpath[2] = t->ypath[2] = 65009;
	t->xa.as_packed = t->xpath;
	t->ya.as_packed = t->ypath;
	t->xa.as_packed_len = t->ya.as_packed_len = 3;
	t->xa.as_path_len = t->ya.as_path_len = 2;
	t->x.attrs = &t->xa;
	t->y.attrs = &t->ya;
	t->x.router_id = t->y.router_id = 0x0a000001;
	t->x.addr_family = t->y.addr_family = BGP_FAM_IPV4_UNICAST;
	t->x.addr[0] = t->y.addr[0] = 10;
}

/* x must win over y by step, and lose the other way round. */
static void check_x_wins(struct two *t, enum fare_best_step want)
{
	enum fare_best_step step;

	CHECK_INT(fare_best_cmp(&t->x, &t->y, &step), -1);
	CHECK_INT(step, want);
	CHECK_INT(fare_best_cmp(&t->y, &t->x, &step), 1);
	CHECK_INT(step, want);
}

TEST(best_equal_paths_compare_equal)
{
	enum fare_best_step step = FARE_BEST_MED;
	struct two t;

	two_equal(&t);
	CHECK_INT(fare_best_cmp(&t.x, &t.y, &step), 0);
	CHECK_INT(step, FARE_BEST_EQUAL);
	CHECK_INT(fare_best_neighbor_as(&t.xa), 65001);
}

TEST(best_a_higher_local_pref_wins_before_a_shorter_as_path)
{
	struct two t;

	two_equal(&t);
	t.xa.has_local_pref = true;
	t.xa.local_pref = 200;
	t.xa.as_path_len = 5;
	t.xa.origin = BGP_ORIGIN_INCOMPLETE;
	check_x_wins(&t, FARE_BEST_LOCAL_PREF);
	/* Without LOCAL_PREF a path has 100: a lower one loses to it. */
	two_equal(&t);
	t.ya.has_local_pref = true;
	t.ya.local_pref = 99;
	t.ya.as_path_len = 1;
	check_x_wins(&t, FARE_BEST_LOCAL_PREF);
	/* ... and an explicit 100 ties with it. */
	t.ya.local_pref = 100;
	t.ya.as_path_len = 2;
	CHECK_INT(fare_best_cmp(&t.x, &t.y, NULL), 0);
}

TEST(best_a_shorter_as_path_wins_before_origin)
{
	struct two t;

	two_equal(&t);
	t.xa.as_path_len = 1;
	t.xa.origin = BGP_ORIGIN_INCOMPLETE;
	t.xa.has_med = true;
	t.xa.med = 1000;
	check_x_wins(&t, FARE_BEST_AS_PATH);
}

TEST(best_a_lower_origin_wins_before_med)
{
	struct two t;

	two_equal(&t);
	t.ya.origin = BGP_ORIGIN_EGP;
	t.xa.has_med = true;
	t.xa.med = 1000;
	check_x_wins(&t, FARE_BEST_ORIGIN);
	t.xa.origin = BGP_ORIGIN_EGP;
	t.ya.origin = BGP_ORIGIN_INCOMPLETE;
	check_x_wins(&t, FARE_BEST_ORIGIN);
}

TEST(best_a_lower_med_wins_from_the_same_neighbor_as_only)
{
	struct two t;

	two_equal(&t);
	t.ya.has_med = true;
	t.ya.med = 7;
	t.y.ibgp = true;
	check_x_wins(&t, FARE_BEST_MED);	/* no MED is 0 */
	t.xa.has_med = true;
	t.xa.med = 6;
	check_x_wins(&t, FARE_BEST_MED);
	/* Another neighboring AS: MED is not compared, eBGP decides. */
	t.ypath[1] = 65002;
	CHECK_INT(fare_best_neighbor_as(&t.ya), 65002);
	t.xa.med = 9;
	check_x_wins(&t, FARE_BEST_EBGP);
}

TEST(best_ebgp_wins_over_ibgp_before_router_id)
{
	struct two t;

	two_equal(&t);
	t.y.ibgp = true;
	t.x.router_id = 0x0b000001;
	check_x_wins(&t, FARE_BEST_EBGP);
}

TEST(best_a_lower_router_id_wins_before_peer_address)
{
	struct two t;

	two_equal(&t);
	t.y.router_id = 0x0a000002;
	t.x.addr[3] = 9;
	check_x_wins(&t, FARE_BEST_ROUTER_ID);
}

TEST(best_a_lower_peer_address_decides_last)
{
	struct two t;

	two_equal(&t);
	t.y.addr[3] = 2;
	t.x.addr[3] = 1;
	check_x_wins(&t, FARE_BEST_PEER_ADDR);
	/* IPv4 before IPv6. */
	t.x.addr[3] = 3;
	t.y.addr_family = BGP_FAM_IPV6_UNICAST;
	check_x_wins(&t, FARE_BEST_PEER_ADDR);
}

TEST(best_neighbor_as_skips_confederation_segments)
{
	uint32_t path[] = {
		BGP_AS_PACKED_HEAD(BGP_AS_CONFED_SEQUENCE, 1), 64512,
		BGP_AS_PACKED_HEAD(BGP_AS_SEQUENCE, 1), 65007,
	};
	struct rib_attrs a = { .as_packed = path, .as_packed_len = 4 };

	CHECK_INT(fare_best_neighbor_as(&a), 65007);
	path[2] = BGP_AS_PACKED_HEAD(BGP_AS_SET, 1);
	CHECK_INT(fare_best_neighbor_as(&a), 0);
	a.as_packed_len = 0;
	CHECK_INT(fare_best_neighbor_as(&a), 0);
	CHECK_STR(fare_best_step_name(FARE_BEST_MULTIPATH), "ORIGIN");
}
