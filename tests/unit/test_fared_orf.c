// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address Prefix ORF (RFC 5292) entries and their ROUTE-REFRESH (RFC 5291
 * §4): PROTOCOL.md §3.7's 47-octet vector built and parsed back, every
 * action and match, RFC 5292 §2's length rules, malformed entries, and
 * RFC 5292 §4 matching.
 */
#include "bgp_test_util.h"
#include "orf.h"

static struct orf_entry entry(uint8_t action, bool deny, uint32_t seq,
			      uint8_t minlen, uint8_t maxlen, const char *pfx)
{
	struct orf_entry e;

	memset(&e, 0, sizeof(e));
	e.action = action;
	e.deny = deny;
	e.seq = seq;
	e.minlen = minlen;
	e.maxlen = maxlen;
	if (bgp_prefix_parse(pfx, &e.prefix)) {
		fprintf(stderr, "bad prefix %s\n", pfx);
		exit(2);
	}
	return e;
}

/* PROTOCOL.md §3.7: permit 10.1.2.3/32 (seq 10), then deny-all. */
#define PROTOCOL_RR							\
	"M 002f 05 | 0001 00 01 | 01 | 40 0014 |"			\
	"00 0000000a 00 00 20 0a010203 | 20 ffffffff 00 20 00"

TEST(orf_protocol_md_3_7_route_refresh_is_built_byte_for_byte)
{
	struct orf_entry e[2] = {
		entry(ORF_ADD, false, 10, 0, 0, "10.1.2.3/32"),
		entry(ORF_ADD, true, 0xffffffff, 0, 32, "0.0.0.0/0"),
	};
	uint8_t buf[128], want[128];
	size_t n = unhex(PROTOCOL_RR, want, sizeof(want));

	CHECK_INT(n, 47);
	CHECK_INT(orf_route_refresh_build(buf, sizeof(buf), BGP_MAX_LEN,
					  BGP_FAM_IPV4_UNICAST,
					  ORF_WHEN_IMMEDIATE, e, 2), 47);
	CHECK(!memcmp(buf, want, 47));
	/* Too small a buffer, or a message limit, is -1, never a cut. */
	CHECK_INT(orf_route_refresh_build(buf, 46, BGP_MAX_LEN,
					  BGP_FAM_IPV4_UNICAST,
					  ORF_WHEN_IMMEDIATE, e, 2), -1);
	CHECK_INT(orf_route_refresh_build(buf, sizeof(buf), 46,
					  BGP_FAM_IPV4_UNICAST,
					  ORF_WHEN_IMMEDIATE, e, 2), -1);
	/* An entry of another family does not belong in this message. */
	CHECK_INT(orf_route_refresh_build(buf, sizeof(buf), BGP_MAX_LEN,
					  BGP_FAM_IPV6_UNICAST,
					  ORF_WHEN_IMMEDIATE, e, 2), -1);
}

TEST(orf_protocol_md_3_7_route_refresh_parses_back_to_its_entries)
{
	struct bgp_route_refresh rr;
	struct bgp_error err;
	struct orf_block b;
	struct orf_entry e;
	uint8_t msg[128];
	size_t n = unhex(PROTOCOL_RR, msg, sizeof(msg)), pos = 0, epos = 0;
	char text[BGP_PREFIX_STRLEN];

	CHECK_INT(bgp_route_refresh_parse(msg, n, &rr, &err), BGP_PARSE_OK);
	CHECK(rr.has_orf);
	CHECK_INT(rr.when_to_refresh, ORF_WHEN_IMMEDIATE);
	CHECK_INT(orf_block_next(rr.orf, rr.orf_len, &pos, &b), 1);
	CHECK_INT(b.type, BGP_ORF_TYPE_ADDRESS_PREFIX);
	CHECK_INT(b.len, 20);
	CHECK_INT(orf_entry_next(b.entries, b.len, &epos,
				 BGP_FAM_IPV4_UNICAST, &e), 1);
	CHECK_INT(e.action, ORF_ADD);
	CHECK(!e.deny);
	CHECK_INT(e.seq, 10);
	CHECK_INT(e.minlen, 0);
	CHECK_INT(e.maxlen, 0);
	CHECK_STR(bgp_prefix_str(&e.prefix, text, sizeof(text)),
		  "10.1.2.3/32");
	CHECK_INT(orf_entry_next(b.entries, b.len, &epos,
				 BGP_FAM_IPV4_UNICAST, &e), 1);
	CHECK(e.deny);
	CHECK_INT(e.seq, 0xffffffff);
	CHECK_INT(e.maxlen, 32);
	CHECK_INT(e.prefix.len, 0);
	CHECK_INT(orf_entry_next(b.entries, b.len, &epos,
				 BGP_FAM_IPV4_UNICAST, &e), 0);
	CHECK_INT(orf_block_next(rr.orf, rr.orf_len, &pos, &b), 0);
}

