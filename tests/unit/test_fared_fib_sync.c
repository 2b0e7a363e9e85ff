// SPDX-License-Identifier: GPL-2.0-only
/*
 * FIB sync: only real differences become ops, next-hop order does not
 * matter, and a batch is ordered so that an exception route (mpson-00
 * §4.1) is never missing while its aggregate is installed.
 */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "fib_sync.h"
#include "harness.h"

static struct fare_route route(const char *addr, uint8_t plen,
			       unsigned int n, const uint32_t *planes,
			       const uint32_t *weights)
{
	struct fare_route r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.dst.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	r.dst.plen = plen;
	inet_pton(r.dst.family, addr, &r.dst.addr);
	r.mode = FARE_MODE_PACKET;
	r.n_nexthops = n;
	for (i = 0; i < n; i++) {
		r.nexthops[i].plane_id = planes[i];
		r.nexthops[i].weight = weights[i];
	}
	return r;
}

static const uint32_t p1234[] = { 1, 2, 3, 4 }, p4321[] = { 4, 3, 2, 1 };
static const uint32_t w1224[] = { 1, 2, 2, 4 }, w4221[] = { 4, 2, 2, 1 };
static const uint32_t p123[] = { 1, 2, 3 };

/* "+10.0.0.0/16 ~10.0.0.5/32 -10.0.0.9/32" */
static const char *ops_str(const struct fare_op *ops, size_t n)
{
	static char buf[512];
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(ops[i].route.dst.family, &ops[i].route.dst.addr, a,
			  sizeof(a));
		at += snprintf(buf + at, sizeof(buf) - at, "%s%c%s/%u",
			       i ? " " : "",
			       ops[i].type == FARE_OP_ROUTE_ADD ? '+' :
			       ops[i].type == FARE_OP_ROUTE_DEL ? '-' : '~',
			       a, ops[i].route.dst.plen);
	}
	return buf;
}

TEST(fib_equal_route_is_no_op_whatever_the_next_hop_order)
{
	struct fare_route a = route("10.0.0.0", 16, 4, p1234, w1224);
	struct fare_route b = route("10.0.0.0", 16, 4, p4321, w4221);
	struct fare_op op;

	b.nexthops[0].tx_packets = 99;	/* counters are not state */
	CHECK(fib_route_equal(&a, &b));
	CHECK_INT(fib_diff_one(&a, &b, &op), 0);
	CHECK_INT(fib_diff_one(NULL, NULL, &op), 0);
}

TEST(fib_weight_tier_plane_mode_or_source_change_is_a_replace)
{
	struct fare_route a = route("10.0.0.0", 16, 4, p1234, w1224);
	struct fare_route b;
	struct fare_op op;

	b = a;
	b.nexthops[3].weight = 3;
	CHECK_INT(fib_diff_one(&b, &a, &op), 1);
	CHECK_INT(op.type, FARE_OP_ROUTE_REPLACE);
	CHECK_INT(op.route.nexthops[3].weight, 3);
	b = a;
	b.nexthops[0].tier = 1;
	CHECK(!fib_route_equal(&a, &b));
	b = a;
	b.nexthops[0].plane_id = 9;
	CHECK(!fib_route_equal(&a, &b));
	b = a;
	b.n_nexthops = 3;
	CHECK(!fib_route_equal(&a, &b));
	b = a;
	b.mode = FARE_MODE_FLOW;
	CHECK(!fib_route_equal(&a, &b));
	b = a;
	b.has_src = true;
	CHECK(!fib_route_equal(&a, &b));
	a.has_src = true;
	CHECK(fib_route_equal(&a, &b));
	inet_pton(AF_INET, "192.0.2.1", &b.src);
	CHECK(!fib_route_equal(&a, &b));
	b = a;
	b.dst.plen = 17;
	CHECK(!fib_route_equal(&a, &b));
}

TEST(fib_add_and_delete_of_one_prefix)
{
	struct fare_route a = route("2001:db8::", 32, 3, p123, w1224);
	struct fare_op op;

	CHECK_INT(fib_diff_one(&a, NULL, &op), 1);
	CHECK_INT(op.type, FARE_OP_ROUTE_ADD);
	CHECK_INT(op.route.n_nexthops, 3);
	CHECK_INT(fib_diff_one(NULL, &a, &op), 1);
	CHECK_INT(op.type, FARE_OP_ROUTE_DEL);
	CHECK_INT(op.route.dst.plen, 32);
	CHECK_INT(op.route.n_nexthops, 0);
	CHECK_STR(ops_str(&op, 1), "-2001:db8::/32");
}

/*
 * A full resync: 10.0.0.0/16 appears with its exception 10.0.0.5/32 (one
 * plane fewer), 10.1.0.0/16 changes weights, 10.2.0.0/16 and its
 * exception 10.2.0.7/32 go, 10.3.0.0/16 stays as it is.
 */
TEST(fib_diff_orders_exceptions_before_aggregates_and_after_on_delete)
{
	struct fare_route want[4] = {
		route("10.0.0.0", 16, 4, p1234, w1224),
		route("10.0.0.5", 32, 3, p123, w1224),
		route("10.1.0.0", 16, 4, p1234, w4221),
		route("10.3.0.0", 16, 4, p1234, w1224),
	};
	struct fare_route have[4] = {
		route("10.1.0.0", 16, 4, p1234, w1224),
		route("10.2.0.0", 16, 4, p1234, w1224),
		route("10.2.0.7", 32, 3, p123, w1224),
		route("10.3.0.0", 16, 4, p4321, w4221),
	};
	struct fare_op ops[8];

	CHECK_INT(fib_diff(want, 4, have, 4, ops), 5);
	CHECK_STR(ops_str(ops, 5), "+10.0.0.5/32 +10.0.0.0/16 ~10.1.0.0/16 "
		  "-10.2.0.0/16 -10.2.0.7/32");
	/* Applying it leaves nothing to do. */
	CHECK_INT(fib_diff(want, 4, want, 4, ops), 0);
	CHECK_INT(fib_diff(NULL, 0, NULL, 0, ops), 0);
	CHECK_INT(fib_diff(want, 2, NULL, 0, ops), 2);
	CHECK_STR(ops_str(ops, 2), "+10.0.0.5/32 +10.0.0.0/16");
}

TEST(fib_prefix_order_is_family_address_length)
{
	struct fare_route r[4] = {
		route("10.0.0.0", 8, 0, NULL, NULL),
		route("10.0.0.0", 16, 0, NULL, NULL),
		route("10.128.0.0", 9, 0, NULL, NULL),
		route("::", 0, 0, NULL, NULL),
	};
	size_t i;

	for (i = 0; i + 1 < 4; i++) {
		CHECK_INT(fib_prefix_cmp(&r[i].dst, &r[i + 1].dst), -1);
		CHECK_INT(fib_prefix_cmp(&r[i + 1].dst, &r[i].dst), 1);
		CHECK_INT(fib_prefix_cmp(&r[i].dst, &r[i].dst), 0);
	}
}
