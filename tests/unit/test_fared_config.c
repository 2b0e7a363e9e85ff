// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared.conf: the example parses to exactly what it says, and every
 * problem is reported as FILE:LINE: problem, all of them in one pass.
 */
#include "config.h"
#include "harness.h"

/* Parses text and returns what was reported; the caller frees cfg. */
static const char *parse(const char *text, struct fared_config *cfg,
			 int *errors, struct capture *cap)
{
	capture_start(cap);
	*errors = fared_config_parse("t.conf", text, cfg, cap->f);
	return capture_text(cap);
}

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

TEST(config_example_file_parses_to_its_stated_values)
{
	struct fared_config cfg;
	struct capture cap;
	const struct fared_neighbor *nb;
	const struct fared_policy *pol;
	int errors;

	capture_start(&cap);
	errors = fared_config_load(FARED_EXAMPLE, &cfg, cap.f);
	capture_end(&cap);
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.router_id, 0xc0000207);
	CHECK_INT(cfg.local_as, 4200000007u);
	CHECK_INT(cfg.hold_time, 9);
	CHECK_INT(cfg.connect_retry, 5);
	CHECK_INT(cfg.n_interfaces, 2);
	CHECK_STR(cfg.interfaces[1].name, "eth-p2");
	CHECK(cfg.interfaces[1].bandwidth == 100000000000ull);
	CHECK_INT(cfg.n_policies, 2);
	pol = &cfg.policies[0];
	CHECK_STR(pol->name, "fabric-in");
	CHECK_INT(pol->n_rules, 3);
	CHECK(pol->rules[0].permit);
	CHECK_INT(pol->rules[0].prefix.len, 8);
	CHECK_INT(pol->rules[0].ge, 8);
	CHECK_INT(pol->rules[0].le, 32);
	CHECK_INT(pol->rules[1].ge, 48);
	CHECK_INT(pol->rules[1].le, 128);
	CHECK(!pol->rules[2].permit && pol->rules[2].any);
	CHECK_INT(cfg.policies[1].rules[0].ge, 32);
	CHECK_INT(cfg.policies[1].rules[0].le, 32);
	CHECK_INT(cfg.n_neighbors, 2);
	nb = &cfg.neighbors[0];
	CHECK_INT(nb->plane, 1);
	CHECK_STR(nb->addr_text, "10.1.0.1");
	CHECK_INT(nb->family, BGP_FAM_IPV4_UNICAST);
	CHECK_INT(nb->remote_as, 65101);
	CHECK_STR(nb->interface, "eth-p1");
	CHECK_INT(nb->families, BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST) |
				BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));
	CHECK_INT(nb->hold_time, 9);
	CHECK_INT(nb->import_policy, 0);
	CHECK_INT(nb->export_policy, 1);
	CHECK(!nb->passive);
	CHECK(nb->bfd);
	CHECK_INT(nb->bfd_interval_ms, 100);
	CHECK_INT(nb->bfd_multiplier, 3);
	nb = &cfg.neighbors[1];
	CHECK_INT(nb->plane, 2);
	CHECK_INT(nb->family, BGP_FAM_IPV6_UNICAST);
	CHECK_INT(nb->hold_time, 30);
	CHECK_INT(nb->connect_retry, 5);
	CHECK(nb->passive);
	CHECK(!nb->bfd);
	fared_config_free(&cfg);
}

