// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE policy: weights and re-advertised Path Bandwidth for each role,
 * built on the topologies of draft-xu-idr-fare-04 §4.1 (Figure 1, 3-stage)
 * and §4.2 (Figure 2, 5-stage) and draft-xu-idr-fare-in-mpson-00 §3. The
 * drafts give the rules but no numbers; the link speeds here are ours.
 */
#include "bgp_test_util.h"
#include "fare_policy.h"

#define G	1000000000ull	/* 1 Gb/s */
#define NONE	UINT64_MAX - 1	/* "no such PB" in the helpers below */

/* A path with transitive PB t, non-transitive PB nt (bits/s or NONE). */
static struct fare_path_in path(uint64_t t, uint64_t nt, uint64_t link)
{
	struct fare_path_in p;

	memset(&p, 0, sizeof(p));
	if (t != NONE) {
		p.bw.t.origin = FARE_BW_PB;
		p.bw.t.bps = t;
		p.bw.t.raw = fare_pb_from_bps(t);
	}
	if (nt != NONE) {
		p.bw.nt.origin = FARE_BW_PB;
		p.bw.nt.bps = nt;
		p.bw.nt.raw = fare_pb_from_bps(nt);
	}
	p.link_bps = link;
	return p;
}

/* The PB "maximum" a leaf originates, in bits/s. */
static uint64_t pb_max(void)
{
	uint64_t bps;

	fare_pb_to_bps(fare_policy_origin_pb(), &bps);
	return bps;
}

static const char *weights(const struct fare_path_out *out, size_t n)
{
	static char buf[128];
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		at += snprintf(buf + at, sizeof(buf) - at, "%s%u", i ? ":" : "",
			       out[i].weight);
	return buf;
}

TEST(fare_04_4_1_leaf_originates_with_the_maximum_pb)
{
	CHECK_INT(fare_policy_origin_pb(), 0x7bff);
	CHECK_INT(pb_max(), 65504ull * 8 * G);
}

/* S1 gets L1's route over a 400G link: it re-advertises min = 50 GB/s. */
TEST(fare_04_4_1_spine_clamps_the_leafs_maximum_to_its_link)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SPINE };
	struct fare_path_in in[1] = { path(pb_max(), NONE, 400 * G) };
	struct fare_path_out out[1];
	struct fare_result r;

	fare_policy_compute(&o, in, 1, out, &r);
	CHECK(r.weighted);
	CHECK_INT(out[0].weight, 1);
	CHECK_INT(out[0].rule, FARE_RULE_MIN_LINK_PB);
	CHECK_INT(out[0].bw_bps, 400 * G);
	CHECK_INT(r.adv_rule, FARE_ADV_SUM);
	CHECK(r.adv_t);
	CHECK(!r.adv_nt);
	CHECK_INT(r.adv_t_value, 0x5240);	/* 50 GB/s */
}

/*
 * S1 with the prefix multi-homed to L1 (400G link) and L2 (100G link):
 * weights 4:1, re-advertised PB the sum 62.5 GB/s.
 */
TEST(fare_04_4_1_spine_weighs_multi_homed_leaves_and_sums_the_minima)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SPINE };
	struct fare_path_in in[2] = {
		path(pb_max(), NONE, 400 * G),
		path(pb_max(), NONE, 100 * G),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 2), "4:1");
	CHECK_INT(r.adv_t_value, 0x53d0);	/* 62.5 GB/s */
}

/*
 * L8 from S1..S4 over 400G links, the spines advertising 62.5, 62.5, 12.5
 * and 25 GB/s: weights min(50, PB) = 50:50:12.5:25 = 4:4:1:2.
 */
TEST(fare_04_4_1_leaf_l8_weighs_four_spines_by_min_link_pb)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[4] = {
		path(500 * G, NONE, 400 * G),
		path(500 * G, NONE, 400 * G),
		path(100 * G, NONE, 400 * G),
		path(200 * G, NONE, 400 * G),
	};
	struct fare_path_out out[4];
	struct fare_result r;
	uint64_t bps;

	fare_policy_compute(&o, in, 4, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 4), "4:4:1:2");
	/* As a transit it would pass on 137.5 GB/s = 1.1 Tb/s. */
	CHECK_INT(r.adv_rule, FARE_ADV_SUM);
	CHECK_INT(fare_pb_to_bps(r.adv_t_value, &bps), 0);
	CHECK_INT(bps, 1100 * G);
}

