// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared's restart (fared.8, RESTART) and graceful restart's rules (gr.h):
 * fare.ko routes adopted at start as stale, equal ones left alone, changed
 * ones replaced, the rest swept; the F bit only where fare.ko holds
 * routes; RFC 4724 §4.2's helper rules, RFC 8538's N bit and Hard Reset,
 * RFC 7313's BoRR before End-of-RIB.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "fare_fib.h"
#include "gr.h"
#include "harness.h"

#define V4	BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST)
#define V6	BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST)

static char applied[8][256];
static size_t n_applied;

/* Records each apply call as "+P ~P -P" (add, replace, delete). */
static int record(void *arg, const struct fare_op *const *ops, size_t n,
		  size_t *failed)
{
	char *buf = applied[n_applied++ % 8];
	size_t i, at = 0;

	(void)arg;
	(void)failed;
	buf[0] = '\0';
	for (i = 0; i < n && at < 256; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(ops[i]->route.dst.family, &ops[i]->route.dst.addr,
			  a, sizeof(a));
		at += snprintf(buf + at, 256 - at, "%s%c%s/%u", i ? " " : "",
			       ops[i]->type == FARE_OP_ROUTE_ADD ? '+' :
			       ops[i]->type == FARE_OP_ROUTE_DEL ? '-' : '~',
			       a, ops[i]->route.dst.plen);
	}
	return 0;
}

/* A route to pfx with "plane:weight" pairs, as given (not sorted). */
static struct fare_route *route(const char *pfx, unsigned int plen,
				const unsigned int *pw, unsigned int n)
{
	static struct fare_route r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.dst.family = strchr(pfx, ':') ? AF_INET6 : AF_INET;
	inet_pton(r.dst.family, pfx, &r.dst.addr);
	r.dst.plen = (uint8_t)plen;
	r.n_nexthops = n;
	for (i = 0; i < n; i++) {
		r.nexthops[i].plane_id = pw[2 * i];
		r.nexthops[i].weight = pw[2 * i + 1];
	}
	return &r;
}

TEST(restart_adopted_routes_equal_stay_changed_replace_rest_swept)
{
	static const unsigned int w221[] = { 3, 1, 1, 2, 2, 2 };
	static const unsigned int w221s[] = { 1, 2, 2, 2, 3, 1 };
	static const unsigned int w111[] = { 1, 1, 2, 1, 3, 1 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;

	n_applied = 0;
	/* What fare.ko holds at start, in whatever order it dumps. */
	CHECK_INT(fare_fib_adopt(fib, route("198.51.100.1", 32, w221, 3)), 1);
	CHECK_INT(fare_fib_adopt(fib, route("198.51.100.2", 32, w221, 3)), 1);
	CHECK_INT(fare_fib_adopt(fib, route("198.51.100.3", 32, w221, 3)), 1);
	CHECK_INT(fare_fib_adopt(fib, route("2001:db8:100::1", 128, w221, 3)),
		  1);
	/* A second entry for a prefix, or one without next hops: ignored. */
	CHECK_INT(fare_fib_adopt(fib, route("198.51.100.1", 32, w111, 3)), 0);
	CHECK_INT(fare_fib_adopt(fib, route("198.51.100.9", 32, w111, 0)), 0);
	CHECK_INT(fare_fib_count(fib), 4);
	CHECK_INT(fare_fib_stale(fib), 4);
	CHECK_INT(fare_fib_count_family(fib, AF_INET), 3);
	CHECK_INT(fare_fib_count_family(fib, AF_INET6), 1);
	CHECK_INT(fare_fib_pending(fib), 0);

	/* The new RIB: .1 and ::1 as they are, .2 reweighed, .3 gone. */
	CHECK_INT(fare_fib_queue(fib, route("198.51.100.1", 32, w221s, 3)), 0);
	CHECK_INT(fare_fib_queue(fib, route("198.51.100.2", 32, w111, 3)), 0);
	CHECK_INT(fare_fib_queue(fib, route("2001:db8:100::1", 128, w221s, 3)),
		  0);
	CHECK_INT(fare_fib_stale(fib), 1);
	CHECK_INT(fare_fib_sweep(fib), 1);
	CHECK_INT(fare_fib_stale(fib), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	/* One batch: the replace, then the sweep; the equal ones untouched. */
	CHECK_INT(n_applied, 1);
	CHECK_STR(applied[0], "~198.51.100.2/32 -198.51.100.3/32");
	CHECK_INT(st.ops, 2);
	CHECK_INT(fare_fib_count(fib), 3);
	CHECK_INT(fare_fib_count_family(fib, AF_INET), 2);
	CHECK_INT(fare_fib_count_family(fib, AF_INET6), 1);
	/* Nothing stale is left to sweep a second time. */
	CHECK_INT(fare_fib_sweep(fib), 0);
	fare_fib_free(fib);
}

TEST(restart_a_prefix_withdrawn_while_queued_is_no_longer_stale)
{
	static const unsigned int w1[] = { 1, 1 };
	struct fare_fib *fib = fare_fib_new(record, NULL);
	struct fare_fib_flush_stats st;

	n_applied = 0;
	fare_fib_adopt(fib, route("10.0.0.0", 24, w1, 1));
	/* The RIB says "no route": a delete, queued once, not swept again. */
	CHECK_INT(fare_fib_queue(fib, route("10.0.0.0", 24, w1, 0)), 0);
	CHECK_INT(fare_fib_stale(fib), 0);
	CHECK_INT(fare_fib_sweep(fib), 0);
	fare_fib_flush(fib, 0, NULL, NULL, &st);
	CHECK_STR(applied[0], "-10.0.0.0/24");
	CHECK_INT(fare_fib_count(fib), 0);
	CHECK_INT(fare_fib_count_family(fib, AF_INET), 0);
	fare_fib_free(fib);
}

TEST(gr_open_caps_f_per_family_of_the_mask_r_when_restarting_n_always)
{
	struct bgp_caps c;

	memset(&c, 0, sizeof(c));
	gr_open_caps(&c, 120, V4 | V6, true, V4);
	CHECK(c.graceful_restart);
	CHECK_INT(c.gr_restart_time, 120);
	CHECK_INT(c.gr_flags, BGP_GR_FLAG_RESTART | BGP_GR_FLAG_NOTIFICATION);
	CHECK_INT(c.gr_families, V4 | V6);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV4_UNICAST], BGP_GR_AF_FORWARDING);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV6_UNICAST], 0);
	/* Nothing held (no fare.ko, or nothing in it): no F at all. */
	gr_open_caps(&c, 120, V4 | V6, true, 0);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV4_UNICAST], 0);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV6_UNICAST], 0);
	/* Not restarting: no R; F for a family not negotiated: none. */
	gr_open_caps(&c, 4095, V6, false, V4 | V6);
	CHECK_INT(c.gr_flags, BGP_GR_FLAG_NOTIFICATION);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV4_UNICAST], 0);
	CHECK_INT(c.gr_af_flags[BGP_FAM_IPV6_UNICAST], BGP_GR_AF_FORWARDING);
}

