// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's BGP codec: UPDATE parse and build for IPv4 and IPv6, and a
 * malformed-UPDATE corpus that pins the RFC 7606 action of every case
 * (with the NOTIFICATION subcode and data the RFCs name).
 */
#include "bgp_test_util.h"

static uint8_t msg[8192], out[8192];

static const struct bgp_codec_opts ebgp2 = { .max_len = BGP_MAX_LEN };
static const struct bgp_codec_opts ebgp4 = { .as4 = true,
					     .max_len = BGP_MAX_LEN };
static const struct bgp_codec_opts ibgp2 = { .ibgp = true,
					     .max_len = BGP_MAX_LEN };

static bool prefix_is(const struct bgp_prefix *p, const char *text)
{
	char buf[BGP_PREFIX_STRLEN];

	return !strcmp(bgp_prefix_str(p, buf, sizeof(buf)), text);
}

/* PROTOCOL.md §3.3: 10.0.0.5/32 from AS 4200000005, PB EC sub-type 0xee. */
#define PROTOCOL_UPDATE							\
	"M 003b 02 | 0000 | 001f | 40 01 01 00 |"			\
	"40 02 06 02 01 fa56ea05 | 40 03 04 c0000201 |"			\
	"c0 10 08 01 ee 0a000005 7bff | 20 0a000005"