TEST(config_defaults_are_rfc4271_timers_and_the_address_family)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(HEAD "policy p {\n permit any\n}\n"
				"plane 3 {\n neighbor fd00::1 {\n"
				"  remote-as 65001\n  import p\n  export p\n"
				"  hold-time 0\n }\n}\n", &cfg, &errors, &cap);

	CHECK_STR(out, "");
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.hold_time, 90);
	CHECK_INT(cfg.connect_retry, 120);
	CHECK_INT(cfg.update_delay, 10);
	CHECK_INT(cfg.neighbors[0].families,
		  BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));
	/* an explicit 0 is kept, not replaced by the default */
	CHECK_INT(cfg.neighbors[0].hold_time, 0);
	CHECK_INT(cfg.neighbors[0].connect_retry, 120);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_reports_every_error_with_file_and_line)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(
		"router-id 0.0.0.0\n"			/* 1 */
		"local-as 4294967296\n"			/* 2 */
		"hold-time 2\n"				/* 3 */
		"interface eth0 bandwidth 100X\n"	/* 4 */
		"policy p {\n"				/* 5 */
		"  permit 10.0.0.1/8\n"			/* 6 */
		"  permit 10.0.0.0/8 ge 24 le 16\n"	/* 7 */
		"  allow any\n"				/* 8 */
		"}\n"					/* 9 */
		"plane 1 {\n"				/* 10 */
		"  neighbor 10.1.0.1 {\n"		/* 11 */
		"    interface eth9\n"			/* 12 */
		"    import nope\n"			/* 13 */
		"    export p\n"			/* 14 */
		"    family ipv4 ipx\n"			/* 15 */
		"    colour blue\n"			/* 16 */
		"  }\n"					/* 17 */
		"  neighbor 10.1.0.1 {\n"		/* 18 */
		"    remote-as 1\n"			/* 19 */
		"    import p\n"			/* 20 */
		"    export p\n"			/* 21 */
		"  }\n"					/* 22 */
		"}\n"					/* 23 */
		"}\n",					/* 24 */
		&cfg, &errors, &cap);

	CHECK_STR(out,
		  "t.conf:1: router-id must be a non-zero IPv4 address, not "
		  "\"0.0.0.0\"\n"
		  "t.conf:2: local-as must be 1..4294967295, not "
		  "\"4294967296\"\n"
		  "t.conf:3: hold-time must be 0 or 3..65535 seconds, not "
		  "\"2\"\n"
		  "t.conf:4: bad bandwidth \"100X\" (use e.g. 100G, 25G, "
		  "400M or auto)\n"
		  "t.conf:6: bad prefix \"10.0.0.1/8\"\n"
		  "t.conf:7: ge 24 is greater than le 16\n"
		  "t.conf:8: expected \"permit\" or \"deny\", not \"allow\"\n"
		  "t.conf:15: unknown family \"ipx\" (ipv4 or ipv6)\n"
		  "t.conf:16: unknown neighbor statement \"colour\"\n"
		  "t.conf:18: neighbor 10.1.0.1 is already defined at line "
		  "11\n"
		  "t.conf:24: \"}\" closes no block\n"
		  "t.conf:11: neighbor 10.1.0.1 has no remote-as\n"
		  "t.conf:12: neighbor 10.1.0.1 uses interface \"eth9\", "
		  "which has no \"interface ... bandwidth\" line\n"
		  "t.conf:13: neighbor 10.1.0.1 imports with undefined "
		  "policy \"nope\"\n");
	CHECK_INT(errors, 14);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_missing_globals_and_unclosed_blocks_are_errors)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse("# nothing but a plane\nplane 1 {\n", &cfg,
				&errors, &cap);

	CHECK_STR(out, "t.conf:2: plane block is never closed\n"
		  "t.conf:3: router-id is missing\n"
		  "t.conf:3: local-as is missing\n");
	CHECK_INT(errors, 3);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_neighbor_without_policies_is_valid_but_warned_rfc8212)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(HEAD "plane 1 {\n neighbor 10.0.0.1 {\n"
				"  remote-as 65001\n }\n}\n", &cfg, &errors,
				&cap);

	CHECK_INT(errors, 0);
	CHECK_STR(out, "t.conf:4: warning: neighbor 10.0.0.1 has no import "
		  "policy: it accepts no route (RFC 8212)\n"
		  "t.conf:4: warning: neighbor 10.0.0.1 has no export "
		  "policy: it is sent no route (RFC 8212)\n");
	CHECK_INT(cfg.neighbors[0].import_policy, -1);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_braces_must_end_or_stand_alone_on_a_line)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(HEAD "policy p { permit any }\n"
				"policy q{\n}\n", &cfg, &errors, &cap);

	CHECK_STR(out, "t.conf:3: braces go at the end of a line (\"{\") "
		  "or alone on one (\"}\")\n"
		  "t.conf:4: put a space before \"{\"\n"
		  "t.conf:5: \"}\" closes no block\n");
	CHECK_INT(errors, 3);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_unreadable_file_is_one_error_naming_the_file)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	capture_start(&cap);
	errors = fared_config_load("/nonexistent/fared.conf", &cfg, cap.f);
	CHECK_INT(errors, 1);
	CHECK_STR(capture_text(&cap),
		  "/nonexistent/fared.conf: No such file or directory\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_bandwidth_takes_si_suffixes_in_bits_per_second)
{
	uint64_t bps;

	CHECK_INT(fared_parse_bandwidth("100G", &bps), 0);
	CHECK(bps == 100000000000ull);
	CHECK_INT(fared_parse_bandwidth("12.5G", &bps), 0);
	CHECK(bps == 12500000000ull);
	CHECK_INT(fared_parse_bandwidth("400M", &bps), 0);
	CHECK(bps == 400000000ull);
	CHECK_INT(fared_parse_bandwidth("1T", &bps), 0);
	CHECK(bps == 1000000000000ull);
	CHECK_INT(fared_parse_bandwidth("1000", &bps), 0);
	CHECK(bps == 1000);
	CHECK_INT(fared_parse_bandwidth("100GB", &bps), -1);
	CHECK_INT(fared_parse_bandwidth("G", &bps), -1);
	CHECK_INT(fared_parse_bandwidth("0", &bps), -1);
	CHECK_INT(fared_parse_bandwidth("-5G", &bps), -1);
	CHECK_INT(fared_parse_bandwidth("1e30", &bps), -1);
	CHECK_INT(fared_parse_bandwidth("nan", &bps), -1);
}

TEST(config_update_delay_is_0_to_3600_seconds)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(HEAD "update-delay 0\n", &cfg, &errors, &cap);

	CHECK_STR(out, "");
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.update_delay, 0);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse("update-delay 3601\nupdate-delay\n" HEAD, &cfg, &errors,
		    &cap);
	CHECK_STR(out, "t.conf:1: update-delay must be 0..3600 seconds, not "
		  "\"3601\"\n"
		  "t.conf:2: expected \"update-delay SECONDS\"\n");
	CHECK_INT(errors, 2);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_route_stats_is_off_unless_turned_on)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(HEAD, &cfg, &errors, &cap);

	CHECK_STR(out, "");
	CHECK_INT(cfg.route_stats, false);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse(HEAD "route-stats on\n", &cfg, &errors, &cap);
	CHECK_STR(out, "");
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.route_stats, true);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse("route-stats yes\nroute-stats\n" HEAD, &cfg, &errors,
		    &cap);
	CHECK_STR(out, "t.conf:1: route-stats must be on or off, not "
		  "\"yes\"\n"
		  "t.conf:2: expected \"route-stats on|off\"\n");
	CHECK_INT(errors, 2);
	capture_end(&cap);
	fared_config_free(&cfg);
}
