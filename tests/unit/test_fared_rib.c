// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's RIB: interning, paths with ADD-PATH ids, the change feed, graceful
 * restart stale marks, per-peer flush, prefix order, failed allocations,
 * and a random run checked against a naive model.
 */
#include <errno.h>
#include <stdlib.h>

#include "bgp_test_util.h"
#include "rib.h"

/* rib.c's fault injection: the allocation that counts it to 0 fails. */
extern unsigned long rib_fault_countdown;

struct attrs_buf {
	struct bgp_attrs a;
	struct bgp_as_segment seg;
	uint32_t asns[4];
	uint8_t ec[8];
};

/* Attributes of a path from AS asn with next hop 192.0.2.nh, MED med. */
static const struct bgp_attrs *mk(struct attrs_buf *b, uint32_t asn,
				  uint8_t nh, int med)
{
	memset(b, 0, sizeof(*b));
	b->asns[0] = asn;
	b->seg.type = BGP_AS_SEQUENCE;
	b->seg.count = 1;
	b->seg.asns = b->asns;
	b->a.as_path.n_segments = 1;
	b->a.as_path.segments = &b->seg;
	b->a.as_path.n_asns = 1;
	b->a.as_path.asns = b->asns;
	b->a.next_hop[0] = 192;
	b->a.next_hop[2] = 2;
	b->a.next_hop[3] = nh;
	if (med >= 0) {
		b->a.present |= 1ull << BGP_ATTR_MED;
		b->a.med = med;
	}
	return &b->a;
}

static struct bgp_prefix pfx(const char *text, uint32_t path_id)
{
	struct bgp_prefix p;

	if (bgp_prefix_parse(text, &p)) {
		fprintf(stderr, "bad prefix %s\n", text);
		exit(2);
	}
	p.path_id = path_id;
	return p;
}

static int add(struct rib *rib, unsigned int peer, const char *text,
	       uint32_t path_id, const struct bgp_attrs *in)
{
	struct bgp_prefix p = pfx(text, path_id);
	struct rib_attrs *a = rib_attrs_get(rib, in, p.family);
	int ret;

	if (!a)
		return -ENOMEM;
	ret = rib_update(rib, peer, &p, a);
	rib_attrs_put(rib, a);
	return ret;
}

static void del(struct rib *rib, unsigned int peer, const char *text,
		uint32_t path_id)
{
	struct bgp_prefix p = pfx(text, path_id);

	rib_withdraw(rib, peer, &p);
}

static const struct rib_entry *look(const struct rib *rib, const char *text)
{
	struct bgp_prefix p = pfx(text, 0);

	return rib_lookup(rib, &p);
}

/* What the change feed said, as "10.0.0.0/8:2 10.1.0.0/16:0 ". */
struct feed {
	char text[1024];
	size_t at;
};

static void feed_fn(const struct rib_entry *e, void *ctx)
{
	struct feed *f = ctx;
	char buf[BGP_PREFIX_STRLEN];

	f->at += snprintf(f->text + f->at, sizeof(f->text) - f->at, "%s:%zu ",
			  bgp_prefix_str(&e->prefix, buf, sizeof(buf)),
			  (size_t)e->n_paths);
	/* A longer feed is cut at the end of text, never written past it. */
	if (f->at > sizeof(f->text) - 1)
		f->at = sizeof(f->text) - 1;
}

static const char *drain(struct rib *rib, struct feed *f)
{
	f->at = 0;
	f->text[0] = '\0';
	rib_drain(rib, feed_fn, f);
	return f->text;
}

TEST(rib_attrs_equal_sets_share_one_copy_until_the_last_put)
{
	struct rib *rib = rib_new();
	struct attrs_buf b1, b2;
	struct rib_attrs *x, *y, *z;
	struct rib_stats st;

	CHECK(rib);
	x = rib_attrs_get(rib, mk(&b1, 65001, 1, 5), BGP_FAM_IPV4_UNICAST);
	y = rib_attrs_get(rib, mk(&b2, 65001, 1, 5), BGP_FAM_IPV4_UNICAST);
	z = rib_attrs_get(rib, mk(&b2, 65001, 1, 6), BGP_FAM_IPV4_UNICAST);
	CHECK(x && y && z);
	CHECK(x == y);
	CHECK(x != z);
	CHECK_INT(x->refs, 2);
	CHECK_STR(x->as_path_text, "65001");
	CHECK_INT(x->as_path_len, 1);
	CHECK_INT(x->as_path[0], 65001);
	CHECK(x->has_med);
	CHECK_INT(x->med, 5);
	CHECK(!x->has_local_pref);
	CHECK_INT(x->family, BGP_FAM_IPV4_UNICAST);
	CHECK_HEX(x->next_hop, 4, "c0000201");
	rib_get_stats(rib, &st);
	CHECK_INT(st.attr_sets, 2);
	rib_attrs_put(rib, x);
	rib_attrs_put(rib, z);
	rib_get_stats(rib, &st);
	CHECK_INT(st.attr_sets, 1);
	rib_attrs_put(rib, y);
	rib_get_stats(rib, &st);
	CHECK_INT(st.attr_sets, 0);
	rib_free(rib);
}

