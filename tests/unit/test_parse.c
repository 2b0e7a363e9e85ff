// SPDX-License-Identifier: GPL-2.0-only
/* farectl's command line parser: what it accepts and how it refuses. */
#include <arpa/inet.h>
#include <stdlib.h>

#include "harness.h"
#include "parse.h"

/* Split line on spaces into argv (after "farectl") and parse it. */
static int parse_line(const char *line, struct fc_request *req, char *err,
		      size_t errlen)
{
	static char buf[8192];
	static char *argv[1024];
	int argc = 0;
	char *tok;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "farectl";
	for (tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return fc_parse(argc, argv, req, err, errlen);
}

static struct fc_request req;
static char err[512];

#define PARSE_OK(line)							\
	do {								\
		int r_ = parse_line(line, &req, err, sizeof(err));	\
		if (r_) {						\
			t_fail(__FILE__, __LINE__, "\"%s\" refused: %s", \
			       line, err);				\
			return;						\
		}							\
	} while (0)

#define PARSE_USAGE(line, msg)						\
	do {								\
		CHECK_INT(parse_line(line, &req, err, sizeof(err)),	\
			  FC_EXIT_USAGE);				\
		CHECK_STR(err, msg);					\
	} while (0)

static bool ip4_is(const struct in_addr *a, const char *s)
{
	struct in_addr b;

	return inet_pton(AF_INET, s, &b) == 1 && a->s_addr == b.s_addr;
}

static bool ip6_is(const struct in6_addr *a, const char *s)
{
	struct in6_addr b;

	return inet_pton(AF_INET6, s, &b) == 1 && !memcmp(a, &b, sizeof(b));
}

TEST(plane_add_reads_id_device_and_ipv4_gateway)
{
	PARSE_OK("plane add 1 dev eth-p1 via 10.1.0.1");
	CHECK_INT(req.obj, FC_OBJ_PLANE);
	CHECK_INT(req.verb, FC_VERB_ADD);
	CHECK_STR(req.ctx, "plane add");
	CHECK_INT(req.plane.id, 1);
	CHECK_STR(req.ifname, "eth-p1");
	CHECK(req.plane.has_gw4 && !req.plane.has_gw6);
	CHECK(ip4_is(&req.plane.gw4, "10.1.0.1"));
	CHECK(!req.json && !req.netns);
}

TEST(plane_add_tells_ipv4_and_ipv6_gateways_apart_in_any_order)
{
	PARSE_OK("plane add 255 via fe80::1 dev eth-p2 via 10.2.0.1");
	CHECK_INT(req.plane.id, 255);
	CHECK(req.plane.has_gw4 && req.plane.has_gw6);
	CHECK(ip4_is(&req.plane.gw4, "10.2.0.1"));
	CHECK(ip6_is(&req.plane.gw6, "fe80::1"));
}

TEST(plane_replace_is_its_own_verb)
{
	PARSE_OK("plane replace 2 dev eth0 via 2001:db8::1");
	CHECK_INT(req.verb, FC_VERB_REPLACE);
	CHECK_STR(req.ctx, "plane replace");
	CHECK(!req.plane.has_gw4 && req.plane.has_gw6);
}

TEST(plane_del_and_show_take_an_optional_id)
{
	PARSE_OK("plane del 7");
	CHECK_INT(req.verb, FC_VERB_DEL);
	CHECK_INT(req.plane.id, 7);
	PARSE_OK("plane show");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	CHECK(!req.has_key);
	PARSE_OK("plane show 3");
	CHECK(req.has_key);
	CHECK_INT(req.plane.id, 3);
}

TEST(object_alone_means_show)
{
	PARSE_OK("plane");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	PARSE_OK("route");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	PARSE_OK("config");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	PARSE_OK("stats");
	CHECK_INT(req.obj, FC_OBJ_STATS);
	CHECK_INT(req.verb, FC_VERB_SHOW);
	PARSE_OK("stats show");
	CHECK_INT(req.verb, FC_VERB_SHOW);
}

TEST(route_add_reads_mode_src_and_every_nexthop)
{
	PARSE_OK("route add 10.0.0.0/24 mode flowlet src 192.0.2.7 nexthop plane 1 weight 3 nexthop plane 2 weight 1 tier 1");
	CHECK_INT(req.obj, FC_OBJ_ROUTE);
	CHECK_INT(req.verb, FC_VERB_ADD);
	CHECK_INT(req.route.dst.family, AF_INET);
	CHECK_INT(req.route.dst.plen, 24);
	CHECK(ip4_is(&req.route.dst.addr.v4, "10.0.0.0"));
	CHECK_INT(req.route.mode, FARE_MODE_FLOWLET);
	CHECK(req.route.has_src);
	CHECK(ip4_is(&req.route.src.v4, "192.0.2.7"));
	CHECK_INT(req.route.n_nexthops, 2);
	CHECK_INT(req.route.nexthops[0].plane_id, 1);
	CHECK_INT(req.route.nexthops[0].weight, 3);
	CHECK_INT(req.route.nexthops[0].tier, 0);
	CHECK_INT(req.route.nexthops[1].plane_id, 2);
	CHECK_INT(req.route.nexthops[1].weight, 1);
	CHECK_INT(req.route.nexthops[1].tier, 1);
}

TEST(route_add_takes_route_keywords_after_the_nexthops)
{
	PARSE_OK("route add 10.0.0.0/8 nexthop weight 4294967295 plane 9 mode packet");
	CHECK_INT(req.route.n_nexthops, 1);
	CHECK_INT(req.route.nexthops[0].plane_id, 9);
	CHECK_INT(req.route.nexthops[0].weight, 4294967295u);
	CHECK_INT(req.route.mode, FARE_MODE_PACKET);
}

TEST(route_add_reads_a_tcp_mode_beside_the_mode)
{
	PARSE_OK("route add 10.0.0.0/24 mode packet tcp-mode flowlet nexthop plane 1 weight 1");
	CHECK_INT(req.route.mode, FARE_MODE_PACKET);
	CHECK_INT(req.route.tcp_mode, FARE_MODE_FLOWLET);
	PARSE_OK("route add 10.0.0.0/24 t flow nexthop plane 1 weight 1");
	CHECK_INT(req.route.mode, FARE_MODE_DEFAULT);
	CHECK_INT(req.route.tcp_mode, FARE_MODE_FLOW);
	PARSE_OK("route add 10.0.0.0/24 nexthop plane 1 weight 1");
	CHECK_INT(req.route.tcp_mode, FARE_MODE_DEFAULT);
	PARSE_USAGE("route add 10.0.0.0/24 tcp-mode flow tcp-mode flowlet nexthop plane 1 weight 1",
		    "route add: tcp-mode given twice at argument 6");
	PARSE_USAGE("route add 10.0.0.0/24 tcp-mode bogus nexthop plane 1 weight 1",
		    "route add: unknown tcp-mode \"bogus\" (default, packet, flow, flowlet) at argument 5");
}

TEST(route_add_without_mode_uses_the_namespace_default)
{
	PARSE_OK("route add 2001:db8::/32 nexthop plane 1 weight 1");
	CHECK_INT(req.route.mode, FARE_MODE_DEFAULT);
	CHECK_INT(req.route.dst.family, AF_INET6);
	CHECK_INT(req.route.dst.plen, 32);
	CHECK(ip6_is(&req.route.dst.addr.v6, "2001:db8::"));
	CHECK(!req.route.has_src);
}

TEST(bare_address_is_a_host_prefix)
{
	PARSE_OK("route del 192.0.2.1");
	CHECK_INT(req.verb, FC_VERB_DEL);
	CHECK_INT(req.route.dst.plen, 32);
	PARSE_OK("route show 2001:db8::1");
	CHECK(req.has_key);
	CHECK_INT(req.route.dst.plen, 128);
}

TEST(route_accepts_64_next_hops)
{
	char line[4096];
	size_t len;
	int i;

	len = snprintf(line, sizeof(line), "route add 10.0.0.0/24");
	for (i = 1; i <= FARE_NEXTHOP_MAX; i++)
		len += snprintf(line + len, sizeof(line) - len,
				" nexthop plane %d weight %d", i, i);
	PARSE_OK(line);
	CHECK_INT(req.route.n_nexthops, FARE_NEXTHOP_MAX);
	CHECK_INT(req.route.nexthops[63].plane_id, 64);
}

TEST(keywords_take_unambiguous_prefixes)
{
	PARSE_OK("r a 10.0.0.0/24 m pa n p 1 w 3 t 2");
	CHECK_INT(req.obj, FC_OBJ_ROUTE);
	CHECK_INT(req.verb, FC_VERB_ADD);
	CHECK_INT(req.route.mode, FARE_MODE_PACKET);
	CHECK_INT(req.route.nexthops[0].plane_id, 1);
	CHECK_INT(req.route.nexthops[0].weight, 3);
	CHECK_INT(req.route.nexthops[0].tier, 2);
	PARSE_OK("p d 4");
	CHECK_INT(req.obj, FC_OBJ_PLANE);
	CHECK_INT(req.verb, FC_VERB_DEL);
	PARSE_OK("c se m flowl f 100 h 7");
	CHECK_INT(req.verb, FC_VERB_SET);
	CHECK_INT(req.config.mode, FARE_MODE_FLOWLET);
	CHECK_INT(req.config.flowlet_us, 100);
	CHECK_INT(req.config.hash_seed, 7);
}

TEST(an_exact_keyword_wins_over_a_longer_one)
{
	PARSE_OK("route add 10.0.0.0/24 mode flow nexthop plane 1 weight 1");
	CHECK_INT(req.route.mode, FARE_MODE_FLOW);
}

TEST(delete_and_list_are_aliases)
{
	PARSE_OK("route delete 10.0.0.0/24");
	CHECK_INT(req.verb, FC_VERB_DEL);
	CHECK_STR(req.ctx, "route del");
	PARSE_OK("plane list");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	PARSE_OK("plane l");
	CHECK_INT(req.verb, FC_VERB_SHOW);
}

TEST(options_set_json_pretty_and_netns)
{
	PARSE_OK("-j plane show");
	CHECK(req.json && !req.pretty);
	PARSE_OK("-p plane show");
	CHECK(req.json && req.pretty);
	PARSE_OK("-n blue plane show");
	CHECK_STR(req.netns, "blue");
	PARSE_OK("-jn red route");
	CHECK(req.json);
	CHECK_STR(req.netns, "red");
	PARSE_OK("-ngreen --pretty stats");
	CHECK_STR(req.netns, "green");
	CHECK(req.pretty);
	PARSE_OK("--netns=h1 --json --netns h2 config");
	CHECK_STR(req.netns, "h2");
}

TEST(config_set_reads_the_limits_within_their_ranges)
{
	PARSE_OK("config set route-limit 1000 plane-limit 0 nexthop-limit 64");
	CHECK_INT(req.config.set, FARE_CONFIG_MAX_ROUTES |
		  FARE_CONFIG_MAX_PLANES | FARE_CONFIG_MAX_NEXTHOPS);
	CHECK_INT(req.config.max_routes, 1000);
	CHECK_INT(req.config.max_planes, 0);
	CHECK_INT(req.config.max_nexthops, 64);
	PARSE_OK("config set route-limit 16777216 plane-limit 255");
	CHECK_INT(req.config.max_routes, 16777216);
	PARSE_USAGE("config set route-limit 16777217",
		    "config set: route-limit 16777217 out of range (0..16777216) at argument 4");
	PARSE_USAGE("config set plane-limit 256",
		    "config set: plane-limit 256 out of range (0..255) at argument 4");
	PARSE_USAGE("config set nexthop-limit 0",
		    "config set: nexthop-limit 0 out of range (1..64) at argument 4");
	PARSE_USAGE("config set nexthop-limit 65",
		    "config set: nexthop-limit 65 out of range (1..64) at argument 4");
}

TEST(config_set_reads_each_field_and_hex_seed)
{
	PARSE_OK("config set hash-seed 0xDEADbeef");
	CHECK_INT(req.config.set, FARE_CONFIG_HASH_SEED);
	CHECK_INT(req.config.hash_seed, 0xdeadbeef);
	PARSE_OK("config set mode packet flowlet-timeout 10000000");
	CHECK_INT(req.config.set, FARE_CONFIG_MODE | FARE_CONFIG_FLOWLET_US);
	CHECK_INT(req.config.mode, FARE_MODE_PACKET);
	CHECK_INT(req.config.flowlet_us, 10000000);
}

TEST(nexthop_bandwidth_and_spill_settings_are_read)
{
	PARSE_OK("route add 10.0.0.0/24 mode flowlet nexthop plane 1 weight 1 bandwidth 125000 nexthop plane 2 weight 1 tier 1 bandwidth 18446744073709551615");
	CHECK(req.route.nexthops[0].bandwidth == 125000);
	CHECK(req.route.nexthops[1].bandwidth == UINT64_MAX);
	CHECK_INT(req.route.nexthops[1].tier, 1);
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 bandwidth 1 bandwidth 2",
		    "route add: bandwidth given twice in one nexthop at argument 11");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 bandwidth 18446744073709551616",
		    "route add: bandwidth 18446744073709551616 out of range (0..18446744073709551615) at argument 10");
	PARSE_OK("config set tier-hops 3,4,6 spill-bias 4294967295");
	CHECK_INT(req.config.set,
		  FARE_CONFIG_TIER_HOPS | FARE_CONFIG_SPILL_BIAS);
	CHECK_INT(req.config.n_tier_hops, 3);
	CHECK_INT(req.config.tier_hops[0], 3);
	CHECK_INT(req.config.tier_hops[2], 6);
	CHECK(req.config.spill_bias == 4294967295u);
	PARSE_OK("config set tier-hops 1,2,3,4,5,6,7,255");
	CHECK_INT(req.config.n_tier_hops, 8);
	CHECK_INT(req.config.tier_hops[7], 255);
	PARSE_USAGE("config set tier-hops 1,2,3,4,5,6,7,8,9",
		    "config set: tier-hops: more than 8 hop counts at argument 4");
	PARSE_USAGE("config set tier-hops 3,0",
		    "config set: tier-hops: hop count 0 out of range (1..255) at argument 4");
	PARSE_USAGE("config set tier-hops 3,256",
		    "config set: tier-hops: hop count 256 out of range (1..255) at argument 4");
	PARSE_USAGE("config set tier-hops 3,,4",
		    "config set: tier-hops \"3,,4\" is not a list of numbers at argument 4");
	PARSE_USAGE("config set tier-hops 3,4,",
		    "config set: tier-hops \"3,4,\" is not a list of numbers at argument 4");
	PARSE_USAGE("config set spill-bias -1",
		    "config set: spill-bias \"-1\" is not a number at argument 4");
}

