// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's BGP codec: the header, OPEN and capabilities, KEEPALIVE,
 * NOTIFICATION and ROUTE-REFRESH, from hex vectors.
 */
#include "bgp_test_util.h"

static uint8_t msg[8192], out[8192];

/* ------------------------------------------------------------------ */
/* Header (RFC 4271 §4.1, §6.1) */

TEST(header_with_a_bad_marker_resets_with_1_1)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("ffffffffffffffffffffffffffff00ff 0013 04", msg,
			 sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.action, BGP_ACTION_SESSION_RESET);
	CHECK_INT(err.code, 1);
	CHECK_INT(err.subcode, 1);
	CHECK_INT(err.data_len, 0);
}

TEST(header_length_below_19_resets_with_1_2_and_the_length_as_data)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 0012 04", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.code, 1);
	CHECK_INT(err.subcode, 2);
	CHECK_HEX(err.data, err.data_len, "0012");
}

TEST(header_length_above_4096_is_bad_unless_extended_message)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 1001 02", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.subcode, 2);
	CHECK_HEX(err.data, err.data_len, "1001");
	CHECK_INT(bgp_header_parse(msg, n, BGP_EXT_MAX_LEN, &hdr, &err),
		  BGP_PARSE_NEED_MORE);
	CHECK_INT(hdr.length, 4097);
	CHECK_INT(hdr.type, BGP_MSG_UPDATE);
}

TEST(header_open_longer_than_4096_is_bad_even_with_extended_message)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 1001 01", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_EXT_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.code, 1);
	CHECK_INT(err.subcode, 2);
}

TEST(header_unknown_type_resets_with_1_3_and_the_type_as_data)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 0013 06", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.code, 1);
	CHECK_INT(err.subcode, 3);
	CHECK_HEX(err.data, err.data_len, "06");
}

TEST(header_keepalive_must_be_exactly_19_octets)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 0014 04 00", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.subcode, 2);
	CHECK_HEX(err.data, err.data_len, "0014");
}

TEST(header_per_type_minimum_lengths_are_enforced)
{
	static const char *const short_msgs[] = {
		"M 001c 01",	/* OPEN < 29 */
		"M 0016 02",	/* UPDATE < 23 */
		"M 0014 03",	/* NOTIFICATION < 21 */
		"M 0016 05",	/* ROUTE-REFRESH < 23 */
	};
	struct bgp_header hdr;
	struct bgp_error err;
	size_t i, n;

	for (i = 0; i < 4; i++) {
		n = unhex(short_msgs[i], msg, sizeof(msg));
		CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
			  BGP_PARSE_ERROR);
		CHECK_INT(err.subcode, BGP_HEADER_BAD_LENGTH);
	}
}

TEST(header_waits_for_the_whole_message)
{
	struct bgp_header hdr;
	struct bgp_error err;
	size_t n = unhex("M 0017 02 0000 00", msg, sizeof(msg));

	CHECK_INT(bgp_header_parse(msg, 10, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_NEED_MORE);
	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_NEED_MORE);
	msg[n++] = 0;
	CHECK_INT(bgp_header_parse(msg, n, BGP_MAX_LEN, &hdr, &err),
		  BGP_PARSE_OK);
	CHECK_INT(hdr.length, 23);
}

TEST(keepalive_is_the_bare_19_octet_header)
{
	int n = bgp_keepalive_build(out, sizeof(out));

	CHECK_HEX(out, n, "M 0013 04");
	CHECK_INT(bgp_keepalive_build(out, 18), -1);
}

/* ------------------------------------------------------------------ */
/* OPEN (RFC 4271 §4.2, RFC 5492, RFC 6793) */

/* PROTOCOL.md §3.2: AS 4200000005, hold 90, id 10.0.0.5, MP v4 v6, RR,
 * ORF v4 prefix send, AS4. */
#define PROTOCOL_OPEN							\
	"M 003c 01 | 04 5ba0 005a 0a000005 1f | 02 1d |"		\
	"01 04 0001 00 01 | 01 04 0002 00 01 | 02 00 |"			\
	"03 07 0001 00 01 01 40 02 | 41 04 fa56ea05"