TEST(rib_attrs_differ_by_set_vs_sequence_communities_and_kept_attrs)
{
	static const uint8_t ec1[] = { 0x01, 0xee, 10, 0, 0, 5, 0x7b, 0xff };
	static const uint8_t ec2[] = { 0x01, 0xee, 10, 0, 0, 5, 0x7c, 0x00 };
	static const uint8_t unk[] = { 1, 2, 3 };
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct rib_attrs *seq, *set, *e1, *e2, *e1b, *k;
	const struct bgp_attrs *in;

	CHECK(rib);
	seq = rib_attrs_get(rib, mk(&b, 65001, 1, -1), BGP_FAM_IPV4_UNICAST);
	mk(&b, 65001, 1, -1);
	b.seg.type = BGP_AS_SET;
	set = rib_attrs_get(rib, &b.a, BGP_FAM_IPV4_UNICAST);
	in = mk(&b, 65001, 1, -1);
	b.a.ext_communities = ec1;
	b.a.ext_communities_len = 8;
	e1 = rib_attrs_get(rib, in, BGP_FAM_IPV4_UNICAST);
	b.a.ext_communities = ec2;
	e2 = rib_attrs_get(rib, in, BGP_FAM_IPV4_UNICAST);
	memcpy(b.ec, ec1, 8);
	b.a.ext_communities = b.ec;
	e1b = rib_attrs_get(rib, in, BGP_FAM_IPV4_UNICAST);
	mk(&b, 65001, 1, -1);
	b.a.n_kept = 1;
	b.a.kept[0].flags = 0xc0;
	b.a.kept[0].type = 99;
	b.a.kept[0].value = unk;
	b.a.kept[0].len = 3;
	k = rib_attrs_get(rib, in, BGP_FAM_IPV4_UNICAST);
	CHECK(seq && set && e1 && e2 && e1b && k);
	CHECK_STR(set->as_path_text, "{65001}");
	CHECK(seq != set);
	CHECK(e1 != e2 && e1 != seq);
	CHECK(e1 == e1b);
	CHECK(e1->ext_communities != ec1);
	CHECK_HEX(e1->ext_communities, e1->ext_communities_len,
		  "01ee0a0000057bff");
	CHECK(k != seq);
	CHECK_INT(k->n_kept, 1);
	CHECK_HEX(k->kept[0].value, k->kept[0].len, "010203");
	rib_attrs_put(rib, seq);
	rib_attrs_put(rib, set);
	rib_attrs_put(rib, e1);
	rib_attrs_put(rib, e2);
	rib_attrs_put(rib, e1b);
	rib_attrs_put(rib, k);
	rib_free(rib);
}

TEST(rib_attrs_ipv6_take_the_mp_reach_next_hop_and_link_local)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct rib_attrs *a;

	CHECK(rib);
	mk(&b, 65001, 1, -1);
	b.a.mp_next_hop_len = 32;
	b.a.mp_next_hop[0] = 0x20;
	b.a.mp_next_hop[15] = 1;
	b.a.mp_has_ll = true;
	b.a.mp_next_hop_ll[0] = 0xfe;
	b.a.mp_next_hop_ll[1] = 0x80;
	a = rib_attrs_get(rib, &b.a, BGP_FAM_IPV6_UNICAST);
	CHECK(a);
	CHECK_INT(a->family, BGP_FAM_IPV6_UNICAST);
	CHECK_HEX(a->next_hop, 16, "20000000000000000000000000000001");
	CHECK(a->has_next_hop_ll);
	CHECK_HEX(a->next_hop_ll, 2, "fe80");
	rib_attrs_put(rib, a);
	rib_free(rib);
}

