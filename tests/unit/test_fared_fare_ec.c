// SPDX-License-Identifier: GPL-2.0-only
/*
 * The FARE extended communities: binary16 exhaustively (every code, every
 * rounding midpoint, checked against the compiler's own _Float16 where it
 * has one), the Path Bandwidth and RFC 10005 Link Bandwidth communities
 * with PROTOCOL.md's vectors, finding them in a path's communities, and
 * the FIB-Suppress and UPA communities.
 */
#include <math.h>

#include "bgp_test_util.h"
#include "fare_ec.h"

static bool is_nan_code(uint16_t h)
{
	return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

TEST(binary16_every_code_round_trips_through_double)
{
	unsigned int h;

	for (h = 0; h < 0x10000; h++) {
		double v = fare_half_to_double(h);
		uint16_t back = fare_half_from_double(v);

		if (is_nan_code(h)) {
			CHECK(isnan(v));
			CHECK_INT(back, 0x7e00 | (h & 0x8000));
			continue;
		}
		CHECK_INT(back, h);
		CHECK_INT(!!signbit(v), !!(h & 0x8000));
	}
}

TEST(binary16_decodes_the_landmarks_of_protocol_md_2_2)
{
	CHECK(fare_half_to_double(0x7bff) == 65504);
	CHECK(isinf(fare_half_to_double(0x7c00)));
	CHECK(fare_half_to_double(0x0400) == ldexp(1, -14));
	CHECK(fare_half_to_double(0x0001) == ldexp(1, -24));
	CHECK(fare_half_to_double(0x0000) == 0);
	CHECK(fare_half_to_double(0x3c00) == 1);
	CHECK(fare_half_to_double(0xc000) == -2);
	CHECK(fare_half_to_double(0x6800) == 2048);
	CHECK(fare_half_to_double(0x6801) == 2050);
}

/*
 * Between every two neighbouring finite codes: the exact midpoint goes to
 * the even one, anything a hair off it to the nearer one.
 */
TEST(binary16_encode_rounds_every_midpoint_to_even)
{
	unsigned int h;

	for (h = 0; h < 0x7bff; h++) {
		double lo = fare_half_to_double(h);
		double hi = fare_half_to_double(h + 1);
		double mid = (lo + hi) / 2;
		uint16_t even = h & 1 ? h + 1 : h;

		CHECK_INT(fare_half_from_double(mid), even);
		CHECK_INT(fare_half_from_double(-mid), 0x8000 | even);
		CHECK_INT(fare_half_from_double(nextafter(mid, 0)), h);
		CHECK_INT(fare_half_from_double(nextafter(mid, INFINITY)),
			  h + 1);
	}
}

TEST(binary16_encode_overflows_underflows_and_keeps_nan_and_zero_signs)
{
	CHECK_INT(fare_half_from_double(65519.99), 0x7bff);
	/* 65520 is the midpoint to 65536, whose code would be even. */
	CHECK_INT(fare_half_from_double(65520), 0x7c00);
	CHECK_INT(fare_half_from_double(1e300), 0x7c00);
	CHECK_INT(fare_half_from_double(-1e300), 0xfc00);
	CHECK_INT(fare_half_from_double(INFINITY), 0x7c00);
	CHECK_INT(fare_half_from_double(-INFINITY), 0xfc00);
	CHECK_INT(fare_half_from_double(NAN), 0x7e00);
	CHECK_INT(fare_half_from_double(-NAN), 0xfe00);
	CHECK_INT(fare_half_from_double(0.0), 0x0000);
	CHECK_INT(fare_half_from_double(-0.0), 0x8000);
	/* Half the least subnormal is a tie to 0; a hair more is 0x0001. */
	CHECK_INT(fare_half_from_double(ldexp(1, -25)), 0x0000);
	CHECK_INT(fare_half_from_double(nextafter(ldexp(1, -25), 1)), 0x0001);
	CHECK_INT(fare_half_from_double(ldexp(3, -26)), 0x0001);
	CHECK_INT(fare_half_from_double(1e-300), 0x0000);
	CHECK_INT(fare_half_from_double(4.9e-324), 0x0000);
	/* The largest subnormal rounds up into the least normal. */
	CHECK_INT(fare_half_from_double(ldexp(2047, -25)), 0x0400);
}

#ifdef __FLT16_MAX__
/* An independent reference: the compiler's conversion (round to even). */
TEST(binary16_encode_agrees_with_the_compilers_float16_on_random_doubles)
{
	uint64_t x = 88172645463325252ull;
	unsigned int i;

	for (i = 0; i < 300000; i++) {
		_Float16 f;
		uint16_t want;
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Doubles with exponents around binary16's range. */
		v = ldexp((double)(x >> 11) / (1ull << 53),
			  (int)(x % 48) - 30);
		if (x & (1ull << 62))
			v = -v;
		f = (_Float16)v;
		memcpy(&want, &f, sizeof(want));
		if (fare_half_from_double(v) != want) {
			t_fail(__FILE__, __LINE__, "%a: %04x, compiler %04x",
			       v, fare_half_from_double(v), want);
			return;
		}
	}
}
#endif

TEST(pb_bandwidths_of_protocol_md_2_2_table)
{
	static const struct {
		uint64_t bps;
		uint16_t h;
	} t[] = {
		{ 25000000000ull, 0x4240 },	/* 25 GbE, 3.125 GB/s */
		{ 50000000000ull, 0x4640 },
		{ 100000000000ull, 0x4a40 },
		{ 200000000000ull, 0x4e40 },
		{ 400000000000ull, 0x5240 },
		{ 800000000000ull, 0x5640 },
		{ 1600000000000ull, 0x5a40 },	/* also 4 x 400G summed */
	};
	uint64_t bps;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_INT(fare_pb_from_bps(t[i].bps), t[i].h);
		CHECK_INT(fare_pb_to_bps(t[i].h, &bps), 0);
		CHECK_INT(bps, t[i].bps);
	}
	CHECK_INT(fare_pb_from_bps(4 * 400000000000ull), 0x5a40);
}

