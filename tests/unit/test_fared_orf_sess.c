// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ORF list on the wire (orf_sess.h): REMOVE-ALL and the catch-all
 * DENY alone first, then the PERMITs in as many messages as max_len
 * needs, DEFER on all but the last; and the leaf's list under ADD,
 * REMOVE, REMOVE-ALL and an unrecognized value.
 */
#include <errno.h>

#include "bgp_test_util.h"
#include "config.h"
#include "harness.h"
#include "orf_sess.h"

#define MAX_MSGS	64

struct sink {
	uint8_t msg[MAX_MSGS][BGP_MAX_LEN];
	size_t len[MAX_MSGS];
	int n;
};

static int collect(const uint8_t *msg, size_t len, void *arg)
{
	struct sink *s = arg;

	if (s->n == MAX_MSGS || len > BGP_MAX_LEN)
		return -1;
	memcpy(s->msg[s->n], msg, len);
	s->len[s->n++] = len;
	return 0;
}

static struct bgp_prefix host(unsigned int i)
{
	struct bgp_prefix p;
	char text[32];

	snprintf(text, sizeof(text), "10.%u.%u.%u/32", (i >> 16) & 255,
		 (i >> 8) & 255, i & 255);
	bgp_prefix_parse(text, &p);
	return p;
}

/* The message's When and its entries applied to *e, *n. */
static int apply(const uint8_t *msg, size_t len, struct orf_entry **e,
		 size_t *n)
{
	struct bgp_route_refresh rr;
	struct bgp_error err;

	if (bgp_route_refresh_parse(msg, len, &rr, &err) != BGP_PARSE_OK ||
	    !rr.has_orf)
		return -1;
	if (orf_list_apply(e, n, BGP_FAM_IPV4_UNICAST, rr.orf, rr.orf_len))
		return -1;
	return rr.when_to_refresh;
}

TEST(orf_list_of_1000_hosts_rides_in_defer_messages_then_immediate)
{
	static struct sink s;
	struct bgp_prefix want[1000];
	struct orf_entry *e = NULL;
	size_t n = 0, i;
	int k;

	s.n = 0;
	for (i = 0; i < 1000; i++)
		want[i] = host(i + 1);
	/* 1000 x 12 octets of entries: 3 full messages and a fourth. */
	CHECK_INT(orf_list_build(BGP_FAM_IPV4_UNICAST, want, 1000, BGP_MAX_LEN,
				 collect, &s), 4);
	CHECK_INT(s.n, 4);
	/* First: REMOVE-ALL then the catch-all DENY, nothing else. */
	CHECK_HEX(s.msg[0], s.len[0], "M 0024 05 | 0001 00 01 | 02 | 40 0009 |"
		  "80 | 20 ffffffff 00 20 00");
	for (k = 0; k < s.n; k++) {
		CHECK(s.len[k] <= BGP_MAX_LEN);
		CHECK_INT(apply(s.msg[k], s.len[k], &e, &n),
			  k == s.n - 1 ? ORF_WHEN_IMMEDIATE : ORF_WHEN_DEFER);
	}
	/* An RFC receiver ends with every host and the catch-all DENY. */
	CHECK_INT(n, 1001);
	for (i = 0; i < 1000; i++)
		CHECK_INT(orf_match(e, n, &want[i]), 1);
	want[0] = host(5000);
	CHECK_INT(orf_match(e, n, &want[0]), 0);
	free(e);
}

TEST(orf_empty_list_is_remove_all_then_permit_all_immediate)
{
	static struct sink s;
	struct orf_entry *e = NULL;
	struct bgp_prefix p = host(7);
	size_t n = 0;

	s.n = 0;
	CHECK_INT(orf_list_build(BGP_FAM_IPV4_UNICAST, NULL, 0, BGP_MAX_LEN,
				 collect, &s), 1);
	CHECK_HEX(s.msg[0], s.len[0], "M 0024 05 | 0001 00 01 | 01 | 40 0009 |"
		  "80 | 00 ffffffff 00 20 00");
	CHECK_INT(apply(s.msg[0], s.len[0], &e, &n), ORF_WHEN_IMMEDIATE);
	CHECK_INT(orf_match(e, n, &p), 1);
	free(e);
}

TEST(orf_list_build_refuses_other_family_and_stops_on_emit_failure)
{
	static struct sink s;
	struct bgp_prefix want[400];
	size_t i;

	for (i = 0; i < 400; i++)
		want[i] = host(i);
	bgp_prefix_parse("2001:db8::1/128", &want[3]);
	s.n = 0;
	CHECK_INT(orf_list_build(BGP_FAM_IPV4_UNICAST, want, 400, BGP_MAX_LEN,
				 collect, &s), -1);
	CHECK_INT(s.n, 0);
	want[3] = host(3);
	s.n = MAX_MSGS - 1;	/* room for the first message only */
	CHECK_INT(orf_list_build(BGP_FAM_IPV4_UNICAST, want, 400, BGP_MAX_LEN,
				 collect, &s), -1);
}