TEST(rib_update_lookup_and_add_path_ids_in_peer_then_id_order)
{
	struct rib *rib = rib_new();
	const struct rib_entry *e;
	struct attrs_buf b;
	struct rib_stats st;

	CHECK(rib);
	CHECK_INT(add(rib, 2, "10.0.0.0/8", 7, mk(&b, 65002, 2, -1)), 0);
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 9, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 2, "10.0.0.0/8", 3, mk(&b, 65002, 3, -1)), 0);
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 1, mk(&b, 65001, 1, -1)), 0);
	e = look(rib, "10.0.0.0/8");
	CHECK(e);
	CHECK_INT(e->prefix.path_id, 0);
	CHECK_INT(e->n_paths, 4);
	CHECK_INT(e->paths[0].peer, 1);
	CHECK_INT(e->paths[0].path_id, 1);
	CHECK_INT(e->paths[1].peer, 1);
	CHECK_INT(e->paths[1].path_id, 9);
	CHECK_INT(e->paths[2].peer, 2);
	CHECK_INT(e->paths[2].path_id, 3);
	CHECK_INT(e->paths[3].path_id, 7);
	CHECK_INT(e->paths[3].attrs->next_hop[3], 2);
	/* Both of peer 1's paths share one attribute set. */
	CHECK(e->paths[0].attrs == e->paths[1].attrs);
	CHECK(!look(rib, "10.0.0.0/9"));
	CHECK(!look(rib, "10.0.0.0/7"));
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 1);
	CHECK_INT(st.paths, 4);
	CHECK_INT(st.attr_sets, 3);
	CHECK(st.bytes > 0);
	CHECK_INT(rib_peer_count(rib, 1, ~0u), 2);
	CHECK_INT(rib_peer_count(rib, 2, BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST)),
		  2);
	CHECK_INT(rib_peer_count(rib, 2, BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST)),
		  0);
	CHECK_INT(rib_peer_count(rib, 99, ~0u), 0);
	rib_free(rib);
}

TEST(rib_replace_with_equal_attrs_is_no_change_other_attrs_are)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;
	const struct rib_entry *e;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 0, mk(&b, 65001, 1, 5)), 0);
	CHECK_STR(drain(rib, &f), "10.0.0.0/8:1 ");
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 0, mk(&b, 65001, 1, 5)), 0);
	CHECK_INT(rib_pending(rib), 0);
	CHECK_STR(drain(rib, &f), "");
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 0, mk(&b, 65001, 1, 6)), 0);
	CHECK_INT(rib_pending(rib), 1);
	CHECK_STR(drain(rib, &f), "10.0.0.0/8:1 ");
	e = look(rib, "10.0.0.0/8");
	CHECK(e);
	CHECK_INT(e->paths[0].attrs->med, 6);
	CHECK_INT(e->paths[0].attrs->refs, 1);
	rib_free(rib);
}

TEST(rib_withdraw_of_an_unknown_path_or_prefix_changes_nothing)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.0.0.0/8", 4, mk(&b, 65001, 1, -1)), 0);
	drain(rib, &f);
	del(rib, 1, "10.0.0.0/8", 5);
	del(rib, 2, "10.0.0.0/8", 4);
	del(rib, 1, "10.0.0.0/9", 4);
	del(rib, 1, "2001:db8::/32", 4);
	del(rib, 7, "11.0.0.0/8", 0);
	CHECK_INT(rib_pending(rib), 0);
	CHECK(look(rib, "10.0.0.0/8"));
	del(rib, 1, "10.0.0.0/8", 4);
	CHECK(!look(rib, "10.0.0.0/8"));
	CHECK_STR(drain(rib, &f), "10.0.0.0/8:0 ");
	CHECK_INT(rib_peer_count(rib, 1, ~0u), 0);
	rib_free(rib);
}

TEST(rib_drain_reports_each_prefix_once_in_first_change_order)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;
	struct rib_stats st;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.2.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "2001:db8::/32", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 2, "10.2.0.0/16", 0, mk(&b, 65002, 2, -1)), 0);
	CHECK_INT(add(rib, 3, "10.2.0.0/16", 0, mk(&b, 65003, 3, -1)), 0);
	CHECK_INT(rib_pending(rib), 3);
	CHECK_STR(drain(rib, &f),
		  "10.2.0.0/16:3 2001:db8::/32:1 10.1.0.0/16:1 ");
	CHECK_INT(rib_pending(rib), 0);
	CHECK_STR(drain(rib, &f), "");
	/* Withdrawn then re-added before a drain: one report, as it is. */
	del(rib, 1, "10.1.0.0/16", 0);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	/* Added then withdrawn: reported gone, then freed. */
	CHECK_INT(add(rib, 1, "10.3.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	del(rib, 1, "10.3.0.0/16", 0);
	CHECK_STR(drain(rib, &f), "10.1.0.0/16:1 10.3.0.0/16:0 ");
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 3);
	CHECK_INT(st.paths, 5);
	rib_free(rib);
}