TEST(gr_f_bit_transit_needs_fare_ko_routes_originated_always_kept)
{
	/* Host or no role: what it advertises is its own, delivered. */
	CHECK(gr_forwarding_kept(false, false, 0));
	CHECK(gr_forwarding_kept(false, true, 0));
	/* Transit: fare.ko there and holding routes of the family. */
	CHECK(gr_forwarding_kept(true, true, 3));
	CHECK(!gr_forwarding_kept(true, true, 0));
	CHECK(!gr_forwarding_kept(true, false, 0));
}

TEST(gr_n_bit_needs_both_sides)
{
	struct bgp_caps theirs;

	memset(&theirs, 0, sizeof(theirs));
	theirs.graceful_restart = true;
	theirs.gr_flags = BGP_GR_FLAG_NOTIFICATION;
	CHECK(gr_n_exchanged(BGP_GR_FLAG_NOTIFICATION, &theirs));
	CHECK(!gr_n_exchanged(0, &theirs));
	CHECK(!gr_n_exchanged(BGP_GR_FLAG_RESTART, &theirs));
	theirs.gr_flags = BGP_GR_FLAG_RESTART;
	CHECK(!gr_n_exchanged(BGP_GR_FLAG_NOTIFICATION, &theirs));
	theirs.gr_flags = BGP_GR_FLAG_NOTIFICATION;
	theirs.graceful_restart = false;
	CHECK(!gr_n_exchanged(BGP_GR_FLAG_NOTIFICATION, &theirs));
}