TEST(help_is_understood_at_every_level)
{
	PARSE_OK("help");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_NONE);
	PARSE_OK("help route");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_ROUTE);
	PARSE_OK("plane help");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_PLANE);
	PARSE_OK("route add help");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_ROUTE);
	PARSE_OK("route add 10.0.0.0/24 nexthop help");
	CHECK_INT(req.verb, FC_VERB_HELP);
	PARSE_OK("config set help");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_CONFIG);
	PARSE_OK("stats help");
	CHECK_INT(req.obj, FC_OBJ_STATS);
	CHECK_INT(req.verb, FC_VERB_HELP);
	PARSE_OK("-j -h");
	CHECK_INT(req.verb, FC_VERB_HELP);
	CHECK_INT(req.obj, FC_OBJ_NONE);
}

TEST(a_device_may_be_called_help)
{
	PARSE_OK("plane add 1 dev help via 10.0.0.1");
	CHECK_INT(req.verb, FC_VERB_ADD);
	CHECK_STR(req.ifname, "help");
}

TEST(weight_zero_is_refused_with_its_range_and_position)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 0",
		    "route add: weight 0 out of range (1..4294967295) at argument 8");
}

TEST(weight_beyond_u32_is_out_of_range)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 4294967296",
		    "route add: weight 4294967296 out of range (1..4294967295) at argument 8");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 99999999999999999999999",
		    "route add: weight 99999999999999999999999 out of range (1..4294967295) at argument 8");
}