TEST(open_protocol_md_example_parses)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex(PROTOCOL_OPEN, msg, sizeof(msg));

	CHECK_INT(n, 60);
	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK_INT(open.version, 4);
	CHECK_INT(open.my_as, BGP_AS_TRANS);
	CHECK_INT(open.hold_time, 90);
	CHECK_INT(open.bgp_id, 0x0a000005);
	CHECK_INT(open.caps.families, BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST) |
				      BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));
	CHECK(open.caps.route_refresh);
	CHECK(open.caps.as4);
	CHECK_INT(bgp_open_peer_as(&open), 4200000005u);
	CHECK_INT(open.caps.orf_prefix[BGP_FAM_IPV4_UNICAST], BGP_ORF_SEND);
	CHECK_INT(open.caps.orf_prefix[BGP_FAM_IPV6_UNICAST], 0);
	CHECK(!open.caps.graceful_restart);
	CHECK(!open.caps.enhanced_route_refresh);
	CHECK_INT(open.caps.n_unknown, 0);
}

TEST(open_protocol_md_example_is_rebuilt_byte_for_byte)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex(PROTOCOL_OPEN, msg, sizeof(msg));
	int len;

	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	len = bgp_open_build(out, sizeof(out), &open);
	CHECK_HEX(out, len, PROTOCOL_OPEN);
}

#define FULL_OPEN							\
	"M 004d 01 | 04 fde9 005a 0a000001 30 | 02 2e |"		\
	"01 04 0001 00 01 | 01 04 0002 00 01 | 02 00 | 06 00 |"		\
	"40 0a 8078 0001 01 80 0002 01 00 | 41 04 0000fde9 |"		\
	"45 08 0001 01 01 0002 01 03 | 46 00"

static void full_open(struct bgp_open *open)
{
	memset(open, 0, sizeof(*open));
	open->version = 4;
	open->my_as = 65001;
	open->hold_time = 90;
	open->bgp_id = 0x0a000001;
	open->caps.families = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST) |
			      BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	open->caps.mp = true;
	open->caps.route_refresh = true;
	open->caps.extended_message = true;
	open->caps.graceful_restart = true;
	open->caps.gr_flags = BGP_GR_FLAG_RESTART;
	open->caps.gr_restart_time = 120;
	open->caps.gr_families = open->caps.families;
	open->caps.gr_af_flags[BGP_FAM_IPV4_UNICAST] = BGP_GR_AF_FORWARDING;
	open->caps.as4 = true;
	open->caps.as4_number = 65001;
	open->caps.add_path[BGP_FAM_IPV4_UNICAST] = BGP_ADD_PATH_RECEIVE;
	open->caps.add_path[BGP_FAM_IPV6_UNICAST] = BGP_ADD_PATH_RECEIVE |
						    BGP_ADD_PATH_SEND;
	open->caps.enhanced_route_refresh = true;
}

TEST(open_with_every_capability_builds_the_exact_bytes)
{
	struct bgp_open open;
	int len;

	full_open(&open);
	len = bgp_open_build(out, sizeof(out), &open);
	CHECK_HEX(out, len, FULL_OPEN);
	CHECK_INT(bgp_open_build(out, 76, &open), -1);
}

TEST(open_with_every_capability_parses_back_to_the_same_struct)
{
	struct bgp_open open, want;
	struct bgp_error err;
	size_t n = unhex(FULL_OPEN, msg, sizeof(msg));

	full_open(&want);
	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK(memcmp(&open, &want, sizeof(open)) == 0);
}

TEST(open_unknown_capabilities_are_ignored_not_errors)
{
	struct bgp_open open;
	struct bgp_error err;
	/* FQDN (73), LLGR (71) and Role (9) beside AS4. */
	size_t n = unhex("M 0032 01 | 04 fde9 00b4 0a000001 15 | 02 13 |"
			 "49 06 04 68 6f 73 74 00 | 47 00 | 09 01 00 |"
			 "41 04 0000fde9", msg, sizeof(msg));

	CHECK_INT(n, 50);
	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK_INT(open.caps.n_unknown, 3);
	CHECK_INT(open.caps.unknown[0], 73);
	CHECK_INT(open.caps.unknown[1], 71);
	CHECK_INT(open.caps.unknown[2], 9);
	CHECK(open.caps.as4);
}

TEST(open_capabilities_may_span_several_parameters)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex("M 0029 01 | 04 fde9 00b4 0a000001 0c |"
			 "02 06 01 04 0002 00 01 | 02 02 02 00", msg,
			 sizeof(msg));

	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK_INT(open.caps.families, BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));
	CHECK(open.caps.route_refresh);
}

TEST(open_rfc9072_extended_parameters_are_read)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex("M 0025 01 | 04 fde9 00b4 0a000001 ff | ff 0005 |"
			 "02 0002 02 00", msg, sizeof(msg));

	CHECK_INT(n, 37);
	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK(open.caps.route_refresh);
}

