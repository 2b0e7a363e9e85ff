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
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <linux/user_namespace.h>
#include "route.h"
#include "stats.h"
#include "visibility.h"

/* The table's hash and compare: lpm.h's, which the benchmark runs too. */
static u32 fare_route_hashfn(const void *data, u32 len, u32 seed)
{
	return fare_prefix_hash(data, seed);
}

static int fare_route_cmpfn(struct rhashtable_compare_arg *arg,
			    const void *obj)
{
	const struct fare_route *rt = obj;

	return !fare_prefix_equal(arg->key, &rt->key);
}

static const struct rhashtable_params fare_route_params = {
	.key_len = sizeof(struct fare_prefix),
	.key_offset = offsetof(struct fare_route, key),
	.head_offset = offsetof(struct fare_route, node),
	.automatic_shrinking = true,
	.hashfn = fare_route_hashfn,
	.obj_cmpfn = fare_route_cmpfn,
};

static_assert(sizeof(struct fare_prefix) == 20);

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
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_prefix_make);

/* ---- the aggregates' interval index ---- */

static bool fare_route_is_agg(const struct fare_route *rt)
{
	return rt->key.plen < fare_family_bits(rt->key.family);
}

/*
 * Replaces the interval index of @family's aggregates after a change to
 * them: @gone left, @added came (either may be NULL; a replaced route is
 * both), and fn->num_agg already counts the result. The new index is
 * built from the old one's members, or, when there was none, from the
 * route list (once the aggregates are down to FARE_AGG_MAX / 2, so that
 * walking every route is rare). Without memory, or with more than
 * FARE_AGG_MAX aggregates, there is no index and lookups probe each
 * length: always correct, so this cannot fail. Under @fn's lock.
 */
static void fare_agg_update(struct fare_net *fn, u8 family,
			    struct fare_route *gone, struct fare_route *added)
{
	int fam = family == AF_INET6;
	unsigned int count = fn->num_agg[fam], m = 0, i;
	struct fare_agg *old, *new = NULL;
	struct fare_route *rt;
	struct rb_node *node;

	lockdep_assert_held(&fn->lock);
	old = rcu_dereference_protected(fn->agg[fam],
					lockdep_is_held(&fn->lock));
	if (count > FARE_AGG_MAX || (!old && count > FARE_AGG_MAX / 2))
		goto publish;
	new = kvmalloc(struct_size(new, start, 2 * count + 1) +
		       (2 * count + 1 + count) * sizeof(void *),
		       GFP_KERNEL_ACCOUNT);
	if (!new)
		goto publish;
	new->rt = (void **)&new->start[2 * count + 1];
	new->members = (struct fare_route **)&new->rt[2 * count + 1];
	/* m counts every member found; only the first count are kept. */
	if (old) {
		for (i = 0; i < old->m; i++)
			if (old->members[i] != gone && m++ < count)
				new->members[m - 1] = old->members[i];
		if (added && m++ < count)
			new->members[m - 1] = added;
	} else {
		for (node = rb_first(&fn->route_tree); node;
		     node = rb_next(node)) {
			rt = rb_entry(node, struct fare_route, tree);
			if (rt->key.family == family && fare_route_is_agg(rt) &&
			    m++ < count)
				new->members[m - 1] = rt;
		}
	}
	if (m != count) {
		/* Out of step with the table: not to be trusted. */
		kvfree(new);
		new = NULL;
		goto publish;
	}
	new->m = m;
	new->n = fare_agg_build(new->start, new->rt, (void **)new->members,
				m, offsetof(struct fare_route, key));
publish:
	rcu_assign_pointer(fn->agg[fam], new);
	if (old)
		kvfree_rcu(old, rcu);
}

/* The interval index of @family's aggregates under RCU, or NULL. */
static struct fare_agg *fare_agg_rcu(struct fare_net *fn, u8 family)
{
	return rcu_dereference(fn->agg[family == AF_INET6]);
}

