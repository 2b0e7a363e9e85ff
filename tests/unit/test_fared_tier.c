// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dragonfly+ tiers from BGP communities (draft-agt-rtgwg-dragonfly-
 * routing-01 §5.2; PROTOCOL.md §8.3, §8.5): C3 -> tier 2 (LGLLGL), else
 * C2 -> tier 1 (LGGL), else C1 -> tier 0 (LGL), none -> intra-group,
 * which makes the prefix minimal only (§5 MUST). Per plane the lowest
 * tier counts, with that path's FARE weight. The fared.conf lines.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fare_fib.h"
#include "fib_sync.h"
#include "harness.h"
#include "tier.h"

#define GBPS(x)	((uint64_t)(x) * 1000000000ull)

/* C1 65000:1, C2 65000:2, C3 the large community 65000:0:3. */
static struct fare_tier_cfg tiers(void)
{
	struct fare_tier_cfg t = { .enabled = true };

	fare_tier_community_parse("65000:1", &t.c[FARE_TIER_C1]);
	fare_tier_community_parse("65000:2", &t.c[FARE_TIER_C2]);
	fare_tier_community_parse("65000:0:3", &t.c[FARE_TIER_C3]);
	return t;
}

static const uint8_t c1[] = { 0xfd, 0xe8, 0x00, 0x01 };
static const uint8_t c1c2[] = {
	0xfd, 0xe8, 0x00, 0x01, 0xfd, 0xe8, 0x00, 0x02,
};
static const uint8_t other[] = {
	0xfd, 0xe8, 0x00, 0x09, 0x00, 0x01, 0x00, 0x01,
};
static const uint8_t c3_large[] = {
	0x00, 0x00, 0xfd, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
};
/* 65000:1:3, not 65000:0:3. */
static const uint8_t c3_wrong[] = {
	0x00, 0x00, 0xfd, 0xe8, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03,
};

TEST(tier_from_communities_c3_over_c2_over_c1_none_is_intra_group)
{
	struct fare_tier_cfg t = tiers(), off = { 0 };
	int by;

	CHECK_INT(fare_tier_classify(&t, c1, 4, NULL, 0, &by), 0);
	CHECK_INT(by, FARE_TIER_C1);
	CHECK_INT(fare_tier_classify(&t, c1c2, 8, NULL, 0, &by), 1);
	CHECK_INT(by, FARE_TIER_C2);
	/* A reflected route keeps C1 and gets C3. */
	CHECK_INT(fare_tier_classify(&t, c1, 4, c3_large, 12, &by), 2);
	CHECK_INT(by, FARE_TIER_C3);
	CHECK_INT(fare_tier_classify(&t, c1c2, 8, c3_large, 12, &by), 2);
	CHECK_INT(fare_tier_classify(&t, other, 8, c3_wrong, 12, &by),
		  FARE_TIER_INTRA);
	CHECK_INT(by, -1);
	CHECK_INT(fare_tier_classify(&t, NULL, 0, NULL, 0, &by),
		  FARE_TIER_INTRA);
	/* A community after others is found; a partial one is ignored. */
	CHECK_INT(fare_tier_classify(&t, c1c2 + 1, 7, NULL, 0, &by),
		  FARE_TIER_INTRA);
	/* Tiers off: everything is tier 0, decided by nothing. */
	CHECK_INT(fare_tier_classify(&off, c1c2, 8, c3_large, 12, &by), 0);
	CHECK_INT(by, -1);
	CHECK_INT(fare_tier_classify(NULL, NULL, 0, NULL, 0, NULL), 0);
	CHECK_STR(fare_tier_signature(0), "LGL");
	CHECK_STR(fare_tier_signature(1), "LGGL");
	CHECK_STR(fare_tier_signature(2), "LGLLGL");
	CHECK_STR(fare_tier_signature(FARE_TIER_INTRA), "intra-group");
}

TEST(tier_community_text)
{
	static const char *const bad[] = {
		"", "65000", "65536:1", "1:65536", "a:1", "1:2:3:4", "1::2",
		"1:2:", ":1", "1:-2", "4294967296:0:0", "1:2 ",
	};
	struct fare_tier_community c;
	char buf[40];
	size_t i;

	CHECK_INT(fare_tier_community_parse("65535:0", &c), 0);
	CHECK(c.set && !c.large && c.v[0] == 65535 && c.v[1] == 0);
	CHECK_STR(fare_tier_community_str(&c, buf, sizeof(buf)), "65535:0");
	CHECK_INT(fare_tier_community_parse("4294967295:7:0", &c), 0);
	CHECK(c.large && c.v[0] == UINT32_MAX && c.v[1] == 7 && !c.v[2]);
	CHECK_STR(fare_tier_community_str(&c, buf, sizeof(buf)),
		  "4294967295:7:0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!fare_tier_community_parse(bad[i], &c)) {
			t_fail(__FILE__, __LINE__, "\"%s\" parsed", bad[i]);
			return;
		}
}