/* path() through node id of AS 65001, tier 0. */
static struct fare_path_in node_path(uint64_t t, uint64_t link, uint32_t id)
{
	struct fare_path_in p = path(t, NONE, link);

	p.node.as = 65001;
	p.node.id = id;
	return p;
}

/*
 * draft-xu-idr-fare-05, several sessions per switch pair: S1 (id 1) over
 * two 100G links and S2 (id 2) over one, each advertising PB 150 Gb/s.
 * S1's bandwidth is min(100 + 100, 150) = 150, 75 per link; S2's
 * min(100, 150) = 100: weights 75:75:100 = 3:3:4, and 250 Gb/s passed on
 * (per session it would be 100:100:100 and 300).
 */
TEST(fare_05_parallel_links_to_one_node_share_its_bandwidth)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[3] = {
		node_path(150 * G, 100 * G, 1),
		node_path(150 * G, 100 * G, 1),
		node_path(150 * G, 100 * G, 2),
	};
	struct fare_path_out out[3];
	struct fare_result r;
	uint64_t bps;

	fare_policy_compute(&o, in, 3, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 3), "3:3:4");
	CHECK_INT(out[0].rule, FARE_RULE_NODE);
	CHECK_INT(out[0].node_paths, 2);
	CHECK_INT(out[0].node_links_bps, 200 * G);
	CHECK_INT(out[0].node_bw_bps, 150 * G);
	CHECK_INT(out[0].bw_bps, 75 * G);
	CHECK_INT(out[2].rule, FARE_RULE_MIN_LINK_PB);
	CHECK_INT(out[2].node_paths, 0);
	CHECK_INT(fare_pb_from_bps(250 * G), r.adv_t_value);
	CHECK_INT(fare_pb_to_bps(r.adv_t_value, &bps), 0);
	CHECK_INT(bps, 250 * G);
}

/*
 * Unequal links to one node, 100G and 40G, PB 70 Gb/s: the node has
 * min(140, 70) = 70; by link 50:20 (5:2), evenly 35:35, and 70 passed
 * on either way. A PB above the links' sum leaves each its link.
 */
TEST(fare_05_node_split_by_link_or_evenly)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SPINE };
	struct fare_path_in in[2] = {
		node_path(70 * G, 100 * G, 1),
		node_path(70 * G, 40 * G, 1),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "5:2");
	CHECK_INT(out[0].bw_bps, 50 * G);
	CHECK_INT(out[1].bw_bps, 20 * G);
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(70 * G));
	o.node_split = FARE_SPLIT_EVEN;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "1:1");
	CHECK_INT(out[1].bw_bps, 35 * G);
	CHECK_INT(out[1].node_split, FARE_SPLIT_EVEN);
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(70 * G));
	o.node_split = FARE_SPLIT_LINK;
	in[0] = node_path(pb_max(), 100 * G, 1);
	in[1] = node_path(pb_max(), 40 * G, 1);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "5:2");
	CHECK_INT(out[0].bw_bps, 100 * G);
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(140 * G));
	/* off: fare-04's per-session minima, 70 + 40 passed on. */
	o.node_split = FARE_SPLIT_OFF;
	in[0] = node_path(70 * G, 100 * G, 1);
	in[1] = node_path(70 * G, 40 * G, 1);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "7:4");
	CHECK_INT(out[0].node_paths, 0);
	CHECK_INT(out[0].rule, FARE_RULE_MIN_LINK_PB);
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(110 * G));
}

/*
 * Not one node: another AS with the same id, another tier, a neighbor
 * never up (id 0). A link of unknown bandwidth has no proportion: even.
 * The node's PB is the smallest its sessions sent.
 */