TEST(pb_value_rules_nan_negative_zero_infinity_subnormal)
{
	uint64_t bps = 7;

	CHECK_INT(fare_pb_to_bps(0x7e00, &bps), -1);	/* NaN */
	CHECK_INT(fare_pb_to_bps(0x7c01, &bps), -1);
	CHECK_INT(fare_pb_to_bps(0xc000, &bps), -1);	/* -2 */
	CHECK_INT(fare_pb_to_bps(0x8000, &bps), -1);	/* -0 */
	CHECK_INT(fare_pb_to_bps(0xfc00, &bps), -1);	/* -inf */
	CHECK_INT(bps, 7);
	CHECK_INT(fare_pb_to_bps(0x0000, &bps), 0);
	CHECK_INT(bps, 0);
	CHECK_INT(fare_pb_to_bps(0x7c00, &bps), 0);
	CHECK(bps == FARE_BW_INF);
	/* 2^-24 GB/s = 476.837... b/s: subnormals are valid, rounded. */
	CHECK_INT(fare_pb_to_bps(0x0001, &bps), 0);
	CHECK_INT(bps, 477);
	CHECK_INT(fare_pb_to_bps(FARE_PB_MAX, &bps), 0);
	CHECK_INT(bps, 65504ull * 8000000000ull);
	/* Sums past the largest finite value are sent as the maximum. */
	CHECK_INT(fare_pb_from_bps(65520ull * 8000000000ull), FARE_PB_MAX);
	CHECK_INT(fare_pb_from_bps(FARE_BW_INF), FARE_PB_MAX);
	CHECK_INT(fare_pb_from_bps(0), 0);
}

/* Every non-negative finite code: bits/s exact (or nearest) and back. */
TEST(pb_every_valid_code_round_trips_through_bits_per_second)
{
	unsigned int h;
	uint64_t bps;

	for (h = 0; h <= FARE_PB_MAX; h++) {
		double want = fare_half_to_double(h) * 8e9;

		CHECK_INT(fare_pb_to_bps(h, &bps), 0);
		CHECK(fabs((double)bps - want) <= 0.5);
		if (h >= 0x3400)	/* 0.25 GB/s and up: exact */
			CHECK(bps == want);
		CHECK_INT(fare_pb_from_bps(bps), h);
	}
}