/* Peers 1..4 are planes 1..4, every link 100G; peer 9 has no plane. */
static void peer_of(void *arg, unsigned int peer, struct fare_fib_peer *out)
{
	(void)arg;
	memset(out, 0, sizeof(*out));
	out->plane = peer <= 4 ? peer : 0;
	out->link_bps = out->plane ? GBPS(100) : 0;
}

struct tpath {
	unsigned int peer;
	uint32_t path_id;
	const uint8_t *comms;
	size_t comms_len;
	const uint8_t *large;
	size_t large_len;
	double pb;			/* GB/s; < 0: none */
	size_t aslen;
};

struct tentry {
	struct rib_entry e;
	struct rib_path paths[8];
	struct rib_attrs attrs[8];
	uint8_t ecs[8][8];
};

static void tentry_set(struct tentry *en, const char *pfx,
		       const struct tpath *tp, size_t n)
{
	struct fare_pb pb = { .transitive = true, .router_id = 0x0a000001 };
	size_t i;

	memset(en, 0, sizeof(*en));
	bgp_prefix_parse(pfx, &en->e.prefix);
	en->e.paths = en->paths;
	en->e.n_paths = n;
	for (i = 0; i < n; i++) {
		struct rib_attrs *a = &en->attrs[i];

		en->paths[i].peer = tp[i].peer;
		en->paths[i].path_id = tp[i].path_id;
		en->paths[i].attrs = a;
		a->communities = (uint8_t *)tp[i].comms;
		a->communities_len = tp[i].comms_len;
		a->large_communities = (uint8_t *)tp[i].large;
		a->large_communities_len = tp[i].large_len;
		a->as_path_len = tp[i].aslen ? tp[i].aslen : 3;
		if (tp[i].pb >= 0) {
			pb.value = fare_half_from_double(tp[i].pb);
			fare_pb_encode(en->ecs[i], &pb,
				       FARE_PB_SUBTYPE_DEFAULT);
			a->ext_communities = en->ecs[i];
			a->ext_communities_len = 8;
		}
	}
}

static const char *nhs(const struct fare_route *r)
{
	static char buf[FARE_FIB_NEXTHOPS_STRLEN];

	return fare_fib_nexthops_str(r, buf, sizeof(buf));
}

#define C1	c1, 4, NULL, 0
#define C2	c1c2, 8, NULL, 0
#define C3	c1, 4, c3_large, 12
#define NONE	other, 8, NULL, 0

TEST(tier_per_plane_lowest_tier_with_its_fare_weight)
{
	/*
	 * ADD-PATH: plane 1's peer sends three paths, plane 2's two, plane
	 * 3's one. Plane 1: its C1-only path (tier 0, 4 GB/s) beats the
	 * C2 and C3 ones whatever their order; plane 2: tier 1 (2 GB/s);
	 * plane 3: tier 2 (4 GB/s). Weights min(100G, PB): 4:2:4 = 2:1:2.
	 */
	static const struct tpath tp[] = {
		{ 1, 1, C2, 8, 0 },
		{ 1, 2, C3, 8, 0 },
		{ 1, 3, C1, 4, 0 },
		{ 2, 1, C3, 8, 0 },
		{ 2, 2, C2, 2, 0 },
		{ 3, 1, C3, 4, 0 },
		{ 9, 1, NONE, 4, 0 },	/* no plane: not counted */
	};
	struct fare_fib_cfg cfg = {
		.ec = { .pb_subtype = FARE_PB_SUBTYPE_DEFAULT },
		.opts = { .role = FARE_ROLE_HOST },
		.peer_of = peer_of,
		.tiers = tiers(),
	};
	static struct fare_route want;
	struct fare_fib_path fp[7];
	struct fare_fib_result fr;
	static struct tentry en;

	tentry_set(&en, "10.9.0.0/24", tp, 7);
	fare_fib_compute(&cfg, &en.e, fp, &fr, &want);
	CHECK(fr.tiers && !fr.intra);
	CHECK(fr.res.weighted);
	CHECK_STR(nhs(&want), "1:2 2:1/t1 3:2/t2");
	CHECK_INT(want.nexthops[0].tier, 0);
	CHECK_INT(want.nexthops[1].tier, 1);
	CHECK_INT(want.nexthops[2].tier, 2);
	/* fare.ko is told min(link, PB) in bytes/s: 4 GB/s, 2 GB/s. */
	CHECK_INT(want.nexthops[0].bandwidth, 4000000000ll);
	CHECK_INT(want.nexthops[1].bandwidth, 2000000000ll);
	CHECK(fp[0].duplicate && fp[1].duplicate && !fp[2].duplicate);
	CHECK_INT(fp[0].tier, 1);
	CHECK_INT(fp[0].tier_by, FARE_TIER_C2);
	CHECK_INT(fp[1].tier, 2);
	CHECK_INT(fp[2].tier, 0);
	CHECK_INT(fp[2].out.weight, 2);
	CHECK(fp[3].duplicate && fare_fib_weighed(&fp[4]));
	CHECK_INT(fp[4].out.weight, 1);
	CHECK(fare_fib_weighed(&fp[5]) && !fare_fib_weighed(&fp[6]));
	CHECK(!fp[6].minimal_only);
	CHECK_INT(fp[6].tier, FARE_TIER_INTRA);
	CHECK_INT(fr.best, 2);

	/* Without tiers: the first path of each plane, all tier 0. */
	cfg.tiers.enabled = false;
	fare_fib_compute(&cfg, &en.e, fp, &fr, &want);
	CHECK(!fr.tiers);
	CHECK_STR(nhs(&want), "1:2 2:2 3:1");
	CHECK(!fp[0].duplicate && fp[2].duplicate);
	CHECK_INT(fp[1].tier, 0);
}

