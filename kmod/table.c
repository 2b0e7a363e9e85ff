// SPDX-License-Identifier: GPL-2.0
/*
 * fare's prefix table: longest-prefix match over IPv4 and IPv6.
 *
 * Routes live in one RCU hash table keyed by (family, length, masked
 * address); a bitmap per family records which prefix lengths hold at least
 * one route, and a lookup probes only those lengths, longest first. Hosts
 * hold few distinct lengths (host routes plus a handful of aggregates), so a
 * lookup costs a few hash probes whatever the number of routes.
 */
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/socket.h>
#include "fare.h"

static const struct rhashtable_params fare_route_params = {
	.key_len = sizeof(struct fare_prefix),
	.key_offset = offsetof(struct fare_route, key),
	.head_offset = offsetof(struct fare_route, node),
	.automatic_shrinking = true,
};

static unsigned long *fare_plens(struct fare_net *fn, u8 family)
{
	return family == AF_INET ? fn->plens4 : fn->plens6;
}

int fare_prefix_make(struct fare_prefix *key, u8 family, const void *addr,
		     u8 plen)
{
	unsigned int bits;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	bits = fare_family_bits(family);
	if (plen > bits)
		return -EINVAL;
	memset(key, 0, sizeof(*key));
	key->family = family;
	key->plen = plen;
	memcpy(key->addr, addr, bits / 8);
	fare_mask(key->addr, bits, plen);
	return 0;
}

int fare_table_init(struct fare_net *fn)
{
	INIT_LIST_HEAD(&fn->route_list);
	return rhashtable_init(&fn->routes, &fare_route_params);
}

struct fare_route *fare_route_find(struct fare_net *fn,
				   const struct fare_prefix *key)
{
	return rhashtable_lookup_fast(&fn->routes, key, fare_route_params);
}

static void *fare_route_probe(void *table, const struct fare_prefix *key)
{
	return rhashtable_lookup(table, key, fare_route_params);
}

/* Under RCU. */
struct fare_route *fare_route_lookup(struct fare_net *fn, u8 family,
				     const void *daddr)
{
	return fare_lpm(fare_plens(fn, family), family, daddr,
			fare_route_probe, &fn->routes);
}

int fare_route_insert(struct fare_net *fn, struct fare_route *rt)
{
	int fam = rt->key.family == AF_INET6;
	int err;

	lockdep_assert_held(&fn->lock);
	err = rhashtable_insert_fast(&fn->routes, &rt->node, fare_route_params);
	if (err)
		return err;
	/* The list stays sorted by seq: new routes only go to its tail. */
	rt->seq = ++fn->route_seq;
	list_add_tail_rcu(&rt->list, &fn->route_list);
	fn->num_routes++;
	if (!fn->plen_count[fam][rt->key.plen]++)
		set_bit(rt->key.plen, fare_plens(fn, rt->key.family));
	return 0;
}

void fare_route_remove(struct fare_net *fn, struct fare_route *rt)
{
	int fam = rt->key.family == AF_INET6;

	lockdep_assert_held(&fn->lock);
	rhashtable_remove_fast(&fn->routes, &rt->node, fare_route_params);
	list_del_rcu(&rt->list);
	fn->num_routes--;
	if (!--fn->plen_count[fam][rt->key.plen])
		clear_bit(rt->key.plen, fare_plens(fn, rt->key.family));
}

/*
 * The per-CPU allocations of a group are sized by its next hops and tiers,
 * which the policy bounds (FARE_NEXTHOP_MAX, FARE_TIER_MAX): at most these
 * sizes, well below what the per-CPU allocator takes without a WARN.
 */
static_assert(struct_size_t(struct fare_group_tx, nh, FARE_NEXTHOP_MAX) <=
	      PCPU_MIN_UNIT_SIZE / 4);
static_assert(ALIGN(struct_size_t(struct fare_spray, count, FARE_NEXTHOP_MAX),
		    __alignof__(struct fare_spray)) * (FARE_TIER_MAX + 1) <=
	      PCPU_MIN_UNIT_SIZE / 4);