TEST(numbers_refuse_signs_spaces_and_letters)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight -1",
		    "route add: weight \"-1\" is not a number at argument 8");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 3x",
		    "route add: weight \"3x\" is not a number at argument 8");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 0x10",
		    "route add: weight \"0x10\" is not a number at argument 8");
	PARSE_USAGE("config set hash-seed 0x",
		    "config set: hash-seed \"0x\" is not a number at argument 4");
}

TEST(argument_positions_count_options_too)
{
	PARSE_USAGE("-j -n x route add 10.0.0.0/24 nexthop plane 1 weight 0",
		    "route add: weight 0 out of range (1..4294967295) at argument 11");
}

TEST(a_keyword_at_the_end_needs_its_value)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight",
		    "route add: missing value for weight at argument 8");
	PARSE_USAGE("plane add 1 dev",
		    "plane add: missing value for dev at argument 5");
	PARSE_USAGE("config set mode",
		    "config set: missing value for mode at argument 4");
}

TEST(a_nexthop_needs_a_plane_and_a_weight)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1",
		    "route add: nexthop needs a weight at argument 4");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop weight 1 nexthop plane 2 weight 1",
		    "route add: nexthop needs a plane at argument 4");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 nexthop plane 2",
		    "route add: nexthop needs a weight at argument 9");
}

