// SPDX-License-Identifier: GPL-2.0
/*
 * The namespace's flowlet table: one shared table indexed by the flow hash
 * (a TCP flow sends from several CPUs), sized by FARE_A_CONFIG_FLOWLET_SLOTS
 * and replaced whole when that changes. The packet path reads it under RCU
 * with the accessors in flowlet.h.
 */
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "flowlet.h"
#include "visibility.h"

/* An empty table of @slots (a power of two) slots, charged to the caller. */
struct fare_flowlets *fare_flowlets_alloc(u32 slots)
{
	struct fare_flowlets *ft;

	if (WARN_ON_ONCE(!is_power_of_2(slots)))
		return NULL;
	ft = kzalloc(sizeof(*ft), GFP_KERNEL_ACCOUNT);
	if (!ft)
		return NULL;
	ft->slot = kvcalloc(slots, sizeof(*ft->slot), GFP_KERNEL_ACCOUNT);
	if (!ft->slot) {
		kfree(ft);
		return NULL;
	}
	ft->mask = slots - 1;
	return ft;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_flowlets_alloc);

VISIBLE_IF_FARE_KUNIT void fare_flowlets_free(struct fare_flowlets *ft)
{
	if (ft) {
		kvfree(ft->slot);
		kfree(ft);
	}
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_flowlets_free);

static void fare_flowlets_free_rcu(struct rcu_head *head)
{
	fare_flowlets_free(container_of(head, struct fare_flowlets, rcu));
}

/*
 * Makes @fn's table, of fare_net.flowlet_slots slots, unless it has one:
 * under RTNL, before the namespace's fare device registers; takes the
 * lock. It then stays (replaced by resizes) until the namespace goes.
 */
int fare_flowlets_prepare(struct fare_net *fn)
{
	struct fare_flowlets *ft;
	int err = 0;

	ASSERT_RTNL();
	mutex_lock(&fn->lock);
	if (rcu_access_pointer(fn->flowlets))
		goto out;
	ft = fare_flowlets_alloc(fn->flowlet_slots);
	if (!ft) {
		err = -ENOMEM;
		goto out;
	}
	/* Published before the device registers, which orders it for xmit. */
	rcu_assign_pointer(fn->flowlets, ft);
out:
	mutex_unlock(&fn->lock);
	return err;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_flowlets_prepare);

/*
 * Sets @fn's flowlet table size to @slots (checked by the caller with
 * fare_flowlet_slots_check()), under the lock. Without a table yet (no
 * fare device) only the size is kept, for fare_flowlets_prepare(). With
 * one of another size, a new empty table replaces it and the old one goes
 * after a grace period: readers still on the old table finish their packet
 * there, and every flowlet starts anew on the new one, which may move a
 * flow once. The same size again changes nothing. On -ENOMEM nothing
 * changed.
 */
int fare_flowlets_resize(struct fare_net *fn, u32 slots)
{
	struct fare_flowlets *old, *ft;

	lockdep_assert_held(&fn->lock);
	old = rcu_dereference_protected(fn->flowlets,
					lockdep_is_held(&fn->lock));
	if (old && old->mask != slots - 1) {
		ft = fare_flowlets_alloc(slots);
		if (!ft)
			return -ENOMEM;
		rcu_assign_pointer(fn->flowlets, ft);
		call_rcu(&old->rcu, fare_flowlets_free_rcu);
	}
	fn->flowlet_slots = slots;
	return 0;
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_flowlets_resize);

/*
 * At namespace exit, under the lock, once no reader can be left (the
 * devices are gone and a grace period has passed). Tables replaced
 * earlier are freed by their RCU callbacks, which module exit waits for.
 */
void fare_flowlets_destroy(struct fare_net *fn)
{
	fare_flowlets_free(rcu_dereference_protected(fn->flowlets,
						     lockdep_is_held(&fn->lock)));
	RCU_INIT_POINTER(fn->flowlets, NULL);
}
EXPORT_SYMBOL_IF_FARE_KUNIT(fare_flowlets_destroy);
