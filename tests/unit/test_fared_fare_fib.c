// SPDX-License-Identifier: GPL-2.0-only
/*
 * fare_fib: a prefix's paths become one fare.ko route with a weight per
 * plane (mpson-00 §3: min(link, PB)), and the change feed becomes the
 * fewest ops, one apply per flush, in the order the whole batch needs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "fare_best.h"
#include "fare_fib.h"
#include "harness.h"

#define GBPS(x)	((uint64_t)(x) * 1000000000ull)

/* Peers 1..4 are planes 1..4; peer 9 has no plane; peer 5 is plane 2. */
static uint64_t links[6];

static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->plane = peer == 5 ? 2 : peer <= 4 ? peer : 0;
	out->link_bps = out->plane ? links[out->plane] : 0;
	out->upstream = peer >= 3;
}

static void prefix_of(void *arg, const struct bgp_prefix *p, uint8_t *mode,
		      uint8_t *tcp_mode, struct fare_policy_opts *opts)
{
	(void)arg;
	*mode = p->len == 32 ? FARE_MODE_PACKET : FARE_MODE_FLOW;
	/* The /32s of 10.7.0.0/16 keep their TCP on flowlets. */
	*tcp_mode = p->len == 32 && p->addr[0] == 10 && p->addr[1] == 7 ?
		    FARE_MODE_FLOWLET : FARE_MODE_DEFAULT;
	if (p->addr[1] == 100)
		opts->multihomed = 2;
}

static const struct fare_fib_cfg cfg = {
	.ec = { .pb_subtype = FARE_PB_SUBTYPE_DEFAULT },
	.opts = { .role = FARE_ROLE_HOST },
	.peer_of = peer_of,
	.prefix_of = prefix_of,
};

/* A path's attributes with a transitive PB of gbs GB/s (< 0: no PB). */
static struct rib_attrs *attrs_pb(double gbs)
{
	struct rib_attrs *a = calloc(1, sizeof(*a));
	struct fare_pb pb = { .transitive = true, .router_id = 0x0a000001 };

	if (gbs >= 0) {
		a->ext_communities = calloc(1, 8);
		a->ext_communities_len = 8;
		pb.value = fare_half_from_double(gbs);
		fare_pb_encode(a->ext_communities, &pb,
			       FARE_PB_SUBTYPE_DEFAULT);
	}
	return a;
}

struct entry {
	struct rib_entry e;
	struct rib_path paths[8];
};

/* peers[i] advertises PB gbs[i] (< 0: none). */
static void entry_set(struct entry *en, const char *pfx, size_t n,
		      const unsigned int *peers, const double *gbs)
{
	size_t i;

	for (i = 0; i < en->e.n_paths; i++) {
		free(en->paths[i].attrs->ext_communities);
		free(en->paths[i].attrs);
	}
	memset(en, 0, sizeof(*en));
	bgp_prefix_parse(pfx, &en->e.prefix);
	en->e.paths = en->paths;
	en->e.n_paths = n;
	for (i = 0; i < n; i++) {
		en->paths[i].peer = peers[i];
		en->paths[i].attrs = attrs_pb(gbs[i]);
	}
}

/* Path i: transitive PB t[i], non-transitive nt[i] (< 0: none), AS path
 * of aslen[i] ASes. */
static void entry_set2(struct entry *en, const char *pfx, size_t n,
		       const unsigned int *peers, const double *t,
		       const double *nt, const size_t *aslen)
{
	struct fare_pb pb = { .router_id = 0x0a000002 };
	size_t i;

	entry_set(en, pfx, n, peers, t);
	for (i = 0; i < n; i++) {
		struct rib_attrs *a = en->paths[i].attrs;

		a->as_path_len = aslen[i];
		if (nt[i] < 0)
			continue;
		a->ext_communities = realloc(a->ext_communities,
					     a->ext_communities_len + 8);
		pb.value = fare_half_from_double(nt[i]);
		fare_pb_encode(a->ext_communities + a->ext_communities_len,
			       &pb, FARE_PB_SUBTYPE_DEFAULT);
		a->ext_communities_len += 8;
	}
}

/* "1:2 2:2 3:1 4:2" */
static const char *nh_str(const struct fare_route *r)
{
	static char buf[FARE_FIB_NEXTHOPS_STRLEN];

	return fare_fib_nexthops_str(r, buf, sizeof(buf));
}

static const unsigned int p1234[] = { 1, 2, 3, 4 };