TEST(fare_05_node_is_as_id_and_tier_and_takes_the_smallest_pb)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[2] = {
		node_path(150 * G, 100 * G, 1),
		node_path(150 * G, 100 * G, 1),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	in[1].node.as = 65002;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_INT(out[0].node_paths, 0);
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(200 * G));
	in[1].node.as = 65001;
	in[1].node.tier = 1;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_INT(out[0].node_paths, 0);
	in[1].node.tier = 0;
	in[0].node.id = in[1].node.id = 0;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_INT(out[0].node_paths, 0);
	in[0] = node_path(150 * G, 0, 1);
	in[1] = node_path(120 * G, 100 * G, 1);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_INT(out[0].node_paths, 2);
	CHECK_INT(out[0].node_bw_bps, 120 * G);
	CHECK_INT(out[0].node_split, FARE_SPLIT_EVEN);
	CHECK_STR(weights(out, 2), "1:1");
	CHECK_INT(r.adv_t_value, fare_pb_from_bps(120 * G));
}

/*
 * fare-04 §4.1: a prefix multi-homed to two leaves; PB 100 and 50 GB/s
 * over 400G (50 GB/s) links. Dividing the PB by 2: min(50, 50) and
 * min(50, 25), 2:1. Multiplying the link by 2 instead: min(100, 100) and
 * min(100, 50), the same 2:1, and the same 75 GB/s passed on.
 */
TEST(fare_04_4_1_multi_homed_prefix_divides_pb_or_multiplies_link)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF,
				      .multihomed = 2 };
	struct fare_path_in in[2] = {
		path(800 * G, NONE, 400 * G),
		path(400 * G, NONE, 400 * G),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "2:1");
	CHECK_INT(out[1].pb_bps, 200 * G);
	CHECK_INT(out[1].link_bps, 400 * G);
	CHECK_INT(r.adv_t_value, 0x54b0);	/* 75 GB/s */
	o.multihome_multiply_link = true;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "2:1");
	CHECK_INT(out[1].pb_bps, 400 * G);
	CHECK_INT(out[1].link_bps, 800 * G);
	CHECK_INT(r.adv_t_value, 0x54b0);
	/* Without the rule: min(50, 100) and min(50, 50): ECMP-like 1:1. */
	o.multihomed = 1;
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "1:1");
	CHECK_INT(r.adv_t_value, 0x5640);	/* 100 GB/s */
}

/* fare-04 §4.1: "SHOULD NOT ... unless all equal-cost routes ... carry". */
TEST(fare_04_4_1_one_path_without_pb_makes_the_prefix_ecmp)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SPINE };
	struct fare_path_in in[3] = {
		path(400 * G, NONE, 400 * G),
		path(NONE, 100 * G, 100 * G),	/* only non-transitive */
		path(100 * G, NONE, 400 * G),
	};
	struct fare_path_out out[3];
	struct fare_result r;

	fare_policy_compute(&o, in, 3, out, &r);
	CHECK(!r.weighted);
	CHECK_STR(weights(out, 3), "1:1:1");
	CHECK_INT(out[1].rule, FARE_RULE_ECMP_MISSING);
	CHECK_INT(out[0].rule, FARE_RULE_ECMP_MISSING);
	CHECK_INT(r.adv_rule, FARE_ADV_STRIP);
	CHECK(!r.adv_t && !r.adv_nt);
	/* None has one: ECMP too. */
	in[0] = path(NONE, NONE, 400 * G);
	in[2] = path(NONE, NONE, 400 * G);
	fare_policy_compute(&o, in, 3, out, &r);
	CHECK(!r.weighted);
	CHECK_STR(weights(out, 3), "1:1:1");
}

/* PROTOCOL.md §2.2: PB 0 leaves a path out unless every path has 0. */
TEST(zero_pb_path_is_unused_unless_all_are_zero)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[3] = {
		path(400 * G, NONE, 400 * G),
		path(0, NONE, 400 * G),
		path(100 * G, NONE, 400 * G),
	};
	struct fare_path_out out[3];
	struct fare_result r;

	fare_policy_compute(&o, in, 3, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 3), "4:0:1");
	CHECK_INT(out[1].rule, FARE_RULE_ZERO);
	CHECK_INT(out[0].rule, FARE_RULE_MIN_LINK_PB);
	in[0] = path(0, NONE, 400 * G);
	in[2] = path(0, NONE, 400 * G);
	fare_policy_compute(&o, in, 3, out, &r);
	CHECK(!r.weighted);
	CHECK_STR(weights(out, 3), "1:1:1");
	CHECK_INT(out[2].rule, FARE_RULE_ECMP_ALL_ZERO);
	/* Every path carried PB: pass on the (zero) sum, not nothing. */
	CHECK_INT(r.adv_rule, FARE_ADV_SUM);
	CHECK(r.adv_t);
	CHECK_INT(r.adv_t_value, 0);
}