static void check_open_error(const char *hex, uint8_t subcode)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex(hex, msg, sizeof(msg));

	if (bgp_open_parse(msg, n, &open, &err) != BGP_PARSE_ERROR) {
		t_fail(__FILE__, __LINE__, "OPEN %s accepted", hex);
		return;
	}
	if (err.action != BGP_ACTION_SESSION_RESET || err.code != 2 ||
	    err.subcode != subcode)
		t_fail(__FILE__, __LINE__, "OPEN %s: %s %d/%d, want 2/%d", hex,
		       bgp_action_name(err.action), err.code, err.subcode,
		       subcode);
}

TEST(open_version_3_resets_with_2_1_and_version_4_as_data)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex("M 001d 01 03 fde9 00b4 0a000001 00", msg,
			 sizeof(msg));

	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_ERROR);
	CHECK_INT(err.code, 2);
	CHECK_INT(err.subcode, 1);
	CHECK_HEX(err.data, err.data_len, "0004");
}

TEST(open_errors_carry_their_rfc_subcodes)
{
	/* hold time 1 and 2: Unacceptable Hold Time */
	check_open_error("M 001d 01 04 fde9 0001 0a000001 00", 6);
	check_open_error("M 001d 01 04 fde9 0002 0a000001 00", 6);
	/* BGP identifier 0 */
	check_open_error("M 001d 01 04 fde9 00b4 00000000 00", 3);
	/* My AS 0 and 4-octet AS 0 (RFC 7607) */
	check_open_error("M 001d 01 04 0000 00b4 0a000001 00", 2);
	check_open_error("M 0025 01 04 fde9 00b4 0a000001 08 02 06 41 04 "
			 "00000000", 2);
	/* Authentication parameter (type 1): Unsupported Optional Param */
	check_open_error("M 0020 01 04 fde9 00b4 0a000001 03 01 01 00", 4);
	/* capability overrunning its parameter */
	check_open_error("M 0021 01 04 fde9 00b4 0a000001 04 02 02 41 04",
			 0);
	/* optional parameters length beyond the message */
	check_open_error("M 001f 01 04 fde9 00b4 0a000001 05 02 00", 0);
	/* MP capability of length 3 */
	check_open_error("M 0024 01 04 fde9 00b4 0a000001 07 02 05 01 03 "
			 "0001 00", 0);
}

TEST(open_hold_time_0_is_accepted)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex("M 001d 01 04 fde9 0000 0a000001 00", msg,
			 sizeof(msg));

	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK_INT(open.hold_time, 0);
	CHECK_INT(open.caps.families, 0);
}

TEST(open_add_path_with_a_bad_direction_voids_the_capability)
{
	struct bgp_open open;
	struct bgp_error err;
	size_t n = unhex("M 0025 01 04 fde9 00b4 0a000001 08 02 06 "
			 "45 04 0001 01 04", msg, sizeof(msg));

	CHECK_INT(bgp_open_parse(msg, n, &open, &err), BGP_PARSE_OK);
	CHECK_INT(open.caps.add_path[BGP_FAM_IPV4_UNICAST], 0);
}

TEST(negotiation_takes_the_smaller_hold_time_and_matching_add_path)
{
	struct bgp_open local, peer;
	struct bgp_session_params p;

	full_open(&local);
	full_open(&peer);
	peer.hold_time = 30;
	peer.caps.extended_message = false;
	peer.caps.add_path[BGP_FAM_IPV4_UNICAST] = BGP_ADD_PATH_SEND;
	peer.caps.add_path[BGP_FAM_IPV6_UNICAST] = BGP_ADD_PATH_RECEIVE;
	bgp_negotiate(&local, &peer, &p);
	CHECK_INT(p.hold_time, 30);
	CHECK_INT(p.keepalive_time, 10);
	CHECK(p.as4);
	CHECK(!p.extended_message);
	CHECK_INT(p.max_len, 4096);
	CHECK_INT(p.add_path_rx, BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST));
	CHECK_INT(p.add_path_tx, BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));

	peer.caps.as4 = false;
	peer.caps.families = BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	peer.hold_time = 0;
	bgp_negotiate(&local, &peer, &p);
	CHECK(!p.as4);
	CHECK_INT(p.hold_time, 0);
	CHECK_INT(p.keepalive_time, 0);
	CHECK_INT(p.families, BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST));
	CHECK_INT(p.add_path_rx, 0);
}