TEST(pb_community_encodes_protocol_md_3_3_example_and_decodes_it)
{
	struct fare_pb pb = { true, 0x0a000005, FARE_PB_MAX }, back;
	uint8_t ec[8];

	fare_pb_encode(ec, &pb, 0xee);
	CHECK_HEX(ec, 8, "01ee0a0000057bff");
	CHECK(fare_pb_decode(ec, 0xee, &back));
	CHECK(back.transitive);
	CHECK_INT(back.router_id, 0x0a000005);
	CHECK_INT(back.value, 0x7bff);
	CHECK(!fare_pb_decode(ec, FARE_PB_SUBTYPE_DEFAULT, &back));
	pb.transitive = false;
	pb.value = 0x4a40;
	fare_pb_encode(ec, &pb, FARE_PB_SUBTYPE_DEFAULT);
	CHECK_HEX(ec, 8, "410f0a0000054a40");
	CHECK(fare_pb_decode(ec, FARE_PB_SUBTYPE_DEFAULT, &back));
	CHECK(!back.transitive);
	CHECK_INT(back.value, 0x4a40);
	ec[0] = 0x02;
	CHECK(!fare_pb_decode(ec, FARE_PB_SUBTYPE_DEFAULT, &back));
}

TEST(lb_community_rfc10005_vectors_of_protocol_md_3_8)
{
	struct fare_lb lb = { false, 65001, 0 }, back;
	uint64_t bps;
	uint8_t ec[8];

	CHECK_INT(fare_lb_from_bps(100000000000ull), 0x503a43b7);
	CHECK_INT(fare_lb_from_bps(400000000000ull), 0x513a43b7);
	lb.value = 0x503a43b7;
	fare_lb_encode(ec, &lb);
	CHECK_HEX(ec, 8, "4004fde9503a43b7");
	CHECK(fare_lb_decode(ec, &back));
	CHECK(!back.transitive);
	CHECK_INT(back.as, 65001);
	/* 12.5e9 B/s is not a binary32: the nearest is 12499999744. */
	CHECK_INT(fare_lb_to_bps(back.value, &bps), 0);
	CHECK_INT(bps, 12499999744ull * 8);
	CHECK_INT(fare_lb_to_bps(0x00000000, &bps), 0);
	CHECK_INT(bps, 0);
	CHECK_INT(fare_lb_to_bps(0x7f800000, &bps), 0);	/* +inf */
	CHECK(bps == FARE_BW_INF);
	CHECK_INT(fare_lb_to_bps(0x7fc00000, &bps), -1);	/* NaN */
	CHECK_INT(fare_lb_to_bps(0xbf800000, &bps), -1);	/* -1 */
	lb.transitive = true;
	fare_lb_encode(ec, &lb);
	CHECK_HEX(ec, 2, "0004");
}

static void put_ec(uint8_t *at, const char *hex)
{
	unhex(hex, at, 8);
}

TEST(find_bw_takes_the_first_valid_pb_of_each_kind)
{
	struct fare_ec_cfg cfg = { FARE_PB_SUBTYPE_DEFAULT, false, 0x0f };
	struct fare_path_bw bw;
	uint8_t ecs[8 * 6 + 3];

	put_ec(ecs + 0, "0002fde900000001");	/* route target: skipped */
	put_ec(ecs + 8, "010f0a0000017e00");	/* transitive, NaN */
	put_ec(ecs + 16, "410f0a0000024a40");	/* non-trans., 12.5 GB/s */
	put_ec(ecs + 24, "010f0a0000035240");	/* transitive, 50 GB/s */
	put_ec(ecs + 32, "010f0a0000044a40");	/* a second one: ignored */
	put_ec(ecs + 40, "01ee0a0000054a40");	/* other sub-type */
	memset(ecs + 48, 0x01, 3);		/* a partial one: ignored */
	fare_ec_find_bw(ecs, sizeof(ecs), &cfg, &bw);
	CHECK_INT(bw.t.origin, FARE_BW_PB);
	CHECK_INT(bw.t.bps, 400000000000ull);
	CHECK_INT(bw.t.router_id, 0x0a000003);
	CHECK_INT(bw.t.raw, 0x5240);
	CHECK(bw.t.invalid_pb);
	CHECK_INT(bw.nt.origin, FARE_BW_PB);
	CHECK_INT(bw.nt.bps, 100000000000ull);
	CHECK(!bw.nt.invalid_pb);
	/* Only the NaN one: no transitive PB at all. */
	fare_ec_find_bw(ecs + 8, 8, &cfg, &bw);
	CHECK_INT(bw.t.origin, FARE_BW_NONE);
	CHECK(bw.t.invalid_pb);
	CHECK_INT(bw.nt.origin, FARE_BW_NONE);
	fare_ec_find_bw(NULL, 0, &cfg, &bw);
	CHECK_INT(bw.t.origin, FARE_BW_NONE);
}