TEST(tier_intra_group_prefix_is_minimal_only)
{
	/*
	 * Plane 1 has an intra-group path (no C1/C2/C3) and a C1 one;
	 * plane 2 only tiered ones, plane 3 an intra-group path with a
	 * longer AS path than the tiered paths (the prepends make those
	 * long; intra-group ones are compared among themselves): planes 1
	 * and 3, tier 0, equal PBs, weights 1:1; plane 2 is out.
	 */
	static const struct tpath tp[] = {
		{ 1, 1, C1, 4, 0 },
		{ 1, 2, NONE, 4, 4 },
		{ 2, 1, C1, 2, 0 },
		{ 2, 2, C2, 2, 0 },
		{ 3, 1, NULL, 0, NULL, 0, 4, 4 },
	};
	struct fare_fib_cfg cfg = {
		.ec = { .pb_subtype = FARE_PB_SUBTYPE_DEFAULT },
		.opts = { .role = FARE_ROLE_HOST },
		.peer_of = peer_of,
		.tiers = tiers(),
	};
	static struct fare_route want;
	struct fare_fib_path fp[5];
	struct fare_fib_result fr;
	static struct tentry en;

	tentry_set(&en, "10.9.1.0/24", tp, 5);
	fare_fib_compute(&cfg, &en.e, fp, &fr, &want);
	CHECK(fr.intra);
	CHECK_STR(nhs(&want), "1:1 3:1");
	CHECK(fp[0].minimal_only && !fare_fib_weighed(&fp[0]));
	CHECK(!fp[0].duplicate && !fp[0].longer);
	CHECK(fare_fib_weighed(&fp[1]));
	CHECK_INT(fp[1].tier, FARE_TIER_INTRA);
	CHECK(fp[2].minimal_only && fp[3].minimal_only);
	CHECK(fare_fib_weighed(&fp[4]));
	CHECK_INT(fr.best, 1);

	/* The intra-group paths go: the tiers come back. */
	tentry_set(&en, "10.9.1.0/24", tp, 4);
	en.e.paths[1] = en.e.paths[3];
	en.e.n_paths = 3;
	fare_fib_compute(&cfg, &en.e, fp, &fr, &want);
	CHECK(!fr.intra);
	CHECK_STR(nhs(&want), "1:2 2:1");
}

TEST(tier_change_alone_reprograms_the_route)
{
	static const struct tpath a[] = { { 1, 1, C1, 4, 0 } };
	static const struct tpath b[] = { { 1, 1, C2, 4, 0 } };
	struct fare_fib_cfg cfg = {
		.ec = { .pb_subtype = FARE_PB_SUBTYPE_DEFAULT },
		.opts = { .role = FARE_ROLE_HOST },
		.peer_of = peer_of,
		.tiers = tiers(),
	};
	static struct fare_route want, have;
	struct fare_fib_result fr;
	static struct tentry en;
	struct fare_op op;

	tentry_set(&en, "10.9.2.0/24", a, 1);
	fare_fib_compute(&cfg, &en.e, NULL, &fr, &have);
	tentry_set(&en, "10.9.2.0/24", b, 1);
	fare_fib_compute(&cfg, &en.e, NULL, &fr, &want);
	CHECK_STR(nhs(&want), "1:1/t1");
	CHECK(fib_diff_one(&want, &have, &op));
	CHECK_INT(op.type, FARE_OP_ROUTE_REPLACE);
	CHECK_INT(op.route.nexthops[0].tier, 1);
	/* The same PB ratio but another bandwidth: fare.ko is told too. */
	tentry_set(&en, "10.9.2.0/24", b, 1);
	en.ecs[0][7] ^= 1;
	fare_fib_compute(&cfg, &en.e, NULL, &fr, &have);
	CHECK_INT(have.nexthops[0].weight, want.nexthops[0].weight);
	CHECK(fib_diff_one(&want, &have, &op));
}

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"
#define PLANE "interface eth1 bandwidth 100G\n" \
	"policy all {\n permit 10.0.0.0/8 le 32\n}\n" \
	"plane 1 {\n neighbor 10.1.0.1 {\n  remote-as 65001\n" \
	"  interface eth1\n  import all\n  export all\n }\n}\n"