TEST(rfc4760_a_peer_without_the_multiprotocol_capability_gets_ipv4_unicast)
{
	struct bgp_open local = { .hold_time = 90 }, peer = { .hold_time = 90 };
	struct bgp_session_params p;
	struct bgp_error err;
	size_t n = unhex("M 001d 01 04 fde9 005a 0a000001 00", msg,
			 sizeof(msg));

	/* An OPEN with no capabilities at all: IPv4 unicast. */
	CHECK_INT(bgp_open_parse(msg, n, &peer, &err), BGP_PARSE_OK);
	CHECK(!peer.caps.mp);
	local.caps.families = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST) |
			      BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	bgp_negotiate(&local, &peer, &p);
	CHECK_INT(p.families, BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST));
	/* ... not when we are configured for IPv6 only. */
	local.caps.families = BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	bgp_negotiate(&local, &peer, &p);
	CHECK_INT(p.families, 0);
	/* A Multiprotocol capability of a family we do not speak: none. */
	n = unhex("M 0025 01 04 fde9 005a 0a000001 08 02 06 01 04 0019 00 41",
		  msg, sizeof(msg));
	CHECK_INT(bgp_open_parse(msg, n, &peer, &err), BGP_PARSE_OK);
	CHECK(peer.caps.mp);
	CHECK_INT(peer.caps.families, 0);
	local.caps.families = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
	bgp_negotiate(&local, &peer, &p);
	CHECK_INT(p.families, 0);
}

/* ------------------------------------------------------------------ */
/* NOTIFICATION (RFC 4271 §4.5, RFC 9003) */

TEST(notification_parses_code_subcode_and_data)
{
	struct bgp_notification notif;
	struct bgp_error err;
	size_t n = unhex("M 0017 03 02 02 fde9", msg, sizeof(msg));

	CHECK_INT(bgp_notification_parse(msg, n, &notif, &err), BGP_PARSE_OK);
	CHECK_INT(notif.code, 2);
	CHECK_INT(notif.subcode, 2);
	CHECK_HEX(notif.data, notif.data_len, "fde9");
}

TEST(notification_hold_timer_expired_is_built_exactly)
{
	int n = bgp_notification_build(out, sizeof(out), BGP_ERR_HOLD_TIMER,
				       0, NULL, 0);

	CHECK_HEX(out, n, "M 0015 03 04 00");
}

TEST(notification_data_too_long_is_cut_to_fit_4096)
{
	static uint8_t data[5000];
	int n = bgp_notification_build(out, sizeof(out), 7, 1, data,
				       sizeof(data));

	CHECK_INT(n, 4096);
	CHECK_INT(out[16], 0x10);
	CHECK_INT(out[17], 0x00);
}

TEST(notification_shutdown_text_is_built_per_rfc9003)
{
	int n = bgp_notification_build_shutdown(out, sizeof(out),
						BGP_CEASE_ADMIN_SHUTDOWN,
						"maintenance "
						"\xc3\xa9t\xc3\xa9");

	/* "maintenance été" is 17 octets of UTF-8 */
	CHECK_HEX(out, n, "M 0027 03 06 02 11 6d61696e74656e616e6365 20 "
		  "c3a9 74 c3a9");
}

TEST(notification_shutdown_text_rejects_bad_utf8_long_text_and_subcodes)
{
	char text[300];

	CHECK_INT(bgp_notification_build_shutdown(out, sizeof(out), 2,
						  "bad \xc0\xaf"), -1);
	CHECK_INT(bgp_notification_build_shutdown(out, sizeof(out), 2,
						  "\xed\xa0\x80"), -1);
	memset(text, 'a', 256);
	text[256] = '\0';
	CHECK_INT(bgp_notification_build_shutdown(out, sizeof(out), 2, text),
		  -1);
	text[255] = '\0';
	CHECK_INT(bgp_notification_build_shutdown(out, sizeof(out), 2, text),
		  21 + 1 + 255);
	CHECK_INT(bgp_notification_build_shutdown(out, sizeof(out),
						  BGP_CEASE_PEER_DECONFIGURED,
						  "x"), -1);
	CHECK_HEX(out, bgp_notification_build_shutdown(out, sizeof(out), 4,
						       NULL),
		  "M 0015 03 06 04");
}