TEST(fare_fib_host_weight_is_min_of_link_and_pb_per_plane)
{
	static const double pb[] = { 50, 50, 25, 50 };
	static struct fare_route want;
	struct fare_fib_path paths[4];
	struct fare_fib_result res;
	struct entry en = { 0 };

	/* 400G links (50 GB/s): the PBs decide, 50:50:25:50 = 2:2:1:2. */
	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	entry_set(&en, "10.9.0.1/32", 4, p1234, pb);
	fare_fib_compute(&cfg, &en.e, paths, &res, &want);
	CHECK(res.res.weighted);
	CHECK_STR(nh_str(&want), "1:2 2:2 3:1 4:2");
	CHECK_INT(want.mode, FARE_MODE_PACKET);
	CHECK_INT(want.tcp_mode, FARE_MODE_DEFAULT);
	CHECK_INT(paths[2].peer.plane, 3);
	CHECK_INT(paths[2].out.rule, FARE_RULE_MIN_LINK_PB);
	/*
	 * Plane 4's link at 100G (12.5 GB/s) is below its PB:
	 * 50:50:25:12.5 = 4:4:2:1.
	 */
	links[4] = GBPS(100);
	fare_fib_compute(&cfg, &en.e, paths, &res, &want);
	CHECK_STR(nh_str(&want), "1:4 2:4 3:2 4:1");
	CHECK_INT(paths[3].out.bw_bps, GBPS(100));
	entry_set(&en, "10.9.0.1/32", 0, NULL, NULL);
}

TEST(fare_fib_route_takes_the_tcp_mode_of_its_prefix)
{
	static const double pb[] = { 50, 50, 25, 50 };
	static struct fare_route want;
	struct fare_fib_path paths[4];
	struct fare_fib_result res;
	struct entry en = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	entry_set(&en, "10.7.0.1/32", 4, p1234, pb);
	fare_fib_compute(&cfg, &en.e, paths, &res, &want);
	CHECK_INT(want.mode, FARE_MODE_PACKET);
	CHECK_INT(want.tcp_mode, FARE_MODE_FLOWLET);
	CHECK_STR(nh_str(&want), "1:2 2:2 3:1 4:2");
	entry_set(&en, "10.7.0.1/32", 0, NULL, NULL);
}

TEST(fare_fib_path_without_pb_makes_the_prefix_ecmp)
{
	static const double pb[] = { 50, -1, 25, 50 };
	static struct fare_route want;
	struct fare_fib_path paths[4];
	struct fare_fib_result res;
	struct entry en = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	entry_set(&en, "10.9.0.0/24", 4, p1234, pb);
	fare_fib_compute(&cfg, &en.e, paths, &res, &want);
	CHECK(!res.res.weighted);
	CHECK_STR(nh_str(&want), "1:1 2:1 3:1 4:1");
	CHECK_INT(want.mode, FARE_MODE_FLOW);
	CHECK_INT(paths[0].out.rule, FARE_RULE_ECMP_MISSING);
	entry_set(&en, "10.9.0.1/32", 0, NULL, NULL);
}

TEST(fare_fib_route_asks_for_counters_as_configured)
{
	static const double pb[] = { 50, 50, 25, 50 };
	static struct fare_route want;
	struct fare_fib_cfg with = cfg;
	struct fare_fib_path paths[4];
	struct fare_fib_result res;
	struct entry en = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	entry_set(&en, "10.9.0.1/32", 4, p1234, pb);
	with.route_stats = FARE_ROUTE_STATS_OFF;
	fare_fib_compute(&with, &en.e, paths, &res, &want);
	CHECK_INT(want.stats, FARE_ROUTE_STATS_OFF);
	with.route_stats = FARE_ROUTE_STATS_ON;
	fare_fib_compute(&with, &en.e, paths, &res, &want);
	CHECK_INT(want.stats, FARE_ROUTE_STATS_ON);
	entry_set(&en, "10.9.0.1/32", 0, NULL, NULL);
}

TEST(fare_fib_second_path_of_a_plane_and_planeless_paths_are_not_weighed)
{
	static const unsigned int peers[] = { 2, 5, 9, 3 };
	static const double pb[] = { 50, 10, 10, 25 };
	static struct fare_route want;
	struct fare_fib_path paths[4];
	struct fare_fib_result res;
	struct entry en = { 0 };

	links[2] = links[3] = GBPS(400);
	entry_set(&en, "2001:db8::1/128", 4, peers, pb);
	fare_fib_compute(&cfg, &en.e, paths, &res, &want);
	CHECK_INT(want.dst.family, AF_INET6);
	CHECK_STR(nh_str(&want), "2:2 3:1");
	CHECK(paths[1].duplicate);
	CHECK_INT(paths[2].peer.plane, 0);
	entry_set(&en, "10.9.0.1/32", 0, NULL, NULL);
}

/* The apply side: what each call was given, as "+a/32 ~b/24 -c/24". */
static char applied[8][512];
static size_t n_applied;
static size_t fail_at = (size_t)-1;	/* in the whole run of ops */
static size_t ops_seen;

static int record(void *arg, const struct fare_op *const *ops, size_t n,
		  size_t *failed)
{
	char *buf = applied[n_applied++ % 8];
	size_t i, at = 0;

	(void)arg;
	buf[0] = '\0';
	for (i = 0; i < n; i++, ops_seen++) {
		char a[INET6_ADDRSTRLEN];

		if (ops_seen == fail_at) {
			*failed = i;
			ops_seen++;
			return -EINVAL;
		}
		inet_ntop(ops[i]->route.dst.family, &ops[i]->route.dst.addr,
			  a, sizeof(a));
		at += snprintf(buf + at, 512 - at, "%s%c%s/%u", i ? " " : "",
			       ops[i]->type == FARE_OP_ROUTE_ADD ? '+' :
			       ops[i]->type == FARE_OP_ROUTE_DEL ? '-' : '~',
			       a, ops[i]->route.dst.plen);
	}
	return 0;
}