TEST(unknown_link_bandwidth_weighs_by_pb_alone_and_infinity_is_ecmp)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SPINE };
	struct fare_path_in in[2] = {
		path(400 * G, NONE, 0),
		path(100 * G, NONE, 0),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "4:1");
	CHECK(out[0].link_bps == FARE_BW_INF);
	in[1] = path(FARE_BW_INF, NONE, 0);	/* PB 0x7c00, no link */
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK(!r.weighted);
	CHECK_INT(out[0].rule, FARE_RULE_ECMP_UNBOUNDED);
	CHECK_INT(r.adv_t_value, FARE_PB_MAX);
	/* The link bounds an infinite PB. */
	in[1] = path(FARE_BW_INF, NONE, 100 * G);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "4:1");
}

TEST(one_path_gets_weight_one_and_no_paths_give_nothing)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[1] = { path(12345 * G, NONE, 400 * G) };
	struct fare_path_out out[1];
	struct fare_result r;

	fare_policy_compute(&o, in, 1, out, &r);
	CHECK(r.weighted);
	CHECK_INT(out[0].weight, 1);
	fare_policy_compute(&o, in, 0, out, &r);
	CHECK(!r.weighted);
	CHECK_INT(r.adv_rule, FARE_ADV_NONE);
	CHECK(!r.adv_t && !r.adv_nt);
}

/*
 * fare-04 §4.2: SS1@Plane-1 gets S1@PoD-1's route (PB 50 GB/s) over a 400G
 * link. It passes the transitive PB on as received and may attach a
 * non-transitive one with the link's bandwidth.
 */
TEST(fare_04_4_2_super_spine_keeps_transitive_and_attaches_link_bw)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_SUPER_SPINE };
	struct fare_path_in in[1] = { path(400 * G, NONE, 200 * G) };
	struct fare_path_out out[1];
	struct fare_result r;

	in[0].bw.t.raw = 0x5240;
	fare_policy_compute(&o, in, 1, out, &r);
	CHECK_INT(out[0].weight, 1);
	CHECK_INT(r.adv_rule, FARE_ADV_UNCHANGED);
	CHECK(r.adv_t);
	CHECK_INT(r.adv_t_value, 0x5240);	/* not min(link) = 25 GB/s */
	CHECK(!r.adv_nt);
	o.attach_nontransitive = true;
	fare_policy_compute(&o, in, 1, out, &r);
	CHECK(r.adv_nt);
	CHECK_INT(r.adv_nt_value, 0x4e40);	/* the 200G link: 25 GB/s */
	in[0].link_bps = 0;			/* unknown: nothing to attach */
	fare_policy_compute(&o, in, 1, out, &r);
	CHECK(!r.adv_nt);
	CHECK(r.adv_t);
}

/*
 * fare-04 §4.2: S1@PoD-8 gets the route from SS1..SS4@Plane-1, each with
 * the transitive PB S1@PoD-1 set (50 GB/s) and a non-transitive PB for
 * the SS-to-S1@PoD-1 link (400, 400, 200, 400G), over 400G, 400G, 400G
 * and 100G links: weights min(link, nt) = 400:400:200:100 = 4:4:2:1.
 */
TEST(fare_04_4_2_remote_spine_weighs_by_non_transitive_pb)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_REMOTE_SPINE };
	struct fare_path_in in[4] = {
		path(400 * G, 400 * G, 400 * G),
		path(400 * G, 400 * G, 400 * G),
		path(400 * G, 200 * G, 400 * G),
		path(400 * G, 400 * G, 100 * G),
	};
	struct fare_path_out out[4];
	struct fare_result r;

	fare_policy_compute(&o, in, 4, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 4), "4:4:2:1");
	CHECK_INT(out[2].rule, FARE_RULE_MIN_LINK_PB_NT);
	CHECK(out[2].used_nt);
	/* Transitive PB passed on; the non-transitive one never is. */
	CHECK_INT(r.adv_rule, FARE_ADV_UNCHANGED);
	CHECK_INT(r.adv_t_value, 0x5240);
	CHECK(!r.adv_nt);
	/* The total toward S1@PoD-1 (1.1 Tb/s) is not smaller: no change. */
	o.lower_to_next_next_hop = true;
	fare_policy_compute(&o, in, 4, out, &r);
	CHECK_INT(r.adv_rule, FARE_ADV_UNCHANGED);
	CHECK_INT(r.adv_t_value, 0x5240);
}