TEST(notification_shutdown_text_is_read_only_when_valid)
{
	struct bgp_notification notif;
	struct bgp_error err;
	char text[BGP_SHUTDOWN_TEXT_MAX + 1];
	size_t n;

	n = unhex("M 0019 03 06 02 03 627965 ", msg, sizeof(msg));
	bgp_notification_parse(msg, n, &notif, &err);
	CHECK_INT(bgp_notification_shutdown_text(&notif, text, sizeof(text)),
		  0);
	CHECK_STR(text, "bye");
	/* length beyond the data */
	n = unhex("M 0019 03 06 02 04 627965", msg, sizeof(msg));
	bgp_notification_parse(msg, n, &notif, &err);
	CHECK_INT(bgp_notification_shutdown_text(&notif, text, sizeof(text)),
		  -1);
	/* invalid UTF-8 must not be interpreted */
	n = unhex("M 0018 03 06 04 02 c328", msg, sizeof(msg));
	bgp_notification_parse(msg, n, &notif, &err);
	CHECK_INT(bgp_notification_shutdown_text(&notif, text, sizeof(text)),
		  -1);
	/* not a Cease 2 or 4 */
	n = unhex("M 0019 03 06 03 03 627965", msg, sizeof(msg));
	bgp_notification_parse(msg, n, &notif, &err);
	CHECK_INT(bgp_notification_shutdown_text(&notif, text, sizeof(text)),
		  -1);
}

/* ------------------------------------------------------------------ */
/* ROUTE-REFRESH (RFC 2918, RFC 7313, RFC 5291) */

TEST(route_refresh_plain_request_is_built_exactly)
{
	int n = bgp_route_refresh_build(out, sizeof(out), BGP_AFI_IPV6,
					BGP_SAFI_UNICAST, BGP_RR_NORMAL);

	CHECK_HEX(out, n, "M 0017 05 0002 00 01");
}

TEST(route_refresh_borr_and_eorr_parse_with_their_subtypes)
{
	struct bgp_route_refresh rr;
	struct bgp_error err;
	size_t n;

	n = bgp_route_refresh_build(msg, sizeof(msg), 1, 1, BGP_RR_BORR);
	CHECK_INT(bgp_route_refresh_parse(msg, n, &rr, &err), BGP_PARSE_OK);
	CHECK_INT(rr.afi, 1);
	CHECK_INT(rr.safi, 1);
	CHECK_INT(rr.subtype, BGP_RR_BORR);
	CHECK(!rr.has_orf);
	n = bgp_route_refresh_build(msg, sizeof(msg), 2, 1, BGP_RR_EORR);
	CHECK_INT(bgp_route_refresh_parse(msg, n, &rr, &err), BGP_PARSE_OK);
	CHECK_INT(rr.subtype, BGP_RR_EORR);
	CHECK_INT(rr.afi, 2);
}

TEST(route_refresh_eorr_longer_than_4_resets_with_7_1_and_the_message)
{
	struct bgp_route_refresh rr;
	struct bgp_error err;
	size_t n = unhex("M 0018 05 0001 02 01 00", msg, sizeof(msg));

	CHECK_INT(bgp_route_refresh_parse(msg, n, &rr, &err),
		  BGP_PARSE_ERROR);
	CHECK_INT(err.code, 7);
	CHECK_INT(err.subcode, 1);
	CHECK_HEX(err.data, err.data_len, "M 0018 05 0001 02 01 00");
}

/* PROTOCOL.md §3.7: IMMEDIATE, permit 10.1.2.3/32, then deny the rest. */
#define PROTOCOL_ORF_REFRESH						\
	"M 002f 05 | 0001 00 01 | 01 | 40 0014 |"			\
	"00 0000000a 00 00 20 0a010203 | 20 ffffffff 00 20 00"

TEST(route_refresh_protocol_md_orf_example_parses)
{
	struct bgp_route_refresh rr;
	struct bgp_error err;
	size_t n = unhex(PROTOCOL_ORF_REFRESH, msg, sizeof(msg));

	CHECK_INT(n, 47);
	CHECK_INT(bgp_route_refresh_parse(msg, n, &rr, &err), BGP_PARSE_OK);
	CHECK_INT(rr.afi, 1);
	CHECK_INT(rr.safi, 1);
	CHECK_INT(rr.subtype, 0);
	CHECK(rr.has_orf);
	CHECK_INT(rr.when_to_refresh, 1);
	CHECK_HEX(rr.orf, rr.orf_len, "40 0014 00 0000000a 00 00 20 0a010203"
		  " 20 ffffffff 00 20 00");
}
