// SPDX-License-Identifier: GPL-2.0
/*
 * Next-hop groups: a group's next hops (struct fare_group: made, finished
 * with its schedules and buckets, replaced whole, freed after a grace
 * period) and the shared groups routes point to (struct fare_nhg: named by
 * id, or anonymous and shared by content), under fare_net.lock.
 */
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include "nhg.h"
#include "limits.h"
#include "visibility.h"

/*
 * The per-CPU allocations of a group are sized by its next hops and tiers,
 * which the policy bounds (FARE_NEXTHOP_MAX, FARE_TIER_MAX): at most these
 * sizes, well below what the per-CPU allocator takes without a WARN.
 */
static_assert(struct_size_t(struct fare_group_tx, nh, FARE_NEXTHOP_MAX) +
	      FARE_NEXTHOP_MAX * sizeof(u64) <= PCPU_MIN_UNIT_SIZE / 4);
static_assert(ALIGN(struct_size_t(struct fare_spray, count, FARE_NEXTHOP_MAX),
		    __alignof__(struct fare_spray)) * (FARE_TIER_MAX + 1) <=
	      PCPU_MIN_UNIT_SIZE / 4);

/*
 * A group of @num_nh next hops, its per-hop arrays in the same allocation
 * after nh[]; nh[], weights[] and tiers[] are the caller's to fill before
 * fare_group_finish(). Until then it holds no per-CPU memory, so that a
 * route whose next hops an existing group already holds costs one small
 * allocation, freed at once (fare_group_discard()).
 */
static size_t fare_group_size(unsigned int num_nh)
{
	return struct_size_t(struct fare_group, nh, num_nh) +
	       num_nh * (sizeof(u32) + 2);
}

/*
 * The virtual queues of a group of @num_nh next hops: whole cache lines,
 * and a power of two, which kmalloc() aligns to its size.
 */
static size_t fare_group_vq_bytes(unsigned int num_nh)
{
	return roundup_pow_of_two(max_t(size_t, num_nh * sizeof(atomic64_t),
					L1_CACHE_BYTES));
}

struct fare_group *fare_group_alloc(unsigned int num_nh)
{
	struct fare_group *grp;

	if (WARN_ON_ONCE(!num_nh || num_nh > FARE_NEXTHOP_MAX))
		return NULL;
	grp = kzalloc(fare_group_size(num_nh), GFP_KERNEL_ACCOUNT);
	if (!grp)
		return NULL;
	grp->weights = (u32 *)&grp->nh[num_nh];
	grp->tiers = (u8 *)&grp->weights[num_nh];
	grp->tier_ord = grp->tiers + num_nh;
	grp->num_nh = num_nh;
	return grp;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_group_alloc);

/* Whether @a and @b hold the same next hops in the same order. */
bool fare_group_same(const struct fare_group *a, const struct fare_group *b)
{
	unsigned int i;

	if (a->num_nh != b->num_nh)
		return false;
	for (i = 0; i < a->num_nh; i++)
		if (a->nh[i].plane_id != b->nh[i].plane_id ||
		    a->nh[i].weight != b->nh[i].weight ||
		    a->nh[i].tier != b->nh[i].tier ||
		    a->nh[i].bandwidth != b->nh[i].bandwidth)
			return false;
	return true;
}

/* The anonymous groups by content hash (several may share one). */
static const struct rhashtable_params fare_nhg_anon_params = {
	.key_len = sizeof(u32),
	.key_offset = offsetof(struct fare_nhg, hash),
	.head_offset = offsetof(struct fare_nhg, anon),
	.automatic_shrinking = true,
};

static u32 fare_group_hash(const struct fare_group *grp, u32 seed)
{
	u32 h = jhash_1word(grp->num_nh, seed);
	unsigned int i;

	for (i = 0; i < grp->num_nh; i++)
		h = jhash_3words(grp->nh[i].plane_id, grp->nh[i].weight,
				 grp->nh[i].tier ^
				 (u32)grp->nh[i].bandwidth ^
				 (u32)(grp->nh[i].bandwidth >> 32), h);
	return h;
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
		unsigned int len = grp->sched[ord].len;

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
			/* The precomputed period too, anywhere in it. */
			if (len)
				st->cursor = get_random_u32_below(len);
		}
	}
}

/*
 * Precomputes each tier's period (fare_sched_build()) where it is at most
 * FARE_SCHED_MAX picks, into one allocation: grp->sched, then grp->seq.
 */