/* The optional rule: lower the transitive PB to the next-next hop total. */
TEST(fare_04_4_2_remote_spine_may_lower_pb_to_the_next_next_hop_total)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_REMOTE_SPINE,
				      .lower_to_next_next_hop = true };
	struct fare_path_in in[4];
	struct fare_path_out out[4];
	struct fare_result r;
	int i;

	/* S1@PoD-1 said 62.5 GB/s; each SS reaches it over 100G only. */
	for (i = 0; i < 4; i++)
		in[i] = path(500 * G, 100 * G, 400 * G);
	fare_policy_compute(&o, in, 4, out, &r);
	CHECK_STR(weights(out, 4), "1:1:1:1");
	CHECK(r.weighted);
	CHECK_INT(r.adv_rule, FARE_ADV_LOWERED);
	CHECK_INT(r.adv_t_value, 0x5240);	/* 4 x 12.5 = 50 GB/s */
	o.lower_to_next_next_hop = false;
	fare_policy_compute(&o, in, 4, out, &r);
	CHECK_INT(r.adv_t_value, 0x53d0);	/* 62.5 GB/s as received */
}

/* fare-04 §4.2: "Otherwise, it would perform ECMP ... by default". */
TEST(fare_04_4_2_remote_spine_without_every_non_transitive_pb_is_ecmp)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_REMOTE_SPINE,
				      .lower_to_next_next_hop = true };
	struct fare_path_in in[2] = {
		path(400 * G, 400 * G, 400 * G),
		path(400 * G, NONE, 100 * G),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK(!r.weighted);
	CHECK_STR(weights(out, 2), "1:1");
	CHECK_INT(out[1].rule, FARE_RULE_ECMP_MISSING_NT);
	CHECK_INT(r.adv_rule, FARE_ADV_UNCHANGED);
	CHECK_INT(r.adv_t_value, 0x5240);
	/* Without a transitive PB on every path there is none to pass. */
	in[1] = path(NONE, 400 * G, 100 * G);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK(r.weighted);
	CHECK_INT(r.adv_rule, FARE_ADV_STRIP);
	CHECK(!r.adv_t);
}

/*
 * mpson-00 §3 with PROTOCOL.md §2.4: a host with four 400G plane ports,
 * one degraded to 200G by lane failures (mpson §4.2's motivation), each
 * plane's leaf advertising 50 GB/s: weights 2:2:1:2. It never
 * re-advertises.
 */
TEST(mpson_3_host_weighs_planes_by_min_local_port_and_leaf_pb)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_HOST };
	struct fare_path_in in[4] = {
		path(400 * G, NONE, 400 * G),
		path(400 * G, NONE, 400 * G),
		path(400 * G, NONE, 200 * G),
		path(400 * G, NONE, 400 * G),
	};
	struct fare_path_out out[4];
	struct fare_result r;

	fare_policy_compute(&o, in, 4, out, &r);
	CHECK(r.weighted);
	CHECK_STR(weights(out, 4), "2:2:1:2");
	CHECK(!out[0].used_nt);
	CHECK_INT(r.adv_rule, FARE_ADV_NONE);
	CHECK(!r.adv_t && !r.adv_nt);
}

/* PROTOCOL.md §2.4: the non-transitive PB is preferred when all have it. */
TEST(host_prefers_non_transitive_pb_only_when_every_plane_has_one)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_HOST };
	struct fare_path_in in[2] = {
		path(400 * G, 100 * G, 400 * G),
		path(400 * G, 300 * G, 400 * G),
	};
	struct fare_path_out out[2];
	struct fare_result r;

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "1:3");
	CHECK(out[0].used_nt);
	CHECK_INT(out[0].rule, FARE_RULE_MIN_LINK_PB_NT);
	in[1] = path(200 * G, NONE, 400 * G);
	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(weights(out, 2), "2:1");
	CHECK(!out[0].used_nt);
}