TEST(find_bw_takes_link_bandwidth_only_when_configured_and_no_pb)
{
	struct fare_ec_cfg cfg = { FARE_PB_SUBTYPE_DEFAULT, false, 0x0f };
	struct fare_path_bw bw;
	uint8_t ecs[24];

	put_ec(ecs + 0, "4004fde9513a43b7");	/* LB non-trans., 400G */
	put_ec(ecs + 8, "0004fde9503a43b7");	/* LB transitive, 100G */
	put_ec(ecs + 16, "010f0a0000034a40");	/* PB transitive 100G */
	fare_ec_find_bw(ecs, 16, &cfg, &bw);
	CHECK_INT(bw.t.origin, FARE_BW_NONE);
	CHECK_INT(bw.nt.origin, FARE_BW_NONE);
	cfg.accept_link_bw = true;
	fare_ec_find_bw(ecs, 16, &cfg, &bw);
	CHECK_INT(bw.nt.origin, FARE_BW_LB);
	CHECK_INT(bw.nt.bps, 49999998976ull * 8);
	CHECK_INT(bw.t.origin, FARE_BW_LB);
	/* A PB wins over an LB of its kind wherever it stands. */
	fare_ec_find_bw(ecs, 24, &cfg, &bw);
	CHECK_INT(bw.t.origin, FARE_BW_PB);
	CHECK_INT(bw.t.bps, 100000000000ull);
	CHECK_INT(bw.nt.origin, FARE_BW_LB);
}

TEST(fib_suppress_mpson_4_2_1_with_as_trans_for_4_octet_as)
{
	struct fare_fs fs;
	uint8_t ec[16];

	fare_fs_encode(ec, 65001, 0x0a000001, FARE_FS_SUBTYPE_DEFAULT);
	CHECK_HEX(ec, 8, "000ffde90a000001");
	CHECK(fare_fs_decode(ec, FARE_FS_SUBTYPE_DEFAULT, &fs));
	CHECK_INT(fs.as, 65001);
	CHECK_INT(fs.router_id, 0x0a000001);
	fare_fs_encode(ec + 8, 4200000005u, 0xc0000201, 0x42);
	CHECK_HEX(ec + 8, 8, "00425ba0c0000201");
	CHECK(!fare_fs_decode(ec + 8, FARE_FS_SUBTYPE_DEFAULT, &fs));
	CHECK(fare_fs_decode(ec + 8, 0x42, &fs));
	CHECK_INT(fs.as, BGP_AS_TRANS);
	CHECK(fare_ec_has_fs(ec, 16, 0x42));
	CHECK(fare_ec_has_fs(ec, 16, FARE_FS_SUBTYPE_DEFAULT));
	CHECK(!fare_ec_has_fs(ec, 16, 0x10));
	/* Type 0x40 is not the (transitive) FIB-Suppress. */
	ec[0] = 0x40;
	CHECK(!fare_fs_decode(ec, FARE_FS_SUBTYPE_DEFAULT, &fs));
}

TEST(upa_protocol_md_6_1_vectors_and_flags)
{
	struct fare_upa upa = { false, 0x0a000002 }, back;
	uint8_t ec[24];
	bool drop;

	fare_upa_encode(ec, &upa);
	CHECK_HEX(ec, 8, "030900000a000002");
	upa.drop = true;
	fare_upa_encode(ec + 8, &upa);
	CHECK_HEX(ec + 8, 8, "030980000a000002");
	CHECK(fare_upa_decode(ec + 8, &back));
	CHECK(back.drop);
	CHECK_INT(back.router_id, 0x0a000002);
	/* Other flag bits and the reserved octet are ignored. */
	put_ec(ec + 16, "03097fff0a000003");
	CHECK(fare_upa_decode(ec + 16, &back));
	CHECK(!back.drop);
	CHECK_INT(fare_ec_find_upa(ec, 8, &drop), 1);
	CHECK(!drop);
	CHECK_INT(fare_ec_find_upa(ec, 24, &drop), 3);
	CHECK(drop);
	put_ec(ec, "430900000a000002");	/* non-transitive opaque: not UPA */
	CHECK(!fare_upa_decode(ec, &back));
	CHECK_INT(fare_ec_find_upa(ec, 8, &drop), 0);
}
