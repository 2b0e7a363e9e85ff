// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aggregates with unreachable host routes (mpson-00 §4.1), host side, as
 * pure functions. A leaf that aggregates its RNICs' host routes into one
 * prefix per plane advertises a UPA route (PROTOCOL.md §6.1) for a host X
 * it lost. A UPA path is never used to forward: X gets the next hops of
 * its covering aggregate minus every plane that reported X unreachable,
 * the remaining weights scaled up so that they keep the aggregate's sum
 * (their ratios unchanged). When no plane is left, X is unreachable: the
 * caller must keep its packets off the aggregate's planes.
 */
#ifndef FARED_UPA_H
#define FARED_UPA_H

#include <stdbool.h>
#include <stddef.h>

#include "fare_fib.h"

struct fare_upa_info {
	bool plane[FARE_PLANE_ID_MAX + 1];	/* reported X unreachable */
	size_t n_upa;			/* paths carrying UPA */
	size_t n_plain;			/* paths without UPA */
};

/* Which of e's paths are UPA routes, and from which planes. */
void fare_upa_classify(const struct fare_fib_cfg *cfg,
		       const struct rib_entry *e, struct fare_upa_info *ui);

/*
 * x's route (x->dst set by the caller, the rest overwritten) from the
 * covering aggregate's agg and ui. Returns the number of next hops left:
 * 0 means every plane of the aggregate reported x unreachable.
 */
unsigned int fare_upa_exception(const struct fare_route *agg,
				const struct fare_upa_info *ui,
				struct fare_route *x);

/*
 * e's paths without UPA into paths[] (room for e->n_paths) as *out, the
 * entry a UPA-blind computation must see.
 */
void fare_upa_strip(const struct rib_entry *e, struct rib_path *paths,
		    struct rib_entry *out);

#endif /* FARED_UPA_H */