int fare_table_init(struct fare_net *fn)
{
	int err;

	fn->route_tree = RB_ROOT;
	fn->dump_gen = 1;
	/* Per-route counters cost per-CPU memory per route: opt-in. */
	fn->route_stats = false;
	err = fare_nhgs_init(fn);
	if (err)
		return err;
	err = rhashtable_init(&fn->routes, &fare_route_params);
	if (err) {
		rhltable_destroy(&fn->nhg_anon);
		return err;
	}
	/*
	 * Empty indexes, so that the first aggregate walks no route list
	 * (without memory, none: fare_table_destroy() frees what there is).
	 */
	mutex_lock(&fn->lock);
	fare_agg_update(fn, AF_INET, NULL, NULL);
	fare_agg_update(fn, AF_INET6, NULL, NULL);
	mutex_unlock(&fn->lock);
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_table_init);

struct fare_route *fare_route_find(struct fare_net *fn,
				   const struct fare_prefix *key)
{
	return rhashtable_lookup_fast(&fn->routes, key, fare_route_params);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_find);

static void *fare_route_probe(void *table, const struct fare_prefix *key)
{
	return rhashtable_lookup(table, key, fare_route_params);
}

/* Under RCU. */
struct fare_route *fare_route_lookup(struct fare_net *fn, u8 family,
				     const void *daddr)
{
	struct fare_agg *agg = fare_agg_rcu(fn, family);

	if (!agg)
		return fare_lpm_index(fare_plens(fn, family), NULL, NULL, 0,
				      family, daddr, fare_route_probe,
				      &fn->routes);
	return fare_lpm_index(fare_plens(fn, family), agg->start, agg->rt,
			      agg->n, family, daddr, fare_route_probe,
			      &fn->routes);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_lookup);

/*
 * The order of routes in dumps: by family, then address, then prefix
 * length (a total order on keys, which are masked).
 */
static int fare_prefix_cmp(const struct fare_prefix *a,
			   const struct fare_prefix *b)
{
	int r;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	r = memcmp(a->addr, b->addr, sizeof(a->addr));
	return r ?: (int)a->plen - (int)b->plen;
}

static bool fare_route_less(struct rb_node *a, const struct rb_node *b)
{
	return fare_prefix_cmp(&rb_entry(a, struct fare_route, tree)->key,
			       &rb_entry(b, struct fare_route, tree)->key) < 0;
}

/*
 * The first route whose key comes after @key (fare_prefix_cmp()), whether
 * or not a route of @key exists: where a dump resumes. With @key NULL,
 * the first route. NULL if there is none. Under @fn's lock.
 */