TEST(a_route_needs_a_nexthop)
{
	PARSE_USAGE("route add 10.0.0.0/24",
		    "route add: at least one nexthop is required");
	PARSE_USAGE("route add 10.0.0.0/24 mode packet",
		    "route add: at least one nexthop is required");
	PARSE_USAGE("route add", "route add: missing prefix at argument 3");
}

TEST(a_plane_appears_once_per_route)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 nexthop plane 1 weight 2",
		    "route add: plane 1 is already a next hop at argument 11");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 plane 2 weight 1",
		    "route add: plane given twice in one nexthop at argument 7");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 w 2",
		    "route add: weight given twice in one nexthop at argument 9");
}

TEST(more_than_64_next_hops_are_refused)
{
	char line[4096];
	size_t len;
	int i;

	len = snprintf(line, sizeof(line), "route add 10.0.0.0/24");
	for (i = 1; i <= FARE_NEXTHOP_MAX + 1; i++)
		len += snprintf(line + len, sizeof(line) - len,
				" nexthop plane %d weight 1", i);
	PARSE_USAGE(line,
		    "route add: more than 64 next hops at argument 324");
}

TEST(tier_and_plane_ranges_are_enforced)
{
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 tier 8",
		    "route add: tier 8 out of range (0..7) at argument 10");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 tier 256",
		    "route add: tier 256 out of range (0..7) at argument 10");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 0 weight 1",
		    "route add: plane id 0 out of range (1..255) at argument 6");
	PARSE_USAGE("plane add 256 dev eth0 via 10.0.0.1",
		    "plane add: plane id 256 out of range (1..255) at argument 3");
	PARSE_USAGE("plane del", "plane del: missing plane id at argument 3");
	PARSE_USAGE("plane show x",
		    "plane show: plane id \"x\" is not a number at argument 3");
}

TEST(bad_prefixes_are_refused_with_the_reason)
{
	PARSE_USAGE("route add 10.0.0.0/33 nexthop plane 1 weight 1",
		    "route add: invalid prefix \"10.0.0.0/33\": prefix length out of range (0..32) at argument 3");
	PARSE_USAGE("route add 10.0.0.1/24 nexthop plane 1 weight 1",
		    "route add: invalid prefix \"10.0.0.1/24\": host bits set beyond the prefix length at argument 3");
	PARSE_USAGE("route del 10.0.0.0/",
		    "route del: invalid prefix \"10.0.0.0/\": bad prefix length at argument 3");
	PARSE_USAGE("route del 10.0.0.0/+8",
		    "route del: invalid prefix \"10.0.0.0/+8\": bad prefix length at argument 3");
	PARSE_USAGE("route show fare.example",
		    "route show: invalid prefix \"fare.example\": not an IPv4 or IPv6 address at argument 3");
	PARSE_USAGE("route del 2001:db8::/129",
		    "route del: invalid prefix \"2001:db8::/129\": prefix length out of range (0..128) at argument 3");
}

