// SPDX-License-Identifier: GPL-2.0
/*
 * A plane's gateways as the neighbour tables see them. A plane whose
 * carrier is up but whose gateway stopped answering ARP or ND (a leaf
 * whose control plane or ASIC died) would keep its share of the traffic
 * until the daemon's BGP hold timer ended. As the kernel's own multipath
 * does with net.ipv4.fib_multipath_use_neigh, fare stops choosing such a
 * gateway, without the daemon, and takes it back when it answers.
 *
 * The packet path pays nothing for it: a netevent notifier follows every
 * neighbour update (NETEVENT_NEIGH_UPDATE) and, when the entry of a
 * plane's gateway turns NUD_FAILED, sets that gateway's bit in
 * plane->gw_failed and bumps fare_net.plane_gen, so every CPU's next
 * scan of the planes (decide.c) leaves it out, as it leaves out a plane
 * that is down. A valid state (REACHABLE, STALE, DELAY, PROBE, PERMANENT,
 * NOARP) clears the bit; INCOMPLETE and NONE leave it as it was: a new
 * gateway still resolving is tried, a failed one being solicited again is
 * not. An entry that leaves the table (garbage collection, ip neigh del,
 * a flush) leaves the bit as it was too; the plane's device going down
 * and up clears it (fare_gw_plane_reset()).
 *
 * A gateway nobody sends to is never resolved again: the kernel solicits
 * a FAILED entry anew only when a packet is sent to it
 * (__neigh_event_send()). So while a gateway is failed, a delayed work
 * calls neigh_event_send() on its entry every FARE_GW_PROBE_INTERVAL
 * (creating it if it was collected): a FAILED entry goes back to
 * INCOMPLETE and sends the table's mcast_probes broadcast solicitations,
 * retrans_time apart, without any data packet; one that is INCOMPLETE
 * already is left to finish. An answer makes the entry REACHABLE, whose
 * event gives the plane back. IPv6 routes do the like with rt6_probe() at
 * most every rtr_probe_interval; IPv4 multipath never probes a FAILED
 * gateway and waits for the entry to be collected.
 *
 * Each such change is a plane event (PLANE_NEW with the gateway's
 * FARE_PLANE_F_GW*_FAILED flag set or cleared), as a plane's carrier is:
 * the neighbour events come in atomic context, so they mark the plane in
 * fare_net.gw_notify and a work item sends the events. Changes that
 * come faster than it runs make one event, which says how things are
 * when it is sent.
 */
#include <net/arp.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include "gateway.h"
#include "netlink.h"
#include "plane.h"

/* The IPv6 neighbour table, if IPv6 is there (not ipv6.disable=1). */
static struct neigh_table *fare_nd_tbl(void)
{
	return IS_ENABLED(CONFIG_IPV6) ? READ_ONCE(ipv6_stub->nd_tbl) : NULL;
}

/* Whether @n is @plane's gateway of kind @bit (FARE_PLANE_C_*). */
static bool fare_gw_is(const struct fare_plane *plane, u8 bit,
		       const struct neighbour *n)
{
	if (n->dev != plane->dev)
		return false;
	if (bit == FARE_PLANE_C_GW4)
		return plane->has_gw4 &&
		       *(const __be32 *)n->primary_key == plane->gw4;
	return plane->has_gw6 &&
	       ipv6_addr_equal((const struct in6_addr *)n->primary_key,
			       &plane->gw6);
}

/* Arms the probe work unless the namespace goes. Under gw_lock. */
static void fare_gw_arm(struct fare_net *fn)
{
	lockdep_assert_held(&fn->gw_lock);
	if (!fn->gw_exiting)
		schedule_delayed_work(&fn->gw_probe, FARE_GW_PROBE_INTERVAL);
}

/* @plane's gateways changed: an event for it soon. Under gw_lock. */
static void fare_gw_announce(struct fare_net *fn, struct fare_plane *plane)
{
	lockdep_assert_held(&fn->gw_lock);
	if (fn->gw_exiting)
		return;
	__set_bit(plane->id, fn->gw_notify);
	schedule_work(&fn->gw_notify_work);
}

