// SPDX-License-Identifier: GPL-2.0-only
/*
 * A leaf's UPA state machine (mpson-00 §4.1, suppress.h's per-host rule):
 * the RNIC hosts it has seen, and the links of the RNICs configured with
 * "rnic PREFIX interface NAME", polled once a second (a carrier change is
 * then at most a second late; no netlink listener). A host route's step
 * says whether it is passed on, held for the RNICs, or replaced by a UPA
 * route under its aggregate.
 *
 * It sits below the FARE side: a link change is reported through the
 * changed() callback (once per host route, then once with NULL), and the
 * FARE side computes that route's fate again.
 */
#ifndef FARED_LEAF_UPA_H
#define FARED_LEAF_UPA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bgp.h"
#include "loop.h"
#include "rib.h"
#include "suppress.h"

struct fared;

struct leaf_upa {
	struct fared *d;
	/* "upa originate": the RNIC hosts seen (suppress.h). */
	struct bgp_prefix *hosts;
	size_t n_hosts;
	/* "rnic PREFIX interface NAME": each link's state, polled. */
	int8_t *rnic_up;		/* per cfg.rnics: 1, 0, -1 unknown */
	size_t n_rnic_up;
	struct timer timer;
	/* x's link changed; NULL: the end of one poll's changes. */
	void (*changed)(void *arg, const struct bgp_prefix *x);
	void *arg;
};

void leaf_upa_init(struct leaf_upa *l, struct fared *d,
		   void (*changed)(void *arg, const struct bgp_prefix *x),
		   void *arg);
void leaf_upa_free(struct leaf_upa *l);
/*
 * The leaf's step for e (suppress.h), the host's seen state updated: what
 * is sent for it, and *agg, the aggregate a UPA route stands under.
 */
enum fare_leaf_adv leaf_upa_step(struct leaf_upa *l,
				 const struct rib_entry *e,
				 struct bgp_prefix *agg);
/*
 * The configured RNICs anew (start, reload), every link state unknown;
 * false without memory (nothing changed).
 */
bool leaf_upa_reset(struct leaf_upa *l);
/* Polls the links now (and every second after). */
void leaf_upa_poll(struct leaf_upa *l);

#endif /* FARED_LEAF_UPA_H */