static int fare_group_sched(struct fare_group *grp)
{
	unsigned int ord, i, total = 0;
	struct fare_spray *scratch;
	u32 *w;
	u8 *seq;

	/* Built on the side, then copied into an allocation of its size. */
	scratch = kmalloc(struct_size(scratch, count, grp->num_nh) +
			  grp->num_nh * sizeof(u32) +
			  grp->num_tiers * FARE_SCHED_MAX, GFP_KERNEL);
	if (!scratch)
		return -ENOMEM;
	w = (u32 *)&scratch->count[grp->num_nh];
	seq = (u8 *)&w[grp->num_nh];
	grp->sched = kcalloc(grp->num_tiers, sizeof(*grp->sched),
			     GFP_KERNEL_ACCOUNT);
	if (!grp->sched) {
		kfree(scratch);
		return -ENOMEM;
	}
	for (ord = 0; ord < grp->num_tiers; ord++) {
		struct fare_sched *sc = &grp->sched[ord];

		for (i = 0; i < grp->num_nh; i++)
			if (grp->tier_ord[i] == ord)
				sc->members |= BIT_ULL(i);
		sc->off = total;
		sc->len = fare_sched_build(seq + total, FARE_SCHED_MAX,
					   grp->weights, sc->members,
					   grp->num_nh, w, scratch);
		total += sc->len;
	}
	grp->seq = kmemdup(seq, max(total, 1U), GFP_KERNEL_ACCOUNT);
	kfree(scratch);
	return grp->seq ? 0 : -ENOMEM;
}

/*
 * Ranks @grp's tiers (tier_ord[], num_tiers) and sizes its spray state,
 * from nh[]'s tiers; again and again if need be.
 */
static void fare_group_rank(struct fare_group *grp)
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
}

/*
 * The bytes @grp holds once fare_group_finish() has made its state (its
 * precomputed schedules counted only if made), with the fare_nhg that
 * names it and its slot in the id index: what the namespace's memory
 * budget counts for a group. Per-CPU state counts once per possible CPU.
 */
static size_t fare_group_bytes(const struct fare_group *grp)
{
	size_t seq = 0;
	unsigned int ord;

	if (grp->sched)
		for (ord = 0; ord < grp->num_tiers; ord++)
			seq += grp->sched[ord].len;
	return fare_kmalloc_bytes(fare_group_size(grp->num_nh)) +
	       fare_kmalloc_bytes(grp->num_tiers * sizeof(*grp->sched)) +
	       fare_kmalloc_bytes(max_t(size_t, seq, 1)) +
	       (grp->num_tiers > 1 ?
		fare_kmalloc_bytes(fare_group_vq_bytes(grp->num_nh)) : 0) +
	       fare_pcpu_bytes(fare_group_tx_size(grp->num_nh),
			       __alignof__(struct fare_group_tx)) +
	       fare_pcpu_bytes(grp->spray_size * grp->num_tiers,
			       __alignof__(struct fare_spray)) +
	       fare_kmalloc_bytes(sizeof(struct fare_nhg)) +
	       FARE_NHG_INDEX_BYTES;
}

/*
 * Once nh[] is filled and the group is to be used: ranks the tiers,
 * precomputes their schedules and allocates the per-CPU counters and one
 * spray state per distinct tier. Frees nothing on failure;
 * fare_group_discard() does.
 */
int fare_group_finish(struct fare_group *grp)
{
	unsigned int cpu;
	int err;

	grp->tx = __alloc_percpu_gfp(fare_group_tx_size(grp->num_nh),
				     __alignof__(struct fare_group_tx),
				     GFP_KERNEL_ACCOUNT);
	if (!grp->tx)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct fare_group_tx *gtx = per_cpu_ptr(grp->tx, cpu);

		u64_stats_init(&gtx->syncp);
		gtx->deficit.sent = (u64 *)((char *)gtx +
			struct_size(gtx, nh, grp->num_nh));
	}

	fare_group_rank(grp);
	if (WARN_ON_ONCE(grp->num_tiers > FARE_TIER_MAX + 1))
		return -EINVAL;
	if (grp->num_tiers > 1) {
		grp->vq = kzalloc(fare_group_vq_bytes(grp->num_nh),
				  GFP_KERNEL_ACCOUNT);
		if (!grp->vq)
			return -ENOMEM;
	}
	err = fare_group_sched(grp);
	if (err)
		return err;
	grp->spray = __alloc_percpu_gfp(grp->spray_size * grp->num_tiers,
					__alignof__(struct fare_spray),
					GFP_KERNEL_ACCOUNT);
	if (!grp->spray)
		return -ENOMEM;
	fare_group_spray_phase(grp);
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_group_finish);