TEST(rib_stale_marks_are_cleared_by_updates_and_swept_per_family)
{
	const uint32_t v4 = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
	const uint32_t v6 = BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	struct rib *rib = rib_new();
	uint32_t b4;
	size_t n;
	const struct rib_entry *e;
	struct attrs_buf b;
	struct feed f;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "10.2.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "10.3.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "2001:db8::/32", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 2, "10.1.0.0/16", 0, mk(&b, 65002, 2, -1)), 0);
	drain(rib, &f);
	b4 = rib_refresh_begin(rib, 1, v4, &n);
	CHECK_INT(n, 3);
	/* A peer's paths are visited in prefix order. */
	CHECK_STR(drain(rib, &f), "10.1.0.0/16:2 10.2.0.0/16:1 10.3.0.0/16:1 ");
	/* Beginning another epoch marks nothing new but counts them. */
	CHECK(rib_refresh_begin(rib, 1, v6, &n) > b4);
	CHECK_INT(n, 1);
	CHECK_STR(drain(rib, &f), "2001:db8::/32:1 ");
	e = look(rib, "10.1.0.0/16");
	CHECK(e && e->paths[0].stale && !e->paths[1].stale);
	/* The restarted peer re-sends one path unchanged: stale goes. */
	CHECK_INT(add(rib, 1, "10.2.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK(!look(rib, "10.2.0.0/16")->paths[0].stale);
	CHECK_STR(drain(rib, &f), "10.2.0.0/16:1 ");
	/* An epoch that began before any path came sweeps nothing. */
	CHECK_INT(rib_refresh_end(rib, 1, v6, 0), 0);
	CHECK_INT(rib_refresh_end(rib, 1, v4, b4), 2);
	CHECK_STR(drain(rib, &f), "10.1.0.0/16:1 10.3.0.0/16:0 ");
	CHECK(!look(rib, "10.3.0.0/16"));
	CHECK_INT(look(rib, "10.1.0.0/16")->paths[0].peer, 2);
	CHECK_INT(rib_peer_count(rib, 1, v4 | v6), 2);
	CHECK_INT(rib_refresh_end(rib, 1, v4, b4), 0);
	/* The IPv6 path is still stale: its epoch has not ended. */
	CHECK(look(rib, "2001:db8::/32")->paths[0].stale);
	rib_free(rib);
}

TEST(rib_peer_flush_takes_only_that_peer_and_those_families)
{
	const uint32_t v4 = BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
	const uint32_t v6 = BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;
	struct rib_stats st;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 1, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 2, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 1, "2001:db8::/32", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 2, "10.1.0.0/16", 0, mk(&b, 65002, 2, -1)), 0);
	drain(rib, &f);
	CHECK_INT(rib_peer_flush(rib, 1, v6), 1);
	CHECK_INT(rib_peer_flush(rib, 1, v4), 2);
	CHECK_INT(rib_peer_flush(rib, 1, v4 | v6), 0);
	CHECK_INT(rib_peer_flush(rib, 42, v4 | v6), 0);
	CHECK_STR(drain(rib, &f), "2001:db8::/32:0 10.1.0.0/16:1 ");
	CHECK_INT(rib_peer_count(rib, 1, v4 | v6), 0);
	CHECK_INT(rib_peer_count(rib, 2, v4 | v6), 1);
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 1);
	CHECK_INT(st.paths, 1);
	CHECK_INT(st.attr_sets, 1);
	rib_free(rib);
}

static int walk_fn(const struct rib_entry *e, void *ctx)
{
	struct feed *f = ctx;
	char buf[BGP_PREFIX_STRLEN];

	f->at += snprintf(f->text + f->at, sizeof(f->text) - f->at, "%s ",
			  bgp_prefix_str(&e->prefix, buf, sizeof(buf)));
	return 0;
}

static int stop_at_third(const struct rib_entry *e, void *ctx)
{
	int *n = ctx;

	(void)e;
	return ++*n == 3 ? 42 : 0;
}