TEST(orf_list_apply_add_replace_remove_and_unrecognized)
{
	struct orf_entry *e = NULL;
	struct bgp_prefix p;
	uint8_t orf[64];
	size_t n = 0, len;

	/* ADD seq 1 10.0.0.1/32, ADD seq 2 10.0.0.2/32. */
	len = unhex("40 0018 00 00000001 00 00 20 0a000001"
		    "00 00000002 00 00 20 0a000002", orf, sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), 0);
	CHECK_INT(n, 2);
	/* ADD seq 2 again, now DENY: it replaces the entry. */
	len = unhex("40 000c 20 00000002 00 00 20 0a000002", orf, sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), 0);
	CHECK_INT(n, 2);
	bgp_prefix_parse("10.0.0.2/32", &p);
	CHECK_INT(orf_match(e, n, &p), 0);
	/* REMOVE of an entry that differs is ignored; an equal one goes. */
	len = unhex("40 000c 40 00000001 00 00 20 0a000009", orf, sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), 0);
	CHECK_INT(n, 2);
	len = unhex("40 000c 40 00000001 00 00 20 0a000001", orf, sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), 0);
	CHECK_INT(n, 1);
	/* Another ORF type is skipped; then action 3 removes everything. */
	len = unhex("41 0001 80 | 40 0001 c0", orf, sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), -1);
	CHECK_INT(n, 0);
	/* REMOVE-ALL then ADD in one block: the ADD stays (RFC 5291). */
	len = unhex("40 000d 80 00 00000001 00 00 20 0a000001", orf,
		    sizeof(orf));
	CHECK_INT(orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, len), 0);
	CHECK_INT(n, 1);
	free(e);
}

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"

TEST(orf_config_prefixes_and_neighbor_capability_with_file_line_errors)
{
	struct fared_config cfg;
	struct capture cap;

	capture_start(&cap);
	CHECK_INT(fared_config_parse("t.conf", HEAD
		"orf-prefix 10.9.0.1/32\norf-prefix 2001:db8::1/128\n"
		"policy p {\n\tpermit any\n}\n"
		"plane 1 {\n\tneighbor 10.1.0.1 {\n\t\tremote-as 65001\n"
		"\t\torf both\n\t\timport p\n\t\texport p\n\t}\n}\n",
		&cfg, cap.f), 0);
	capture_end(&cap);
	CHECK_INT(cfg.n_orf_prefixes, 2);
	CHECK_INT(cfg.orf_prefixes[1].prefix.family, BGP_FAM_IPV6_UNICAST);
	CHECK_INT(cfg.orf_prefixes[1].line, 4);
	CHECK_INT(cfg.neighbors[0].orf, BGP_ORF_SEND | BGP_ORF_RECEIVE);
	fared_config_free(&cfg);

	capture_start(&cap);
	CHECK_INT(fared_config_parse("t.conf", HEAD
		"orf-prefix 10.9.0.1/32\norf-prefix 10.9.0.2/32\n"
		"orf-prefix 10.9.0.1/32\norf-prefix nonsense\norf-prefix\n"
		"plane 1 {\n\tneighbor 10.1.0.1 {\n\t\tremote-as 65001\n"
		"\t\torf sometimes\n\t\timport p\n\t\texport p\n\t}\n}\n"
		"policy p {\n\tpermit any\n}\n", &cfg, cap.f), 4);
	CHECK_STR(capture_text(&cap),
		  "t.conf:6: bad prefix \"nonsense\"\n"
		  "t.conf:7: expected \"orf-prefix PREFIX\"\n"
		  "t.conf:11: orf must be send, receive or both, not "
		  "\"sometimes\"\n"
		  "t.conf:5: orf-prefix 10.9.0.1/32 is already at line 3\n");
	capture_end(&cap);
	fared_config_free(&cfg);
}

/* A leaf keeps at most ORF_RX_MAX entries a peer sends it. */
TEST(orf_list_apply_stops_at_its_bound)
{
	static uint8_t orf[3 + 12 * 1000];
	struct orf_entry *e = NULL;
	size_t n = 0, k, at;
	uint32_t seq = 1;
	int r = 0;

	while (r == 0 && seq < 2 * ORF_RX_MAX) {
		/* One block of 1000 ADDs of distinct /32s. */
		orf[0] = BGP_ORF_TYPE_ADDRESS_PREFIX;
		orf[1] = (12 * 1000) >> 8;
		orf[2] = (12 * 1000) & 255;
		for (k = 0, at = 3; k < 1000; k++, seq++, at += 12) {
			orf[at] = 0;			/* ADD, PERMIT */
			orf[at + 1] = (uint8_t)(seq >> 24);
			orf[at + 2] = (uint8_t)(seq >> 16);
			orf[at + 3] = (uint8_t)(seq >> 8);
			orf[at + 4] = (uint8_t)seq;
			orf[at + 5] = 0;		/* minlen */
			orf[at + 6] = 0;		/* maxlen */
			orf[at + 7] = 32;
			orf[at + 8] = 10;
			orf[at + 9] = (uint8_t)(seq >> 16);
			orf[at + 10] = (uint8_t)(seq >> 8);
			orf[at + 11] = (uint8_t)seq;
		}
		r = orf_list_apply(&e, &n, BGP_FAM_IPV4_UNICAST, orf, at);
	}
	CHECK_INT(r, -E2BIG);
	CHECK_INT(n, ORF_RX_MAX);
	free(e);
}