static int parse(const char *text, struct fared_config *cfg,
		 struct capture *cap)
{
	capture_start(cap);
	return fared_config_parse("t.conf", text, cfg, cap->f);
}

TEST(tier_config_lines)
{
	struct fared_config cfg;
	struct capture cap;
	char buf[40];

	CHECK_INT(parse(HEAD "role host\n"
			"tier-community minimal 65000:1\n"
			"tier-community transit 65000:2\n"
			"tier-community reflect 65000:0:3\n" PLANE, &cfg, &cap),
		  0);
	capture_end(&cap);
	CHECK(cfg.tiers.enabled);
	CHECK_STR(fare_tier_community_str(&cfg.tiers.c[FARE_TIER_C3], buf,
					  sizeof(buf)), "65000:0:3");
	CHECK_INT(cfg.tiers.c[FARE_TIER_C2].line, 5);
	fared_config_free(&cfg);

	/* reflect is optional: LGLLGL only exists with reflect VRFs. */
	CHECK_INT(parse(HEAD "role host\n"
			"tier-community transit 65000:2\n"
			"tier-community minimal 65000:1\n" PLANE, &cfg, &cap),
		  0);
	capture_end(&cap);
	CHECK(cfg.tiers.enabled && !cfg.tiers.c[FARE_TIER_C3].set);
	fared_config_free(&cfg);

	/* None: no tiers. */
	CHECK_INT(parse(HEAD "role host\n" PLANE, &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!cfg.tiers.enabled);
	fared_config_free(&cfg);
}

TEST(tier_config_errors_name_file_and_line)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD "role host\n"
			"tier-community minimal 65000:1\n"
			"tier-community minimal 65000:4\n"
			"tier-community transit 65000:1\n"
			"tier-community reflect 70000:1\n"
			"tier-community transit\n"
			"tier-community c2 65000:2\n"
			"tier-community transit 1:2:3:4\n" PLANE, &cfg, &cap),
		  7);
	CHECK_STR(capture_text(&cap),
		  "t.conf:5: tier-community minimal is already given at "
		  "line 4\n"
		  "t.conf:6: 65000:1 is already the minimal community "
		  "(line 4)\n"
		  "t.conf:7: bad community \"70000:1\" (use ASN:VALUE, each "
		  "0..65535, or a large community GLOBAL:LOCAL1:LOCAL2)\n"
		  "t.conf:8: expected \"tier-community minimal|transit|"
		  "reflect COMMUNITY\"\n"
		  "t.conf:9: expected \"tier-community minimal|transit|"
		  "reflect COMMUNITY\"\n"
		  "t.conf:10: bad community \"1:2:3:4\" (use ASN:VALUE, each "
		  "0..65535, or a large community GLOBAL:LOCAL1:LOCAL2)\n"
		  "t.conf:4: tier-community transit is missing: Dragonfly+ "
		  "tiers need the minimal (C1) and transit (C2) "
		  "communities\n");
	capture_end(&cap);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "role leaf\n"
			"tier-community transit 65000:2\n"
			"tier-community minimal 65000:1\n" PLANE, &cfg, &cap),
		  1);
	CHECK_STR(capture_text(&cap),
		  "t.conf:4: tier-community needs \"role host\"\n");
	capture_end(&cap);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "tier-community reflect 65000:3\n", &cfg, &cap),
		  3);
	CHECK_STR(capture_text(&cap),
		  "t.conf:3: tier-community needs \"role host\"\n"
		  "t.conf:3: tier-community minimal is missing: Dragonfly+ "
		  "tiers need the minimal (C1) and transit (C2) "
		  "communities\n"
		  "t.conf:3: tier-community transit is missing: Dragonfly+ "
		  "tiers need the minimal (C1) and transit (C2) "
		  "communities\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}
