/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters (stats.c): a namespace's drop and per-tier counters, a plane's
 * transmit counters and a route's own, and their sums for netlink. The
 * packet path's writers are inline, as they were in the transmit path.
 */
#ifndef _FARE_STATS_H
#define _FARE_STATS_H

#include "fare.h"

struct fare_group;
struct fare_route_stats;

struct fare_pcpu_tx {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
};

struct fare_pcpu_net {
	struct u64_stats_sync syncp;
	u64_stats_t noroute;
	u64_stats_t noplane;
	u64_stats_t fallback;
	u64_stats_t error;
	/* Per tier; a tier above FARE_TIER_MAX counts in the last. */
	struct {
		u64_stats_t packets;
		u64_stats_t bytes;
		u64_stats_t spills;	/* decisions that spilled to it */
	} tier[FARE_TIER_MAX + 1];
};

enum fare_drop_reason {
	FARE_DROP_NOROUTE,
	FARE_DROP_NOPLANE,
	FARE_DROP_FALLBACK,	/* not a drop: sent by the normal route */
	FARE_DROP_ERROR,
};

static inline void fare_count(struct fare_net *fn, enum fare_drop_reason why)
{
	struct fare_pcpu_net *st = this_cpu_ptr(fn->stats);

	u64_stats_update_begin(&st->syncp);
	if (why == FARE_DROP_NOROUTE)
		u64_stats_inc(&st->noroute);
	else if (why == FARE_DROP_NOPLANE)
		u64_stats_inc(&st->noplane);
	else if (why == FARE_DROP_FALLBACK)
		u64_stats_inc(&st->fallback);
	else
		u64_stats_inc(&st->error);
	u64_stats_update_end(&st->syncp);
}

static inline void fare_count_spill(struct fare_net *fn, u8 tier)
{
	struct fare_pcpu_net *st = this_cpu_ptr(fn->stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->tier[min_t(u8, tier, FARE_TIER_MAX)].spills);
	u64_stats_update_end(&st->syncp);
}

/* A namespace's counters summed over the CPUs (fare_stats_read()). */
struct fare_stats {
	u64 noroute;
	u64 noplane;
	u64 fallback;
	u64 error;
	struct {
		u64 packets;
		u64 bytes;
		u64 spills;
	} tier[FARE_TIER_MAX + 1];
};

void fare_stats_read(struct fare_net *fn, struct fare_stats *sum);
void fare_sum_tx(struct fare_pcpu_tx __percpu *tx, u64 *packets, u64 *bytes);
size_t fare_route_stats_bytes(unsigned int n);
struct fare_route_stats *fare_route_stats_alloc(const struct fare_group *grp);
void fare_route_stats_free_rcu(struct fare_route_stats *st);
void fare_route_stats_read(struct fare_route_stats *st, u32 plane_id,
			   u64 *packets, u64 *bytes);
void fare_route_stats_drops(struct fare_route_stats *st, u64 *noplane,
			    u64 *fallback);

#endif /* _FARE_STATS_H */