TEST(orf_entry_common_octet_for_each_action_and_match)
{
	struct orf_entry e = entry(ORF_REMOVE, true, 7, 0, 0, "10.0.0.0/8");
	uint8_t buf[32];

	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 9);
	/* RFC 5291 §4: Action 1 in the top two bits, Match in the third. */
	CHECK_HEX(buf, 9, "60 00000007 00 00 08 0a");
	e.deny = false;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 9);
	CHECK_HEX(buf, 1, "40");
	e.action = ORF_REMOVE_ALL;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 1);
	CHECK_HEX(buf, 1, "80");
	e.action = 3;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), -1);
	e.action = ORF_ADD;
	CHECK_INT(orf_entry_encode(buf, 8, &e), -1);
}

TEST(orf_entry_ipv6_prefix_takes_only_its_octets)
{
	struct orf_entry e = entry(ORF_ADD, false, 1, 48, 64, "2001:db8::/33");
	struct orf_entry back;
	uint8_t buf[32];
	size_t pos = 0;

	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 13);
	CHECK_HEX(buf, 13, "00 00000001 30 40 21 20010db800");
	/* Trailing bits are irrelevant (RFC 5292 §3): set some. */
	buf[12] = 0x7f;
	CHECK_INT(orf_entry_next(buf, 13, &pos, BGP_FAM_IPV6_UNICAST, &back),
		  1);
	CHECK_INT(pos, 13);
	CHECK_INT(back.prefix.len, 33);
	CHECK_HEX(back.prefix.addr, 6, "20010db80000");
}

/* RFC 5292 §2: 0 <= Length < Minlen <= Maxlen, zero bounds unspecified. */
TEST(orf_entry_length_rules_of_rfc5292_2)
{
	uint8_t buf[32];
	struct orf_entry e = entry(ORF_ADD, false, 1, 24, 24, "10.0.0.0/24");

	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), -1);
	e.minlen = 25;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), -1); /* > maxlen */
	e.maxlen = 32;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 11);
	e.maxlen = 33;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), -1);
	e.maxlen = 0;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), 11);
	e.minlen = 0;
	e.maxlen = 24;
	CHECK_INT(orf_entry_encode(buf, sizeof(buf), &e), -1);
}

TEST(orf_malformed_entries_and_blocks_are_errors)
{
	static const char *const bad[] = {
		"80",					/* fine: REMOVE-ALL */
		"c0",		/* action 3: FRR's REMOVE-ALL, see orf.h */
		"e0",
		"00 00000001 00 00",			/* cut short */
		"00 00000001 00 00 21 0a000000 00",	/* length 33 */
		"00 00000001 00 00 18 0a00",		/* prefix cut */
		"00 00000001 10 00 18 0a0000",		/* minlen < len */
	};
	struct orf_block b;
	struct orf_entry e;
	uint8_t buf[32];
	size_t i, n, pos;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = unhex(bad[i], buf, sizeof(buf));
		pos = 0;
		CHECK_INT(orf_entry_next(buf, n, &pos, BGP_FAM_IPV4_UNICAST,
					 &e), i ? -1 : 1);
	}
	n = unhex("40 0005 80", buf, sizeof(buf));	/* says 5, has 1 */
	pos = 0;
	CHECK_INT(orf_block_next(buf, n, &pos, &b), -1);
	n = unhex("40 00", buf, sizeof(buf));
	pos = 0;
	CHECK_INT(orf_block_next(buf, n, &pos, &b), -1);
}

/* RFC 5292 §4, Table 1 and first match by the smallest sequence. */
TEST(orf_match_table_1_and_smallest_sequence_first)
{
	struct orf_entry e[4] = {
		entry(ORF_ADD, true, 20, 0, 0, "10.1.0.0/16"),
		entry(ORF_ADD, false, 10, 17, 0, "10.1.0.0/16"),
		entry(ORF_ADD, false, 30, 0, 24, "10.0.0.0/8"),
		entry(ORF_ADD, true, 40, 28, 30, "10.2.0.0/16"),
	};
	static const struct {
		const char *p;
		int want;
	} t[] = {
		{ "10.1.0.0/16", 0 },	/* exact length only: seq 20 DENY */
		{ "10.1.2.0/24", 1 },	/* >= 17: seq 10 PERMIT */
		{ "10.1.2.3/32", 1 },
		{ "10.2.0.0/24", 1 },	/* <= 24 under 10/8: seq 30 */
		{ "10.2.0.0/28", 0 },	/* 28..30 under 10.2/16: seq 40 */
		{ "10.2.0.0/31", -1 },
		{ "10.0.0.0/7", -1 },	/* less specific than all */
		{ "11.0.0.0/16", -1 },
		{ "2001:db8::/32", -1 },
	};
	struct bgp_prefix p;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_INT(bgp_prefix_parse(t[i].p, &p), 0);
		if (orf_match(e, 4, &p) != t[i].want) {
			t_fail(__FILE__, __LINE__, "%s: %d, not %d", t[i].p,
			       orf_match(e, 4, &p), t[i].want);
			return;
		}
	}
	/* Only ADD entries are a list's content. */
	e[1].action = ORF_REMOVE;
	CHECK_INT(bgp_prefix_parse("10.1.2.0/24", &p), 0);
	CHECK_INT(orf_match(e, 4, &p), 1);	/* now seq 30 */
	CHECK_INT(orf_match(e, 0, &p), -1);
}