TEST(rib_walk_is_in_family_address_then_length_order)
{
	static const char *const in[] = {
		"2001:db8::/48", "10.0.0.0/16", "0.0.0.0/0", "10.0.0.0/8",
		"192.168.1.0/24", "10.128.0.0/9", "2001:db8::/32", "::/0",
		"10.0.0.0/32", "9.255.255.255/32", "10.0.0.1/32",
	};
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f = { .at = 0 };
	size_t i;
	int n = 0;

	CHECK(rib);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		CHECK_INT(add(rib, 1, in[i], 0, mk(&b, 65001, 1, -1)), 0);
	/* A prefix with no path left is not walked. */
	del(rib, 1, "10.0.0.0/16", 0);
	CHECK_INT(rib_walk(rib, walk_fn, &f), 0);
	CHECK_STR(f.text, "0.0.0.0/0 9.255.255.255/32 10.0.0.0/8 "
		  "10.0.0.0/32 10.0.0.1/32 10.128.0.0/9 192.168.1.0/24 "
		  "::/0 2001:db8::/32 2001:db8::/48 ");
	CHECK_INT(rib_walk(rib, stop_at_third, &n), 42);
	CHECK_INT(n, 3);
	rib_free(rib);
}

/* A prefix's key in walk order, for the model below. */
static int cmp_prefix(const void *a, const void *b)
{
	const struct bgp_prefix *x = a, *y = b;
	int c;

	if (x->family != y->family)
		return x->family - y->family;
	c = memcmp(x->addr, y->addr, 16);
	return c ? c : x->len - y->len;
}

struct walk_check {
	const struct bgp_prefix *want;
	size_t n, at;
	bool ok;
};

static int walk_check_fn(const struct rib_entry *e, void *ctx)
{
	struct walk_check *w = ctx;

	if (w->at >= w->n || cmp_prefix(&e->prefix, &w->want[w->at]))
		w->ok = false;
	w->at++;
	return 0;
}

#define M_PFX 64
#define M_PEERS 4
#define M_IDS 2

static unsigned int rnd_state = 12345;

static unsigned int rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 16;
}

/*
 * Random updates, withdrawals, flushes, refresh begins and ends against a
 * model
 * that is just an array [prefix][peer][id] of (present, stale, med).
 */
TEST(rib_random_operations_match_a_naive_model)
{
	struct {
		bool on, stale;
		int med;
	} m[M_PFX][M_PEERS][M_IDS];
	struct bgp_prefix keys[M_PFX], sorted[M_PFX];
	/* Each (peer, family)'s latest refresh began at this generation. */
	uint32_t begin[M_PEERS][BGP_FAM_COUNT] = { { 0 } };
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;
	unsigned int step, i, j, k;

	CHECK(rib);
	memset(m, 0, sizeof(m));
	for (i = 0; i < M_PFX; i++) {
		memset(&keys[i], 0, sizeof(keys[i]));
		keys[i].family = i & 1;
		keys[i].len = 1 + rnd() % (i & 1 ? 64 : 24);
		for (j = 0; j < keys[i].len; j++)
			if (rnd() & 1)
				keys[i].addr[j / 8] |= 0x80 >> (j % 8);
		for (j = 0; j < i; j++)
			if (!cmp_prefix(&keys[i], &keys[j]))
				keys[i].len = 0;	/* a duplicate: /0 */
	}
	for (step = 0; step < 20000; step++) {
		unsigned int op = rnd() % 16, peer = rnd() % M_PEERS;
		unsigned int x = rnd() % M_PFX, id = rnd() % M_IDS;
		uint32_t fams = 1 + rnd() % 3;
		struct bgp_prefix p = keys[x];
		struct rib_attrs *a;

		p.path_id = id;
		if (op < 8) {
			int med = rnd() % 3;

			a = rib_attrs_get(rib, mk(&b, 65000 + peer, peer, med),
					  p.family);
			CHECK(a);
			CHECK_INT(rib_update(rib, peer, &p, a), 0);
			rib_attrs_put(rib, a);
			m[x][peer][id].on = true;
			m[x][peer][id].stale = false;
			m[x][peer][id].med = med;
		} else if (op < 13) {
			rib_withdraw(rib, peer, &p);
			m[x][peer][id].on = false;
		} else {
			size_t want = 0, got;

			for (i = 0; i < M_PFX; i++)
				for (k = 0; k < M_IDS; k++) {
					if (!(fams & BGP_FAM_BIT(keys[i].family)) ||
					    !m[i][peer][k].on)
						continue;
					if (op == 13) {
						m[i][peer][k].on = false;
						want++;
					} else if (op == 14) {
						m[i][peer][k].stale = true;
						want++;
					} else if (m[i][peer][k].stale) {
						m[i][peer][k].on = false;
						want++;
					}
				}
			if (op == 13) {
				got = rib_peer_flush(rib, peer, fams);
			} else if (op == 14) {
				uint32_t b = rib_refresh_begin(rib, peer, fams,
							       &got);

				for (i = 0; i < BGP_FAM_COUNT; i++)
					if (fams & BGP_FAM_BIT(i))
						begin[peer][i] = b;
			} else {
				got = 0;
				for (i = 0; i < BGP_FAM_COUNT; i++)
					if (fams & BGP_FAM_BIT(i))
						got += rib_refresh_end(rib, peer,
							BGP_FAM_BIT(i),
							begin[peer][i]);
			}
			CHECK_INT(got, want);
		}
		if (step % 97)
			continue;
		drain(rib, &f);
		CHECK_INT(rib_pending(rib), 0);
		{
			struct walk_check w = { sorted, 0, 0, true };
			size_t paths = 0;

			for (i = 0; i < M_PFX; i++) {
				const struct rib_entry *e =
					rib_lookup(rib, &keys[i]);
				size_t n = 0, at = 0;

				for (j = 0; j < M_PEERS; j++)
					for (k = 0; k < M_IDS; k++)
						n += m[i][j][k].on;
				paths += n;
				if (!n) {
					CHECK(!e);
					continue;
				}
				sorted[w.n++] = keys[i];
				CHECK(e);
				CHECK_INT(e->n_paths, n);
				for (j = 0; j < M_PEERS; j++)
					for (k = 0; k < M_IDS; k++) {
						if (!m[i][j][k].on)
							continue;
						CHECK_INT(e->paths[at].peer, j);
						CHECK_INT(e->paths[at].path_id, k);
						CHECK_INT(e->paths[at].stale,
							  m[i][j][k].stale);
						CHECK_INT(e->paths[at].attrs->med,
							  m[i][j][k].med);
						at++;
					}
			}
			qsort(sorted, w.n, sizeof(sorted[0]), cmp_prefix);
			CHECK_INT(rib_walk(rib, walk_check_fn, &w), 0);
			CHECK(w.ok);
			CHECK_INT(w.at, w.n);
			{
				struct rib_stats st;

				rib_get_stats(rib, &st);
				CHECK_INT(st.prefixes, w.n);
				CHECK_INT(st.paths, paths);
			}
		}
	}
	rib_free(rib);
}