TEST(gr_hard_reset_for_lasting_ceases_and_its_data)
{
	static const uint8_t text[] = { 3, 'b', 'y', 'e' };
	uint8_t out[16];

	/* RFC 8538 §5.1's table. */
	CHECK(gr_cease_is_hard(BGP_CEASE_MAX_PREFIXES));
	CHECK(gr_cease_is_hard(BGP_CEASE_ADMIN_SHUTDOWN));
	CHECK(gr_cease_is_hard(BGP_CEASE_PEER_DECONFIGURED));
	CHECK(gr_cease_is_hard(BGP_CEASE_HARD_RESET));
	CHECK(!gr_cease_is_hard(BGP_CEASE_ADMIN_RESET));
	CHECK(!gr_cease_is_hard(BGP_CEASE_CONNECTION_REJECTED));
	CHECK(!gr_cease_is_hard(BGP_CEASE_OTHER_CONFIG_CHANGE));
	CHECK(!gr_cease_is_hard(BGP_CEASE_COLLISION));
	CHECK(!gr_cease_is_hard(BGP_CEASE_OUT_OF_RESOURCES));
	/* §3.1: the NOTIFICATION it stands for, code, subcode, data. */
	CHECK_INT(gr_hard_reset_data(BGP_ERR_CEASE, BGP_CEASE_ADMIN_SHUTDOWN,
				     text, sizeof(text), out, sizeof(out)), 6);
	CHECK_INT(out[0], BGP_ERR_CEASE);
	CHECK_INT(out[1], BGP_CEASE_ADMIN_SHUTDOWN);
	CHECK(!memcmp(out + 2, text, sizeof(text)));
	CHECK_INT(gr_hard_reset_data(BGP_ERR_CEASE, 1, NULL, 0, out, 2), 2);
	CHECK_INT(gr_hard_reset_data(BGP_ERR_CEASE, 2, text, sizeof(text),
				     out, 5), -1);
}

TEST(gr_session_down_keeps_stale_drops_old_stale_without_n)
{
	struct gr_session s = {
		.helper = true, .n = false, .families = V4 | V6, .stale = 0,
	};
	struct gr_down g;

	/* TCP gone, no NOTIFICATION: both families kept, stale. */
	gr_session_down(&s, false, false, &g);
	CHECK_INT(g.keep, V4 | V6);
	CHECK_INT(g.drop_stale, 0);
	/*
	 * RFC 4724 §4.2: it restarts again before its End-of-RIB: the
	 * routes still stale from the first restart go, the rest stay.
	 */
	s.stale = V4;
	gr_session_down(&s, false, false, &g);
	CHECK_INT(g.keep, V4 | V6);
	CHECK_INT(g.drop_stale, V4);
	/* RFC 8538 §4.1: with N exchanged, the old stale routes stay. */
	s.n = true;
	gr_session_down(&s, false, false, &g);
	CHECK_INT(g.keep, V4 | V6);
	CHECK_INT(g.drop_stale, 0);
}

TEST(gr_session_down_notification_graceful_only_with_n_and_no_hard_reset)
{
	struct gr_session s = {
		.helper = true, .n = false, .families = V4, .stale = V4,
	};
	struct gr_down g;

	/* Without N, any NOTIFICATION ends graceful restart (RFC 4724). */
	gr_session_down(&s, true, false, &g);
	CHECK_INT(g.keep, 0);
	/* With N, a NOTIFICATION (hold timer, Cease/4 ...) keeps them. */
	s.n = true;
	gr_session_down(&s, true, false, &g);
	CHECK_INT(g.keep, V4);
	/* A Hard Reset, sent or received, flushes (RFC 8538 §3). */
	gr_session_down(&s, true, true, &g);
	CHECK_INT(g.keep, 0);
	/* No helper (no capability, restart time 0): flushed. */
	s.helper = false;
	gr_session_down(&s, false, false, &g);
	CHECK_INT(g.keep, 0);
	CHECK_INT(g.drop_stale, 0);
}

TEST(gr_established_drops_stale_families_without_f_or_capability)
{
	struct bgp_caps c;

	memset(&c, 0, sizeof(c));
	/* No capability at all: every stale family goes. */
	CHECK_INT(gr_established_drop(&c, V4 | V6), V4 | V6);
	c.graceful_restart = true;
	c.gr_families = V4 | V6;
	c.gr_af_flags[BGP_FAM_IPV4_UNICAST] = BGP_GR_AF_FORWARDING;
	/* F clear for IPv6: its stale routes go, IPv4's wait for EoR. */
	CHECK_INT(gr_established_drop(&c, V4 | V6), V6);
	c.gr_families = V6;
	c.gr_af_flags[BGP_FAM_IPV6_UNICAST] = BGP_GR_AF_FORWARDING;
	/* IPv4 no longer listed. */
	CHECK_INT(gr_established_drop(&c, V4 | V6), V4);
	/* Only stale families are named. */
	CHECK_INT(gr_established_drop(&c, 0), 0);
}

TEST(gr_borr_ignored_before_end_of_rib_with_graceful_restart)
{
	CHECK(!gr_borr_accept(true, 0, BGP_FAM_IPV4_UNICAST));
	CHECK(!gr_borr_accept(true, V6, BGP_FAM_IPV4_UNICAST));
	CHECK(gr_borr_accept(true, V4, BGP_FAM_IPV4_UNICAST));
	CHECK(gr_borr_accept(false, 0, BGP_FAM_IPV4_UNICAST));
}
