// SPDX-License-Identifier: GPL-2.0-only
/*
 * BFD (bfd.h): RFC 5880 §4.1's packet byte for byte, §6.8.6's reception
 * checks (each refusal with its reason, the A bit among them) and state
 * table, and fared.conf's "bfd" statement with its bounds (file:line).
 */
#include <string.h>

#include "bfd.h"
#include "config.h"
#include "harness.h"

TEST(bfd_packet_is_rfc5880_byte_for_byte)
{
	struct bfd_pkt p = {
		.diag = BFD_DIAG_DETECT_EXPIRED, .state = BFD_UP,
		.flags = BFD_F_POLL, .mult = 3,
		.my_discr = 0x01020304, .your_discr = 0xa0b0c0d0,
		.desired_min_tx = 100000, .required_min_rx = 100000,
	};
	static const uint8_t want[BFD_PKT_LEN] = {
		0x21, 0xe0, 3, 24, 1, 2, 3, 4, 0xa0, 0xb0, 0xc0, 0xd0,
		0, 0x01, 0x86, 0xa0, 0, 0x01, 0x86, 0xa0, 0, 0, 0, 0,
	};
	uint8_t buf[BFD_PKT_LEN];
	struct bfd_pkt back;

	CHECK_INT(bfd_pkt_build(&p, buf), BFD_PKT_LEN);
	CHECK(!memcmp(buf, want, sizeof(want)));
	CHECK(bfd_pkt_parse(buf, sizeof(buf), &back) == NULL);
	CHECK_INT(back.state, BFD_UP);
	CHECK_INT(back.diag, BFD_DIAG_DETECT_EXPIRED);
	CHECK_INT(back.flags, BFD_F_POLL);
	CHECK_INT(back.mult, 3);
	CHECK_INT(back.my_discr, 0x01020304);
	CHECK_INT(back.your_discr, 0xa0b0c0d0);
	CHECK_INT(back.desired_min_tx, 100000);
	CHECK_INT(back.required_min_rx, 100000);
}

static const char *parse_with(uint8_t byte, uint8_t value, size_t len)
{
	struct bfd_pkt p = {
		.state = BFD_DOWN, .mult = 3, .my_discr = 7,
		.desired_min_tx = 1000000, .required_min_rx = 100000,
	};
	uint8_t buf[32] = { 0 };
	struct bfd_pkt back;

	bfd_pkt_build(&p, buf);
	if (byte < sizeof(buf))
		buf[byte] = value;
	return bfd_pkt_parse(buf, len, &back);
}

TEST(bfd_reception_refuses_what_rfc5880_6_8_6_discards)
{
	CHECK(parse_with(99, 0, 24) == NULL);
	CHECK_STR(parse_with(99, 0, 23), "shorter than 24 bytes");
	CHECK_STR(parse_with(0, 0x40, 24), "not version 1");
	/* The A bit: fared has no authentication, so it refuses. */
	CHECK_STR(parse_with(1, BFD_DOWN << 6 | BFD_F_AUTH, 26),
		  "authenticated (A bit), and fared has no authentication");
	CHECK_STR(parse_with(3, 20, 24), "length field below 24");
	CHECK_STR(parse_with(3, 28, 24), "length field beyond the datagram");
	CHECK_STR(parse_with(2, 0, 24), "Detect Mult 0");
	CHECK_STR(parse_with(1, BFD_DOWN << 6 | BFD_F_MULTI, 24),
		  "Multipoint (M) bit set");
	CHECK_STR(parse_with(7, 0, 24), "My Discriminator 0");
	CHECK_STR(parse_with(1, BFD_UP << 6, 24),
		  "Your Discriminator 0 in state Init or Up");
	CHECK_STR(parse_with(1, BFD_INIT << 6, 24),
		  "Your Discriminator 0 in state Init or Up");
	CHECK(parse_with(1, BFD_ADMIN_DOWN << 6, 24) == NULL);
}