/*
 * The i-th of the index test's prefixes, all distinct: 10.x.y.0 as a /32
 * and as a /24 (one address, two lengths), 172.x.y.0/24../32 and
 * 2001::x:y:0:0:0:0 as a /64 and ...:y as a /128, so that keys differ in
 * either word and in length only.
 */
static struct bgp_prefix index_key(unsigned int i)
{
	unsigned int j = i >> 2;
	struct bgp_prefix p;

	memset(&p, 0, sizeof(p));
	p.family = i % 4 == 3 ? BGP_FAM_IPV6_UNICAST : BGP_FAM_IPV4_UNICAST;
	switch (i % 4) {
	case 0:
	case 1:
		p.len = i % 4 ? 24 : 32;
		p.addr[0] = 10;
		p.addr[1] = j >> 8;
		p.addr[2] = j;
		break;
	case 2:
		p.len = 24 + j % 9;
		p.addr[0] = 172;
		p.addr[1] = j >> 8;
		p.addr[2] = j;
		break;
	default:
		p.len = j & 1 ? 128 : 64;
		p.addr[0] = 0x20;
		p.addr[1] = 0x01;
		p.addr[6] = j >> 8;
		p.addr[7] = j;
		if (p.len == 128)
			p.addr[15] = j;
		break;
	}
	return p;
}

/*
 * Lookups at a scale the random test does not reach: thousands of
 * prefixes of both families, lengths that share addresses, half withdrawn
 * in a scattered order and drained (glue nodes come and go), then added
 * again; after each step every prefix is found exactly when it holds a
 * path, and the RIB's byte count comes back down when the table empties.
 */