TEST(src_must_match_the_prefix_family)
{
	PARSE_USAGE("route add 10.0.0.0/24 src 2001:db8::1 nexthop plane 1 weight 1",
		    "route add: src \"2001:db8::1\" is not an IPv4 address at argument 5");
	PARSE_USAGE("route add 2001:db8::/64 src 192.0.2.1 nexthop plane 1 weight 1",
		    "route add: src \"192.0.2.1\" is not an IPv6 address at argument 5");
}

TEST(modes_are_checked_and_ambiguity_named)
{
	PARSE_USAGE("route add 10.0.0.0/24 mode f nexthop plane 1 weight 1",
		    "route add: ambiguous mode \"f\" (flow, flowlet) at argument 5");
	PARSE_USAGE("route add 10.0.0.0/24 mode spray nexthop plane 1 weight 1",
		    "route add: unknown mode \"spray\" (default, packet, flow, flowlet) at argument 5");
	PARSE_USAGE("config set mode default",
		    "config set: unknown mode \"default\" (packet, flow, flowlet) at argument 4");
	PARSE_USAGE("route add 10.0.0.0/24 mode packet mode flow nexthop plane 1 weight 1",
		    "route add: mode given twice at argument 6");
}

TEST(unknown_keywords_list_the_choices)
{
	PARSE_USAGE("route add 10.0.0.0/24 metric 5",
		    "route add: unknown keyword \"metric\" (mode, src, nexthop, group, stats, tcp-mode) at argument 4");
	PARSE_USAGE("route add 10.0.0.0/24 weight 5",
		    "route add: unknown keyword \"weight\" (mode, src, nexthop, group, stats, tcp-mode) at argument 4");
	PARSE_USAGE("plane add 1 device eth0",
		    "plane add: unknown keyword \"device\" (dev, via) at argument 4");
	PARSE_USAGE("config set seed 1",
		    "config set: unknown keyword \"seed\" (mode, flowlet-timeout, hash-seed, tier-hops, spill-bias, route-limit, plane-limit, nexthop-limit, route-stats, group-limit, flowlet-slots, use-neigh, memory-budget) at argument 3");
}

TEST(unknown_objects_commands_and_options_are_usage_errors)
{
	PARSE_USAGE("bgp show",
		    "unknown object \"bgp\" (plane, route, config, stats, monitor, group, help) at argument 1");
	PARSE_USAGE("plane frob",
		    "plane: unknown command \"frob\" (add, replace, del, show, sync, help) at argument 2");
	PARSE_USAGE("config add",
		    "config: unknown command \"add\" (show, set, help) at argument 2");
	PARSE_USAGE("stats reset",
		    "stats: unknown command \"reset\" (show, help) at argument 2");
	PARSE_USAGE("-x plane", "unknown option \"-x\" at argument 1");
	PARSE_USAGE("-jx plane", "unknown option \"-x\" at argument 1");
	PARSE_USAGE("--color plane", "unknown option \"--color\" at argument 1");
	PARSE_USAGE("-n", "missing value for -n at argument 2");
	PARSE_USAGE("--netns", "missing value for --netns at argument 2");
	PARSE_USAGE("-j", "missing object (plane, route, group, config, stats, monitor, help)");
}

TEST(ambiguous_objects_are_refused)
{
	/* "s" is stats only; "" never matches; nothing here is ambiguous. */
	PARSE_OK("s");
	CHECK_INT(req.obj, FC_OBJ_STATS);
	PARSE_USAGE("config s",
		    "config: ambiguous command \"s\" (show, set) at argument 2");
}

TEST(trailing_arguments_are_refused)
{
	PARSE_USAGE("plane del 1 2",
		    "plane del: unexpected argument \"2\" at argument 4");
	PARSE_USAGE("route show 10.0.0.0/24 extra",
		    "route show: unexpected argument \"extra\" at argument 4");
	PARSE_USAGE("config show all",
		    "config show: unexpected argument \"all\" at argument 3");
	PARSE_USAGE("stats show all",
		    "stats show: unexpected argument \"all\" at argument 3");
	PARSE_USAGE("help plane extra",
		    "unexpected argument \"extra\" at argument 3");
}

TEST(plane_add_needs_a_device_and_a_gateway)
{
	PARSE_USAGE("plane add 1 via 10.0.0.1",
		    "plane add: dev IFNAME is required");
	PARSE_USAGE("plane add 1 dev eth0",
		    "plane add: a gateway is required (via GW)");
	PARSE_USAGE("plane add 1 dev eth0 dev eth1 via 10.0.0.1",
		    "plane add: dev given twice at argument 6");
	PARSE_USAGE("plane add 1 dev eth0 via 10.0.0.1 via 10.0.0.2",
		    "plane add: second IPv4 gateway \"10.0.0.2\" at argument 9");
	PARSE_USAGE("plane add 1 dev eth0 via fe80::1 via fe80::2",
		    "plane add: second IPv6 gateway \"fe80::2\" at argument 9");
	PARSE_USAGE("plane add 1 dev eth0 via gw.example",
		    "plane add: invalid gateway \"gw.example\" (not an IPv4 or IPv6 address) at argument 7");
	PARSE_USAGE("plane add 1 dev abcdefghijklmnop via 10.0.0.1",
		    "plane add: invalid device name \"abcdefghijklmnop\" (1..15 characters) at argument 5");
}

