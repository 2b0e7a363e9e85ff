// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transit export: what a transit role (leaf, spine, super-spine) passes on
 * for a prefix, from the FARE policy's result (fare_fib.h) and, on a leaf,
 * the UPA state machine's step (leaf_upa.h): the route set into the
 * Adj-RIB-Out (adj_out.h). See struct adj_route for what is passed on.
 */
#ifndef FARED_EXPORT_H
#define FARED_EXPORT_H

#include "fare_fib.h"
#include "leaf_upa.h"
#include "rib.h"

struct fared;

/*
 * What e now means for the neighbors, into d's Adj-RIB-Out (queued when
 * it changed); fr: the policy's result for e (fr->best < 0: no route).
 * 0 or -ENOMEM.
 */
int export_update(struct fared *d, struct leaf_upa *leaf,
		  const struct rib_entry *e, const struct fare_fib_result *fr);

#endif /* FARED_EXPORT_H */