TEST(rib_lookup_finds_each_prefix_through_growth_withdrawal_and_shrink)
{
	enum { N = 6000 };
	struct rib *rib = rib_new();
	struct rib_stats st0, st;
	struct rib_attrs *a;
	struct attrs_buf b;
	struct feed f;
	unsigned int i, round;
	bool *on = calloc(N, sizeof(*on));

	CHECK(rib && on);
	rib_get_stats(rib, &st0);
	a = rib_attrs_get(rib, mk(&b, 65001, 1, -1), BGP_FAM_IPV4_UNICAST);
	CHECK(a);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < N; i++) {
			struct bgp_prefix p = index_key(i);

			if (on[i] || (round == 1 && i % 3))
				continue;
			CHECK_INT(rib_update(rib, 1, &p, a), 0);
			on[i] = true;
		}
		drain(rib, &f);
		/* Every other prefix goes, in a scattered order. */
		for (i = 0; i < N; i++) {
			unsigned int k = (i * 2654435761u) % N;
			struct bgp_prefix p = index_key(k);

			if (round < 2 && k % 2 && on[k]) {
				CHECK_INT(rib_withdraw(rib, 1, &p), 0);
				on[k] = false;
			}
		}
		drain(rib, &f);
		for (i = 0; i < N; i++) {
			struct bgp_prefix p = index_key(i);
			const struct rib_entry *e = rib_lookup(rib, &p);

			CHECK(!e == !on[i]);
			if (e)
				CHECK(!memcmp(&e->prefix.addr, p.addr, 16) &&
				      e->prefix.len == p.len &&
				      e->prefix.family == p.family);
		}
	}
	/* Withdraw everything: the trie and the feed shrink. */
	for (i = 0; i < N; i++) {
		struct bgp_prefix p = index_key(i);

		if (on[i])
			CHECK_INT(rib_withdraw(rib, 1, &p), 0);
	}
	drain(rib, &f);
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 0);
	CHECK(st.bytes < st0.bytes + 4096);
	for (i = 0; i < N; i++) {
		struct bgp_prefix p = index_key(i);

		CHECK(!rib_lookup(rib, &p));
	}
	rib_attrs_put(rib, a);
	free(on);
	rib_free(rib);
}

/*
 * Every allocation of an update of a new prefix (which may need a bigger
 * peer table, a node, a glue node and a new path array) fails in turn: each
 * failure leaves the RIB as it was, and the update then succeeds.
 */
TEST(rib_update_enomem_at_each_allocation_changes_nothing)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct rib_attrs *a;
	struct rib_stats before, after;
	struct feed f;
	unsigned long k;
	int failures = 0;

	CHECK(rib);
	a = rib_attrs_get(rib, mk(&b, 65001, 1, -1), BGP_FAM_IPV4_UNICAST);
	CHECK(a);
	CHECK_INT(add(rib, 3, "10.0.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	drain(rib, &f);
	for (k = 1; k < 20; k++) {
		struct bgp_prefix p = pfx("10.1.0.0/16", 0);
		int ret;

		/*
		 * A new peer far enough out that the peer table grows
		 * (to at least twice its size), and its vector with it.
		 */
		rib_get_stats(rib, &before);
		rib_fault_countdown = k;
		ret = rib_update(rib, 8u << (2 * k), &p, a);
		rib_fault_countdown = 0;
		if (!ret)
			break;
		failures++;
		CHECK_INT(ret, -ENOMEM);
		rib_get_stats(rib, &after);
		CHECK_INT(after.prefixes, before.prefixes);
		CHECK_INT(after.paths, before.paths);
		CHECK_INT(rib_pending(rib), 0);
		CHECK(!look(rib, "10.1.0.0/16"));
		CHECK(look(rib, "10.0.0.0/16"));
	}
	/*
	 * Peer table, node, glue node, path array (the scratch array and the
	 * change feed have room already).
	 */
	CHECK_INT(failures, 4);
	CHECK(look(rib, "10.1.0.0/16"));
	CHECK_STR(drain(rib, &f), "10.1.0.0/16:1 ");
	rib_attrs_put(rib, a);
	/* And attribute interning fails cleanly at each of its allocations. */
	for (k = 1; k < 20; k++) {
		struct rib_attrs *x;

		mk(&b, 65009, 9, 1);
		b.a.communities = (const uint8_t *)"abcd";
		b.a.communities_len = 4;
		rib_fault_countdown = k;
		x = rib_attrs_get(rib, &b.a, BGP_FAM_IPV4_UNICAST);
		rib_fault_countdown = 0;
		rib_get_stats(rib, &after);
		if (x) {
			CHECK_INT(after.attr_sets, 2);
			rib_attrs_put(rib, x);
			break;
		}
		CHECK_INT(after.attr_sets, 1);
	}
	CHECK(k > 1 && k < 20);
	rib_free(rib);
}

TEST(rib_update_of_a_prefix_out_of_range_is_einval_and_changes_nothing)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct rib_attrs *a;
	struct bgp_prefix p = pfx("10.0.0.0/8", 0);
	struct rib_stats st;

	CHECK(rib);
	a = rib_attrs_get(rib, mk(&b, 65001, 1, -1), BGP_FAM_IPV4_UNICAST);
	CHECK(a);
	p.len = 33;
	CHECK_INT(rib_update(rib, 1, &p, a), -EINVAL);
	p.len = 8;
	p.family = BGP_FAM_COUNT;
	CHECK_INT(rib_update(rib, 1, &p, a), -EINVAL);
	CHECK(!rib_lookup(rib, &p));
	rib_withdraw(rib, 1, &p);
	CHECK_INT(rib_pending(rib), 0);
	rib_get_stats(rib, &st);
	CHECK_INT(st.paths, 0);
	CHECK_INT(a->refs, 1);
	rib_attrs_put(rib, a);
	rib_free(rib);
}

