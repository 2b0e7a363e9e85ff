// SPDX-License-Identifier: GPL-2.0-only
/*
 * The session layer's part of fared.conf (originated prefixes with their
 * extended communities, graceful restart, control socket, state file),
 * prefix policy matching, and the control socket's answers.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "harness.h"

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

/* The first strlen(want) bytes of text are want. */
#define CHECK_PREFIX(text, want) do {					\
	static char head_[4096];					\
	snprintf(head_, sizeof(head_), "%.*s", (int)strlen(want), (text)); \
	CHECK_STR(head_, (want));					\
} while (0)

static int parse(const char *text, struct fared_config *cfg,
		 struct capture *cap)
{
	capture_start(cap);
	return fared_config_parse("t.conf", text, cfg, cap->f);
}

TEST(config_originate_keeps_extended_communities_byte_exact)
{
	static const uint8_t want[] = {
		0x00, 0x04, 0xfd, 0xe8, 0x4b, 0x3e, 0xbc, 0x20,
		0x01, 0x77, 0x0a, 0x00, 0x00, 0x01, 0x3c, 0x00,
	};
	struct fared_config cfg;
	struct capture cap;
	char buf[BGP_PREFIX_STRLEN];

	CHECK_INT(parse(HEAD "originate 10.9.0.0/24 ext-community "
			"0x0004fde84b3ebc20 ext-community 0x01770A0000013C00\n"
			"originate 2001:db8::/48\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.n_originates, 2);
	CHECK_STR(bgp_prefix_str(&cfg.originates[0].prefix, buf, sizeof(buf)),
		  "10.9.0.0/24");
	CHECK_INT(cfg.originates[0].ext_communities_len, 16);
	CHECK(!memcmp(cfg.originates[0].ext_communities, want, 16));
	CHECK_INT(cfg.originates[1].ext_communities_len, 0);
	CHECK_INT(cfg.originates[1].prefix.family, BGP_FAM_IPV6_UNICAST);
	fared_config_free(&cfg);
}

TEST(config_session_defaults_gr_off_and_standard_paths)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD, &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.gr_restart_time, 0);
	CHECK_INT(cfg.gr_stale_time, 360);
	CHECK_STR(cfg.control_socket, FARED_DEFAULT_CONTROL);
	CHECK_STR(cfg.state_file, FARED_DEFAULT_STATE);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "graceful-restart restart-time 120 stale-time 30\n"
			"control-socket /tmp/x.sock\nstate-file /tmp/x.state\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.gr_restart_time, 120);
	CHECK_INT(cfg.gr_stale_time, 30);
	CHECK_STR(cfg.control_socket, "/tmp/x.sock");
	CHECK_STR(cfg.state_file, "/tmp/x.state");
	fared_config_free(&cfg);
}

TEST(config_session_errors_name_file_and_line)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	errors = parse(HEAD
		"originate 10.9.0.0/33\n"			/* 3 */
		"originate 10.8.0.0/24 ext-community 0x12\n" /* 4 */
		"originate 10.7.0.0/24 ext-community "
		"0x0004fde84b3ebcZZ\n"				/* 5 */
		"originate 10.7.0.0/24\n"			/* 6 */
		"originate 10.6.0.0/24 colour red\n" /* 7 */
		"graceful-restart restart-time 4096\n" /* 8 */
		"graceful-restart stale-time\n" /* 9 */
		"control-socket relative.sock\n" /* 10 */
		"graceful-restart off\n",			/* 11 */
		&cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:3: bad prefix \"10.9.0.0/33\"\n"
		  "t.conf:4: ext-community must be 0x and 16 hex digits "
		  "(8 octets), not \"0x12\"\n"
		  "t.conf:5: ext-community \"0x0004fde84b3ebcZZ\" is not "
		  "hexadecimal\n"
		  "t.conf:6: prefix 10.7.0.0/24 is already originated at "
		  "line 5\n"
		  "t.conf:7: unknown originate option \"colour\"\n"
		  "t.conf:8: restart-time must be 1..4095 seconds, not "
		  "\"4096\"\n"
		  "t.conf:9: expected \"graceful-restart off\" or "
		  "\"graceful-restart restart-time N [stale-time N]\"\n"
		  "t.conf:10: control-socket must be an absolute path shorter "
		  "than 108 bytes\n");
	CHECK_INT(errors, 8);
	capture_end(&cap);
	fared_config_free(&cfg);
}