/* The index decides as the list does: Table 1 again, through it. */
TEST(orf_index_match_table_1_and_smallest_sequence_first)
{
	struct orf_entry e[4] = {
		entry(ORF_ADD, true, 20, 0, 0, "10.1.0.0/16"),
		entry(ORF_ADD, false, 10, 17, 0, "10.1.0.0/16"),
		entry(ORF_ADD, false, 30, 0, 24, "10.0.0.0/8"),
		entry(ORF_ADD, true, 40, 28, 30, "10.2.0.0/16"),
	};
	static const struct {
		const char *p;
		int want;
	} t[] = {
		{ "10.1.0.0/16", 0 }, { "10.1.2.0/24", 1 },
		{ "10.1.2.3/32", 1 }, { "10.2.0.0/24", 1 },
		{ "10.2.0.0/28", 0 }, { "10.2.0.0/31", -1 },
		{ "10.0.0.0/7", -1 }, { "11.0.0.0/16", -1 },
		{ "2001:db8::/32", -1 },
	};
	struct orf_index ix = { 0 };
	struct bgp_prefix p;
	size_t i;

	CHECK_INT(orf_index_build(&ix, e, 4), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_INT(bgp_prefix_parse(t[i].p, &p), 0);
		if (orf_index_match(&ix, &p) != t[i].want) {
			t_fail(__FILE__, __LINE__, "%s: %d, not %d", t[i].p,
			       orf_index_match(&ix, &p), t[i].want);
			orf_index_free(&ix);
			return;
		}
	}
	e[1].action = ORF_REMOVE;
	CHECK_INT(orf_index_build(&ix, e, 4), 0);
	CHECK_INT(bgp_prefix_parse("10.1.2.0/24", &p), 0);
	CHECK_INT(orf_index_match(&ix, &p), 1);	/* now seq 30 */
	CHECK_INT(orf_index_build(&ix, e, 0), 0);
	CHECK_INT(orf_index_match(&ix, &p), -1);
	orf_index_free(&ix);
}

static uint32_t rnd_state = 2463534242u;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* A random prefix under 10.0.0.0/12 of length 8..32, trailing bits zero. */
static void rnd_prefix(struct bgp_prefix *p, unsigned int len)
{
	uint32_t a = 0x0a000000u | (rnd() & 0x000fffffu);

	memset(p, 0, sizeof(*p));
	p->family = BGP_FAM_IPV4_UNICAST;
	p->len = len;
	a &= len ? 0xffffffffu << (32 - len) : 0;
	p->addr[0] = a >> 24;
	p->addr[1] = a >> 16;
	p->addr[2] = a >> 8;
	p->addr[3] = a;
}

/*
 * 4,000 random entries (duplicate prefixes, every Minlen/Maxlen shape,
 * PERMIT and DENY, a few non-ADD) against 20,000 random prefixes: the
 * index and orf_match() agree on every one.
 */
TEST(orf_index_agrees_with_the_linear_match_on_a_random_list)
{
	const size_t n = 4000, probes = 20000;
	struct orf_entry *e = calloc(n, sizeof(*e));
	struct orf_index ix = { 0 };
	struct bgp_prefix p;
	size_t i, decided = 0;

	CHECK(e != NULL);
	if (!e)
		return;
	for (i = 0; i < n; i++) {
		unsigned int len = 8 + rnd() % 17;

		rnd_prefix(&e[i].prefix, len);
		e[i].action = rnd() % 50 ? ORF_ADD : ORF_REMOVE;
		e[i].deny = rnd() % 2;
		e[i].seq = (rnd() % 100000) * 4000 + (uint32_t)i;
		switch (rnd() % 4) {
		case 1:
			e[i].minlen = len + 1 + rnd() % (32 - len);
			break;
		case 2:
			e[i].maxlen = len + 1 + rnd() % (32 - len);
			break;
		case 3:
			e[i].minlen = len + 1 + rnd() % (32 - len);
			e[i].maxlen = e[i].minlen + rnd() % (33 - e[i].minlen);
			break;
		}
	}
	CHECK_INT(orf_index_build(&ix, e, n), 0);
	for (i = 0; i < probes; i++) {
		int want, got;

		rnd_prefix(&p, 8 + rnd() % 25);
		want = orf_match(e, n, &p);
		got = orf_index_match(&ix, &p);
		decided += want >= 0;
		if (want != got) {
			char text[BGP_PREFIX_STRLEN];

			t_fail(__FILE__, __LINE__, "%s: index %d, list %d",
			       bgp_prefix_str(&p, text, sizeof(text)), got,
			       want);
			break;
		}
	}
	/* The probes must exercise both answers, not only "no match". */
	CHECK(decided > probes / 10);
	orf_index_free(&ix);
	free(e);
}