/* The plane events fare_gw_announce() asked for, each plane's as it is. */
static void fare_gw_notify_work(struct work_struct *work)
{
	struct fare_net *fn = container_of(work, struct fare_net,
					   gw_notify_work);
	DECLARE_BITMAP(ids, FARE_PLANE_ID_MAX + 1);
	struct fare_plane *plane;
	unsigned int id;

	spin_lock_bh(&fn->gw_lock);
	bitmap_copy(ids, fn->gw_notify, FARE_PLANE_ID_MAX + 1);
	bitmap_zero(fn->gw_notify, FARE_PLANE_ID_MAX + 1);
	spin_unlock_bh(&fn->gw_lock);

	rcu_read_lock();
	for_each_set_bit(id, ids, FARE_PLANE_ID_MAX + 1) {
		plane = rcu_dereference(fn->planes[id]);
		/* Gone or replaced: its own PLANE_DEL or PLANE_NEW said so. */
		if (plane)
			fare_nl_notify_plane_atomic(fn, plane);
	}
	rcu_read_unlock();
}

/*
 * @plane's gateway @bit is in neighbour state @state: sets or clears its
 * failed bit (this file's header comment says which states do which)
 * and, on a change, makes the packet path scan the planes again. Under
 * gw_lock.
 */
static void fare_gw_update(struct fare_net *fn, struct fare_plane *plane,
			   u8 bit, u8 state)
{
	u8 old = plane->gw_failed, new;

	lockdep_assert_held(&fn->gw_lock);
	if (state & NUD_FAILED)
		new = old | bit;
	else if (state & NUD_VALID)
		new = old & ~bit;
	else
		return;
	if (new == old)
		return;
	WRITE_ONCE(plane->gw_failed, new);
	if (new & bit) {
		WRITE_ONCE(plane->gw_fails, plane->gw_fails + 1);
		fare_gw_arm(fn);
	}
	fare_planes_bump(fn);
	fare_gw_announce(fn, plane);
}

/* Neighbour @n (a gateway's @bit table) changed: @fn's planes on it. */
static void fare_gw_event(struct fare_net *fn, struct neighbour *n, u8 bit)
{
	struct fare_plane *plane;
	unsigned int id;

	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rcu_dereference(fn->planes[id]);
		if (!plane || !fare_gw_is(plane, bit, n))
			continue;
		/* The state read under the lock: the last event reads the last. */
		spin_lock_bh(&fn->gw_lock);
		fare_gw_update(fn, plane, bit, READ_ONCE(n->nud_state));
		spin_unlock_bh(&fn->gw_lock);
	}
}

static int fare_netevent(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct neighbour *n = ptr;
	struct fare_net *fn;
	struct fare_ns *ns;
	u8 bit;

	if (event != NETEVENT_NEIGH_UPDATE)
		return NOTIFY_DONE;
	if (n->tbl == &arp_tbl)
		bit = FARE_PLANE_C_GW4;
	else if (n->tbl == fare_nd_tbl())
		bit = FARE_PLANE_C_GW6;
	else
		return NOTIFY_DONE;
	ns = fare_ns(dev_net(n->dev));
	/* NULL before fare's pernet init ran: no fare device yet. */
	if (!ns)
		return NOTIFY_DONE;
	/* An entry that left the table says nothing of the gateway. */
	if (READ_ONCE(n->dead))
		return NOTIFY_DONE;
	rcu_read_lock();
	list_for_each_entry_rcu(fn, &ns->devs, list)
		if (READ_ONCE(fn->num_planes))
			fare_gw_event(fn, n, bit);
	rcu_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block fare_netevent_notifier = {
	.notifier_call = fare_netevent,
};

/*
 * Solicits gateway @key on @dev again if its entry failed (or is gone),
 * as a packet sent to it would. Under RCU, BHs off.
 */
static void fare_gw_solicit(struct neigh_table *tbl, const void *key,
			    struct net_device *dev)
{
	struct neighbour *n;

	n = neigh_lookup(tbl, key, dev);
	if (!n) {
		n = neigh_create(tbl, key, dev);
		if (IS_ERR(n))
			return;
	}
	neigh_event_send(n, NULL);
	neigh_release(n);
}

/*
 * Every FARE_GW_PROBE_INTERVAL while a gateway of a plane that is up is
 * failed and fare_net.use_neigh is on: solicits each such gateway.
 */
static void fare_gw_probe_work(struct work_struct *work)
{
	struct fare_net *fn = container_of(to_delayed_work(work),
					   struct fare_net, gw_probe);
	struct neigh_table *nd_tbl = fare_nd_tbl();
	struct fare_plane *plane;
	bool again = false;
	unsigned int id;
	u8 failed;

	if (!READ_ONCE(fn->use_neigh))
		return;	/* fare_gw_set_use_neigh() arms it again */
	rcu_read_lock_bh();
	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rcu_dereference_bh(fn->planes[id]);
		if (!plane)
			continue;
		failed = READ_ONCE(plane->gw_failed) &
			 READ_ONCE(plane->carries);
		if (failed & FARE_PLANE_C_GW4)
			fare_gw_solicit(&arp_tbl, &plane->gw4, plane->dev);
		if ((failed & FARE_PLANE_C_GW6) && nd_tbl)
			fare_gw_solicit(nd_tbl, &plane->gw6, plane->dev);
		again |= failed;
	}
	rcu_read_unlock_bh();

	if (again) {
		spin_lock_bh(&fn->gw_lock);
		fare_gw_arm(fn);
		spin_unlock_bh(&fn->gw_lock);
	}
}