struct fare_group *fare_group_alloc(unsigned int num_nh)
{
	struct fare_group *grp;
	unsigned int cpu;

	if (WARN_ON_ONCE(!num_nh || num_nh > FARE_NEXTHOP_MAX))
		return NULL;
	grp = kzalloc(struct_size(grp, nh, num_nh), GFP_KERNEL_ACCOUNT);
	if (!grp)
		return NULL;
	grp->tx = __alloc_percpu_gfp(struct_size(grp->tx, nh, num_nh),
				     __alignof__(struct fare_group_tx),
				     GFP_KERNEL_ACCOUNT);
	if (!grp->tx) {
		kfree(grp);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(grp->tx, cpu)->syncp);
	grp->num_nh = num_nh;
	return grp;
}

/*
 * Starts each CPU's schedule of each tier at a random point of its period,
 * as if a few packets had already been sent: otherwise every new route on
 * every CPU puts its first packet on the same next hop, and many low-rate
 * routes all load that one.
 */
static void fare_group_spray_phase(struct fare_group *grp)
{
	unsigned int ord, i, cpu, r;
	struct fare_spray *st;

	for (ord = 0; ord < grp->num_tiers; ord++) {
		u64 members = 0, total = 0;

		for (i = 0; i < grp->num_nh; i++) {
			if (grp->tier_ord[i] != ord)
				continue;
			members |= BIT_ULL(i);
			total += grp->weights[i];
		}
		if (!members)
			continue;
		for_each_possible_cpu(cpu) {
			st = (struct fare_spray *)((char *)per_cpu_ptr(grp->spray,
								       cpu) +
						   ord * grp->spray_size);
			r = get_random_u32_below(min_t(u64, total,
						       2 * grp->num_nh));
			while (r--)
				fare_spray_pick(grp->weights, st, members,
						grp->num_nh);
		}
	}
}

/*
 * Once nh[] is filled: ranks the tiers and allocates one spray state per
 * distinct tier. Frees nothing on failure; fare_group_free_rcu() does.
 */
int fare_group_finish(struct fare_group *grp)
{
	unsigned int i, j;

	grp->num_tiers = 0;
	for (i = 0; i < grp->num_nh; i++) {
		grp->tier_ord[i] = 0;
		for (j = 0; j < grp->num_nh; j++)
			if (grp->tiers[j] < grp->tiers[i] &&
			    (j == 0 || !memchr(grp->tiers, grp->tiers[j], j)))
				grp->tier_ord[i]++;
		grp->num_tiers = max_t(unsigned int, grp->num_tiers,
				       grp->tier_ord[i] + 1);
	}
	grp->spray_size = ALIGN(struct_size_t(struct fare_spray, count,
					      grp->num_nh),
				__alignof__(struct fare_spray));
	if (WARN_ON_ONCE(grp->num_tiers > FARE_TIER_MAX + 1))
		return -EINVAL;
	grp->spray = __alloc_percpu_gfp(grp->spray_size * grp->num_tiers,
					__alignof__(struct fare_spray),
					GFP_KERNEL_ACCOUNT);
	if (!grp->spray)
		return -ENOMEM;
	fare_group_spray_phase(grp);
	return 0;
}

/*
 * Carries the virtual queues of @old's next hops over to those of @grp on
 * the same plane, so that replacing a route keeps its congestion state.
 * Packets counted into @old after the copy are lost to @grp: approximate.
 */
void fare_group_carry_vq(struct fare_group *grp,
			 const struct fare_group *old)
{
	unsigned int i, j;

	for (i = 0; i < grp->num_nh; i++)
		for (j = 0; j < old->num_nh; j++)
			if (grp->nh[i].plane_id == old->nh[j].plane_id)
				atomic64_set(&grp->nh[i].vq_vt,
					     atomic64_read(&old->nh[j].vq_vt));
}

/*
 * Fills @grp's flow buckets over the next hops of its preferred (lowest)
 * tier. When @grp replaces @old, a bucket keeps its plane while that plane
 * stays in the preferred tier and within its new quota, so only the flows
 * that must move do (select.h states the bound).
 */