TEST(config_set_needs_something_to_set)
{
	PARSE_USAGE("config set", "config set: nothing to set (mode, flowlet-timeout, hash-seed, tier-hops, spill-bias, route-limit, plane-limit, nexthop-limit, route-stats, group-limit, flowlet-slots, use-neigh, memory-budget)");
	PARSE_USAGE("config set hash-seed 1 hash-seed 2",
		    "config set: hash-seed given twice at argument 5");
	PARSE_USAGE("config set flowlet-timeout 0",
		    "config set: flowlet-timeout 0 out of range (1..10000000) at argument 4");
	PARSE_USAGE("config set flowlet-timeout 10000001",
		    "config set: flowlet-timeout 10000001 out of range (1..10000000) at argument 4");
}

TEST(a_long_error_is_truncated_not_overrun)
{
	char small[16];

	CHECK_INT(parse_line("route add 10.0.0.0/24 nexthop plane 1 weight 0",
			     &req, small, sizeof(small)), FC_EXIT_USAGE);
	CHECK_STR(small, "route add: weig");
}

TEST(help_texts_name_every_command)
{
	struct capture c;

	capture_start(&c);
	fc_help(c.f, FC_OBJ_ROUTE);
	CHECK(strstr(capture_text(&c), "farectl route del PREFIX"));
	CHECK(strstr(capture_text(&c), "farectl route flush"));
	CHECK(strstr(capture_text(&c), "nexthop plane ID weight W [tier T]"));
	capture_end(&c);
	capture_start(&c);
	fc_help(c.f, FC_OBJ_NONE);
	CHECK(strstr(capture_text(&c), "OBJECT := { plane | route | group | config | stats | monitor }"));
	CHECK(strstr(capture_text(&c), "farectl [OPTIONS] -batch FILE"));
	capture_end(&c);
	capture_start(&c);
	fc_help(c.f, FC_OBJ_MONITOR);
	CHECK(strstr(capture_text(&c), "farectl monitor [all | { plane | route | config | group } ...]"));
	capture_end(&c);
}

TEST(options_may_be_spelled_out_with_one_dash_like_ip)
{
	PARSE_OK("-json -pretty -netns blue plane show");
	CHECK(req.json && req.pretty);
	CHECK_STR(req.netns, "blue");
	PARSE_OK("-js -net red route");
	CHECK(req.json && !req.pretty);
	CHECK_STR(req.netns, "red");
	PARSE_USAGE("--json=1 plane", "option \"--json\" takes no value at argument 1");
	PARSE_USAGE("-netns", "missing value for -netns at argument 2");
}

TEST(batch_option_takes_a_file_and_no_command)
{
	PARSE_OK("-batch routes.txt");
	CHECK_STR(req.batch, "routes.txt");
	PARSE_OK("-j -b -");
	CHECK_STR(req.batch, "-");
	CHECK(req.json);
	PARSE_OK("--batch=/tmp/x -n h1");
	CHECK_STR(req.batch, "/tmp/x");
	CHECK_STR(req.netns, "h1");
	PARSE_USAGE("-batch", "missing value for -batch at argument 2");
	PARSE_USAGE("-batch f route show",
		    "unexpected argument \"route\" after -batch FILE at argument 3");
}

TEST(route_flush_takes_no_argument)
{
	PARSE_OK("route flush");
	CHECK_INT(req.obj, FC_OBJ_ROUTE);
	CHECK_INT(req.verb, FC_VERB_FLUSH);
	CHECK_STR(req.ctx, "route flush");
	PARSE_USAGE("route flush 10.0.0.0/8",
		    "route flush: unexpected argument \"10.0.0.0/8\" at argument 3");
	PARSE_USAGE("plane flush",
		    "plane: unknown command \"flush\" (add, replace, del, show, sync, help) at argument 2");
	PARSE_OK("plane sync");
	CHECK_INT(req.obj, FC_OBJ_PLANE);
	CHECK_INT(req.verb, FC_VERB_SYNC);
	CHECK_STR(req.ctx, "plane sync");
	PARSE_USAGE("plane sync 1",
		    "plane sync: unexpected argument \"1\" at argument 3");
}

TEST(monitor_shows_everything_or_the_kinds_named)
{
	PARSE_OK("monitor");
	CHECK_INT(req.obj, FC_OBJ_MONITOR);
	CHECK_INT(req.verb, FC_VERB_SHOW);
	CHECK_INT(req.monitor, FC_MON_ALL);
	PARSE_OK("-j monitor route config");
	CHECK_INT(req.monitor, FC_MON_ROUTE | FC_MON_CONFIG);
	PARSE_OK("mon p");
	CHECK_INT(req.monitor, FC_MON_PLANE);
	PARSE_USAGE("monitor bgp",
		    "monitor: unknown event kind \"bgp\" (all, plane, route, config, group, help) at argument 2");
	PARSE_OK("monitor help");
	CHECK_INT(req.verb, FC_VERB_HELP);
}