/*
 * Carries the virtual queues of @old's next hops over to those of @grp on
 * the same plane, so that replacing a route keeps its congestion state.
 * Packets counted into @old after the copy are lost to @grp: approximate.
 */
void fare_group_carry_vq(struct fare_group *grp,
			 const struct fare_group *old)
{
	unsigned int i, j;

	if (!grp->vq || !old->vq)
		return;
	for (i = 0; i < grp->num_nh; i++)
		for (j = 0; j < old->num_nh; j++)
			if (grp->nh[i].plane_id == old->nh[j].plane_id)
				atomic64_set(&grp->vq[i],
					     atomic64_read(&old->vq[j]));
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
	u8 prev[FARE_BUCKETS], map[FARE_NEXTHOP_MAX];	/* on the stack */
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

/* Sums next hop @i's per-CPU counters, for the stats. */
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
	kfree(grp->vq);
	kfree(grp->sched);
	kfree(grp->seq);
	kfree(grp);
}

void fare_group_free_rcu(struct fare_group *grp)
{
	if (grp)
		call_rcu(&grp->rcu, fare_group_free);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_group_free_rcu);

/* Frees @grp now: no reader has seen it (it was never published). */
void fare_group_discard(struct fare_group *grp)
{
	if (grp)
		fare_group_free(&grp->rcu);
}

/* ---- shared groups ---- */

/*
 * Finishes @grp (fare_group_finish()) within @fn's memory budget, where
 * @credit charged bytes (a group the request replaces) are about to go:
 * refused before any per-CPU state is made if the group passes the budget
 * without its schedules already, else charged with its exact size, which
 * grp->mem keeps for fare_nhg_free(). Under @fn's lock; on error
 * nothing is charged and @grp is the caller's to discard.
 */
static int fare_group_finish_charged(struct fare_net *fn,
				     struct fare_group *grp, size_t credit,
				     struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&fn->lock);
	fare_group_rank(grp);
	err = fare_budget_check(fn, fare_group_bytes(grp), credit, extack);
	if (err)
		return err;
	err = fare_group_finish(grp);
	if (err) {
		NL_SET_ERR_MSG(extack, "no memory for the group");
		return err;
	}
	grp->mem = fare_group_bytes(grp);
	return fare_budget_charge(fn, grp->mem, credit, extack);
}

/* The bytes @nhg's group holds against the budget; under @fn's lock. */
size_t fare_nhg_bytes(struct fare_net *fn, struct fare_nhg *nhg)
{
	return rcu_dereference_protected(nhg->grp,
					 lockdep_is_held(&fn->lock))->mem;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_bytes);

/* Under RTNL, before the namespace's fare device can exist. */
int fare_nhgs_init(struct fare_net *fn)
{
	xa_init_flags(&fn->nhgs, XA_FLAGS_ALLOC);
	fn->nhg_next = FARE_GROUP_ID_MAX + 1U;
	fn->max_groups = FARE_MAX_GROUPS_DEFAULT;
	fn->nhg_seed = get_random_u32();
	return rhltable_init(&fn->nhg_anon, &fare_nhg_anon_params);
}

static void fare_nhg_free(struct fare_net *fn, struct fare_nhg *nhg)
{
	xa_erase(&fn->nhgs, nhg->id);
	if (fare_nhg_anon(nhg))
		rhltable_remove(&fn->nhg_anon, &nhg->anon,
				fare_nhg_anon_params);
	fn->num_groups--;
	fare_budget_uncharge(fn, fare_nhg_bytes(fn, nhg));
	fare_group_free_rcu(rcu_dereference_protected(nhg->grp,
						      lockdep_is_held(&fn->lock)));
	kfree_rcu(nhg, rcu);
}

/* Under @fn's lock. */
struct fare_nhg *fare_nhg_find(struct fare_net *fn, u32 id)
{
	lockdep_assert_held(&fn->lock);
	return xa_load(&fn->nhgs, id);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_find);

/* Drops a route's reference; an anonymous group goes with its last. */
void fare_nhg_put(struct fare_net *fn, struct fare_nhg *nhg)
{
	lockdep_assert_held(&fn->lock);
	if (WARN_ON_ONCE(!nhg->refs))
		return;
	if (!--nhg->refs && fare_nhg_anon(nhg))
		fare_nhg_free(fn, nhg);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_put);

