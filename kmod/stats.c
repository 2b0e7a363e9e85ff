// SPDX-License-Identifier: GPL-2.0
/*
 * fare's counters, read side: a namespace's, a plane's and a route's own,
 * summed over the CPUs; and the routes' counters' lifetime.
 */
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include "nhg.h"
#include "route.h"
#include "stats.h"
#include "visibility.h"

/* A namespace's counters, summed over the CPUs. */
void fare_stats_read(struct fare_net *fn, struct fare_stats *sum)
{
	unsigned int cpu, start, t;
	struct fare_stats v;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct fare_pcpu_net *st = per_cpu_ptr(fn->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			v.noroute = u64_stats_read(&st->noroute);
			v.noplane = u64_stats_read(&st->noplane);
			v.error = u64_stats_read(&st->error);
			v.fallback = u64_stats_read(&st->fallback);
			for (t = 0; t <= FARE_TIER_MAX; t++) {
				v.tier[t].packets =
					u64_stats_read(&st->tier[t].packets);
				v.tier[t].bytes = u64_stats_read(&st->tier[t].bytes);
				v.tier[t].spills =
					u64_stats_read(&st->tier[t].spills);
			}
		} while (u64_stats_fetch_retry(&st->syncp, start));
		sum->noroute += v.noroute;
		sum->noplane += v.noplane;
		sum->error += v.error;
		sum->fallback += v.fallback;
		for (t = 0; t <= FARE_TIER_MAX; t++) {
			sum->tier[t].packets += v.tier[t].packets;
			sum->tier[t].bytes += v.tier[t].bytes;
			sum->tier[t].spills += v.tier[t].spills;
		}
	}
}

/* A plane's transmit counters, summed over the CPUs. */
void fare_sum_tx(struct fare_pcpu_tx __percpu *tx, u64 *packets, u64 *bytes)
{
	unsigned int cpu, start;
	u64 p, b;

	*packets = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		const struct fare_pcpu_tx *t = per_cpu_ptr(tx, cpu);

		do {
			start = u64_stats_fetch_begin(&t->syncp);
			p = u64_stats_read(&t->packets);
			b = u64_stats_read(&t->bytes);
		} while (u64_stats_fetch_retry(&t->syncp, start));
		*packets += p;
		*bytes += b;
	}
}

/* ---- per-route counters ---- */

/* Sized by the policy's bound, as a group's (nhg.c). */
static_assert(struct_size_t(struct fare_route_pcpu, nh, FARE_NEXTHOP_MAX) <=
	      PCPU_MIN_UNIT_SIZE / 4);

/* What the counters of a route of @n next hops hold: kmalloc and per-CPU. */
size_t fare_route_stats_bytes(unsigned int n)
{
	return fare_kmalloc_bytes(struct_size_t(struct fare_route_stats,
						plane, n)) +
	       fare_pcpu_bytes(struct_size_t(struct fare_route_pcpu, nh, n),
			       __alignof__(struct fare_route_pcpu));
}

/* Counters for a route over @grp's next hops; NULL without memory. */
struct fare_route_stats *fare_route_stats_alloc(const struct fare_group *grp)
{
	struct fare_route_stats *st;
	unsigned int i, cpu;

	st = kzalloc(struct_size(st, plane, grp->num_nh), GFP_KERNEL_ACCOUNT);
	if (!st)
		return NULL;
	st->pcpu = __alloc_percpu_gfp(struct_size(st->pcpu, nh, grp->num_nh),
				      __alignof__(struct fare_route_pcpu),
				      GFP_KERNEL_ACCOUNT);
	if (!st->pcpu) {
		kfree(st);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(st->pcpu, cpu)->syncp);
	st->n = grp->num_nh;
	for (i = 0; i < grp->num_nh; i++)
		st->plane[i] = grp->nh[i].plane_id;
	return st;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_stats_alloc);

static void fare_route_stats_free(struct rcu_head *head)
{
	struct fare_route_stats *st = container_of(head, typeof(*st), rcu);

	free_percpu(st->pcpu);
	kfree(st);
}

void fare_route_stats_free_rcu(struct fare_route_stats *st)
{
	if (st)
		call_rcu(&st->rcu, fare_route_stats_free);
}

/* Sums the route's counters of the next hop to @plane_id (0 if none). */
void fare_route_stats_read(struct fare_route_stats *st, u32 plane_id,
			   u64 *packets, u64 *bytes)
{
	unsigned int cpu, start, i;
	u64 p, b;

	*packets = 0;
	*bytes = 0;
	for (i = 0; i < st->n; i++)
		if (st->plane[i] == plane_id)
			break;
	if (i == st->n)
		return;
	for_each_possible_cpu(cpu) {
		const struct fare_route_pcpu *t = per_cpu_ptr(st->pcpu, cpu);

		do {
			start = u64_stats_fetch_begin(&t->syncp);
			p = u64_stats_read(&t->nh[i].packets);
			b = u64_stats_read(&t->nh[i].bytes);
		} while (u64_stats_fetch_retry(&t->syncp, start));
		*packets += p;
		*bytes += b;
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_stats_read);

void fare_route_stats_drops(struct fare_route_stats *st, u64 *noplane,
			    u64 *fallback)
{
	unsigned int cpu, start;
	u64 a, b;

	*noplane = 0;
	*fallback = 0;
	for_each_possible_cpu(cpu) {
		const struct fare_route_pcpu *t = per_cpu_ptr(st->pcpu, cpu);

		do {
			start = u64_stats_fetch_begin(&t->syncp);
			a = u64_stats_read(&t->noplane);
			b = u64_stats_read(&t->fallback);
		} while (u64_stats_fetch_retry(&t->syncp, start));
		*noplane += a;
		*fallback += b;
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_stats_drops);