TEST(weights_keep_exact_ratios_by_gcd_and_scale_without_overflow)
{
	uint64_t bw[4] = { 25 * G, 100 * G, 0, 400 * G };
	uint64_t big[3] = { UINT64_MAX - 1, UINT64_MAX - 2, 1 };
	/* 3 * 2^40 + 1 and 2^40 + 1 are coprime: no exact u32 ratio. */
	uint64_t odd[2] = { 3 * (1ull << 40) + 1, (1ull << 40) + 1 };
	uint32_t w[4];

	fare_weights_scale(bw, 4, w);
	CHECK_INT(w[0], 1);
	CHECK_INT(w[1], 4);
	CHECK_INT(w[2], 0);
	CHECK_INT(w[3], 16);
	fare_weights_scale(big, 3, w);
	CHECK_INT(w[0], UINT32_MAX);
	CHECK_INT(w[1], UINT32_MAX);
	CHECK_INT(w[2], 1);		/* tiny, but never 0 */
	fare_weights_scale(odd, 2, w);
	CHECK_INT(w[0], UINT32_MAX);
	/* (2^40 + 1) / (3 * 2^40 + 1) * (2^32 - 1) = 1431655765.0009 */
	CHECK_INT(w[1], 1431655765);
	/* Exactly u32-sized ratios stay exact. */
	odd[0] = UINT32_MAX;
	odd[1] = 1;
	fare_weights_scale(odd, 2, w);
	CHECK_INT(w[0], UINT32_MAX);
	CHECK_INT(w[1], 1);
	fare_weights_scale(bw, 0, w);
}

TEST(explain_names_the_pb_link_min_weight_and_rule)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[3] = {
		path(400 * G, NONE, 100 * G),
		path(200 * G, NONE, 400 * G),
		path(NONE, NONE, 25 * G),
	};
	struct fare_path_out out[3];
	struct fare_result r;
	char buf[256];

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(fare_explain(&out[0], buf, sizeof(buf)),
		  "PB 50 GB/s (transitive), link 100 Gb/s: min 12.5 GB/s, "
		  "weight 1: fare-04 §4.1 weight = min(link, PB)");
	CHECK_STR(fare_explain(&out[1], buf, sizeof(buf)),
		  "PB 25 GB/s (transitive), link 400 Gb/s: min 25 GB/s, "
		  "weight 2: fare-04 §4.1 weight = min(link, PB)");
	in[1].bw.t.origin = FARE_BW_LB;
	fare_policy_compute(&o, in, 3, out, &r);
	CHECK_STR(fare_explain(&out[1], buf, sizeof(buf)),
		  "LB 25 GB/s (transitive), link 400 Gb/s: min 25 GB/s, "
		  "weight 1: ECMP: not every path carries PB (fare-04 §4.1)");
	CHECK_STR(fare_explain(&out[2], buf, sizeof(buf)),
		  "no transitive PB, link 25 Gb/s: weight 1: ECMP: not every "
		  "path carries PB (fare-04 §4.1)");
	CHECK_STR(fare_adv_rule_text(r.adv_rule),
		  "no PB: not every path carries one");
	CHECK_STR(fare_role_name(FARE_ROLE_REMOTE_SPINE), "remote-spine");
}

TEST(explain_names_the_node_its_links_and_the_share)
{
	struct fare_policy_opts o = { .role = FARE_ROLE_LEAF };
	struct fare_path_in in[2] = {
		node_path(70 * G, 100 * G, 1),
		node_path(70 * G, 40 * G, 1),
	};
	struct fare_path_out out[2];
	struct fare_result r;
	char buf[320];

	fare_policy_compute(&o, in, 2, out, &r);
	CHECK_STR(fare_explain(&out[1], buf, sizeof(buf)),
		  "PB 8.75 GB/s (transitive), link 40 Gb/s; node of 2 links, "
		  "140 Gb/s: min 8.75 GB/s, this path's share (by link) "
		  "2.5 GB/s, weight 2: fare-05 weight = the node's min(sum of "
		  "its links, PB), split over its paths");
}