static const char *weights(struct fare_fib *fib, const char *pfx)
{
	static struct fare_route r;
	struct bgp_prefix bp;
	struct fare_prefix fp;

	bgp_prefix_parse(pfx, &bp);
	fare_fib_prefix(&bp, &fp);
	if (!fare_fib_get(fib, &fp, &r))
		return "none";
	return nh_str(&r);
}

TEST(fare_fib_feed_becomes_one_ordered_batch_of_differences)
{
	static const double pb4[] = { 50, 50, 25, 50 };
	static const double pb4b[] = { 50, 50, 50, 50 };
	static const unsigned int p134[] = { 1, 3, 4 };
	static const double pb3[] = { 50, 25, 50 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct entry a = { 0 }, b = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	entry_set(&a, "10.9.0.0/24", 4, p1234, pb4);
	entry_set(&b, "10.9.0.1/32", 4, p1234, pb4);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	CHECK_INT(fare_fib_update(fib, &cfg, &b.e), 0);
	CHECK_INT(fare_fib_pending(fib), 2);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	/* One call; the more specific route goes in first. */
	CHECK_INT(n_applied, 1);
	CHECK_STR(applied[0], "+10.9.0.1/32 +10.9.0.0/24");
	CHECK_INT(fare_fib_count(fib), 2);
	CHECK_STR(weights(fib, "10.9.0.1/32"), "1:2 2:2 3:1 4:2");

	/* The same paths again: nothing to send. */
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 0);
	CHECK_INT(n_applied, 1);

	/* Plane 3's PB goes up on one prefix: that prefix alone changes. */
	entry_set(&b, "10.9.0.1/32", 4, p1234, pb4b);
	fare_fib_update(fib, &cfg, &a.e);
	fare_fib_update(fib, &cfg, &b.e);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_STR(applied[1], "~10.9.0.1/32");
	CHECK_STR(weights(fib, "10.9.0.1/32"), "1:1 2:1 3:1 4:1");
	CHECK_STR(weights(fib, "10.9.0.0/24"), "1:2 2:2 3:1 4:2");

	/* Plane 2's session drops: both prefixes lose it in one call. */
	entry_set(&a, "10.9.0.0/24", 3, p134, pb3);
	entry_set(&b, "10.9.0.1/32", 3, p134, pb3);
	fare_fib_update(fib, &cfg, &b.e);
	fare_fib_update(fib, &cfg, &a.e);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(n_applied, 3);
	CHECK_INT(st.calls, 1);
	CHECK_STR(applied[2], "~10.9.0.1/32 ~10.9.0.0/24");
	CHECK_STR(weights(fib, "10.9.0.0/24"), "1:2 3:1 4:2");

	/* Withdrawn: deletes, the aggregate first (shortest first). */
	entry_set(&a, "10.9.0.0/24", 0, NULL, NULL);
	entry_set(&b, "10.9.0.1/32", 0, NULL, NULL);
	fare_fib_update(fib, &cfg, &b.e);
	fare_fib_update(fib, &cfg, &a.e);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_STR(applied[3], "-10.9.0.0/24 -10.9.0.1/32");
	CHECK_INT(fare_fib_count(fib), 0);
	fare_fib_free(fib);
}