static int parse_words(const char *line)
{
	static char buf[4096];
	static char *words[64];
	int n;

	snprintf(buf, sizeof(buf), "%s", line);
	n = fc_split_line(buf, words, 64, err, sizeof(err));
	if (n < 0)
		return -1;
	return fc_parse_command(n, words, &req, err, sizeof(err));
}

TEST(batch_line_errors_count_the_words_of_the_line)
{
	memset(&req, 0, sizeof(req));
	CHECK_INT(parse_words("route add 10.0.0.0/24 nexthop plane 1 weight 0"),
		  FC_EXIT_USAGE);
	CHECK_STR(err, "route add: weight 0 out of range (1..4294967295) at argument 8");
	CHECK_INT(parse_words("-j route show"), FC_EXIT_USAGE);
	CHECK_STR(err, "options go on the command line, not in the batch (\"-j\") at argument 1");
	CHECK_INT(parse_words("bgp"), FC_EXIT_USAGE);
	CHECK_STR(err, "unknown object \"bgp\" (plane, route, config, stats, monitor, group, help) at argument 1");
}

TEST(batch_line_keeps_the_command_line_options)
{
	memset(&req, 0, sizeof(req));
	req.json = true;
	req.netns = "h1";
	CHECK_INT(parse_words("route del 10.0.0.0/24"), 0);
	CHECK(req.json);
	CHECK_STR(req.netns, "h1");
	CHECK_INT(req.verb, FC_VERB_DEL);
	CHECK_INT(req.route.dst.plen, 24);
}

static char split_buf[512];
static char *split_words[8];

static int split(const char *line)
{
	snprintf(split_buf, sizeof(split_buf), "%s", line);
	return fc_split_line(split_buf, split_words, 8, err, sizeof(err));
}

TEST(split_line_handles_blanks_quotes_escapes_and_comments)
{
	CHECK_INT(split("  \t\n"), 0);
	CHECK_INT(split("# a comment"), 0);
	CHECK_INT(split("plane  del\t1 # down\n"), 3);
	CHECK_STR(split_words[0], "plane");
	CHECK_STR(split_words[1], "del");
	CHECK_STR(split_words[2], "1");
	CHECK_INT(split("a\"b c\"d 'e\"f' g\\ h x#y"), 4);
	CHECK_STR(split_words[0], "ab cd");
	CHECK_STR(split_words[1], "e\"f");
	CHECK_STR(split_words[2], "g h");
	CHECK_STR(split_words[3], "x#y");
	CHECK_INT(split("''"), 1);
	CHECK_STR(split_words[0], "");
}

TEST(split_line_refuses_open_quotes_and_too_many_words)
{
	CHECK_INT(split("route add \"10.0.0.0/24"), -1);
	CHECK_STR(err, "unterminated \" quote");
	CHECK_INT(split("1 2 3 4 5 6 7 8 9"), -1);
	CHECK_STR(err, "more than 8 words");
}

TEST(group_add_and_set_read_an_id_and_next_hops)
{
	PARSE_OK("group add 7 nexthop plane 1 weight 3 nexthop plane 2 weight 1 tier 1");
	CHECK_INT(req.obj, FC_OBJ_GROUP);
	CHECK_INT(req.verb, FC_VERB_ADD);
	CHECK_INT(req.group.id, 7);
	CHECK_INT(req.group.n_nexthops, 2);
	CHECK_INT(req.group.nexthops[0].weight, 3);
	CHECK_INT(req.group.nexthops[1].tier, 1);
	CHECK_INT(req.route.n_nexthops, 0);
	PARSE_OK("group set 2147483647 nexthop plane 4 weight 9");
	CHECK_INT(req.verb, FC_VERB_REPLACE);
	CHECK_INT(req.group.id, 2147483647);
	PARSE_OK("group del 3");
	CHECK_INT(req.verb, FC_VERB_DEL);
	CHECK_INT(req.group.id, 3);
	/* show also takes the ids of anonymous groups */
	PARSE_OK("group show 2147483648");
	CHECK(req.has_key);
	CHECK_INT(req.group.id, 2147483648U);
	PARSE_OK("group");
	CHECK_INT(req.verb, FC_VERB_SHOW);
	CHECK(!req.has_key);
}

TEST(group_refusals_name_the_argument)
{
	PARSE_USAGE("group add 0 nexthop plane 1 weight 1",
		    "group add: group id 0 out of range (1..2147483647) at argument 3");
	PARSE_USAGE("group del 2147483648",
		    "group del: group id 2147483648 out of range (1..2147483647) at argument 3");
	PARSE_USAGE("group add 1", "group add: at least one nexthop is required");
	PARSE_USAGE("group add 1 mode flow",
		    "group add: unknown keyword \"mode\" (nexthop) at argument 4");
}