/*
 * A newly published @plane: its gateways' entries as they are now (a
 * gateway already FAILED stays out). After rcu_assign_pointer(), so that
 * the events from here on find the plane; under RTNL.
 */
void fare_gw_plane_init(struct fare_net *fn, struct fare_plane *plane)
{
	struct neigh_table *nd_tbl = fare_nd_tbl();
	struct neighbour *n;

	ASSERT_RTNL();
	spin_lock_bh(&fn->gw_lock);
	if (plane->has_gw4) {
		n = neigh_lookup(&arp_tbl, &plane->gw4, plane->dev);
		if (n) {
			fare_gw_update(fn, plane, FARE_PLANE_C_GW4,
				       READ_ONCE(n->nud_state));
			neigh_release(n);
		}
	}
	if (plane->has_gw6 && nd_tbl) {
		n = neigh_lookup(nd_tbl, &plane->gw6, plane->dev);
		if (n) {
			fare_gw_update(fn, plane, FARE_PLANE_C_GW6,
				       READ_ONCE(n->nud_state));
			neigh_release(n);
		}
	}
	/* fare_plane_publish()'s own event says how its gateways are. */
	__clear_bit(plane->id, fn->gw_notify);
	spin_unlock_bh(&fn->gw_lock);
}

/*
 * @plane's device went down or came up: the kernel flushed its neighbour
 * entries, and what was known of its gateways is forgotten. Under RTNL.
 */
void fare_gw_plane_reset(struct fare_net *fn, struct fare_plane *plane)
{
	spin_lock_bh(&fn->gw_lock);
	if (plane->gw_failed) {
		WRITE_ONCE(plane->gw_failed, 0);
		fare_planes_bump(fn);
	}
	spin_unlock_bh(&fn->gw_lock);
}

/* FARE_A_CONFIG_USE_NEIGH. */
void fare_gw_set_use_neigh(struct fare_net *fn, bool on)
{
	if (READ_ONCE(fn->use_neigh) == on)
		return;
	WRITE_ONCE(fn->use_neigh, on);
	fare_planes_bump(fn);
	if (on) {
		spin_lock_bh(&fn->gw_lock);
		fare_gw_arm(fn);
		spin_unlock_bh(&fn->gw_lock);
	}
}

void fare_gw_net_init(struct fare_net *fn)
{
	spin_lock_init(&fn->gw_lock);
	INIT_DELAYED_WORK(&fn->gw_probe, fare_gw_probe_work);
	INIT_WORK(&fn->gw_notify_work, fare_gw_notify_work);
	fn->use_neigh = 1;
}

/*
 * When the fare device goes, once its planes are: the works stay off.
 * Neither takes RTNL, so waiting for them here, under it, cannot block.
 */
void fare_gw_net_exit(struct fare_net *fn)
{
	spin_lock_bh(&fn->gw_lock);
	fn->gw_exiting = true;
	spin_unlock_bh(&fn->gw_lock);
	cancel_delayed_work_sync(&fn->gw_probe);
	cancel_work_sync(&fn->gw_notify_work);
}

int fare_gw_notifier_register(void)
{
	return register_netevent_notifier(&fare_netevent_notifier);
}

void fare_gw_notifier_unregister(void)
{
	unregister_netevent_notifier(&fare_netevent_notifier);
}
