// SPDX-License-Identifier: GPL-2.0-only
/*
 * mpson-00 §4.1 on the host (upa.h): X under a.b.c.0/24 over planes A-D
 * (1-4) reported unreachable via A gets B, C and D with the aggregate's
 * weights scaled to the same sum; every plane reporting X leaves none; a
 * UPA path is never weighed as a path.
 */
#include <stdlib.h>

#include "harness.h"
#include "upa.h"

/* Peers 1..4 are planes 1..4; peer 9 has no plane. */
static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->plane = peer <= 4 ? peer : 0;
}

static const struct fare_fib_cfg cfg = {
	.opts = { .role = FARE_ROLE_HOST },
	.peer_of = peer_of,
};

static struct fare_route agg4(const uint32_t w[4])
{
	struct fare_route r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.mode = FARE_MODE_FLOWLET;
	for (i = 0; i < 4; i++) {
		r.nexthops[i].plane_id = i + 1;
		r.nexthops[i].weight = w[i];
	}
	r.n_nexthops = 4;
	return r;
}

/* "1:2 2:2 3:1 4:2" */
static const char *nh_str(const struct fare_route *r)
{
	static char buf[FARE_FIB_NEXTHOPS_STRLEN];

	return fare_fib_nexthops_str(r, buf, sizeof(buf));
}

TEST(upa_exception_is_the_aggregate_minus_the_reporting_planes)
{
	static const uint32_t w[4] = { 100, 100, 100, 100 };
	struct fare_route agg = agg4(w), x;
	struct fare_upa_info ui = { 0 };

	memset(&x, 0, sizeof(x));
	x.dst.family = 2;
	x.dst.plen = 32;
	ui.plane[1] = true;
	CHECK_INT(fare_upa_exception(&agg, &ui, &x), 3);
	/* 400 over three planes, equal: 133 each (rounded). */
	CHECK_STR(nh_str(&x), "2:133 3:133 4:133");
	CHECK_INT(x.dst.plen, 32);
	CHECK_INT(x.mode, FARE_MODE_FLOWLET);
}

TEST(upa_exception_keeps_the_aggregate_ratios_renormalised)
{
	static const uint32_t w[4] = { 4, 1, 2, 1 };
	struct fare_route agg = agg4(w), x;
	struct fare_upa_info ui = { 0 };

	memset(&x, 0, sizeof(x));
	ui.plane[1] = true;
	/* Sum 8 kept over B, C, D of 1:2:1. */
	CHECK_INT(fare_upa_exception(&agg, &ui, &x), 3);
	CHECK_STR(nh_str(&x), "2:2 3:4 4:2");
	/* A second plane reporting X: B and D left, still 1:1. */
	ui.plane[3] = true;
	CHECK_INT(fare_upa_exception(&agg, &ui, &x), 2);
	CHECK_STR(nh_str(&x), "2:4 4:4");
}

TEST(upa_every_plane_reporting_leaves_no_next_hop)
{
	static const uint32_t w[4] = { 1, 1, 1, 1 };
	struct fare_route agg = agg4(w), x;
	struct fare_upa_info ui = { 0 };
	unsigned int i;

	memset(&x, 0, sizeof(x));
	for (i = 1; i <= 4; i++)
		ui.plane[i] = true;
	CHECK_INT(fare_upa_exception(&agg, &ui, &x), 0);
	CHECK_INT(x.n_nexthops, 0);
	/* A plane the aggregate does not use changes nothing. */
	memset(&ui, 0, sizeof(ui));
	ui.plane[7] = true;
	CHECK_INT(fare_upa_exception(&agg, &ui, &x), 4);
	CHECK_STR(nh_str(&x), "1:1 2:1 3:1 4:1");
}

static struct rib_attrs *attrs(bool upa)
{
	struct rib_attrs *a = calloc(1, sizeof(*a));
	struct fare_upa u = { .router_id = 0x0a000001 };

	if (upa) {
		a->ext_communities = calloc(1, 8);
		a->ext_communities_len = 8;
		fare_upa_encode(a->ext_communities, &u);
	}
	return a;
}

TEST(upa_classify_and_strip_see_only_the_upa_paths_planes)
{
	static const unsigned int peers[4] = { 1, 2, 9, 3 };
	static const bool upa[4] = { true, false, true, true };
	struct rib_path paths[4], left[4];
	struct rib_entry e = { .paths = paths, .n_paths = 4 }, s;
	struct fare_upa_info ui;
	size_t i;

	bgp_prefix_parse("10.1.2.5/32", &e.prefix);
	memset(paths, 0, sizeof(paths));
	for (i = 0; i < 4; i++) {
		paths[i].peer = peers[i];
		paths[i].attrs = attrs(upa[i]);
	}
	fare_upa_classify(&cfg, &e, &ui);
	CHECK_INT(ui.n_upa, 3);
	CHECK_INT(ui.n_plain, 1);
	CHECK(ui.plane[1] && !ui.plane[2] && ui.plane[3] && !ui.plane[4]);
	CHECK(!ui.plane[0]);
	fare_upa_strip(&e, left, &s);
	CHECK_INT(s.n_paths, 1);
	CHECK_INT(s.paths[0].peer, 2);
	CHECK(!memcmp(&s.prefix, &e.prefix, sizeof(s.prefix)));
	for (i = 0; i < 4; i++) {
		free(paths[i].attrs->ext_communities);
		free(paths[i].attrs);
	}
}