/*
 * A full table from 4 planes: every prefix has the same 4 paths, which
 * share one path array (and 4 attribute sets); the RIB's heap stays
 * within 2 trie nodes a prefix.
 */
TEST(rib_prefixes_with_equal_paths_share_one_path_array)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct rib_stats st;
	const struct rib_entry *e1, *e2;
	unsigned int i, peer;
	char text[32];

	CHECK(rib);
	for (peer = 1; peer <= 4; peer++)
		for (i = 0; i < 1000; i++) {
			snprintf(text, sizeof(text), "10.128.%u.%u/32", i / 256,
				 i % 256);
			CHECK_INT(add(rib, peer, text, 0,
				      mk(&b, 65100 + peer, peer, -1)), 0);
		}
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 1000);
	CHECK_INT(st.paths, 4000);
	CHECK_INT(st.attr_sets, 4);
	/* The 4-path array, and the 3-path one each prefix had on the way. */
	CHECK(st.path_sets <= 4);
	CHECK(st.bytes < 1000 * 2 * 64 + 16384);
	e1 = look(rib, "10.128.0.1/32");
	e2 = look(rib, "10.128.3.200/32");
	CHECK(e1 && e2 && e1->paths == e2->paths && e1->n_paths == 4);
	/* One prefix's path changes: only that prefix sees it. */
	CHECK_INT(add(rib, 2, "10.128.0.1/32", 0, mk(&b, 65102, 2, 5)), 0);
	e1 = look(rib, "10.128.0.1/32");
	e2 = look(rib, "10.128.3.200/32");
	CHECK(e1 && e2 && e1->paths != e2->paths);
	CHECK(e1->paths[1].attrs->has_med && !e2->paths[1].attrs->has_med);
	CHECK_INT(rib_peer_flush(rib, 3, ~0u), 1000);
	rib_get_stats(rib, &st);
	CHECK_INT(st.paths, 3000);
	CHECK_INT(look(rib, "10.128.2.2/32")->n_paths, 3);
	rib_free(rib);
}

/*
 * Without memory for a new path array, a withdrawal still removes the
 * path from an array no other prefix shares, and a flush from every one.
 */
TEST(rib_withdraw_and_flush_work_without_memory_for_unshared_arrays)
{
	struct rib *rib = rib_new();
	struct attrs_buf b;
	struct feed f;
	struct rib_stats st;

	CHECK(rib);
	CHECK_INT(add(rib, 1, "10.1.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	CHECK_INT(add(rib, 2, "10.1.0.0/16", 0, mk(&b, 65002, 2, 7)), 0);
	CHECK_INT(add(rib, 1, "10.2.0.0/16", 0, mk(&b, 65001, 1, -1)), 0);
	drain(rib, &f);
	rib_fault_countdown = 1;
	del(rib, 2, "10.1.0.0/16", 0);
	rib_fault_countdown = 0;
	CHECK_INT(look(rib, "10.1.0.0/16")->n_paths, 1);
	CHECK_INT(look(rib, "10.1.0.0/16")->paths[0].peer, 1);
	/* Removing a prefix's last path needs no new array at all. */
	rib_fault_countdown = 1;
	CHECK_INT(rib_peer_flush(rib, 1, ~0u), 2);
	rib_fault_countdown = 0;
	CHECK_STR(drain(rib, &f), "10.1.0.0/16:0 10.2.0.0/16:0 ");
	rib_get_stats(rib, &st);
	CHECK_INT(st.prefixes, 0);
	CHECK_INT(st.paths, 0);
	CHECK_INT(st.attr_sets, 0);
	CHECK_INT(st.path_sets, 0);
	rib_free(rib);
}
