// SPDX-License-Identifier: GPL-2.0-only
/*
 * Route-table suppression (suppress.h): the FIB-Suppress verdict (every
 * path must carry it, "honour" must be on, a host keeps what it asked for
 * by ORF), tagging (once, AS_TRANS for a 4-octet AS), the leaf's host
 * state machine (held while an RNIC has it, UPA once lost, withdrawn when
 * back, never for what no aggregate covers), and the configuration.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "harness.h"
#include "suppress.h"

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

static struct rib_attrs *attrs_fs(bool fs, uint8_t subtype)
{
	struct rib_attrs *a = calloc(1, sizeof(*a));

	if (fs) {
		a->ext_communities = calloc(1, 16);
		a->ext_communities_len = 16;
		/* A Link Bandwidth first: type 0x00 too, sub-type 0x04. */
		a->ext_communities[1] = 0x04;
		fare_fs_encode(a->ext_communities + 8, 4200000001u,
			       0x0a000001, subtype);
	}
	return a;
}

static void free_paths(struct rib_path *paths, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(paths[i].attrs->ext_communities);
		free(paths[i].attrs);
	}
}

TEST(fs_check_every_path_honour_and_orf)
{
	struct rib_path paths[2];
	struct rib_entry e = { .paths = paths, .n_paths = 2 };
	struct fare_fs fs = { 0 };

	bgp_prefix_parse("10.1.0.5/32", &e.prefix);
	memset(paths, 0, sizeof(paths));
	paths[0].attrs = attrs_fs(true, 0x0f);
	paths[1].attrs = attrs_fs(false, 0x0f);
	/* One path without it: somebody wants the route installed. */
	CHECK_INT(fare_fs_check(&e, 0x0f, true, false, &fs), FARE_FS_PARTIAL);
	CHECK_INT(fs.as, 23456);
	CHECK_INT(fs.router_id, 0x0a000001);
	e.n_paths = 1;
	CHECK_INT(fare_fs_check(&e, 0x0f, true, false, &fs),
		  FARE_FS_SUPPRESS);
	CHECK_INT(fare_fs_check(&e, 0x0f, false, false, &fs),
		  FARE_FS_NOT_HONOURED);
	/* A host never suppresses what it asked for by ORF. */
	CHECK_INT(fare_fs_check(&e, 0x0f, true, true, &fs),
		  FARE_FS_ORF_WANTED);
	/* Another sub-type is not FIB-Suppress here. */
	CHECK_INT(fare_fs_check(&e, 0x10, true, false, &fs), FARE_FS_NONE);
	e.n_paths = 0;
	CHECK_INT(fare_fs_check(&e, 0x0f, true, false, &fs), FARE_FS_NONE);
	free_paths(paths, 2);
	CHECK_STR(fare_fs_verdict_text(FARE_FS_SUPPRESS), "suppressed");
}

TEST(fs_tag_once_with_as_trans)
{
	static const uint8_t want[8] = {
		0x00, 0x0f, 0x5b, 0xa0, 0xc0, 0x00, 0x02, 0x07,
	};
	static const uint8_t want2[8] = {
		0x00, 0x22, 0xfd, 0xe8, 0xc0, 0x00, 0x02, 0x07,
	};
	uint8_t ecs[24] = { 0x03, 0x09 };

	CHECK_INT(fare_fs_tag(ecs, 8, 4200000001u, 0xc0000207, 0x0f), 16);
	CHECK(!memcmp(ecs + 8, want, 8));
	/* Already there: not twice. */
	CHECK_INT(fare_fs_tag(ecs, 16, 65000, 0xc0000207, 0x0f), 16);
	/* Of another sub-type: a new one, with a 2-octet AS as is. */
	CHECK_INT(fare_fs_tag(ecs, 16, 65000, 0xc0000207, 0x22), 24);
	CHECK(!memcmp(ecs + 16, want2, 8));
}

TEST(leaf_host_held_upa_when_lost_withdrawn_when_back)
{
	struct fare_leaf_host h = { .upa = true, .covered = true,
				    .n_rnic_paths = 0 };
	struct bgp_prefix x, agg, x6;
	bool seen = false;

	bgp_prefix_parse("10.1.0.5/32", &x);
	bgp_prefix_parse("10.1.0.0/24", &agg);
	bgp_prefix_parse("fd00:1::5/128", &x6);
	CHECK(fare_is_host_route(&x));
	CHECK(fare_is_host_route(&x6));
	CHECK(!fare_is_host_route(&agg));
	/* Never seen: nothing to announce (a UPA only for a known host). */
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_PASS);
	CHECK(!seen);
	/* An RNIC has it: held back from upstream, remembered. */
	h.n_rnic_paths = 1;
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_HOLD);
	CHECK(seen);
	/* Lost: UPA upstream; still remembered. */
	h.n_rnic_paths = 0;
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_UPA);
	CHECK(seen);
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_UPA);
	/* Back: the UPA goes, held again. */
	h.n_rnic_paths = 2;
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_HOLD);
	/* The aggregate itself is no host. */
	seen = true;
	CHECK_INT(fare_leaf_host_step(&agg, &h, &seen), FARE_LEAF_PASS);
	CHECK(!seen);
	/* Not covered, or no "upa originate": forgotten, passed on. */
	seen = true;
	h.covered = false;
	h.n_rnic_paths = 0;
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_PASS);
	CHECK(!seen);
	seen = true;
	h.covered = true;
	h.upa = false;
	CHECK_INT(fare_leaf_host_step(&x, &h, &seen), FARE_LEAF_PASS);
	CHECK(!seen);
}