TEST(route_add_takes_a_group_or_next_hops_and_stats)
{
	PARSE_OK("route add 10.0.0.0/24 group 7 stats off");
	CHECK_INT(req.route.group_id, 7);
	CHECK_INT(req.route.n_nexthops, 0);
	CHECK_INT(req.route.stats, FARE_ROUTE_STATS_OFF);
	PARSE_OK("route add 10.0.0.0/24 nexthop plane 1 weight 1 stats on");
	CHECK_INT(req.route.group_id, 0);
	CHECK_INT(req.route.stats, FARE_ROUTE_STATS_ON);
	PARSE_OK("route add 10.0.0.0/24 nexthop plane 1 weight 1");
	CHECK_INT(req.route.stats, FARE_ROUTE_STATS_DEFAULT);
	PARSE_USAGE("route add 10.0.0.0/24 group 7 nexthop plane 1 weight 1",
		    "route add: a route takes a group or next hops, not both at argument 6");
	PARSE_USAGE("route add 10.0.0.0/24 nexthop plane 1 weight 1 group 7",
		    "route add: a route takes a group or next hops, not both at argument 9");
	PARSE_USAGE("route add 10.0.0.0/24 group 7 stats maybe",
		    "route add: unknown stats \"maybe\" (on, off) at argument 7");
}

TEST(config_set_reads_flowlet_slots)
{
	PARSE_OK("config set flowlet-slots 65536");
	CHECK_INT(req.config.set, FARE_CONFIG_FLOWLET_SLOTS);
	CHECK_INT(req.config.flowlet_slots, 65536);
	PARSE_OK("config set flowlet-slots 256 flowlet-timeout 50");
	CHECK_INT(req.config.flowlet_slots, 256);
	PARSE_OK("config set flowlet-slots 4194304");
	PARSE_USAGE("config set flowlet-slots 3000",
		    "config set: flowlet-slots 3000 is not a power of two at argument 4");
	PARSE_USAGE("config set flowlet-slots 128",
		    "config set: flowlet-slots 128 out of range (256..4194304) at argument 4");
	PARSE_USAGE("config set flowlet-slots 8388608",
		    "config set: flowlet-slots 8388608 out of range (256..4194304) at argument 4");
	/* Prefixes it shares with flowlet-timeout keep meaning that. */
	PARSE_OK("config set flowlet 7 flowlet-s 512");
	CHECK_INT(req.config.set,
		  FARE_CONFIG_FLOWLET_US | FARE_CONFIG_FLOWLET_SLOTS);
	CHECK_INT(req.config.flowlet_us, 7);
	CHECK_INT(req.config.flowlet_slots, 512);
	PARSE_USAGE("config set flowlet-slots 0x100",
		    "config set: flowlet-slots \"0x100\" is not a number at argument 4");
}

TEST(config_set_reads_use_neigh)
{
	PARSE_OK("config set use-neigh off");
	CHECK_INT(req.config.set, FARE_CONFIG_USE_NEIGH);
	CHECK(!req.config.use_neigh);
	PARSE_OK("config set use-neigh on");
	CHECK(req.config.use_neigh);
	PARSE_USAGE("config set use-neigh 1",
		    "config set: unknown use-neigh \"1\" (on, off) at argument 4");
}

TEST(config_set_reads_memory_budget)
{
	PARSE_OK("config set memory-budget 64M");
	CHECK_INT(req.config.set, FARE_CONFIG_MEMORY_BUDGET);
	CHECK(req.config.memory_budget == 64ULL << 20);
	PARSE_OK("config set memory-budget 2GiB");
	CHECK(req.config.memory_budget == 2ULL << 30);
	PARSE_OK("config set memory-budget 1000");
	CHECK(req.config.memory_budget == 1000);
	PARSE_OK("config set memory-budget 1T");
	CHECK(req.config.memory_budget == FARE_MEMORY_BUDGET_LIMIT);
	PARSE_USAGE("config set memory-budget 2T",
		    "config set: memory-budget 2T out of range (0..1099511627776 bytes) at argument 4");
	PARSE_USAGE("config set memory-budget 64Q",
		    "config set: memory-budget \"64Q\" is not a size (bytes, or with K, M, G, T) at argument 4");
	PARSE_USAGE("config set memory-budget -1",
		    "config set: memory-budget \"-1\" is not a size at argument 4");
	/* "m" and "mo" still mean mode. */
	PARSE_OK("config set m flow memory-budget 1K");
	CHECK_INT(req.config.set, FARE_CONFIG_MODE | FARE_CONFIG_MEMORY_BUDGET);
	CHECK(req.config.memory_budget == 1024);
}

TEST(config_set_reads_route_stats_and_group_limit)
{
	PARSE_OK("config set route-stats off group-limit 16");
	CHECK_INT(req.config.set, FARE_CONFIG_ROUTE_STATS | FARE_CONFIG_MAX_GROUPS);
	CHECK(!req.config.route_stats);
	CHECK_INT(req.config.max_groups, 16);
	PARSE_USAGE("config set group-limit 16777217",
		    "config set: group-limit 16777217 out of range (0..16777216) at argument 4");
}