TEST(fare_fib_refused_op_is_skipped_and_the_rest_applied)
{
	static const double pb4[] = { 50, 50, 25, 50 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct entry en[3];
	static const char *const pfx[] = {
		"10.9.0.1/32", "10.9.0.2/32", "10.9.0.3/32",
	};
	size_t i;

	memset(en, 0, sizeof(en));
	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	ops_seen = 0;
	fail_at = 1;
	for (i = 0; i < 3; i++) {
		entry_set(&en[i], pfx[i], 4, p1234, pb4);
		fare_fib_update(fib, &cfg, &en[i].e);
	}
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	fail_at = (size_t)-1;
	CHECK_INT(st.ops, 2);
	CHECK_INT(st.failed, 1);
	CHECK_INT(st.calls, 2);
	CHECK_STR(applied[0], "+10.9.0.1/32");
	CHECK_STR(applied[1], "+10.9.0.3/32");
	CHECK_STR(weights(fib, "10.9.0.2/32"), "none");
	CHECK_INT(fare_fib_count(fib), 2);
	/* Its next change programs it. */
	fare_fib_update(fib, &cfg, &en[1].e);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_STR(applied[2], "+10.9.0.2/32");
	for (i = 0; i < 3; i++)
		entry_set(&en[i], pfx[i], 0, NULL, NULL);
	fare_fib_free(fib);
}

TEST(fare_fib_chunks_keep_the_whole_batch_order)
{
	static const double pb4[] = { 50, 50, 25, 50 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct entry en[3];
	static const char *const pfx[] = {
		"10.9.0.0/16", "10.9.0.0/24", "10.9.0.1/32",
	};
	size_t i;

	memset(en, 0, sizeof(en));
	n_applied = 0;
	for (i = 0; i < 3; i++) {
		entry_set(&en[i], pfx[i], 4, p1234, pb4);
		fare_fib_update(fib, &cfg, &en[i].e);
	}
	fare_fib_flush(fib, 2, NULL, NULL, &st);
	CHECK_INT(st.calls, 2);
	CHECK_STR(applied[0], "+10.9.0.1/32 +10.9.0.0/24");
	CHECK_STR(applied[1], "+10.9.0.0/16");
	for (i = 0; i < 3; i++)
		entry_set(&en[i], pfx[i], 0, NULL, NULL);
	fare_fib_free(fib);
}

TEST(fare_fib_spine_takes_remote_rules_for_upstream_only_and_shortest_paths)
{
	static const unsigned int peers[] = { 3, 4, 1 };
	static const double t[] = { 50, 50, 50 }, nt[] = { 25, 12.5, -1 };
	static const size_t aslen[] = { 3, 3, 1 };
	struct fare_fib_cfg spine = cfg;
	static struct fare_route want;
	struct fare_fib_path paths[3];
	struct fare_fib_result fr;
	struct entry en = { 0 };

	spine.opts.role = FARE_ROLE_SPINE;
	links[1] = links[3] = links[4] = GBPS(400);
	/*
	 * From super-spines 3 and 4 only: S1@PoD-8 weighs by the
	 * non-transitive PB, min(50, 25) : min(50, 12.5) = 2:1, and passes
	 * the transitive PB (50 GB/s = 0x5240) on unchanged.
	 */
	entry_set2(&en, "10.8.0.0/24", 2, peers, t, nt, aslen);
	fare_fib_compute(&spine, &en.e, paths, &fr, &want);
	CHECK_INT(fr.role, FARE_ROLE_REMOTE_SPINE);
	CHECK_STR(nh_str(&want), "3:2 4:1");
	CHECK_INT(fr.res.adv_rule, FARE_ADV_UNCHANGED);
	CHECK_INT(fr.res.adv_t_value, 0x5240);
	CHECK_INT(fr.best, 0);
	/* A leaf's path, one AS long, is the only equal-cost one. */
	entry_set2(&en, "10.8.0.0/24", 3, peers, t, nt, aslen);
	fare_fib_compute(&spine, &en.e, paths, &fr, &want);
	CHECK_INT(fr.role, FARE_ROLE_SPINE);
	CHECK_STR(nh_str(&want), "1:1");
	CHECK(paths[0].longer);
	CHECK(!fare_fib_weighed(&paths[1]));
	CHECK_INT(fr.best, 2);
	CHECK_INT(fr.res.adv_rule, FARE_ADV_SUM);
	CHECK_INT(fr.res.adv_t_value, 0x5240);
	entry_set(&en, "10.8.0.0/24", 0, NULL, NULL);
}

/*
 * More paths than fare_fib_compute() keeps views of (16): the 4 best,
 * one AS long, come last; the 16 before them, five long, on plane 1.
 */
TEST(fare_fib_many_paths_the_best_last)
{
	static struct fare_route want;
	struct fare_fib_path paths[20];
	struct rib_path rp[20];
	struct fare_fib_result fr;
	struct rib_entry e = { 0 };
	static const double pb[] = { 50, 50, 25, 50 };
	size_t i;

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	bgp_prefix_parse("10.9.1.0/24", &e.prefix);
	e.paths = rp;
	e.n_paths = 20;
	for (i = 0; i < 20; i++) {
		rp[i] = (struct rib_path){ 0 };
		rp[i].peer = i < 16 ? 1 : (unsigned int)(i - 15);
		rp[i].attrs = attrs_pb(i < 16 ? 50 : pb[i - 16]);
		rp[i].attrs->as_path_len = i < 16 ? 5 : 1;
	}
	fare_fib_compute(&cfg, &e, paths, &fr, &want);
	CHECK_STR(nh_str(&want), "1:2 2:2 3:1 4:2");
	CHECK_INT(fr.best, 16);
	for (i = 0; i < 20; i++) {
		CHECK(paths[i].longer == (i < 16));
		CHECK(fare_fib_weighed(&paths[i]) == (i >= 16));
	}
	/* The best on plane 1 first: the 16 others are duplicates then. */
	rp[0].attrs->as_path_len = 1;
	fare_fib_compute(&cfg, &e, paths, &fr, &want);
	CHECK_STR(nh_str(&want), "1:2 2:2 3:1 4:2");
	CHECK_INT(fr.best, 0);
	CHECK(paths[0].out.weight && !paths[16].out.weight);
	for (i = 0; i < 20; i++) {
		free(rp[i].attrs->ext_communities);
		free(rp[i].attrs);
	}
}

TEST(fare_fib_leaf_divides_a_multihomed_prefixs_pb)
{
	static const unsigned int peers[] = { 1, 2 };
	static const double t[] = { 62.5, 25 }, nt[] = { -1, -1 };
	static const size_t aslen[] = { 2, 2 };
	struct fare_fib_cfg leaf = cfg;
	static struct fare_route want;
	struct fare_fib_result fr;
	struct entry en = { 0 };

	leaf.opts.role = FARE_ROLE_LEAF;
	links[1] = GBPS(400);
	links[2] = GBPS(200);
	/*
	 * 10.100/16 is homed to 2 leaves (prefix_of): min(50, 62.5 / 2) :
	 * min(25, 25 / 2) = 31.25 : 12.5 = 5:2; the sum 43.75 GB/s goes on.
	 */
	entry_set2(&en, "10.100.0.0/24", 2, peers, t, nt, aslen);
	fare_fib_compute(&leaf, &en.e, NULL, &fr, &want);
	CHECK_STR(nh_str(&want), "1:5 2:2");
	CHECK_INT(fr.res.adv_rule, FARE_ADV_SUM);
	CHECK_INT(fr.res.adv_t_value, fare_half_from_double(43.75));
	entry_set(&en, "10.100.0.0/24", 0, NULL, NULL);
}

/*
 * RFC 4271 §9.1.2.2 among a plane's paths (fare_best.h): peers 2 and 5
 * are both plane 2; the multipath set is the paths equal through ORIGIN.
 */
TEST(fare_fib_picks_each_planes_best_path_and_weighs_the_multipath_set)
{
	static const unsigned int peers[] = { 1, 2, 5, 3 };
	static const double pb[] = { 50, 50, 25, 50 };
	static struct fare_route want;
	struct fare_fib_path paths[4];
	struct fare_fib_result fr;
	struct entry en = { 0 };

	links[1] = links[2] = links[3] = GBPS(400);
	entry_set(&en, "10.9.0.1/32", 4, peers, pb);
	/* Plane 2: peer 5's lower MED (same neighboring AS: none) wins. */
	en.paths[1].attrs->has_med = true;
	en.paths[1].attrs->med = 20;
	en.paths[2].attrs->has_med = true;
	en.paths[2].attrs->med = 10;
	fare_fib_compute(&cfg, &en.e, paths, &fr, &want);
	CHECK(paths[1].duplicate);
	CHECK(fare_fib_weighed(&paths[2]));
	CHECK_STR(nh_str(&want), "1:2 2:1 3:2");
	/* Plane 3's ORIGIN INCOMPLETE takes it out of the multipath set. */
	en.paths[3].attrs->origin = BGP_ORIGIN_INCOMPLETE;
	fare_fib_compute(&cfg, &en.e, paths, &fr, &want);
	CHECK(paths[3].longer);
	CHECK_INT(paths[3].longer_by, FARE_BEST_ORIGIN);
	CHECK_STR(nh_str(&want), "1:2 2:1");
	/* A LOCAL_PREF of 200 on peer 2 makes it the only equal-cost path. */
	en.paths[1].attrs->has_local_pref = true;
	en.paths[1].attrs->local_pref = 200;
	fare_fib_compute(&cfg, &en.e, paths, &fr, &want);
	CHECK_INT(fr.best, 1);
	CHECK(paths[0].longer);
	CHECK_INT(paths[0].longer_by, FARE_BEST_LOCAL_PREF);
	CHECK_STR(nh_str(&want), "2:1");
	/* With the MEDs equal, the best of all is the first by router id
	 * and address: every peer here has none, so RIB order. */
	en.paths[1].attrs->has_local_pref = false;
	en.paths[2].attrs->med = 20;
	en.paths[3].attrs->origin = BGP_ORIGIN_IGP;
	fare_fib_compute(&cfg, &en.e, paths, &fr, &want);
	CHECK_INT(fr.best, 0);
	CHECK(paths[2].duplicate);
	CHECK_STR(nh_str(&want), "1:1 2:1 3:1");
	entry_set(&en, "10.9.0.1/32", 0, NULL, NULL);
}

/*
 * Start-up (fare_sync.h): on a host whose every plane has one session, a
 * prefix heard from each plane, with no stale path among those, has its
 * final path set; a missing plane, a stale path, a second path of a plane
 * or a planeless path does not make up for a plane.
 */
TEST(fare_fib_prefix_heard_from_every_plane_is_final)
{
	static const double pb3[] = { 50, 50, 25 };
	static const double pb4[] = { 50, 50, 25, 50 };
	static const unsigned int p1259[] = { 1, 2, 5, 9 };
	struct fare_plane_set planes = { .n = 0 }, none = { .n = 0 };
	struct entry a = { 0 };

	CHECK(fare_plane_set_add(&planes, 1));
	CHECK(fare_plane_set_add(&planes, 2));
	CHECK(fare_plane_set_add(&planes, 3));
	CHECK(!fare_plane_set_add(&planes, 3));
	CHECK(!fare_plane_set_add(&planes, 0));
	CHECK(!fare_plane_set_add(&planes, FARE_PLANE_ID_MAX + 1));
	CHECK(fare_plane_set_add(&planes, FARE_PLANE_ID_MAX));
	CHECK(fare_plane_set_has(&planes, FARE_PLANE_ID_MAX));
	CHECK(!fare_plane_set_has(&planes, 4));
	CHECK_INT(planes.n, 4);

	/* Planes 1, 2, 3 and 4 (peers 1 to 4). */
	memset(&planes, 0, sizeof(planes));
	fare_plane_set_add(&planes, 1);
	fare_plane_set_add(&planes, 2);
	fare_plane_set_add(&planes, 3);
	fare_plane_set_add(&planes, 4);
	entry_set(&a, "10.9.0.1/32", 3, p1234, pb3);
	CHECK(!fare_fib_every_plane(&cfg, &a.e, &planes));
	entry_set(&a, "10.9.0.1/32", 4, p1234, pb4);
	CHECK(fare_fib_every_plane(&cfg, &a.e, &planes));
	/* No planes: nothing is ever final. */
	CHECK(!fare_fib_every_plane(&cfg, &a.e, &none));
	/* Plane 4's path kept for its restarting peer. */
	a.paths[3].stale = true;
	CHECK(!fare_fib_every_plane(&cfg, &a.e, &planes));
	/* Peer 5 is plane 2 again, peer 9 has no plane: plane 3, 4 missing. */
	entry_set(&a, "10.9.0.1/32", 4, p1259, pb4);
	CHECK(!fare_fib_every_plane(&cfg, &a.e, &planes));
	/* Three planes wanted: 1, 2 and 2 again (peer 5) are not enough. */
	memset(&planes, 0, sizeof(planes));
	fare_plane_set_add(&planes, 1);
	fare_plane_set_add(&planes, 2);
	fare_plane_set_add(&planes, 3);
	CHECK(!fare_fib_every_plane(&cfg, &a.e, &planes));
	entry_set(&a, "10.9.0.1/32", 0, NULL, NULL);
}

/*
 * A route adopted at start is not confirmed until its prefix is queued;
 * a prefix queued since is, until its route is deleted.
 */
TEST(fare_fib_confirmed_is_queued_or_programmed_since_start)
{
	static const double pb4[] = { 50, 50, 25, 50 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	static struct fare_route want;
	struct fare_fib_result fr;
	struct fare_prefix x, y;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	entry_set(&a, "10.9.0.1/32", 4, p1234, pb4);
	fare_fib_compute(&cfg, &a.e, NULL, &fr, &want);
	fare_fib_prefix(&a.e.prefix, &x);
	CHECK_INT(fare_fib_adopt(fib, &want), 1);
	CHECK(!fare_fib_confirmed(fib, &x));
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	CHECK(fare_fib_confirmed(fib, &x));
	CHECK_INT(fare_fib_pending(fib), 0);

	entry_set(&a, "10.9.0.2/32", 4, p1234, pb4);
	fare_fib_prefix(&a.e.prefix, &y);
	CHECK(!fare_fib_confirmed(fib, &y));
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	CHECK(fare_fib_confirmed(fib, &y));
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK(fare_fib_confirmed(fib, &y));
	entry_set(&a, "10.9.0.2/32", 0, NULL, NULL);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK(!fare_fib_confirmed(fib, &y));
	fare_fib_free(fib);
}

/*
 * A partial flush (fared's idle time during the start-up wait) sends the
 * first prefixes queued, ordered among themselves, and keeps the rest in
 * the order they came for the next one.
 */
TEST(fare_fib_partial_flush_sends_the_first_queued_and_keeps_the_rest)
{
	static const double pb4[] = { 50, 50, 25, 50 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	entry_set(&a, "10.9.0.0/24", 4, p1234, pb4);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	entry_set(&a, "10.9.0.1/32", 4, p1234, pb4);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	entry_set(&a, "10.8.0.0/16", 4, p1234, pb4);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	fare_fib_flush_part(fib, 0, 2, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_INT(n_applied, 1);
	CHECK_STR(applied[0], "+10.9.0.1/32 +10.9.0.0/24");
	CHECK_INT(fare_fib_pending(fib), 1);
	CHECK_INT(fare_fib_count(fib), 2);
	/* More than is queued: all of it. */
	entry_set(&a, "10.7.0.0/16", 4, p1234, pb4);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	fare_fib_flush_part(fib, 0, 5, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_STR(applied[1], "+10.7.0.0/16 +10.8.0.0/16");
	CHECK_INT(fare_fib_pending(fib), 0);
	CHECK_INT(fare_fib_count(fib), 4);
	entry_set(&a, "10.7.0.0/16", 0, NULL, NULL);
	fare_fib_free(fib);
}

/* Path bandwidths of four planes: weights 2:2:1:2, and all equal. */
static const double pb_2221[] = { 50, 50, 25, 50 };
static const double pb_even[] = { 50, 50, 50, 50 };

/* Queues pfx with a path on each of planes 1-4; fare_fib_update()'s. */
static int put4(struct fare_fib *fib, struct entry *a, const char *pfx,
		const double *pb)
{
	entry_set(a, pfx, 4, p1234, pb);
	return fare_fib_update(fib, &cfg, &a->e);
}

/* A batch taken (the FIB worker's), as record() would see it applied. */
static const char *taken(const struct fare_fib_batch *b)
{
	size_t failed;

	record(NULL, b->ops, b->n, &failed);
	return applied[(n_applied - 1) % 8];
}

/*
 * A batch out with the FIB worker: nothing else is sent meanwhile; what
 * was applied is programmed, a prefix changed or withdrawn in flight is
 * queued again with its newer route, and the flush after sends the
 * difference from what the batch did.
 */
TEST(fare_fib_batch_in_flight_settles_applied_and_requeues_changes)
{
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct fare_fib_batch b;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_2221), 0);
	CHECK_INT(put4(fib, &a, "10.9.0.2/32", pb_2221), 0);
	CHECK_INT(put4(fib, &a, "10.9.0.3/32", pb_2221), 0);
	CHECK_INT(fare_fib_take(fib, 2, &b), 0);
	CHECK_INT(b.n, 2);
	CHECK_STR(taken(&b), "+10.9.0.1/32 +10.9.0.2/32");
	CHECK_INT(fare_fib_inflight(fib), 2);
	CHECK_INT(fare_fib_pending(fib), 1);
	/* Nothing else goes while it is out. */
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 0);
	CHECK_INT(n_applied, 1);
	{
		struct fare_fib_batch b2;

		CHECK_INT(fare_fib_take(fib, 8, &b2), 0);
		CHECK_INT(b2.n, 0);
	}
	/* In flight: .1 changes, .2 is withdrawn; .2 stays confirmed. */
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_even), 0);
	entry_set(&a, "10.9.0.2/32", 0, NULL, NULL);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	CHECK_INT(fare_fib_pending(fib), 3);
	CHECK_STR(weights(fib, "10.9.0.1/32"), "none");
	CHECK_INT(fare_fib_count(fib), 0);
	fare_fib_done(fib, &b, 2, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_INT(st.failed, 0);
	CHECK_INT(fare_fib_inflight(fib), 0);
	/* What fare.ko got: the batch's routes. */
	CHECK_INT(fare_fib_count(fib), 2);
	CHECK_STR(weights(fib, "10.9.0.1/32"), "1:2 2:2 3:1 4:2");
	CHECK_STR(weights(fib, "10.9.0.2/32"), "1:2 2:2 3:1 4:2");
	/* Then the differences from it. */
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 3);
	CHECK_STR(applied[1], "~10.9.0.1/32 +10.9.0.3/32 -10.9.0.2/32");
	CHECK_STR(weights(fib, "10.9.0.1/32"), "1:1 2:1 3:1 4:1");
	CHECK_STR(weights(fib, "10.9.0.2/32"), "none");
	CHECK_STR(weights(fib, "10.9.0.3/32"), "1:2 2:2 3:1 4:2");
	CHECK_INT(fare_fib_count(fib), 2);
	entry_set(&a, "10.9.0.3/32", 0, NULL, NULL);
	fare_fib_free(fib);
}

/*
 * A batch stopped by a refusal: the ops before it are programmed, the
 * refused one is not (and not queued: the caller resynchronises), the ops
 * after it were never sent and are queued again, unless queued since with
 * a newer route; a prefix added and withdrawn while its add was not sent
 * goes without an op.
 */
TEST(fare_fib_refused_batch_programs_the_ops_before_and_requeues_after)
{
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct fare_fib_batch b;
	struct fare_prefix x;
	struct entry a = { 0 };
	size_t i;
	static const char *const pfx[] = {
		"10.9.0.1/32", "10.9.0.2/32", "10.9.0.3/32", "10.9.0.4/32",
		"10.9.0.5/32",
	};

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	for (i = 0; i < 5; i++) {
		CHECK_INT(put4(fib, &a, pfx[i], pb_2221), 0);
	}
	CHECK_INT(fare_fib_take(fib, 5, &b), 0);
	CHECK_INT(b.n, 5);
	/* In flight: .4 changes, .5 is withdrawn, .3 queued as it is. */
	CHECK_INT(put4(fib, &a, pfx[3], pb_even), 0);
	entry_set(&a, pfx[4], 0, NULL, NULL);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	CHECK_INT(put4(fib, &a, pfx[2], pb_2221), 0);
	/* The same route as sent: nothing more to do for it. */
	CHECK_INT(fare_fib_pending(fib), 2);
	/* Op 1 (.2) refused. */
	fare_fib_done(fib, &b, 1, -ENOSPC, NULL, NULL, &st);
	CHECK_INT(st.ops, 1);
	CHECK_INT(st.failed, 1);
	CHECK_INT(fare_fib_count(fib), 1);
	CHECK_STR(weights(fib, "10.9.0.1/32"), "1:2 2:2 3:1 4:2");
	CHECK_STR(weights(fib, "10.9.0.2/32"), "none");
	bgp_prefix_parse("10.9.0.2/32", &a.e.prefix);
	fare_fib_prefix(&a.e.prefix, &x);
	CHECK(!fare_fib_confirmed(fib, &x));
	/* .3 again as sent, .4 with its newer route, .5 gone. */
	CHECK_INT(fare_fib_pending(fib), 3);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_STR(applied[0], "+10.9.0.3/32 +10.9.0.4/32");
	CHECK_STR(weights(fib, "10.9.0.4/32"), "1:1 2:1 3:1 4:1");
	CHECK_STR(weights(fib, "10.9.0.5/32"), "none");
	bgp_prefix_parse("10.9.0.5/32", &a.e.prefix);
	fare_fib_prefix(&a.e.prefix, &x);
	CHECK(!fare_fib_confirmed(fib, &x));
	CHECK_INT(fare_fib_count(fib), 3);
	entry_set(&a, pfx[0], 0, NULL, NULL);
	fare_fib_free(fib);
}

/* fared exits with a batch out: freeing the table frees what it holds. */
TEST(fare_fib_free_with_a_batch_out_and_prefixes_requeued)
{
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_batch b;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_2221), 0);
	CHECK_INT(fare_fib_take(fib, 1, &b), 0);
	CHECK_INT(b.n, 1);
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_even), 0);
	free(b.ops);
	free(b.ents);
	free(b.op_mem);
	entry_set(&a, "10.9.0.1/32", 0, NULL, NULL);
	fare_fib_free(fib);
}