struct fare_route *fare_route_after(struct fare_net *fn,
				    const struct fare_prefix *key)
{
	struct rb_node *node = fn->route_tree.rb_node;
	struct fare_route *rt, *after = NULL;

	lockdep_assert_held(&fn->lock);
	if (!key) {
		node = rb_first(&fn->route_tree);
		return node ? rb_entry(node, struct fare_route, tree) : NULL;
	}
	while (node) {
		rt = rb_entry(node, struct fare_route, tree);
		if (fare_prefix_cmp(&rt->key, key) > 0) {
			after = rt;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return after;
}

int fare_route_insert(struct fare_net *fn, struct fare_route *rt)
{
	int fam = rt->key.family == AF_INET6;
	int err;

	lockdep_assert_held(&fn->lock);
	err = rhashtable_insert_fast(&fn->routes, &rt->node, fare_route_params);
	if (err)
		return err;
	rb_add(&rt->tree, &fn->route_tree, fare_route_less);
	fn->num_routes++;
	if (!fn->plen_count[fam][rt->key.plen]++)
		set_bit(rt->key.plen, fare_plens(fn, rt->key.family));
	if (fare_route_is_agg(rt)) {
		fn->num_agg[fam]++;
		fare_agg_update(fn, rt->key.family, NULL, rt);
	}
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_insert);

/* Puts @new, of the same key, in @old's place in the table and the tree. */
int fare_route_swap(struct fare_net *fn, struct fare_route *old,
		    struct fare_route *new)
{
	int err;

	lockdep_assert_held(&fn->lock);
	err = rhashtable_replace_fast(&fn->routes, &old->node, &new->node,
				      fare_route_params);
	if (err)
		return err;
	rb_replace_node(&old->tree, &new->tree, &fn->route_tree);
	if (fare_route_is_agg(new))
		fare_agg_update(fn, new->key.family, old, new);
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_swap);

void fare_route_remove(struct fare_net *fn, struct fare_route *rt)
{
	int fam = rt->key.family == AF_INET6;

	lockdep_assert_held(&fn->lock);
	rhashtable_remove_fast(&fn->routes, &rt->node, fare_route_params);
	rb_erase(&rt->tree, &fn->route_tree);
	fn->num_routes--;
	if (!--fn->plen_count[fam][rt->key.plen])
		clear_bit(rt->key.plen, fare_plens(fn, rt->key.family));
	if (fare_route_is_agg(rt)) {
		fn->num_agg[fam]--;
		fare_agg_update(fn, rt->key.family, rt, NULL);
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_remove);

/* ---- routes ---- */

static void fare_route_free_cb(struct rcu_head *head)
{
	struct fare_route *rt = container_of(head, struct fare_route, rcu);

	kfree(rt);
}

/*
 * A route, with room for @stats (its counters, which it then owns) if not
 * NULL; its key, mode, group and place in the table are the caller's.
 */
struct fare_route *fare_route_alloc(struct fare_route_stats *stats)
{
	struct fare_route_ext *ext;
	struct fare_route *rt;

	static_assert(sizeof(struct fare_route) <= 64);
	static_assert(offsetof(struct fare_route_ext, rt) == 0);
	if (!stats)
		return kzalloc(sizeof(*rt), GFP_KERNEL_ACCOUNT);
	ext = kzalloc(sizeof(*ext), GFP_KERNEL_ACCOUNT);
	if (!ext)
		return NULL;
	ext->rt.flags = FARE_ROUTE_F_STATS;
	RCU_INIT_POINTER(ext->stats, stats);
	return &ext->rt;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_alloc);

/* The route's counters under @fn's lock, or NULL if it has none. */
struct fare_route_stats *fare_route_stats_locked(struct fare_net *fn,
						 struct fare_route *rt)
{
	if (!(rt->flags & FARE_ROUTE_F_STATS))
		return NULL;
	return rcu_dereference_protected(fare_route_ext(rt)->stats,
					 lockdep_is_held(&fn->lock));
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_stats_locked);

/*
 * What a route holds against the namespace's memory budget: the object,
 * its share of the table's bucket arrays and, if it has them, counters
 * for @stats_nh next hops (0: none).
 */
VISIBLE_IF_FARE_KUNIT size_t fare_route_bytes(unsigned int stats_nh)
{
	if (!stats_nh)
		return fare_kmalloc_bytes(sizeof(struct fare_route)) +
		       FARE_ROUTE_INDEX_BYTES;
	return fare_kmalloc_bytes(sizeof(struct fare_route_ext)) +
	       FARE_ROUTE_INDEX_BYTES + fare_route_stats_bytes(stats_nh);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_bytes);

/* What @rt holds, as charged; under @fn's lock. */
VISIBLE_IF_FARE_KUNIT size_t fare_route_held(struct fare_net *fn,
					     struct fare_route *rt)
{
	struct fare_route_stats *rst = fare_route_stats_locked(fn, rt);

	return fare_route_bytes(rst ? rst->n : 0);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_held);

/* Sets the memory budget and the text of its refusal. */
void fare_budget_set(struct fare_budget *b, u64 budget)
{
	spin_lock(&b->lock);
	b->limit = budget;
	fare_mem_msg_format(b->msg, budget);
	spin_unlock(&b->lock);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_budget_set);

/*
 * The budget of namespace @net (NULL: the initial one's), when it is made:
 * smaller in a namespace a user namespace's root can make.
 */
void fare_budget_init(struct fare_budget *b, const struct net *net)
{
	spin_lock_init(&b->lock);
	b->used = 0;
	fare_budget_set(b, net && net->user_ns != &init_user_ns ?
			FARE_MEMORY_BUDGET_DEFAULT :
			FARE_MEMORY_BUDGET_HOST_DEFAULT);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_budget_init);

/* The budget @fn's routes and groups held, when they are gone. */
void fare_budget_release(struct fare_net *fn)
{
	fare_budget_uncharge(fn, fn->mem_held);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_budget_release);

/*
 * Drops what @rt holds: its group's reference, its counters and their
 * charge.
 */
static void fare_route_release(struct fare_net *fn, struct fare_route *rt)
{
	struct fare_nhg *nhg;

	fare_budget_uncharge(fn, fare_route_held(fn, rt));
	nhg = rcu_dereference_protected(rt->nhg, lockdep_is_held(&fn->lock));
	if (nhg)
		fare_nhg_put(fn, nhg);
	fare_route_stats_free_rcu(fare_route_stats_locked(fn, rt));
}

/*
 * Frees a route that is no longer reachable by new readers; under
 * @fn's lock, which serialises the writers of rt->nhg and the groups.
 */
void fare_route_free(struct fare_net *fn, struct fare_route *rt)
{
	fare_route_release(fn, rt);
	call_rcu(&rt->rcu, fare_route_free_cb);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_free);

static void fare_route_free_all(void *ptr, void *arg)
{
	struct fare_net *fn = arg;
	struct fare_route *rt = ptr;

	fare_route_release(fn, rt);
	kfree(rt);
}

/*
 * Called at namespace exit under @fn's lock, after the fare device is gone
 * and a grace period has passed since. The routes go first, taking the
 * anonymous groups with them; then the named groups.
 */
void fare_table_destroy(struct fare_net *fn)
{
	unsigned int i;

	lockdep_assert_held(&fn->lock);
	rhashtable_free_and_destroy(&fn->routes, fare_route_free_all, fn);
	fn->route_tree = RB_ROOT;
	fn->num_routes = 0;
	for (i = 0; i < 2; i++) {
		kvfree(rcu_dereference_protected(fn->agg[i],
						 lockdep_is_held(&fn->lock)));
		RCU_INIT_POINTER(fn->agg[i], NULL);
		fn->num_agg[i] = 0;
	}
	fare_nhgs_destroy(fn);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_table_destroy);

/*
 * Counters for a route over @nhg, if it is to have them (@stats): fresh
 * with every ROUTE_NEW, as for new next hops. Under the lock.
 */
static int fare_route_stats_new(struct fare_net *fn, bool stats,
				struct fare_nhg *nhg,
				struct fare_route_stats **rstp,
				struct netlink_ext_ack *extack)
{
	*rstp = NULL;
	if (!stats)
		return 0;
	*rstp = fare_route_stats_alloc(rcu_dereference_protected(nhg->grp,
								 lockdep_is_held(&fn->lock)));
	if (!*rstp) {
		NL_SET_ERR_MSG(extack, "no memory for the route's counters");
		return -ENOMEM;
	}
	return 0;
}

/*
 * @rt in place: its modes, its group @nhg (whose reference it takes, and
 * drops its old group's) and its counters @rst, which it must have had as
 * it has them now (NULL or not). Readers see the old group or the new
 * one, never a mix. Under the lock.
 */
static void fare_route_update(struct fare_net *fn, struct fare_route *rt,
			      u8 mode, u8 tcp_mode, struct fare_nhg *nhg,
			      struct fare_route_stats *rst)
{
	struct fare_route_stats *old_rst = fare_route_stats_locked(fn, rt);
	struct fare_nhg *old;

	old = rcu_dereference_protected(rt->nhg, lockdep_is_held(&fn->lock));
	WRITE_ONCE(rt->mode, mode);
	WRITE_ONCE(rt->tcp_mode, tcp_mode);
	rcu_assign_pointer(rt->nhg, nhg);
	if (rst)
		rcu_assign_pointer(fare_route_ext(rt)->stats, rst);
	fare_route_stats_free_rcu(old_rst);
	fare_nhg_put(fn, old);
}

/*
 * @rt (NULL: a new route at @key) made to steer in @mode (its TCP packets
 * in @tcp_mode, unless FARE_MODE_DEFAULT) by @nhg, with
 * counters of its own if @stats: in place when it keeps or lacks counters
 * as it did, else as a new object in its place. Takes the route's
 * reference on @nhg, which it drops on failure; *@rtp is the route. Under
 * the lock.
 */
int fare_route_set(struct fare_net *fn, struct fare_route *rt,
		   const struct fare_prefix *key, u8 mode, u8 tcp_mode,
		   bool stats, struct fare_nhg *nhg, struct fare_route **rtp,
		   struct netlink_ext_ack *extack)
{
	const struct fare_group *grp;
	struct fare_route_stats *rst;
	struct fare_route *new;
	size_t bytes, held, credit;
	int err;

	lockdep_assert_held(&fn->lock);
	grp = rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
	/*
	 * Charged whole; what @rt held is released with it below, and so is
	 * its old group if it is anonymous and only @rt uses it.
	 */
	bytes = fare_route_bytes(stats ? grp->num_nh : 0);
	held = 0;
	credit = 0;
	if (rt) {
		struct fare_nhg *old = rcu_dereference_protected(rt->nhg,
					lockdep_is_held(&fn->lock));

		held = fare_route_held(fn, rt);
		credit = held;
		if (old != nhg && old->refs == 1 && fare_nhg_anon(old))
			credit += fare_nhg_bytes(fn, old);
	}
	err = fare_budget_charge(fn, bytes, credit, extack);
	if (err) {
		fare_nhg_put(fn, nhg);
		return err;
	}
	err = fare_route_stats_new(fn, stats, nhg, &rst, extack);
	if (err) {
		fare_budget_uncharge(fn, bytes);
		fare_nhg_put(fn, nhg);
		return err;
	}
	if (rt && !!rst == !!(rt->flags & FARE_ROUTE_F_STATS)) {
		fare_route_update(fn, rt, mode, tcp_mode, nhg, rst);
		fare_budget_uncharge(fn, held);
		*rtp = rt;
		return 0;
	}
	/* A new route, or one that gains or loses its counters: new object. */
	new = fare_route_alloc(rst);
	if (!new) {
		NL_SET_ERR_MSG(extack, "no memory for the route");
		fare_budget_uncharge(fn, bytes);
		fare_route_stats_free_rcu(rst);
		fare_nhg_put(fn, nhg);
		return -ENOMEM;
	}
	new->key = *key;
	new->mode = mode;
	new->tcp_mode = tcp_mode;
	RCU_INIT_POINTER(new->nhg, nhg);
	if (rt) {
		/* Same place in the table and the list; dumps resume by seq. */
		err = fare_route_swap(fn, rt, new);
		if (err)
			NL_SET_ERR_MSG(extack,
				       "cannot replace the route in the table");
	} else {
		err = fare_route_insert(fn, new);
		if (err)
			NL_SET_ERR_MSG(extack,
				       "cannot insert the route into the table");
	}
	if (err) {
		/* Never published: its counters and group reference go. */
		fare_route_free(fn, new);
		return err;
	}
	/* Readers of @rt finish with its old group and counters. */
	if (rt)
		fare_route_free(fn, rt);
	*rtp = new;
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_route_set);