static int parse(const char *text, struct fared_config *cfg,
		 struct capture *cap)
{
	capture_start(cap);
	return fared_config_parse("t.conf", text, cfg, cap->f);
}

TEST(config_suppress_statements)
{
	struct fared_config cfg;
	struct capture cap;

	CHECK_INT(parse(HEAD "role leaf\noriginate 10.1.0.0/24\n"
			"upa originate drop\nfib-suppress tag\n"
			"fib-suppress honour\nfib-suppress sub-type 66\n"
			"interface eth1 bandwidth 100G\n"
			"policy all {\n permit 10.0.0.0/8 le 32\n}\n"
			"plane 1 {\n neighbor 10.1.0.5 {\n  remote-as 65001\n"
			"  interface eth1\n  rnic\n  import all\n"
			"  export all\n }\n}\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(cfg.upa_originate && cfg.upa_drop);
	CHECK(cfg.fs_tag && cfg.fs_honour);
	CHECK_INT(cfg.ec.fs_subtype, 66);
	CHECK(cfg.neighbors[0].rnic);
	fared_config_free(&cfg);

	/* The defaults: nothing on, sub-type 0x0f. */
	CHECK_INT(parse(HEAD, &cfg, &cap), 0);
	capture_end(&cap);
	CHECK(!cfg.upa_originate && !cfg.fs_tag && !cfg.fs_honour);
	CHECK_INT(cfg.ec.fs_subtype, FARE_FS_SUBTYPE_DEFAULT);
	fared_config_free(&cfg);
}

TEST(config_suppress_errors_name_file_and_line)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	errors = parse(HEAD
		"upa originate\n"				/* 3 */
		"upa announce\n"				/* 4 */
		"fib-suppress tag\n"				/* 5 */
		"fib-suppress honour\n"				/* 6 */
		"fib-suppress sub-type 256\n"			/* 7 */
		"fib-suppress\n",				/* 8 */
		&cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:4: expected \"upa originate [drop]\"\n"
		  "t.conf:7: expected \"fib-suppress tag\", \"fib-suppress "
		  "honour\" or \"fib-suppress sub-type N\" (N 0..255)\n"
		  "t.conf:8: expected \"fib-suppress tag\", \"fib-suppress "
		  "honour\" or \"fib-suppress sub-type N\" (N 0..255)\n"
		  "t.conf:3: upa originate needs \"role leaf\"\n"
		  "t.conf:3: upa originate needs an \"originate\" aggregate "
		  "covering the hosts\n"
		  "t.conf:5: fib-suppress tag needs \"role leaf\"\n"
		  "t.conf:6: fib-suppress honour needs a role\n");
	CHECK_INT(errors, 7);
	capture_end(&cap);
	fared_config_free(&cfg);

	/* A spine honours but does not tag. */
	errors = parse(HEAD "role spine\nfib-suppress honour\n"
		       "fib-suppress tag\n", &cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:5: fib-suppress tag needs \"role leaf\"\n");
	CHECK_INT(errors, 1);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(config_rnic_by_interface)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	CHECK_INT(parse(HEAD "role leaf\noriginate 10.1.0.0/24\n"
			"upa originate\nrnic 10.1.0.9/32 interface eth3\n"
			"rnic 10.1.0.10/32 interface eth4\n", &cfg, &cap), 0);
	capture_end(&cap);
	CHECK_INT(cfg.n_rnics, 2);
	CHECK_STR(cfg.rnics[0].interface, "eth3");
	CHECK_INT(cfg.rnics[1].prefix.len, 32);
	CHECK(!cfg.upa_drop);
	fared_config_free(&cfg);

	errors = parse(HEAD "role leaf\noriginate 10.1.0.0/24\n"
		"upa originate\n"				/* 5 */
		"rnic 10.1.0.0/25 interface eth3\n"		/* 6 */
		"rnic 10.2.0.9/32 interface eth3\n"		/* 7 */
		"rnic 10.1.0.9/32 interface eth3\n"		/* 8 */
		"rnic 10.1.0.9/32 interface eth4\n"		/* 9 */
		"rnic 10.1.0.7/32 via eth4\n",			/* 10 */
		&cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:6: rnic needs a host route (/32 or /128), not "
		  "\"10.1.0.0/25\"\n"
		  "t.conf:9: rnic 10.1.0.9/32 is already at line 8\n"
		  "t.conf:10: expected \"rnic PREFIX interface NAME\"\n"
		  "t.conf:7: rnic 10.2.0.9/32 is inside no originated "
		  "prefix\n");
	CHECK_INT(errors, 4);
	capture_end(&cap);
	fared_config_free(&cfg);

	errors = parse(HEAD "rnic 10.1.0.9/32 interface eth3\n", &cfg, &cap);
	CHECK_STR(capture_text(&cap),
		  "t.conf:3: rnic needs \"upa originate\"\n");
	CHECK_INT(errors, 1);
	capture_end(&cap);
	fared_config_free(&cfg);
}