/* Each op with its next hops, read up to n_nexthops (valgrind: no more). */
static char hops_seen[512];

static void format_hops(const struct fare_op *const *ops, size_t n)
{
	size_t i, at = 0;
	unsigned int k;

	hops_seen[0] = '\0';
	for (i = 0; i < n && at < sizeof(hops_seen); i++) {
		const struct fare_route *r = &ops[i]->route;

		at += snprintf(hops_seen + at, sizeof(hops_seen) - at,
			       "%s%c/%u", i ? " " : "",
			       ops[i]->type == FARE_OP_ROUTE_ADD ? '+' :
			       ops[i]->type == FARE_OP_ROUTE_DEL ? '-' : '~',
			       r->dst.plen);
		for (k = 0; k < r->n_nexthops && at < sizeof(hops_seen); k++)
			at += snprintf(hops_seen + at, sizeof(hops_seen) - at,
				       "%c%u:%u", k ? ',' : ' ',
				       r->nexthops[k].plane_id,
				       r->nexthops[k].weight);
	}
}

static int record_hops(void *arg, const struct fare_op *const *ops,
		       size_t n, size_t *failed)
{
	(void)arg;
	(void)failed;
	format_hops(ops, n);
	return 0;
}

/*
 * The ops handed out hold each route's next hops and no more room
 * (FARE_OP_SIZE): a taken batch and a flush carry the same, and a delete
 * none.
 */
