/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Weighted next-hop selection, free of kernel objects so that the same
 * code runs in fare.ko, in KUnit and in userspace unit tests/benchmarks.
 */
#ifndef _FARE_SELECT_H
#define _FARE_SELECT_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "fare_shim.h"
#endif

/*
 * Per-packet spray state of one route on one CPU. A period is W picks,
 * W being the sum of the usable weights; the state restarts at each period
 * and whenever the usable set changes.
 */
struct fare_spray {
	u64 usable;		/* the set the period was built for */
	u64 picks;		/* picks so far in this period */
	u64 count[];		/* picks per entry in this period */
};

/*
 * Tijdeman's "chairman assignment" schedule: among the entries whose next
 * pick is already due, take the one whose deadline comes first. With k
 * usable entries, after every pick n of a period each entry's count c_i
 * satisfies |c_i - n * w_i / W| <= 1 - 1 / (2k - 2) < 1, for exact u32
 * weights (nothing is scaled or rounded), and a period ends with every
 * count equal to its weight. Smooth weighted round-robin, the usual
 * choice, strays slightly beyond one pick for some weight vectors.
 *
 * Returns the chosen index, or -1 when @usable has no entry.
 */
int fare_spray_pick(const u32 *weights, struct fare_spray *st, u64 usable,
		    unsigned int n);

/*
 * Byte-deficit selection for a new flowlet: picks the usable entry that is
 * furthest behind its target share of the bytes sent so far, i.e. the
 * largest sum(sent) * w_i / W - sent_i. Flowlet sizes are unknown and
 * heavy-tailed, so shares are kept in bytes, not in flowlets. Ties go to
 * the lowest index. Returns the chosen index, or -1 when @usable has no
 * entry.
 */
int fare_deficit_pick(const u32 *weights, const u64 *sent, u64 usable,
		      unsigned int n);

/*
 * Hash-threshold selection over the usable entries: maps @hash onto the
 * cumulative weights, as the kernel's multipath routes do. Returns the
 * chosen index, or -1 when @usable has no entry.
 */
int fare_hash_pick(const u32 *weights, u64 usable, unsigned int n, u32 hash);

#endif /* _FARE_SELECT_H */
