// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared.conf's FARE statements: the role, the PB sub-type, RFC 10005
 * acceptance, per-prefix modes, interface bandwidth "auto", and the PB =
 * maximum a host attaches to what it originates (fare-04 §4.1).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "fare_sync.h"
#include "fared.h"
#include "harness.h"
#include "linux/fare.h"

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

static int parse(const char *text, struct fared_config *cfg,
		 struct capture *cap)
{
	capture_start(cap);
	return fared_config_parse("t.conf", text, cfg, cap->f);
}

static uint8_t tcp_mode(const struct fared_config *cfg, const char *pfx)
{
	struct bgp_prefix p;
	uint8_t tcp = 0xff;

	bgp_prefix_parse(pfx, &p);
	fared_mode_of(cfg, &p, &tcp);
	return tcp;
}

static uint8_t mode(const struct fared_config *cfg, const char *pfx)
{
	struct bgp_prefix p;

	bgp_prefix_parse(pfx, &p);
	return fared_mode_of(cfg, &p, NULL);
}

TEST(config_fare_host_modes_subtype_and_origin_pb)
{
	/* 0x01 sub-type 0x77, router id 192.0.2.7, 0x7bff = 65504 GB/s. */
	static const uint8_t pb_max[] = {
		0x01, 0x77, 0xc0, 0x00, 0x02, 0x07, 0x7b, 0xff,
	};
	static const uint8_t lb[] = {
		0x00, 0x04, 0xfd, 0xe8, 0x4b, 0x3e, 0xbc, 0x20,
	};
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD "role host\npath-bandwidth sub-type 119\n"
			"link-bandwidth accept\n"
			"policy hosts {\n permit 10.0.0.0/8 ge 32\n}\n"
			"mode packet policy hosts\nmode flowlet\n"
			"interface eth1 bandwidth auto\n"
			"originate 10.9.0.7/32 ext-community 0x0004fde84b3ebc20\n"
			"originate 10.9.0.8/32 ext-community 0x01770a0000014000\n"
			"plane 1 {\n neighbor 10.1.0.1 {\n  remote-as 65001\n"
			"  interface eth1\n  import hosts\n  export hosts\n"
			" }\n}\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(cfg.fare);
	CHECK_INT(cfg.role, FARE_ROLE_HOST);
	CHECK_INT(cfg.ec.pb_subtype, 0x77);
	CHECK(cfg.ec.accept_link_bw);
	CHECK_INT(cfg.interfaces[0].bandwidth, 0);
	CHECK_INT(mode(&cfg, "10.1.2.3/32"), FARE_MODE_PACKET);
	CHECK_INT(mode(&cfg, "10.1.2.0/24"), FARE_MODE_FLOWLET);
	/* The written LB stays first; PB = maximum is added after it. */
	CHECK_INT(cfg.originates[0].ext_communities_len, 16);
	CHECK(!memcmp(cfg.originates[0].ext_communities, lb, 8));
	CHECK(!memcmp(cfg.originates[0].ext_communities + 8, pb_max, 8));
	/* A PB written on the line is kept, not doubled. */
	CHECK_INT(cfg.originates[1].ext_communities_len, 8);
	CHECK_INT(cfg.originates[1].ext_communities[7], 0x00);
	fared_config_free(&cfg);

	/* Without a role: no PB added, the default mode everywhere. */
	CHECK_INT(parse(HEAD "originate 10.9.0.7/32\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!cfg.fare);
	CHECK_INT(cfg.originates[0].ext_communities_len, 0);
	CHECK_INT(cfg.ec.pb_subtype, FARE_PB_SUBTYPE_DEFAULT);
	CHECK_INT(mode(&cfg, "10.1.2.3/32"), FARE_MODE_DEFAULT);
	fared_config_free(&cfg);
}

TEST(config_fare_transit_roles_and_options)
{
	struct fared_config cfg;
	struct capture cap;
	struct bgp_prefix p;

	CHECK_INT(parse(HEAD "role spine\n"
			"path-bandwidth lower-to-next-next-hop\n"
			"path-bandwidth attach-non-transitive\n"
			"policy mh {\n permit 10.100.0.0/16 le 32\n}\n"
			"multihomed 2 policy mh\n"
			"multihomed 3 policy mh multiply-link\n"
			"interface eth1 bandwidth 100G\n"
			"plane 1 {\n neighbor 10.1.0.1 {\n  remote-as 65001\n"
			"  interface eth1\n  upstream\n  import mh\n"
			"  export mh\n }\n}\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.role, FARE_ROLE_SPINE);
	CHECK(cfg.lower_to_next_next_hop);
	CHECK(cfg.attach_nontransitive);
	CHECK_INT(cfg.node_split, FARE_SPLIT_LINK);
	CHECK(cfg.neighbors[0].upstream);
	bgp_prefix_parse("10.100.1.0/24", &p);
	CHECK_INT(fared_multihome_of(&cfg, &p)->leaves, 2);
	CHECK(!fared_multihome_of(&cfg, &p)->multiply_link);
	bgp_prefix_parse("10.101.1.0/24", &p);
	CHECK(!fared_multihome_of(&cfg, &p));
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "role leaf\npath-bandwidth node-split even\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.node_split, FARE_SPLIT_EVEN);
	fared_config_free(&cfg);
	CHECK_INT(parse(HEAD "role leaf\npath-bandwidth node-split off\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.node_split, FARE_SPLIT_OFF);
	fared_config_free(&cfg);
	CHECK_INT(parse(HEAD "role leaf\npath-bandwidth node-split half\n",
			&cfg, &cap), 1);
	capture_end(&cap);
	fared_config_free(&cfg);
	CHECK_INT(parse(HEAD "role super-spine\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.role, FARE_ROLE_SUPER_SPINE);
	fared_config_free(&cfg);
	CHECK_INT(parse(HEAD "role leaf\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.role, FARE_ROLE_LEAF);
	fared_config_free(&cfg);
}

TEST(config_fare_errors_name_file_and_line)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	errors = parse(HEAD
		"role core\n"					/* 3 */
		"path-bandwidth sub-type 256\n"			/* 4 */
		"link-bandwidth maybe\n"			/* 5 */
		"mode ecmp\n"					/* 6 */
		"mode packet policy nope\n"			/* 7 */
		"mode flow policy\n"				/* 8 */
		"plane 1 {\n neighbor 10.1.0.1 {\n"		/* 9, 10 */
		"  remote-as 65001\n }\n}\n"			/* 11-13 */
		"role host\n",					/* 14 */
		&cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:3: expected \"role host|leaf|spine|super-spine\"\n"
		  "t.conf:4: expected \"path-bandwidth sub-type N\" (N "
		  "0..255), \"path-bandwidth attach-non-transitive\", "
		  "\"path-bandwidth lower-to-next-next-hop\" or "
		  "\"path-bandwidth node-split link|even|off\"\n"
		  "t.conf:5: expected \"link-bandwidth accept\" or "
		  "\"link-bandwidth ignore\"\n"
		  "t.conf:6: expected \"mode packet|flow|flowlet "
		  "[tcp packet|flow|flowlet] [policy NAME]\"\n"
		  "t.conf:8: expected \"mode packet|flow|flowlet "
		  "[tcp packet|flow|flowlet] [policy NAME]\"\n"
		  "t.conf:10: warning: neighbor 10.1.0.1 has no import policy: "
		  "it accepts no route (RFC 8212)\n"
		  "t.conf:10: warning: neighbor 10.1.0.1 has no export policy: "
		  "it is sent no route (RFC 8212)\n"
		  "t.conf:10: neighbor 10.1.0.1 needs an interface: it is "
		  "plane 1's device for fare.ko\n"
		  "t.conf:7: mode with undefined policy \"nope\"\n");
	CHECK_INT(errors, 7);
	capture_end(&cap);
	fared_config_free(&cfg);

	errors = parse(HEAD "mode packet\nmultihomed 1 policy x\n"
		       "multihomed 2 policy nope\n", &cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:4: expected \"multihomed N policy NAME "
		  "[multiply-link]\" with N 2..64\n"
		  "t.conf:5: multihomed with undefined policy \"nope\"\n"
		  "t.conf:3: mode needs a role\n"
		  "t.conf:5: multihomed needs a role\n");
	CHECK_INT(errors, 4);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_fare_mode_keeps_tcp_apart)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD "role host\n"
			"policy hosts {\n permit 10.0.0.0/8 ge 32\n}\n"
			"mode packet tcp flowlet policy hosts\n"
			"mode packet tcp flow\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(mode(&cfg, "10.1.2.3/32"), FARE_MODE_PACKET);
	CHECK_INT(tcp_mode(&cfg, "10.1.2.3/32"), FARE_MODE_FLOWLET);
	CHECK_INT(mode(&cfg, "10.1.2.0/24"), FARE_MODE_PACKET);
	CHECK_INT(tcp_mode(&cfg, "10.1.2.0/24"), FARE_MODE_FLOW);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "role host\nmode flowlet\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(tcp_mode(&cfg, "10.1.2.0/24"), FARE_MODE_DEFAULT);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "role host\n"
			"mode packet tcp\n"			/* 4 */
			"mode packet tcp ecmp\n"		/* 5 */
			"mode packet tcp flow policy\n",	/* 6 */
			&cfg, &cap), 3);
	CHECK_STR(capture_text(&cap),
		  "t.conf:4: expected \"mode packet|flow|flowlet "
		  "[tcp packet|flow|flowlet] [policy NAME]\"\n"
		  "t.conf:5: expected \"mode packet|flow|flowlet "
		  "[tcp packet|flow|flowlet] [policy NAME]\"\n"
		  "t.conf:6: expected \"mode packet|flow|flowlet "
		  "[tcp packet|flow|flowlet] [policy NAME]\"\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(ctl_fare_request_without_a_role)
{
	struct fared d = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&out, &len);
	CHECK_INT(ctl_answer(&d, "fare", f), 0);
	CHECK_INT(ctl_answer(&d, "fare json", f), 0);
	CHECK_INT(ctl_answer(&d, "fare now", f), -1);
	fclose(f);
	CHECK_STR(out, "fare: no role\n{\"enabled\":false}\n"
		  "error: unknown request; try \"neighbors [json]\", "
		  "\"routes [json] [PREFIX]\" or \"clear NEIGHBOR\"\n");
	free(out);
}

/* "plane N { neighbor 10.N.0.1 { ... EXTRA } }" for N = 1 to n. */
static const char *planes_conf(const char *role, unsigned int n,
			       unsigned int extra_on, const char *extra)
{
	static char buf[2048];
	size_t at;
	unsigned int i;

	at = (size_t)snprintf(buf, sizeof(buf), HEAD "role %s\n", role);
	for (i = 1; i <= n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at,
				       "interface eth%u bandwidth 400G\n", i);
	for (i = 1; i <= n; i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at,
				       "plane %u {\n neighbor 10.%u.0.1 {\n"
				       "  remote-as 6500%u\n  interface eth%u\n"
				       "%s }\n}\n", i, i, i, i,
				       i == extra_on ? extra : "");
	return buf;
}

/*
 * The planes whose paths make a prefix final during the start-up wait: a
 * host's, when each plane has one session that brings one path; none as
 * soon as one session may bring a second path (ADD-PATH, a second
 * neighbor on a plane), or for another role.
 */
TEST(config_fare_final_planes_one_session_per_plane)
{
	struct fare_plane_set s;
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(planes_conf("host", 4, 0, ""), &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(fare_sync_final_planes(&cfg, &s));
	CHECK_INT(s.n, 4);
	CHECK(fare_plane_set_has(&s, 1) && fare_plane_set_has(&s, 4));
	CHECK(!fare_plane_set_has(&s, 5));
	fared_config_free(&cfg);

	CHECK_INT(parse(planes_conf("host", 4, 3, "  add-path receive\n"),
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!fare_sync_final_planes(&cfg, &s));
	CHECK_INT(s.n, 0);
	fared_config_free(&cfg);

	/* Plane 2 with an IPv6 session beside the IPv4 one. */
	CHECK_INT(parse(planes_conf("host", 2, 2,
				    " }\n neighbor 2001:db8::1 {\n"
				    "  remote-as 65002\n  interface eth2\n"),
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.n_neighbors, 3);
	CHECK(!fare_sync_final_planes(&cfg, &s));
	fared_config_free(&cfg);

	CHECK_INT(parse(planes_conf("leaf", 4, 0, ""), &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!fare_sync_final_planes(&cfg, &s));
	fared_config_free(&cfg);

	/* No neighbor at all. */
	CHECK_INT(parse(HEAD "role host\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!fare_sync_final_planes(&cfg, &s));
	fared_config_free(&cfg);
}
