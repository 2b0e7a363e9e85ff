// SPDX-License-Identifier: GPL-2.0-only
/*
 * FIB sync: the differences between the routes fared wants in fare.ko and
 * the routes it last programmed there, as libfare bulk ops. Pure: no I/O.
 *
 * The daemon keeps what it programmed (struct fare_route per prefix, as
 * sent). After the policy has run on the prefixes the RIB's change feed
 * reported, it calls fib_diff_one() per prefix (want NULL: the prefix
 * should have no fare route; have NULL: it has none now), or fib_diff()
 * for a full resync of two prefix-sorted tables, then fib_ops_order() on
 * the batch, and hands the ops to fare_routes_apply() (libfare.h). A
 * route equal to the programmed one (same prefix, mode, source and the
 * same set of {plane, weight, tier}, in any order) gives no op.
 *
 * Order (fib_ops_order): adds and replaces first, longest prefix first;
 * then deletes, shortest prefix first. A more specific route is often an
 * exception to its aggregate (mpson-00 §4.1: X/32 = the aggregate's
 * planes minus the one that lost X), so it must be in place before the
 * aggregate appears and stay until the aggregate is gone; and no prefix
 * loses its route before the routes that are to replace it exist.
 */
#ifndef FARED_FIB_SYNC_H
#define FARED_FIB_SYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "libfare.h"

/* Prefix order: family, address, then length (rib_walk's order). */
int fib_prefix_cmp(const struct fare_prefix *a, const struct fare_prefix *b);
bool fib_route_equal(const struct fare_route *a, const struct fare_route *b);

/*
 * Whether two routes' per-route counter settings (FARE_ROUTE_STATS_*)
 * differ: only where both say which (DEFAULT leaves it to fare.ko).
 */
static inline bool fib_stats_differ(uint8_t a, uint8_t b)
{
	return a && b && a != b;
}

/*
 * The op taking have to want, in *op; returns 0 when none is needed. Of
 * op's next hops only the route's are written: the rest of the array is
 * left as it was (libfare reads n_nexthops of them).
 */
int fib_diff_one(const struct fare_route *want, const struct fare_route *have,
		 struct fare_op *op);

/*
 * The ops taking have[0..n_have) to want[0..n_want), both sorted by
 * fib_prefix_cmp with no duplicates, into ops (room for n_want + n_have),
 * already in fib_ops_order's order. Returns their number.
 */
size_t fib_diff(const struct fare_route *want, size_t n_want,
		const struct fare_route *have, size_t n_have,
		struct fare_op *ops);

void fib_ops_order(struct fare_op *ops, size_t n);
/* fib_ops_order's rule for two ops (del: a delete) on prefixes a and b. */
int fib_op_cmp(bool del_a, const struct fare_prefix *a, bool del_b,
	       const struct fare_prefix *b);

#endif /* FARED_FIB_SYNC_H */