TEST(fare_fib_ops_carry_their_next_hops_at_their_own_size)
{
	struct fare_fib *fib = fare_fib_new(record_hops, NULL);
	struct fare_fib_flush_stats st;
	struct fare_fib_batch b;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_2221), 0);
	CHECK_INT(put4(fib, &a, "10.9.0.0/24", pb_even), 0);
	CHECK_INT(fare_fib_take(fib, 8, &b), 0);
	CHECK_INT(b.n, 2);
	format_hops(b.ops, b.n);
	CHECK_STR(hops_seen, "+/32 1:2,2:2,3:1,4:2 +/24 1:1,2:1,3:1,4:1");
	fare_fib_done(fib, &b, 2, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	/* A change and a withdrawal, by a flush. */
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_even), 0);
	entry_set(&a, "10.9.0.0/24", 0, NULL, NULL);
	CHECK_INT(fare_fib_update(fib, &cfg, &a.e), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_STR(hops_seen, "~/32 1:1,2:1,3:1,4:1 -/24");
	CHECK_INT(fare_fib_count(fib), 1);
	entry_set(&a, "10.9.0.1/32", 0, NULL, NULL);
	fare_fib_free(fib);
}

/*
 * A batch that could not be sent (no thread) goes back to the queue as it
 * was: nothing counts as programmed, a newer route queued meanwhile wins.
 */