void fare_group_set_buckets(struct fare_group *grp,
			    const struct fare_group *old)
{
	u8 prev[FARE_BUCKETS], map[FARE_NEXTHOP_MAX];
	unsigned int i, j, b;
	u8 tier = U8_MAX;
	u64 members = 0;

	for (i = 0; i < grp->num_nh; i++)
		tier = min(tier, grp->nh[i].tier);
	for (i = 0; i < grp->num_nh; i++)
		if (grp->nh[i].tier == tier)
			members |= BIT_ULL(i);
	if (old) {
		for (j = 0; j < old->num_nh; j++) {
			map[j] = FARE_BUCKET_NONE;
			for (i = 0; i < grp->num_nh; i++)
				if (grp->nh[i].plane_id == old->nh[j].plane_id)
					map[j] = i;
		}
		for (b = 0; b < FARE_BUCKETS; b++)
			prev[b] = old->buckets[b] < old->num_nh ?
				  map[old->buckets[b]] : FARE_BUCKET_NONE;
	}
	fare_buckets_build(grp->buckets, old ? prev : NULL, grp->weights,
			   members, grp->num_nh);
}

/* Sums next hop @i's per-CPU counters; for stats and flowlet decisions. */
void fare_group_nh_tx(struct fare_group *grp, unsigned int i, u64 *packets,
		      u64 *bytes)
{
	unsigned int cpu, start;
	u64 p, b;

	*packets = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		const struct fare_group_tx *t = per_cpu_ptr(grp->tx, cpu);

		do {
			start = u64_stats_fetch_begin(&t->syncp);
			p = u64_stats_read(&t->nh[i].packets);
			b = u64_stats_read(&t->nh[i].bytes);
		} while (u64_stats_fetch_retry(&t->syncp, start));
		*packets += p;
		*bytes += b;
	}
}

static void fare_group_free(struct rcu_head *head)
{
	struct fare_group *grp = container_of(head, struct fare_group, rcu);

	free_percpu(grp->spray);
	free_percpu(grp->tx);
	kfree(grp);
}

void fare_group_free_rcu(struct fare_group *grp)
{
	if (grp)
		call_rcu(&grp->rcu, fare_group_free);
}

static void fare_route_free_cb(struct rcu_head *head)
{
	struct fare_route *rt = container_of(head, struct fare_route, rcu);

	free_percpu(rt->ctr);
	kfree(rt);
}

/*
 * Frees a route that is no longer reachable by new readers; under
 * @fn's lock, which serialises the writers of rt->group.
 */
void fare_route_free(struct fare_net *fn, struct fare_route *rt)
{
	fare_group_free_rcu(rcu_dereference_protected(rt->group,
						      lockdep_is_held(&fn->lock)));
	call_rcu(&rt->rcu, fare_route_free_cb);
}

static void fare_route_free_all(void *ptr, void *arg)
{
	struct fare_net *fn = arg;
	struct fare_route *rt = ptr;

	fare_group_free_rcu(rcu_dereference_protected(rt->group,
						      lockdep_is_held(&fn->lock)));
	free_percpu(rt->ctr);
	kfree(rt);
}

/*
 * Called at namespace exit under @fn's lock, after the fare device is gone
 * and a grace period has passed since.
 */
void fare_table_destroy(struct fare_net *fn)
{
	lockdep_assert_held(&fn->lock);
	rhashtable_free_and_destroy(&fn->routes, fare_route_free_all, fn);
	INIT_LIST_HEAD(&fn->route_list);
	fn->num_routes = 0;
}

struct fare_plane *fare_plane_get_rcu(struct fare_net *fn, u32 id)
{
	if (!id || id > FARE_PLANE_ID_MAX)
		return NULL;
	return rcu_dereference_rtnl(fn->planes[id]);
}

static void fare_plane_free(struct rcu_head *head)
{
	struct fare_plane *plane = container_of(head, struct fare_plane, rcu);

	netdev_put(plane->dev, &plane->dev_tracker);
	free_percpu(plane->tx);
	kfree(plane);
}

void fare_plane_free_rcu(struct fare_plane *plane)
{
	if (plane)
		call_rcu(&plane->rcu, fare_plane_free);
}