TEST(bfd_state_table_is_rfc5880_6_8_6)
{
	/* Down: the three-way handshake. */
	CHECK_INT(bfd_next_state(BFD_DOWN, BFD_DOWN), BFD_INIT);
	CHECK_INT(bfd_next_state(BFD_DOWN, BFD_INIT), BFD_UP);
	CHECK_INT(bfd_next_state(BFD_DOWN, BFD_UP), BFD_DOWN);
	CHECK_INT(bfd_next_state(BFD_INIT, BFD_DOWN), BFD_INIT);
	CHECK_INT(bfd_next_state(BFD_INIT, BFD_INIT), BFD_UP);
	CHECK_INT(bfd_next_state(BFD_INIT, BFD_UP), BFD_UP);
	CHECK_INT(bfd_next_state(BFD_INIT, BFD_ADMIN_DOWN), BFD_DOWN);
	/* Up: the peer saying Down (or AdminDown) ends it. */
	CHECK_INT(bfd_next_state(BFD_UP, BFD_DOWN), BFD_DOWN);
	CHECK_INT(bfd_next_state(BFD_UP, BFD_ADMIN_DOWN), BFD_DOWN);
	CHECK_INT(bfd_next_state(BFD_UP, BFD_INIT), BFD_UP);
	CHECK_INT(bfd_next_state(BFD_UP, BFD_UP), BFD_UP);
	/* AdminDown: nothing a packet says moves it. */
	CHECK_INT(bfd_next_state(BFD_ADMIN_DOWN, BFD_INIT), BFD_ADMIN_DOWN);
	CHECK_STR(bfd_state_name(BFD_UP), "Up");
	CHECK_STR(bfd_diag_name(BFD_DIAG_DETECT_EXPIRED),
		  "Control Detection Time Expired");
	CHECK_STR(bfd_diag_name(31), "unknown diagnostic");
}

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

TEST(config_bfd_defaults_bounds_and_file_line_errors)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;

	capture_start(&cap);
	errors = fared_config_parse("t.conf", HEAD
		"plane 1 {\n"				/* 3 */
		"neighbor 10.0.0.1 {\nremote-as 65001\nbfd\n}\n"	/* 4-7 */
		"neighbor 10.0.0.2 {\nremote-as 65001\n"		/* 8, 9 */
		"bfd interval 50 multiplier 5\n}\n"			/* 10, 11 */
		"neighbor 10.0.0.3 {\nremote-as 65001\nbfd off\n}\n"	/* 12-15 */
		"neighbor 10.0.0.4 {\nremote-as 65001\n}\n"		/* 16-18 */
		"}\n", &cfg, cap.f);
	capture_end(&cap);
	CHECK_INT(errors, 0);
	CHECK(cfg.neighbors[0].bfd);
	CHECK_INT(cfg.neighbors[0].bfd_interval_ms, 100);
	CHECK_INT(cfg.neighbors[0].bfd_multiplier, 3);
	CHECK(cfg.neighbors[1].bfd);
	CHECK_INT(cfg.neighbors[1].bfd_interval_ms, 50);
	CHECK_INT(cfg.neighbors[1].bfd_multiplier, 5);
	CHECK(!cfg.neighbors[2].bfd);
	CHECK(!cfg.neighbors[3].bfd);
	fared_config_free(&cfg);

	capture_start(&cap);
	errors = fared_config_parse("t.conf", HEAD
		"plane 1 {\nneighbor 10.0.0.1 {\nremote-as 65001\n" /* 3-5 */
		"bfd interval 9\n"			/* 6 */
		"bfd interval 60001\n"			/* 7 */
		"bfd multiplier 0\n"			/* 8 */
		"bfd multiplier 256\n"			/* 9 */
		"bfd interval\n"			/* 10 */
		"bfd jitter 5\n"			/* 11 */
		"import x\n}\n}\n", &cfg, cap.f);
	CHECK_INT(errors, 7);
	CHECK_STR(capture_text(&cap),
		  "t.conf:6: bfd interval must be 10..60000 ms, not \"9\"\n"
		  "t.conf:7: bfd interval must be 10..60000 ms, not "
		  "\"60001\"\n"
		  "t.conf:8: bfd multiplier must be 1..255, not \"0\"\n"
		  "t.conf:9: bfd multiplier must be 1..255, not \"256\"\n"
		  "t.conf:10: expected \"bfd\", \"bfd off\" or "
		  "\"bfd [interval MS] [multiplier N]\"\n"
		  "t.conf:11: unknown bfd option \"jitter\" (interval, "
		  "multiplier)\n"
		  "t.conf:12: neighbor 10.0.0.1 imports with undefined "
		  "policy \"x\"\n"
		  "t.conf:4: warning: neighbor 10.0.0.1 has no export policy: "
		  "it is "
		  "sent no route (RFC 8212)\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}