TEST(fare_fib_untaken_batch_is_queued_again)
{
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;
	struct fare_fib_batch b;
	struct entry a = { 0 };

	links[1] = links[2] = links[3] = links[4] = GBPS(400);
	n_applied = 0;
	CHECK_INT(put4(fib, &a, "10.9.0.1/32", pb_2221), 0);
	CHECK_INT(put4(fib, &a, "10.9.0.2/32", pb_2221), 0);
	CHECK_INT(fare_fib_take(fib, 8, &b), 0);
	CHECK_INT(b.n, 2);
	CHECK_INT(fare_fib_pending(fib), 0);
	CHECK_INT(put4(fib, &a, "10.9.0.2/32", pb_even), 0);
	CHECK_INT(fare_fib_untake(fib, &b), 0);
	CHECK_INT(fare_fib_inflight(fib), 0);
	CHECK_INT(fare_fib_pending(fib), 2);
	CHECK_INT(fare_fib_count(fib), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_INT(st.ops, 2);
	CHECK_STR(applied[0], "+10.9.0.1/32 +10.9.0.2/32");
	CHECK_STR(weights(fib, "10.9.0.2/32"), "1:1 2:1 3:1 4:1");
	entry_set(&a, "10.9.0.2/32", 0, NULL, NULL);
	fare_fib_free(fib);
}
