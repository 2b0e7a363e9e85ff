// SPDX-License-Identifier: GPL-2.0-only
/*
 * Small prefix helpers shared by the FARE side's modules: equality
 * without the ADD-PATH id, coverage by a less specific prefix, and a
 * set of prefixes kept as an unordered array.
 */
#ifndef FARED_PFX_H
#define FARED_PFX_H

#include <stdbool.h>
#include <stddef.h>

#include "bgp.h"

/* Same family, length and address (path_id aside). */
bool pfx_eq(const struct bgp_prefix *a, const struct bgp_prefix *b);
/* a is strictly less specific than x and holds it. */
bool pfx_covers(const struct bgp_prefix *a, const struct bgp_prefix *x);
/*
 * Puts x into the set (*v, *n) or takes it out, as in says (compared
 * whole, path_id included). 1: the set changed, 0: it did not, -ENOMEM.
 */
int pfx_set_track(struct bgp_prefix **v, size_t *n,
		  const struct bgp_prefix *x, bool in);

#endif /* FARED_PFX_H */