static struct fare_nhg *fare_nhg_alloc(struct fare_group *grp)
{
	struct fare_nhg *nhg = kzalloc(sizeof(*nhg), GFP_KERNEL_ACCOUNT);

	if (nhg)
		RCU_INIT_POINTER(nhg->grp, grp);
	return nhg;
}

/*
 * The anonymous group holding the next hops of @grp (filled, not finished:
 * no reader has seen it), with a reference taken for a route. Its flow
 * buckets are those @prev's (the route's previous next hops, or NULL)
 * become with the least movement (fare_group_set_buckets()): an existing
 * group of the same next hops is used, and @grp freed at once, only if
 * its buckets are exactly those, as for every route moved together from
 * one group to the same new next hops; else (another history gave it
 * other buckets, and taking them would move more of the route's flows
 * than its new weights need) or if none exists, @grp is finished and
 * becomes a new group, its virtual queues carried over from @prev. A new
 * route (@prev NULL) has no flows to keep and takes any group of its next
 * hops. @slack groups are about to go (the route's own anonymous group
 * that only it uses), so the limit allows as many more.
 * Under @fn's lock; on error @grp is freed.
 */
int fare_nhg_get_anon(struct fare_net *fn, struct fare_group *grp,
		      const struct fare_group *prev, unsigned int slack,
		      size_t credit, struct fare_nhg **nhgp,
		      struct netlink_ext_ack *extack)
{
	u32 hash = fare_group_hash(grp, fn->nhg_seed);
	const struct fare_group *have;
	struct rhlist_head *list, *pos;
	struct fare_nhg *nhg, *found = NULL;
	int err;

	lockdep_assert_held(&fn->lock);
	/*
	 * A new route takes any group of its next hops, so its buckets are
	 * built only if it makes one: most routes share a group, and
	 * building 256 buckets only to throw them away was a third of a
	 * route add's time in fare.ko.
	 */
	if (prev)
		fare_group_set_buckets(grp, prev);
	/* RCU for the table's own checks; the lock keeps what it finds. */
	rcu_read_lock();
	list = rhltable_lookup(&fn->nhg_anon, &hash, fare_nhg_anon_params);
	rhl_for_each_entry_rcu(nhg, pos, list, anon) {
		have = rcu_dereference_protected(nhg->grp,
						 lockdep_is_held(&fn->lock));
		if (!fare_group_same(have, grp) ||
		    (prev && memcmp(have->buckets, grp->buckets,
				    sizeof(grp->buckets))))
			continue;
		found = nhg;
		break;
	}
	rcu_read_unlock();
	if (found) {
		found->refs++;
		fare_group_discard(grp);
		*nhgp = found;
		return 0;
	}
	err = fare_limit_groups(fn->num_groups - slack, fn->max_groups, extack);
	if (err)
		goto err_free;
	if (!prev)
		fare_group_set_buckets(grp, NULL);
	err = fare_group_finish_charged(fn, grp, credit, extack);
	if (err)
		goto err_free;
	err = -ENOMEM;
	nhg = fare_nhg_alloc(grp);
	if (!nhg)
		goto err_uncharge;
	err = xa_alloc_cyclic(&fn->nhgs, &nhg->id, nhg,
			      XA_LIMIT(FARE_GROUP_ID_MAX + 1U, U32_MAX),
			      &fn->nhg_next, GFP_KERNEL_ACCOUNT);
	if (err < 0) {
		kfree(nhg);
		if (err == -EBUSY) {
			fare_budget_uncharge(fn, grp->mem);
			NL_SET_ERR_MSG(extack, "no anonymous group id left");
			goto err_free;
		}
		goto err_uncharge;
	}
	nhg->hash = hash;
	err = rhltable_insert(&fn->nhg_anon, &nhg->anon, fare_nhg_anon_params);
	if (err) {
		xa_erase(&fn->nhgs, nhg->id);
		kfree(nhg);
		goto err_uncharge;
	}
	if (prev)
		fare_group_carry_vq(grp, prev);
	nhg->refs = 1;
	fn->num_groups++;
	*nhgp = nhg;
	return 0;

err_uncharge:
	fare_budget_uncharge(fn, grp->mem);
	NL_SET_ERR_MSG(extack, "no memory for the group");
err_free:
	fare_group_discard(grp);
	return err;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_get_anon);

/*
 * Makes named group @id hold @grp (filled, not finished): a new group, or,
 * with @replace, new next hops for an existing one, which every route
 * using it follows at once. Under @fn's lock; on error @grp is freed.
 */
