// SPDX-License-Identifier: GPL-2.0-only
/*
 * FIB sync (see fib_sync.h).
 */
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "fib_sync.h"

static size_t addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

int fib_prefix_cmp(const struct fare_prefix *a, const struct fare_prefix *b)
{
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = memcmp(&a->addr, &b->addr, addr_len(a->family));
	if (c)
		return c < 0 ? -1 : 1;
	return a->plen < b->plen ? -1 : a->plen > b->plen;
}

static int nh_cmp(const void *x, const void *y)
{
	const struct fare_nexthop *a = x, *b = y;

	if (a->plane_id != b->plane_id)
		return a->plane_id < b->plane_id ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight < b->weight ? -1 : 1;
	if (a->bandwidth != b->bandwidth)
		return a->bandwidth < b->bandwidth ? -1 : 1;
	return (int)a->tier - (int)b->tier;
}

/* The next hops as a sorted list of what fare.ko is told, no counters. */
static void nh_key(const struct fare_route *r, struct fare_nexthop *out)
{
	unsigned int i;

	for (i = 0; i < r->n_nexthops; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].plane_id = r->nexthops[i].plane_id;
		out[i].weight = r->nexthops[i].weight;
		out[i].tier = r->nexthops[i].tier;
		out[i].bandwidth = r->nexthops[i].bandwidth;
	}
	qsort(out, r->n_nexthops, sizeof(*out), nh_cmp);
}

bool fib_route_equal(const struct fare_route *a, const struct fare_route *b)
{
	struct fare_nexthop x[FARE_NEXTHOP_MAX], y[FARE_NEXTHOP_MAX];
	unsigned int i;

	if (fib_prefix_cmp(&a->dst, &b->dst) || a->mode != b->mode ||
	    a->tcp_mode != b->tcp_mode ||
	    a->has_src != b->has_src || a->n_nexthops != b->n_nexthops ||
	    a->n_nexthops > FARE_NEXTHOP_MAX)
		return false;
	if (fib_stats_differ(a->stats, b->stats))
		return false;
	if (a->has_src && memcmp(&a->src, &b->src, addr_len(a->dst.family)))
		return false;
	nh_key(a, x);
	nh_key(b, y);
	for (i = 0; i < a->n_nexthops; i++)
		if (nh_cmp(&x[i], &y[i]))
			return false;
	return true;
}

int fib_diff_one(const struct fare_route *want, const struct fare_route *have,
		 struct fare_op *op)
{
	if (!want && !have)
		return 0;
	if (want && have && fib_route_equal(want, have))
		return 0;
	/*
	 * Only what libfare reads: the route up to its next hops, and those
	 * it has. A whole op is 2 KiB (FARE_NEXTHOP_MAX inline next hops);
	 * clearing and copying all of it was most of the time fared's event
	 * loop took to hand the FIB worker a batch, while the worker waited.
	 */
	memset(op, 0, FARE_OP_SIZE(0));
	if (!want) {
		op->type = FARE_OP_ROUTE_DEL;
		op->route.dst = have->dst;
		return 1;
	}
	op->type = have ? FARE_OP_ROUTE_REPLACE : FARE_OP_ROUTE_ADD;
	memcpy(&op->route, want, offsetof(struct fare_route, nexthops));
	/* More than the array holds: libfare refuses the op, as before. */
	memcpy(op->route.nexthops, want->nexthops,
	       (want->n_nexthops < FARE_NEXTHOP_MAX ? want->n_nexthops :
		FARE_NEXTHOP_MAX) * sizeof(want->nexthops[0]));
	return 1;
}

size_t fib_diff(const struct fare_route *want, size_t n_want,
		const struct fare_route *have, size_t n_have,
		struct fare_op *ops)
{
	size_t i = 0, j = 0, n = 0;

	while (i < n_want || j < n_have) {
		int c = i == n_want ? 1 : j == n_have ? -1 :
			fib_prefix_cmp(&want[i].dst, &have[j].dst);

		if (c < 0)
			n += fib_diff_one(&want[i++], NULL, &ops[n]);
		else if (c > 0)
			n += fib_diff_one(NULL, &have[j++], &ops[n]);
		else
			n += fib_diff_one(&want[i++], &have[j++], &ops[n]);
	}
	fib_ops_order(ops, n);
	return n;
}

int fib_op_cmp(bool del_a, const struct fare_prefix *a, bool del_b,
	       const struct fare_prefix *b)
{
	if (del_a != del_b)
		return del_a ? 1 : -1;
	if (a->plen != b->plen) {
		bool longer_first = !del_a;

		return (a->plen > b->plen) == longer_first ? -1 : 1;
	}
	/* Ties: prefix order, so that a batch is deterministic. */
	return fib_prefix_cmp(a, b);
}

static int op_cmp(const void *x, const void *y)
{
	const struct fare_op *a = x, *b = y;

	return fib_op_cmp(a->type == FARE_OP_ROUTE_DEL, &a->route.dst,
			  b->type == FARE_OP_ROUTE_DEL, &b->route.dst);
}

void fib_ops_order(struct fare_op *ops, size_t n)
{
	qsort(ops, n, sizeof(*ops), op_cmp);
}