/*
 * control-group: none by default; its name is looked up (getgrnam) as it
 * is read, which tests/bgp/ctl-perms checks: NSS's dlopen would leave
 * blocks valgrind counts here.
 */
TEST(config_control_group_needs_a_group)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD, &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.control_gid, -1);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "control-group\n", &cfg, &cap), 1);
	CHECK_PREFIX(capture_text(&cap), "t.conf:3: ");
	capture_end(&cap);
	CHECK_INT(cfg.control_gid, -1);
	fared_config_free(&cfg);
}

TEST(config_max_prefix_add_path_and_send_limits)
{
	struct fared_config cfg;
	struct capture cap;
	const struct fared_neighbor *nb;

	CHECK_INT(parse(HEAD "send-buffer-limit 1048576\n"
			"test-send-hold-time 2\n"
			"plane 1 {\nneighbor 10.0.0.1 {\nremote-as 65001\n"
			"max-prefix 10000 restart 30\nadd-path receive\n"
			"}\nneighbor 10.0.0.2 {\nremote-as 65001\n"
			"max-prefix 5 warning-only\n"
			"add-path receive max-paths 8\n}\n"
			"neighbor 10.0.0.3 {\nremote-as 65001\n}\n}\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.send_buffer_limit, 1048576);
	CHECK_INT(cfg.test_send_hold_time, 2);
	nb = &cfg.neighbors[0];
	CHECK_INT(nb->max_prefix, 10000);
	CHECK_INT(nb->max_prefix_restart, 30);
	CHECK(!nb->max_prefix_warning_only);
	CHECK(nb->add_path_rx);
	CHECK_INT(nb->add_path_max_paths, FARED_ADD_PATH_MAX_PATHS_DEFAULT);
	nb = &cfg.neighbors[1];
	CHECK_INT(nb->max_prefix, 5);
	CHECK(nb->max_prefix_warning_only);
	CHECK_INT(nb->max_prefix_restart, 0);
	CHECK(nb->add_path_rx);
	CHECK_INT(nb->add_path_max_paths, 8);
	/* The defaults: no limit, no ADD-PATH, RFC 9687's send hold. */
	nb = &cfg.neighbors[2];
	CHECK_INT(nb->max_prefix, 0);
	CHECK(!nb->add_path_rx);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "send-buffer-limit 1000\n" /* 3 */
			"test-send-hold-time 0\n" /* 4 */
			"plane 1 {\nneighbor 10.0.0.1 {\n" /* 5, 6 */
			"remote-as 65001\n" /* 7 */
			"max-prefix\n" /* 8 */
			"max-prefix 0\n" /* 9 */
			"max-prefix 10 restart\n" /* 10 */
			"max-prefix 10 restart 70000\n" /* 11 */
			"max-prefix 10 warning-only restart 5\n" /* 12 */
			"add-path send\n" /* 13 */
			"add-path\n" /* 14 */
			"add-path receive max-paths 0\n" /* 15 */
			"add-path receive max-paths\n" /* 16 */
			"}\n}\n", &cfg, &cap), 11);
	/* The errors, then RFC 8212's warnings about the policies. */
	CHECK_PREFIX(capture_text(&cap),
		  "t.conf:3: send-buffer-limit must be 65536..4294967295 "
		  "bytes, not \"1000\"\n"
		  "t.conf:4: test-send-hold-time must be 1..65535 seconds, "
		  "not \"0\"\n"
		  "t.conf:8: expected \"max-prefix N [warning-only] "
		  "[restart SECONDS]\"\n"
		  "t.conf:9: max-prefix must be 1..4294967295, not \"0\"\n"
		  "t.conf:10: max-prefix: unexpected \"restart\" "
		  "(warning-only, restart SECONDS)\n"
		  "t.conf:11: max-prefix restart must be 1..65535 seconds, "
		  "not \"70000\"\n"
		  "t.conf:12: max-prefix: warning-only never closes the "
		  "session, so restart has nothing to restart\n"
		  "t.conf:13: add-path: fared only receives path ids: "
		  "expected \"add-path receive [max-paths N]\"\n"
		  "t.conf:14: add-path: fared only receives path ids: "
		  "expected \"add-path receive [max-paths N]\"\n"
		  "t.conf:15: add-path max-paths must be 1..4096, not \"0\"\n"
		  "t.conf:16: add-path: fared only receives path ids: "
		  "expected \"add-path receive [max-paths N]\"\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_enforce_neighbor_as_on_by_default)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD "plane 1 {\nneighbor 10.0.0.1 {\n"
			"remote-as 65001\nenforce-neighbor-as no\n}\n"
			"neighbor 10.0.0.2 {\nremote-as 65001\n"
			"enforce-neighbor-as yes\n}\n"
			"neighbor 10.0.0.3 {\nremote-as 65001\n}\n}\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	CHECK(cfg.neighbors[0].neighbor_as_unchecked);
	CHECK(!cfg.neighbors[1].neighbor_as_unchecked);
	CHECK(!cfg.neighbors[2].neighbor_as_unchecked);
	fared_config_free(&cfg);

	CHECK_INT(parse(HEAD "plane 1 {\nneighbor 10.0.0.1 {\n" /* 3, 4 */
			"remote-as 65001\n" /* 5 */
			"enforce-neighbor-as off\n" /* 6 */
			"enforce-neighbor-as\n" /* 7 */
			"}\n}\n", &cfg, &cap), 2);
	CHECK_PREFIX(capture_text(&cap),
		  "t.conf:6: enforce-neighbor-as: expected \"yes\" or "
		  "\"no\", not \"off\"\n"
		  "t.conf:7: expected \"enforce-neighbor-as yes|no\"\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}

static bool permits(const struct fared_policy *pol, const char *text)
{
	struct bgp_prefix p;

	if (bgp_prefix_parse(text, &p))
		t_fail(__FILE__, __LINE__, "bad prefix %s", text);
	return fared_policy_permits(pol, &p);
}

TEST(policy_first_match_decides_and_no_match_denies)
{
	struct fared_config cfg;
	struct capture cap;
	const struct fared_policy *pol;

	CHECK_INT(parse(HEAD "policy p {\n"
			"  deny 10.1.0.0/16 le 32\n"
			"  permit 10.0.0.0/8 ge 24 le 28\n"
			"  permit 2001:db8::/32\n"
			"}\n", &cfg, &cap), 0);
	capture_end(&cap);
	pol = &cfg.policies[0];
	CHECK(permits(pol, "10.2.3.0/24"));
	CHECK(permits(pol, "10.2.3.16/28"));
	CHECK(!permits(pol, "10.2.3.4/32"));		/* longer than le */
	CHECK(!permits(pol, "10.2.0.0/16"));		/* shorter than ge */
	CHECK(!permits(pol, "10.1.3.0/24"));		/* the deny first */
	CHECK(!permits(pol, "11.0.0.0/24"));		/* no rule: deny */
	CHECK(permits(pol, "2001:db8::/32"));
	CHECK(!permits(pol, "2001:db8::/48"));		/* exact only */
	CHECK(!permits(pol, "2001:db9::/32"));
	fared_config_free(&cfg);
}

TEST(policy_prefix_bits_past_a_byte_boundary_are_compared)
{
	struct fared_config cfg;
	struct capture cap;
	const struct fared_policy *pol;

	CHECK_INT(parse(HEAD "policy p {\n  permit 10.128.0.0/9 le 32\n}\n",
			&cfg, &cap), 0);
	capture_end(&cap);
	pol = &cfg.policies[0];
	CHECK(permits(pol, "10.200.0.0/16"));
	CHECK(!permits(pol, "10.100.0.0/16"));
	fared_config_free(&cfg);
}

/* The control socket's renderer on a daemon with no neighbor. */
TEST(ctl_answers_json_text_and_refuses_unknown_requests)
{
	struct fared d = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	d.rib = rib_new();
	CHECK(d.rib != NULL);
	f = open_memstream(&out, &len);
	CHECK_INT(ctl_answer(&d, "neighbors json", f), 0);
	CHECK_INT(ctl_answer(&d, "routes json 10.0.0.0/8", f), 0);
	CHECK_INT(ctl_answer(&d, "routes json", f), 0);
	CHECK_INT(ctl_answer(&d, "routes nonsense", f), -1);
	CHECK_INT(ctl_answer(&d, "flush everything", f), -1);
	fclose(f);
	CHECK_STR(out, "[]\n[]\n[]\nerror: bad prefix \"nonsense\"\n"
		  "error: unknown request; try \"neighbors [json]\", "
		  "\"routes [json] [PREFIX]\" or \"clear NEIGHBOR\"\n");
	free(out);
	rib_free(d.rib);
}