int fare_nhg_set(struct fare_net *fn, u32 id, struct fare_group *grp,
		 bool replace, struct fare_nhg **nhgp,
		 struct netlink_ext_ack *extack)
{
	struct fare_group *old;
	struct fare_nhg *nhg;
	int err;

	lockdep_assert_held(&fn->lock);
	if (!id || id > FARE_GROUP_ID_MAX) {
		NL_SET_ERR_MSG(extack,
			       "group id must be 1..2147483647 (higher ids are anonymous)");
		err = -EINVAL;
		goto err_free;
	}
	nhg = fare_nhg_find(fn, id);
	if (nhg && !replace) {
		NL_SET_ERR_MSG(extack, "group already exists (use replace)");
		err = -EEXIST;
		goto err_free;
	}
	if (!nhg) {
		err = fare_limit_groups(fn->num_groups, fn->max_groups, extack);
		if (err)
			goto err_free;
	}
	/* Refusals first: the per-CPU state is made only for a group kept. */
	err = fare_group_finish_charged(fn, grp,
					nhg ? fare_nhg_bytes(fn, nhg) : 0,
					extack);
	if (err)
		goto err_free;
	if (nhg) {
		/* Readers see the old next hops or the new, never a mix. */
		old = rcu_dereference_protected(nhg->grp,
						lockdep_is_held(&fn->lock));
		fare_group_set_buckets(grp, old);
		fare_group_carry_vq(grp, old);
		rcu_assign_pointer(nhg->grp, grp);
		fare_budget_uncharge(fn, old->mem);
		fare_group_free_rcu(old);
		*nhgp = nhg;
		return 0;
	}
	err = -ENOMEM;
	nhg = fare_nhg_alloc(grp);
	if (!nhg)
		goto err_uncharge;
	nhg->id = id;
	err = xa_insert(&fn->nhgs, id, nhg, GFP_KERNEL_ACCOUNT);
	if (err) {
		kfree(nhg);
		goto err_uncharge;
	}
	fare_group_set_buckets(grp, NULL);
	fn->num_groups++;
	*nhgp = nhg;
	return 0;

err_uncharge:
	fare_budget_uncharge(fn, grp->mem);
	NL_SET_ERR_MSG(extack, "no memory for the group");
err_free:
	fare_group_discard(grp);
	return err;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_set);

/*
 * Named group @id if it may be deleted (no route uses it), else an error
 * with its extack message. Under @fn's lock, which keeps the answer true
 * until fare_nhg_remove().
 */
struct fare_nhg *fare_nhg_deletable(struct fare_net *fn, u32 id,
				    struct netlink_ext_ack *extack)
{
	struct fare_nhg *nhg;

	lockdep_assert_held(&fn->lock);
	nhg = fare_nhg_find(fn, id);
	if (!nhg) {
		NL_SET_ERR_MSG(extack, "no such group");
		return ERR_PTR(-ENOENT);
	}
	if (fare_nhg_anon(nhg)) {
		NL_SET_ERR_MSG(extack, "an anonymous group goes with its last route");
		return ERR_PTR(-EINVAL);
	}
	if (nhg->refs) {
		NL_SET_ERR_MSG(extack, "group in use by routes (delete or move them first)");
		return ERR_PTR(-EBUSY);
	}
	return nhg;
}

/* Removes @nhg, which fare_nhg_deletable() returned under the same lock. */
void fare_nhg_remove(struct fare_net *fn, struct fare_nhg *nhg)
{
	lockdep_assert_held(&fn->lock);
	fare_nhg_free(fn, nhg);
}

/* Deletes named group @id, which no route may use. Under @fn's lock. */
int fare_nhg_del(struct fare_net *fn, u32 id, struct netlink_ext_ack *extack)
{
	struct fare_nhg *nhg = fare_nhg_deletable(fn, id, extack);

	if (IS_ERR(nhg))
		return PTR_ERR(nhg);
	fare_nhg_remove(fn, nhg);
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_nhg_del);

/*
 * At namespace exit, under the lock, after the routes (which take the
 * anonymous groups with them): the named groups.
 */
void fare_nhgs_destroy(struct fare_net *fn)
{
	struct fare_nhg *nhg;
	unsigned long id;

	lockdep_assert_held(&fn->lock);
	xa_for_each(&fn->nhgs, id, nhg)
		fare_nhg_free(fn, nhg);
	xa_destroy(&fn->nhgs);
	rhltable_destroy(&fn->nhg_anon);
}