TEST(update_protocol_md_example_parses_with_the_ec_intact)
{
	struct bgp_update up;
	struct bgp_prefix p;
	size_t n = unhex(PROTOCOL_UPDATE, msg, sizeof(msg)), pos = 0;
	char path[64];

	CHECK_INT(n, 59);
	CHECK_INT(bgp_update_parse(msg, n, &ebgp4, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_INT(up.attrs.origin, BGP_ORIGIN_IGP);
	CHECK_STR(bgp_as_path_str(&up.attrs.as_path, path, sizeof(path)),
		  "4200000005");
	CHECK_INT(bgp_as_path_length(&up.attrs.as_path), 1);
	CHECK_HEX(up.attrs.next_hop, 4, "c0000201");
	CHECK_HEX(up.attrs.ext_communities, up.attrs.ext_communities_len,
		  "01ee0a0000057bff");
	CHECK(!bgp_attr_has(&up.attrs, BGP_ATTR_MED));
	CHECK(bgp_nlri_next(&up.nlri, &pos, &p));
	CHECK(prefix_is(&p, "10.0.0.5/32"));
	CHECK(!bgp_nlri_next(&up.nlri, &pos, &p));
	CHECK(!up.end_of_rib);
	bgp_update_free(&up);
}

TEST(update_protocol_md_example_is_built_byte_for_byte)
{
	static const uint32_t path[] = { 4200000005u };
	static const uint8_t ec[] = { 0x01, 0xee, 10, 0, 0, 5, 0x7b, 0xff };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 1,
		.has_next_hop = true, .next_hop = { 192, 0, 2, 1 },
		.ext_communities = ec, .ext_communities_len = sizeof(ec),
	};
	int n;

	CHECK_INT(bgp_prefix_parse("10.0.0.5/32", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp4, 0, &o);
	CHECK_HEX(out, n, PROTOCOL_UPDATE);
	CHECK_INT(bgp_update_build(out, 58, &ebgp4, 0, &o), -1);
}

#define V6_GLOBAL "20010db8000000000000000000000001"
#define V6_LL "fe800000000000000000000000000001"
#define V6_UPDATE							\
	"M 0067 02 | 0000 | 0050 |"					\
	"80 0e 35 0002 01 20 " V6_GLOBAL V6_LL " 00 |"			\
	"  40 20010db800010000 | 30 20010db80002 |"			\
	"40 01 01 00 | 40 02 06 02 02 fde9 fdea |"			\
	"c0 10 08 0002fde9 00000064"

TEST(update_ipv6_mp_reach_keeps_global_and_link_local_next_hops)
{
	struct bgp_update up;
	struct bgp_prefix p;
	size_t n = unhex(V6_UPDATE, msg, sizeof(msg)), pos = 0;

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK(up.mp_reach.present && up.mp_reach.known);
	CHECK_INT(up.mp_reach.family, BGP_FAM_IPV6_UNICAST);
	CHECK_INT(up.attrs.mp_next_hop_len, 32);
	CHECK_HEX(up.attrs.mp_next_hop, 16, V6_GLOBAL);
	CHECK(up.attrs.mp_has_ll);
	CHECK_HEX(up.attrs.mp_next_hop_ll, 16, V6_LL);
	CHECK(bgp_nlri_next(&up.mp_reach, &pos, &p));
	CHECK(prefix_is(&p, "2001:db8:1::/64"));
	CHECK(bgp_nlri_next(&up.mp_reach, &pos, &p));
	CHECK(prefix_is(&p, "2001:db8:2::/48"));
	CHECK(!bgp_nlri_next(&up.mp_reach, &pos, &p));
	CHECK(!up.nlri.present);
	CHECK(!bgp_attr_has(&up.attrs, BGP_ATTR_NEXT_HOP));
	CHECK_HEX(up.attrs.ext_communities, up.attrs.ext_communities_len,
		  "0002fde900000064");
	bgp_update_free(&up);
}

TEST(update_ipv6_is_built_with_mp_reach_first)
{
	static const uint32_t path[] = { 65001, 65002 };
	static const uint8_t ec[] = { 0, 2, 0xfd, 0xe9, 0, 0, 0, 100 };
	struct bgp_prefix p[2];
	struct bgp_update_out o = {
		.mp_family = BGP_FAM_IPV6_UNICAST, .mp_unreach_family = -1,
		.mp_nlri = p, .n_mp_nlri = 2,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 2,
		.ext_communities = ec, .ext_communities_len = sizeof(ec),
		.mp_has_ll = true,
	};
	int n;

	CHECK_INT(bgp_prefix_parse("2001:db8:1::/64", &p[0]), 0);
	CHECK_INT(bgp_prefix_parse("2001:db8:2::/48", &p[1]), 0);
	unhex(V6_GLOBAL, o.mp_next_hop, 16);
	unhex(V6_LL, o.mp_next_hop_ll, 16);
	n = bgp_update_build(out, sizeof(out), &ebgp2, 0, &o);
	CHECK_HEX(out, n, V6_UPDATE);
}

TEST(update_from_a_2_octet_speaker_merges_as4_path_and_as4_aggregator)
{
	struct bgp_update up;
	char path[64];
	size_t n = mk_update("", "40 01 01 00 | 40 02 08 02 03 0064 5ba0 00c8 |"
			     "40 03 04 c0000201 | c0 07 06 5ba0 0a000009 |"
			     "c0 11 0a 02 02 fa56ea01 000000c8 |"
			     "c0 12 08 fa56ea01 0a000009", "08 0a", msg,
			     sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_STR(bgp_as_path_str(&up.attrs.as_path, path, sizeof(path)),
		  "100 4200000001 200");
	CHECK_INT(bgp_as_path_length(&up.attrs.as_path), 3);
	CHECK_INT(up.attrs.aggregator_as, 4200000001u);
	CHECK_HEX(up.attrs.aggregator_id, 4, "0a000009");
	CHECK(!bgp_attr_has(&up.attrs, BGP_ATTR_AS4_PATH));
	bgp_update_free(&up);
}

TEST(update_as4_path_is_ignored_when_aggregator_is_a_real_2_octet_as)
{
	struct bgp_update up;
	char path[64];
	size_t n = mk_update("", "40 01 01 00 | 40 02 08 02 03 0064 5ba0 00c8 |"
			     "40 03 04 c0000201 | c0 07 06 fde9 0a000009 |"
			     "c0 11 0a 02 02 fa56ea01 000000c8 |"
			     "c0 12 08 fa56ea01 0a000009", "08 0a", msg,
			     sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_STR(bgp_as_path_str(&up.attrs.as_path, path, sizeof(path)),
		  "100 23456 200");
	CHECK_INT(up.attrs.aggregator_as, 65001);
	bgp_update_free(&up);
}

TEST(update_as4_path_shorter_than_as_path_keeps_sets_and_confeds)
{
	struct bgp_update up;
	char path[64];
	/* (65500) 100 {300 400} 23456 + AS4_PATH 4200000001 */
	size_t n = mk_update("", "40 01 01 00 | 40 02 12 03 01 ffdc "
			     "02 01 0064 01 02 012c 0190 02 01 5ba0 |"
			     "40 03 04 c0000201 | c0 11 06 02 01 fa56ea01",
			     "08 0a", msg, sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_STR(bgp_as_path_str(&up.attrs.as_path, path, sizeof(path)),
		  "(65500) 100 {300 400} 4200000001");
	CHECK_INT(bgp_as_path_length(&up.attrs.as_path), 3);
	bgp_update_free(&up);
}

TEST(update_to_a_2_octet_speaker_sends_as_trans_and_as4_path)
{
	static const uint32_t path[] = { 4200000005u, 65001 };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 2,
		.has_next_hop = true, .next_hop = { 192, 0, 2, 1 },
	};
	int n;

	CHECK_INT(bgp_prefix_parse("10.0.0.0/8", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp2, 0, &o);
	CHECK_HEX(out, n, "M 003a 02 0000 0021 | 40 01 01 00 |"
		  "40 02 06 02 02 5ba0 fde9 | 40 03 04 c0000201 |"
		  "c0 11 0a 02 02 fa56ea05 0000fde9 | 08 0a");
}

/* RFC 4271 §5.1.6-7 passed on; RFC 6793 §4.2.2 toward an old speaker. */
TEST(update_aggregator_goes_as_trans_plus_as4_aggregator_to_a_2_octet_speaker)
{
	static const uint32_t path[] = { 65001 };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 1,
		.has_next_hop = true, .next_hop = { 192, 0, 2, 1 },
		.atomic_aggregate = true, .has_aggregator = true,
		.aggregator_as = 4200000001u,
		.aggregator_id = { 10, 0, 0, 9 },
	};
	int n;

	CHECK_INT(bgp_prefix_parse("10.0.0.0/8", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp2, 0, &o);
	CHECK_HEX(out, n, "M 0042 02 0000 0029 | 40 01 01 00 |"
		  "40 02 04 02 01 fde9 | 40 03 04 c0000201 | 40 06 00 |"
		  "c0 07 06 5ba0 0a000009 | c0 12 08 fa56ea01 0a000009 |"
		  "08 0a");
	n = bgp_update_build(out, sizeof(out), &ebgp4, 0, &o);
	CHECK_HEX(out, n, "M 003b 02 0000 0022 | 40 01 01 00 |"
		  "40 02 06 02 01 0000fde9 | 40 03 04 c0000201 | 40 06 00 |"
		  "c0 07 08 fa56ea01 0a000009 | 08 0a");
	o.aggregator_as = 65002;
	n = bgp_update_build(out, sizeof(out), &ebgp2, 0, &o);
	CHECK_HEX(out, n, "M 0037 02 0000 001e | 40 01 01 00 |"
		  "40 02 04 02 01 fde9 | 40 03 04 c0000201 | 40 06 00 |"
		  "c0 07 06 fdea 0a000009 | 08 0a");
}

TEST(update_long_as_path_is_split_into_255_as_segments_with_ext_length)
{
	static uint32_t path[300];
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 300,
		.has_next_hop = true, .next_hop = { 192, 0, 2, 1 },
	};
	struct bgp_update up;
	int n, i;

	for (i = 0; i < 300; i++)
		path[i] = 64512 + i;
	CHECK_INT(bgp_prefix_parse("10.0.0.0/8", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp4, 0, &o);
	CHECK(n > 0);
	/* AS_PATH: extended length 4 + 255 * 4 + 45 * 4 = 1204 = 0x04b4 */
	CHECK_HEX(out + 27, 10, "50 02 04b4 02 ff 0000fc00");
	CHECK_INT(bgp_update_parse(out, n, &ebgp4, &up), BGP_PARSE_OK);
	CHECK_INT(up.attrs.as_path.n_segments, 2);
	CHECK_INT(bgp_as_path_length(&up.attrs.as_path), 300);
	CHECK_INT(up.attrs.as_path.asns[299], 64512 + 299);
	bgp_update_free(&up);
}

TEST(update_ipv4_withdrawals_and_mp_unreach_are_read)
{
	struct bgp_update up;
	struct bgp_prefix p;
	size_t pos = 0;
	size_t n = mk_update("18 0a0100 20 c0000201",
			     "80 0f 0c 0002 01 40 20010db800010000", "", msg,
			     sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_INT(bgp_nlri_count(&up.withdrawn), 2);
	CHECK(bgp_nlri_next(&up.withdrawn, &pos, &p));
	CHECK(prefix_is(&p, "10.1.0.0/24"));
	CHECK(bgp_nlri_next(&up.withdrawn, &pos, &p));
	CHECK(prefix_is(&p, "192.0.2.1/32"));
	pos = 0;
	CHECK(bgp_nlri_next(&up.mp_unreach, &pos, &p));
	CHECK(prefix_is(&p, "2001:db8:1::/64"));
	CHECK(!up.end_of_rib);
	bgp_update_free(&up);
}

TEST(update_trailing_bits_of_a_prefix_are_zeroed)
{
	struct bgp_update up;
	struct bgp_prefix p;
	size_t pos = 0;
	size_t n = mk_update("17 0a01ff", "", "", msg, sizeof(msg));
	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK(bgp_nlri_next(&up.withdrawn, &pos, &p));
	CHECK(prefix_is(&p, "10.1.254.0/23"));
	bgp_update_free(&up);
}

TEST(update_add_path_nlri_carry_path_ids_when_negotiated)
{
	struct bgp_codec_opts opts = ebgp2;
	struct bgp_update up;
	struct bgp_prefix p;
	size_t pos = 0, n;

	opts.add_path_rx = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
	n = mk_update("000000ff 18 0a0200",
		      "40 01 01 00 | 40 02 04 02 01 fde9 | 40 03 04 c0000201",
		      "00000001 18 0a0100 | 00000002 18 0a0100", msg,
		      sizeof(msg));
	CHECK_INT(bgp_update_parse(msg, n, &opts, &up), BGP_PARSE_OK);
	CHECK(bgp_nlri_next(&up.nlri, &pos, &p));
	CHECK_INT(p.path_id, 1);
	CHECK(prefix_is(&p, "10.1.0.0/24"));
	CHECK(bgp_nlri_next(&up.nlri, &pos, &p));
	CHECK_INT(p.path_id, 2);
	pos = 0;
	CHECK(bgp_nlri_next(&up.withdrawn, &pos, &p));
	CHECK_INT(p.path_id, 255);
	bgp_update_free(&up);

	/* The same bytes without ADD-PATH are a bad prefix: reset. */
	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_ERROR);
	CHECK_INT(up.error.subcode, BGP_UPDATE_INVALID_NETWORK);
	bgp_update_free(&up);
}

TEST(update_add_path_is_built_with_path_ids)
{
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.withdrawn = &p, .n_withdrawn = 1,
	};
	int n;

	CHECK_INT(bgp_prefix_parse("10.1.0.0/24", &p), 0);
	p.path_id = 9;
	n = bgp_update_build(out, sizeof(out), &ebgp2,
			     BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST), &o);
	CHECK_HEX(out, n, "M 001f 02 0008 00000009 18 0a0100 0000");
}

TEST(end_of_rib_is_built_and_recognised_for_ipv4_and_ipv6)
{
	struct bgp_update up;
	int n;

	n = bgp_eor_build(out, sizeof(out), BGP_FAM_IPV4_UNICAST);
	CHECK_HEX(out, n, "M 0017 02 0000 0000");
	CHECK_INT(bgp_update_parse(out, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK(up.end_of_rib);
	CHECK_INT(up.eor_family, BGP_FAM_IPV4_UNICAST);
	bgp_update_free(&up);

	n = bgp_eor_build(out, sizeof(out), BGP_FAM_IPV6_UNICAST);
	CHECK_HEX(out, n, "M 001d 02 0000 0006 80 0f 03 0002 01");
	CHECK_INT(bgp_update_parse(out, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK(up.end_of_rib);
	CHECK_INT(up.eor_family, BGP_FAM_IPV6_UNICAST);
	CHECK_INT(up.eor_afi, 2);
	bgp_update_free(&up);
}

TEST(end_of_rib_is_not_an_mp_unreach_with_other_attributes)
{
	struct bgp_update up;
	size_t n = mk_update("", "80 0f 03 0002 01 | 40 01 01 00", "", msg,
			     sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK(!up.end_of_rib);
	bgp_update_free(&up);
}

TEST(update_length_fields_beyond_the_message_reset_with_3_1)
{
	struct bgp_update up;
	size_t n = unhex("M 0017 02 0005 0000", msg, sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_ERROR);
	CHECK_INT(up.error.code, 3);
	CHECK_INT(up.error.subcode, 1);
	bgp_update_free(&up);
	n = unhex("M 001a 02 0000 0004 400101", msg, sizeof(msg));
	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_ERROR);
	CHECK_INT(up.error.subcode, 1);
	bgp_update_free(&up);
}

/* ------------------------------------------------------------------ */
/* The malformed corpus: one test per case, each named for its rule. */

#define O "40 01 01 00 |"
#define P "40 02 04 02 01 fde9 |"
#define P4 "40 02 06 02 01 0000fde9 |"
#define N "40 03 04 c0000201 |"
#define NLRI "18 0a0100"
#define MPR6 "80 0e 1c 0002 01 10 " V6_GLOBAL " 00 30 20010db80001 |"

struct corpus_case {
	const struct bgp_codec_opts *opts;
	const char *withdrawn, *attrs, *nlri;
	enum bgp_action action;
	uint8_t subcode;
	const char *data;	/* the error's data, "" for none */
};

static void check_case(const struct corpus_case *c)
{
	struct bgp_update up;
	size_t n = mk_update(c->withdrawn, c->attrs, c->nlri, msg,
			     sizeof(msg));
	enum bgp_parse_status st = bgp_update_parse(msg, n, c->opts, &up);

	if (up.error.action != c->action) {
		t_fail(__FILE__, __LINE__, "action %s (%s), not %s",
		       bgp_action_name(up.error.action),
		       up.error.reason ? up.error.reason : "-",
		       bgp_action_name(c->action));
		goto out;
	}
	if (st != (c->action == BGP_ACTION_SESSION_RESET ?
		   BGP_PARSE_ERROR : BGP_PARSE_OK)) {
		t_fail(__FILE__, __LINE__, "status %d", st);
		goto out;
	}
	if (c->action != BGP_ACTION_NONE &&
	    (up.error.code != BGP_ERR_UPDATE ||
	     up.error.subcode != c->subcode)) {
		t_fail(__FILE__, __LINE__, "error %d/%d, not 3/%d (%s)",
		       up.error.code, up.error.subcode, c->subcode,
		       up.error.reason);
		goto out;
	}
	{
		uint8_t want[512];
		size_t wn = unhex(c->data, want, sizeof(want));

		if (wn != up.error.data_len ||
		    (wn && memcmp(want, up.error.data, wn))) {
			char got[1100];

			hexdump(got, sizeof(got), up.error.data,
				up.error.data_len);
			t_fail(__FILE__, __LINE__, "data %s, not %s", got,
			       c->data);
		}
	}
out:
	bgp_update_free(&up);
}

#define CORPUS(name, ...)						\
	TEST(name)							\
	{								\
		check_case(&(struct corpus_case){ __VA_ARGS__ });	\
	}

#define TAW BGP_ACTION_TREAT_AS_WITHDRAW
#define DISCARD BGP_ACTION_ATTR_DISCARD
#define RESET BGP_ACTION_SESSION_RESET
#define NONE BGP_ACTION_NONE

CORPUS(rfc7606_well_formed_update_needs_no_action,
       &ebgp2, "", O P N, NLRI, NONE, 0, "")
CORPUS(rfc7606_origin_of_length_2_is_treat_as_withdraw,
       &ebgp2, "", "40 01 02 00 00 |" P N, NLRI, TAW, 5, "4001020000")
CORPUS(rfc7606_origin_value_3_is_treat_as_withdraw,
       &ebgp2, "", "40 01 01 03 |" P N, NLRI, TAW, 6, "40010103")
CORPUS(rfc7606_origin_flagged_optional_is_treat_as_withdraw,
       &ebgp2, "", "c0 01 01 00 |" P N, NLRI, TAW, 4, "c0010100")
CORPUS(rfc7606_as_path_zero_length_segment_is_treat_as_withdraw,
       &ebgp2, "", O "40 02 02 02 00 |" N, NLRI, TAW, 11, "4002020200")
CORPUS(rfc7606_as_path_unknown_segment_type_is_treat_as_withdraw,
       &ebgp2, "", O "40 02 04 05 01 fde9 |" N, NLRI, TAW, 11,
       "400204 0501fde9")
CORPUS(rfc7606_as_path_segment_overrun_is_treat_as_withdraw,
       &ebgp2, "", O "40 02 04 02 02 fde9 |" N, NLRI, TAW, 11,
       "400204 0202fde9")
CORPUS(rfc7606_as_path_one_octet_underrun_is_treat_as_withdraw,
       &ebgp2, "", O "40 02 05 02 01 fde9 02 |" N, NLRI, TAW, 11,
       "400205 0201fde902")
CORPUS(rfc7606_as_path_of_2_octet_asns_on_a_4_octet_session_is_taw,
       &ebgp4, "", O P N, NLRI, TAW, 11, "400204 0201fde9")
CORPUS(rfc7606_next_hop_of_length_5_is_treat_as_withdraw,
       &ebgp2, "", O P "40 03 05 c000020100 |", NLRI, TAW, 5,
       "400305c000020100")
CORPUS(rfc7606_med_of_length_3_is_treat_as_withdraw,
       &ebgp2, "", O P N "80 04 03 000001", NLRI, TAW, 5, "800403000001")
CORPUS(rfc7606_med_flagged_well_known_is_treat_as_withdraw,
       &ebgp2, "", O P N "40 04 04 00000001", NLRI, TAW, 4,
       "40040400000001")
CORPUS(rfc7606_local_pref_from_ebgp_is_discarded,
       &ebgp2, "", O P N "40 05 04 00000064", NLRI, DISCARD, 5,
       "40050400000064")
CORPUS(rfc7606_local_pref_of_length_2_from_ibgp_is_treat_as_withdraw,
       &ibgp2, "", O P N "40 05 02 0064", NLRI, TAW, 5, "4005020064")
CORPUS(rfc7606_ibgp_update_without_local_pref_is_treat_as_withdraw,
       &ibgp2, "", O P N, NLRI, TAW, 3, "05")
CORPUS(rfc7606_atomic_aggregate_of_length_1_is_discarded,
       &ebgp2, "", O P N "40 06 01 00", NLRI, DISCARD, 5, "40060100")
CORPUS(rfc7606_aggregator_of_length_8_on_a_2_octet_session_is_discarded,
       &ebgp2, "", O P N "c0 07 08 0000fde9 0a000001", NLRI, DISCARD, 5,
       "c007080000fde90a000001")
CORPUS(rfc7606_aggregator_of_length_6_on_a_4_octet_session_is_discarded,
       &ebgp4, "", O P4 N "c0 07 06 fde9 0a000001", NLRI, DISCARD, 5,
       "c00706fde90a000001")
CORPUS(rfc7606_communities_of_length_6_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 08 06 fde90064 0001", NLRI, TAW, 5,
       "c00806fde900640001")
CORPUS(rfc7606_extended_communities_of_length_12_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 10 0c 0002fde900000064 01020304", NLRI, TAW,
       5, "c0100c0002fde90000006401020304")
CORPUS(rfc7606_extended_communities_of_length_0_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 10 00", NLRI, TAW, 5, "c01000")
CORPUS(rfc7606_unknown_extended_community_types_are_not_errors,
       &ebgp2, "", O P N "c0 10 08 ffff 010203040506", NLRI, NONE, 0, "")
CORPUS(rfc8092_large_communities_of_length_10_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 20 0a 00000001 00000002 0003", NLRI, TAW, 5,
       "c0200a00000001000000020003")
CORPUS(rfc7606_originator_id_from_ebgp_is_discarded,
       &ebgp2, "", O P N "80 09 04 0a000001", NLRI, DISCARD, 5,
       "8009040a000001")
CORPUS(rfc7606_cluster_list_of_length_3_from_ibgp_is_treat_as_withdraw,
       &ibgp2, "", O P N "40 05 04 00000064 | 80 0a 03 000001", NLRI, TAW,
       5, "800a03000001")
CORPUS(rfc7606_missing_origin_is_treat_as_withdraw,
       &ebgp2, "", P N, NLRI, TAW, 3, "01")
CORPUS(rfc7606_missing_as_path_is_treat_as_withdraw,
       &ebgp2, "", O N, NLRI, TAW, 3, "02")
CORPUS(rfc7606_missing_next_hop_with_ipv4_nlri_is_treat_as_withdraw,
       &ebgp2, "", O P, NLRI, TAW, 3, "03")
CORPUS(rfc4760_mp_reach_needs_no_next_hop_attribute,
       &ebgp2, "", MPR6 O P, "", NONE, 0, "")
CORPUS(rfc7606_repeated_attribute_keeps_the_first_and_discards_the_rest,
       &ebgp2, "", O "40 01 01 02 |" P N, NLRI, DISCARD, 1, "40010102")
CORPUS(rfc7606_mp_reach_twice_resets_with_3_1,
       &ebgp2, "", MPR6 MPR6 O P, "", RESET, 1, "")
CORPUS(rfc7606_mp_unreach_twice_resets_with_3_1,
       &ebgp2, "", "80 0f 03 0002 01 | 80 0f 03 0002 01", "", RESET, 1, "")
CORPUS(rfc7606_mp_reach_with_a_20_octet_ipv6_next_hop_resets_with_3_9,
       &ebgp2, "", "80 0e 20 0002 01 14 " V6_GLOBAL "00000000 00"
       " 30 20010db80001 |" O P, "", RESET, 9,
       "800e20000201 14" V6_GLOBAL "00000000 00 30 20010db80001")
CORPUS(rfc7606_mp_reach_shorter_than_5_resets_with_3_9,
       &ebgp2, "", "80 0e 04 0002 01 00 |" O P, "", RESET, 9,
       "800e0400020100")
CORPUS(rfc7606_mp_reach_ipv6_prefix_of_129_bits_resets_with_3_9,
       &ebgp2, "", "80 0e 16 0002 01 10 " V6_GLOBAL " 00 81 |" O P, "",
       RESET, 9, "800e16000201 10" V6_GLOBAL "00 81")
CORPUS(rfc7606_mp_reach_flagged_transitive_resets_with_3_4,
       &ebgp2, "", "c0 0e 1c 0002 01 10 " V6_GLOBAL " 00 30 20010db80001"
       "|" O P, "", RESET, 4,
       "c00e1c000201 10" V6_GLOBAL "00 30 20010db80001")
CORPUS(rfc7606_mp_unreach_shorter_than_3_resets_with_3_9,
       &ebgp2, "", "80 0f 02 0002", "", RESET, 9, "800f020002")
CORPUS(rfc7606_attribute_overrunning_the_attributes_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 10 10 0002fde900000064", NLRI, TAW, 1, "")
CORPUS(rfc7606_attribute_header_cut_short_is_treat_as_withdraw,
       &ebgp2, "", O P N "c0 10", NLRI, TAW, 1, "")
CORPUS(rfc7606_ipv4_nlri_of_33_bits_resets_with_3_10,
       &ebgp2, "", O P N, "21 0a01000000", RESET, 10, "")
CORPUS(rfc7606_ipv4_nlri_overrun_resets_with_3_10,
       &ebgp2, "", O P N, "18 0a01", RESET, 10, "")
CORPUS(rfc7606_withdrawn_prefix_of_33_bits_resets_with_3_10,
       &ebgp2, "21 0a01000000", "", "", RESET, 10, "")
CORPUS(rfc4271_unrecognized_well_known_attribute_resets_with_3_2,
       &ebgp2, "", O P N "40 63 01 00", NLRI, RESET, 2, "40630100")
CORPUS(rfc7606_malformed_origin_without_nlri_resets_per_section_5_2,
       &ebgp2, "18 0a0100", "40 01 01 03", "", RESET, 6, "40010103")
CORPUS(rfc7606_discard_without_nlri_stays_a_discard,
       &ebgp2, "18 0a0100", "40 06 01 00", "", DISCARD, 5, "40060100")
CORPUS(rfc6793_malformed_as4_path_from_a_2_octet_speaker_is_discarded,
       &ebgp2, "", O P N "c0 11 04 02 01 0000", NLRI, DISCARD, 9,
       "c0110402010000")
CORPUS(rfc6793_as4_path_from_a_4_octet_speaker_is_discarded,
       &ebgp4, "", O P4 N "c0 11 06 02 01 fa56ea01", NLRI, DISCARD, 9,
       "c0110602 01fa56ea01")
CORPUS(rfc7606_strongest_of_several_errors_wins,
       &ebgp2, "", O P N "40 06 01 00 | c0 08 02 0001 | 40 04 04 00000001",
       NLRI, TAW, 5, "c008020001")

static void check_unknown_optional(uint8_t flags, unsigned int want_kept)
{
	struct bgp_update up;
	char attrs[128];
	size_t n;

	snprintf(attrs, sizeof(attrs), O P N "%02x 63 02 abcd", flags);
	n = mk_update("", attrs, NLRI, msg, sizeof(msg));
	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_INT(up.attrs.n_kept, want_kept);
	if (want_kept) {
		CHECK_INT(up.attrs.kept[0].type, 0x63);
		CHECK_INT(up.attrs.kept[0].flags, flags);
		CHECK_HEX(up.attrs.kept[0].value, up.attrs.kept[0].len, "abcd");
	}
	bgp_update_free(&up);
}

TEST(rfc4271_unknown_optional_transitive_attribute_is_kept_as_is)
{
	check_unknown_optional(0xc0, 1);
	check_unknown_optional(0xe0, 1);
}

TEST(rfc4271_unknown_optional_non_transitive_attribute_is_dropped)
{
	check_unknown_optional(0x80, 0);
}

TEST(rfc4271_unknown_transitive_attribute_passed_on_gets_the_partial_bit)
{
	static const uint8_t v[] = { 0xab, 0xcd };
	static uint8_t big[300];
	struct bgp_raw_attr a = { .flags = 0xd0, .type = 0x63, .value = v,
				  .len = sizeof(v) };
	uint8_t buf[400];

	/* Extended Length is recomputed: a short value loses it. */
	CHECK_INT(bgp_raw_attr_encode(NULL, &a, true), 5);
	CHECK_INT(bgp_raw_attr_encode(buf, &a, true), 5);
	CHECK_HEX(buf, 5, "e0 63 02 abcd");
	CHECK_INT(bgp_raw_attr_encode(buf, &a, false), 5);
	CHECK_HEX(buf, 5, "c0 63 02 abcd");
	a.flags = 0xc0;
	a.value = big;
	a.len = sizeof(big);
	CHECK_INT(bgp_raw_attr_encode(buf, &a, true), 304);
	CHECK_HEX(buf, 4, "f0 63 012c");
}

TEST(update_raw_attributes_are_written_after_the_known_ones)
{
	static const uint32_t path[] = { 65001 };
	static const uint8_t comm[] = { 0xfd, 0xe9, 0, 1 };
	static const uint8_t raw[] = { 0xe0, 0x63, 0x02, 0xab, 0xcd };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1,
		.origin = BGP_ORIGIN_IGP, .as_path = path, .as_path_len = 1,
		.has_next_hop = true, .next_hop = { 192, 0, 2, 1 },
		.communities = comm, .communities_len = sizeof(comm),
		.raw_attrs = raw, .raw_attrs_len = sizeof(raw),
	};
	struct bgp_update up;
	int n;

	CHECK_INT(bgp_prefix_parse("10.0.0.5/32", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp4, 0, &o);
	CHECK(n > 0);
	CHECK_INT(bgp_update_parse(out, n, &ebgp4, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_NONE);
	CHECK_HEX(up.attrs.communities, up.attrs.communities_len, "fde90001");
	CHECK_INT(up.attrs.n_kept, 1);
	CHECK_INT(up.attrs.kept[0].flags, 0xe0);
	CHECK_HEX(up.attrs.kept[0].value, up.attrs.kept[0].len, "abcd");
	bgp_update_free(&up);
}

TEST(rfc7606_repeated_origin_keeps_the_first_value)
{
	struct bgp_update up;
	size_t n = mk_update("", O "40 01 01 02 |" P N, NLRI, msg, sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.attrs.origin, BGP_ORIGIN_IGP);
	CHECK_INT(up.n_discarded, 1);
	bgp_update_free(&up);
}

TEST(rfc7606_local_pref_from_ebgp_is_not_kept)
{
	struct bgp_update up;
	size_t n = mk_update("", O P N "40 05 04 00000064", NLRI, msg,
			     sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK(!bgp_attr_has(&up.attrs, BGP_ATTR_LOCAL_PREF));
	CHECK(bgp_attr_has(&up.attrs, BGP_ATTR_ORIGIN));
	bgp_update_free(&up);
}

TEST(rfc7606_treat_as_withdraw_still_yields_the_prefixes_to_withdraw)
{
	struct bgp_update up;
	struct bgp_prefix p;
	size_t pos = 0;
	size_t n = mk_update("", MPR6 "40 01 01 07 |" P, "", msg, sizeof(msg));

	CHECK_INT(bgp_update_parse(msg, n, &ebgp2, &up), BGP_PARSE_OK);
	CHECK_INT(up.error.action, BGP_ACTION_TREAT_AS_WITHDRAW);
	CHECK(bgp_nlri_next(&up.mp_reach, &pos, &p));
	CHECK(prefix_is(&p, "2001:db8:1::/48"));
	bgp_update_free(&up);
}

TEST(prefix_text_rejects_host_bits_and_bad_lengths)
{
	struct bgp_prefix p;

	CHECK_INT(bgp_prefix_parse("10.0.0.1/8", &p), -1);
	CHECK_INT(bgp_prefix_parse("10.0.0.0/33", &p), -1);
	CHECK_INT(bgp_prefix_parse("2001:db8::/129", &p), -1);
	CHECK_INT(bgp_prefix_parse("10.0.0.0/", &p), -1);
	CHECK_INT(bgp_prefix_parse("10.0.0.0", &p), -1);
	CHECK_INT(bgp_prefix_parse("2001:db8::/32", &p), 0);
	CHECK_INT(p.family, BGP_FAM_IPV6_UNICAST);
	CHECK_INT(p.len, 32);
}

/*
 * A route whose attributes need more than the session's message size is
 * refused by the builder (the caller logs it and sends nothing); with the
 * extended message size (RFC 8654) the same route is built and parses.
 */
TEST(update_build_refuses_past_max_len_and_fits_extended_messages)
{
	static uint8_t big[BGP_EXT_MAX_LEN];
	static uint32_t path[1100];
	struct bgp_codec_opts o4 = { .as4 = true, .max_len = BGP_MAX_LEN };
	struct bgp_codec_opts ox = { .as4 = true,
				     .max_len = BGP_EXT_MAX_LEN };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1, .has_next_hop = true,
		.as_path = path, .as_path_len = 1100,
	};
	struct bgp_update up;
	size_t i;
	int n;

	CHECK_INT(bgp_prefix_parse("10.1.0.0/24", &p), 0);
	for (i = 0; i < 1100; i++)
		path[i] = 4200000000u + (uint32_t)i;
	/* 1100 4-octet ASes: 4400 octets of AS_PATH alone. */
	CHECK_INT(bgp_update_build(big, sizeof(big), &o4, 0, &o), -1);
	n = bgp_update_build(big, sizeof(big), &ox, 0, &o);
	CHECK(n > BGP_MAX_LEN);
	CHECK_INT(bgp_update_parse(big, (size_t)n, &ox, &up), BGP_PARSE_OK);
	CHECK_INT(up.attrs.as_path.n_asns, 1100);
	CHECK_INT(up.attrs.as_path.n_segments, 5);
	bgp_update_free(&up);
}

/* Builds an UPDATE of 10.1.0.0/24 with a packed path; returns its path. */
static const char *packed_round_trip(const uint32_t *packed, size_t n,
				     uint32_t prepend,
				     const struct bgp_codec_opts *opts)
{
	static char text[256];
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1, .has_next_hop = true,
		.path_packed = true, .packed_path = packed,
		.packed_path_len = n, .prepend_as = prepend,
	};
	struct bgp_update up;
	int len;

	bgp_prefix_parse("10.1.0.0/24", &p);
	if (opts->ibgp) {
		o.has_local_pref = true;
		o.local_pref = 100;
	}
	len = bgp_update_build(out, sizeof(out), opts, 0, &o);
	if (len < 0 || bgp_update_parse(out, (size_t)len, opts, &up) !=
	    BGP_PARSE_OK || up.error.action != BGP_ACTION_NONE)
		return "(not built or not parsed)";
	bgp_as_path_str(&up.attrs.as_path, text, sizeof(text));
	bgp_update_free(&up);
	return text;
}

#define H(type, count)	BGP_AS_PACKED_HEAD(type, count)

/*
 * An AS path is passed on with its segments: AS_SETs whole, our AS
 * joined to a leading AS_SEQUENCE or ahead of anything else, and
 * confederation segments only to iBGP (RFC 5065 §5.3), never in AS4_PATH.
 */
TEST(update_packed_as_path_keeps_sets_and_confederations)
{
	static const uint32_t mixed[] = {
		H(BGP_AS_CONFED_SEQUENCE, 1), 65010,
		H(BGP_AS_SEQUENCE, 2), 65001, 65002,
		H(BGP_AS_SET, 2), 65003, 65004,
	};
	static const uint32_t set_first[] = { H(BGP_AS_SET, 2), 65003, 65004 };
	static const uint32_t big[] = {
		H(BGP_AS_SET, 2), 4200000002u, 65003,
	};
	static uint32_t full[256];
	struct bgp_codec_opts ibgp4 = { .as4 = true, .ibgp = true,
					.max_len = BGP_MAX_LEN };

	CHECK_STR(packed_round_trip(mixed, 8, 65000, &ebgp4),
		  "65000 65001 65002 {65003 65004}");
	CHECK_STR(packed_round_trip(mixed, 8, 0, &ibgp4),
		  "(65010) 65001 65002 {65003 65004}");
	CHECK_STR(packed_round_trip(set_first, 3, 65000, &ebgp4),
		  "65000 {65003 65004}");
	CHECK_STR(packed_round_trip(NULL, 0, 65000, &ebgp4), "65000");
	/* An old speaker: AS_TRANS in AS_PATH, the truth in AS4_PATH. */
	CHECK_STR(packed_round_trip(big, 3, 4200000001u, &ebgp2),
		  "4200000001 {4200000002 65003}");
	/* A full leading AS_SEQUENCE: ours goes in a segment of its own. */
	full[0] = H(BGP_AS_SEQUENCE, 255);
	for (size_t i = 1; i <= 255; i++)
		full[i] = 64000 + (uint32_t)i;
	CHECK(!strncmp(packed_round_trip(full, 256, 65000, &ebgp4),
		       "65000 64001 64002 ", 18));
}

/* A packed path that runs past its end is refused, not read past. */
TEST(update_packed_as_path_malformed_is_not_built)
{
	static const uint32_t bad[] = { H(BGP_AS_SEQUENCE, 3), 65001 };
	struct bgp_prefix p;
	struct bgp_update_out o = {
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1, .has_next_hop = true,
		.path_packed = true, .packed_path = bad, .packed_path_len = 2,
	};

	CHECK_INT(bgp_prefix_parse("10.1.0.0/24", &p), 0);
	CHECK_INT(bgp_update_build(out, sizeof(out), &ebgp4, 0, &o), -1);
}

/* What the parser read packs into the same segments, heads first. */
TEST(as_path_pack_keeps_each_segment_with_its_type_and_count)
{
	static const uint32_t mixed[] = {
		H(BGP_AS_SEQUENCE, 2), 65001, 65002,
		H(BGP_AS_SET, 2), 65003, 65004,
	};
	struct bgp_prefix p;
	struct bgp_update up;
	uint32_t packed[16];
	int n;

	CHECK_INT(bgp_prefix_parse("10.1.0.0/24", &p), 0);
	n = bgp_update_build(out, sizeof(out), &ebgp4, 0,
			     &(struct bgp_update_out){
		.mp_family = -1, .mp_unreach_family = -1,
		.nlri = &p, .n_nlri = 1, .has_next_hop = true,
		.path_packed = true, .packed_path = mixed,
		.packed_path_len = 6, .prepend_as = 65000 });
	CHECK(n > 0);
	CHECK_INT(bgp_update_parse(out, (size_t)n, &ebgp4, &up), BGP_PARSE_OK);
	CHECK_INT(bgp_as_path_packed_len(&up.attrs.as_path), 7);
	bgp_as_path_pack(&up.attrs.as_path, packed);
	CHECK_INT(packed[0], H(BGP_AS_SEQUENCE, 3));
	CHECK_INT(packed[1], 65000);
	CHECK_INT(packed[3], 65002);
	CHECK_INT(packed[4], H(BGP_AS_SET, 2));
	CHECK_INT(packed[6], 65004);
	bgp_update_free(&up);
}
