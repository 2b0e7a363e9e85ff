// SPDX-License-Identifier: GPL-2.0
/*
 * Planes: the object (made by a PLANE_NEW, published under RTNL in
 * fare_net.planes[], unlinked in one place, freed after a grace period),
 * the netdevice notifier that follows each plane's device, and the sampler
 * of a plane device's qdisc backlog that tier spill-over reads.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/sch_generic.h>
#include "device.h"
#include "gateway.h"
#include "netlink.h"
#include "plane.h"
#include "stats.h"

struct fare_plane *fare_plane_get_rcu(struct fare_net *fn, u32 id)
{
	if (!id || id > FARE_PLANE_ID_MAX)
		return NULL;
	return rcu_dereference_rtnl(fn->planes[id]);
}

/* Sets the plane's oper state and what it carries with it. */
static void fare_plane_set_oper(struct fare_plane *plane, bool up)
{
	WRITE_ONCE(plane->oper_up, up);
	WRITE_ONCE(plane->carries,
		   up ? (plane->has_gw4 ? FARE_PLANE_C_GW4 : 0) |
			(plane->has_gw6 ? FARE_PLANE_C_GW6 : 0) : 0);
}

static void fare_plane_update_oper(struct fare_plane *plane)
{
	/* Administratively down is carrier loss that no device event ends. */
	bool up = !plane->admin_down && netif_running(plane->dev) &&
		  netif_carrier_ok(plane->dev);

	fare_plane_set_oper(plane, up);
}

/*
 * Tells the packet path that a plane came, went or changed what it
 * carries, after the change: every CPU scans the planes again
 * (decide.c, fare_group_up()). Under RTNL.
 */
static void fare_planes_changed(struct fare_net *fn)
{
	ASSERT_RTNL();
	fare_planes_bump(fn);
}

/* After every change of the plane table: the packet path, then fare0. */
static void fare_planes_sync(struct fare_net *fn)
{
	fare_planes_changed(fn);
	fare_dev_sync(fn);
}

/*
 * A plane @id, not yet published, with the gateways given (NULL: none);
 * charged to the caller's memory cgroup. NULL without memory.
 */
struct fare_plane *fare_plane_alloc(u32 id, const __be32 *gw4,
				    const struct in6_addr *gw6)
{
	struct fare_plane *plane;

	plane = kzalloc(sizeof(*plane), GFP_KERNEL_ACCOUNT);
	if (!plane)
		return NULL;
	plane->tx = fare_alloc_pcpu_stats(struct fare_pcpu_tx);
	if (!plane->tx) {
		kfree(plane);
		return NULL;
	}
	plane->id = id;
	if (gw4) {
		plane->has_gw4 = true;
		plane->gw4 = *gw4;
	}
	if (gw6) {
		plane->has_gw6 = true;
		plane->gw6 = *gw6;
	}
	return plane;
}

/* A plane fare_plane_alloc() made that was never published. */
void fare_plane_discard(struct fare_plane *plane)
{
	free_percpu(plane->tx);
	kfree(plane);
}

static void fare_plane_free(struct rcu_head *head)
{
	struct fare_plane *plane = container_of(head, struct fare_plane, rcu);

	netdev_put(plane->dev, &plane->dev_tracker);
	free_percpu(plane->tx);
	kfree(plane);
}

/*
 * Publishes @plane on @dev, in place of the plane of the same id if there
 * is one, and announces it (@info: the request, for its echo). Under RTNL;
 * the caller checked the id, the limit and the device.
 */
void fare_plane_publish(struct fare_net *fn, struct fare_plane *plane,
			struct net_device *dev, struct genl_info *info)
{
	struct fare_plane *old = rtnl_dereference(fn->planes[plane->id]);

	ASSERT_RTNL();
	plane->dev = dev;
	netdev_hold(dev, &plane->dev_tracker, GFP_KERNEL);
	fare_plane_update_oper(plane);
	rcu_assign_pointer(fn->planes[plane->id], plane);
	fare_gw_plane_init(fn, plane);
	if (old)
		call_rcu(&old->rcu, fare_plane_free);
	else
		WRITE_ONCE(fn->num_planes, fn->num_planes + 1);
	fare_nl_notify_plane(fn, FARE_CMD_PLANE_NEW, plane, info);
	fare_planes_sync(fn);
}

/*
 * The one way a plane leaves: by a PLANE_DEL (@info, for its echo), when
 * its device goes (@info NULL), or at namespace exit. Readers that still
 * hold it see it carry nothing and finish with it before it is freed.
 * Under RTNL.
 */
void fare_plane_unlink(struct fare_net *fn, struct fare_plane *plane,
		       struct genl_info *info)
{
	ASSERT_RTNL();
	RCU_INIT_POINTER(fn->planes[plane->id], NULL);
	WRITE_ONCE(fn->num_planes, fn->num_planes - 1);
	fare_nl_notify_plane(fn, FARE_CMD_PLANE_DEL, plane, info);
	fare_plane_set_oper(plane, false);
	call_rcu(&plane->rcu, fare_plane_free);
	fare_planes_sync(fn);
}

/* Unlinks every plane of @fn: when its device goes, under RTNL. */
void fare_planes_flush(struct fare_net *fn)
{
	struct fare_plane *plane;
	unsigned int id;

	ASSERT_RTNL();
	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rtnl_dereference(fn->planes[id]);
		if (plane)
			fare_plane_unlink(fn, plane, NULL);
	}
}

/* ---- the backlog sampler ---- */

/*
 * The bytes queued in @dev's root qdiscs: the sum over its real transmit
 * queues of each queue's qdisc qstats.backlog (and, for a lockless qdisc
 * that keeps per-CPU statistics, of every CPU's backlog). Read without the
 * qdisc locks, so it may be a few packets stale; BQL's in-flight bytes
 * and the device's own rings are not counted. Under RCU.
 */
static u64 fare_dev_backlog(struct net_device *dev)
{
	unsigned int i, cpu;
	u64 sum = 0;

	for (i = 0; i < dev->real_num_tx_queues; i++) {
		/* The qdisc type, whose CamelCase name checkpatch refuses. */
		__auto_type q = rcu_dereference(netdev_get_tx_queue(dev, i)->qdisc);

		if (!q)
			continue;
		sum += READ_ONCE(q->qstats.backlog);
		if (q->flags & TCQ_F_CPUSTATS)
			for_each_possible_cpu(cpu)
				sum += READ_ONCE(per_cpu_ptr(q->cpu_qstats,
							     cpu)->backlog);
	}
	return sum;
}

/*
 * @plane's qdisc backlog (fare_dev_backlog()) as sampled at most
 * FARE_BACKLOG_SAMPLE_NS ago: the walk over every transmit queue (and
 * every CPU of a lockless qdisc) runs at most once per interval and
 * plane, by the one CPU that wins the sample's time stamp; the others use
 * the last sample. Under RCU.
 */
u64 fare_plane_backlog(struct fare_plane *plane, u64 now)
{
	u64 at = atomic64_read(&plane->backlog_at);
	u64 sample;

	if (at && (s64)(now - at) < FARE_BACKLOG_SAMPLE_NS)
		return READ_ONCE(plane->backlog);
	if (!atomic64_try_cmpxchg(&plane->backlog_at, &at, now ?: 1))
		return READ_ONCE(plane->backlog);
	sample = fare_dev_backlog(plane->dev);
	WRITE_ONCE(plane->backlog, sample);
	return sample;
}

/* ---- the netdevice notifier ---- */

/* The plane of @fn on @dev, if any: under RTNL. */
static struct fare_plane *fare_plane_of_dev(struct fare_net *fn,
					    const struct net_device *dev,
					    unsigned int *idp)
{
	struct fare_plane *plane;

	for (; *idp <= FARE_PLANE_ID_MAX; (*idp)++) {
		plane = rtnl_dereference(fn->planes[*idp]);
		if (plane && plane->dev == dev)
			return plane;
	}
	return NULL;
}

/* Event @event of device @dev, maybe a plane of fare device @fn. */
static void fare_plane_dev_event(struct fare_net *fn, struct net_device *dev,
				 unsigned long event)
{
	struct fare_plane *plane;
	unsigned int id = 1;
	bool was_up;

	switch (event) {
	case NETDEV_CHANGEMTU:
	case NETDEV_FEAT_CHANGE:
		if (fare_plane_of_dev(fn, dev, &id))
			fare_planes_sync(fn);
		return;
	case NETDEV_GOING_DOWN:
		/* Stop choosing the plane before the device stops sending. */
		for (; (plane = fare_plane_of_dev(fn, dev, &id)); id++) {
			if (!READ_ONCE(plane->oper_up))
				continue;
			fare_plane_set_oper(plane, false);
			fare_planes_changed(fn);
			fare_nl_notify_plane(fn, FARE_CMD_PLANE_NEW, plane,
					     NULL);
		}
		return;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		for (; (plane = fare_plane_of_dev(fn, dev, &id)); id++) {
			was_up = READ_ONCE(plane->oper_up);
			fare_plane_update_oper(plane);
			if (READ_ONCE(plane->oper_up) != was_up)
				fare_gw_plane_reset(fn, plane);
			fare_planes_changed(fn);
			if (READ_ONCE(plane->oper_up) != was_up)
				fare_nl_notify_plane(fn, FARE_CMD_PLANE_NEW,
						     plane, NULL);
		}
		return;
	case NETDEV_UNREGISTER:
		/* The device goes away, and its planes with it. */
		for (; (plane = fare_plane_of_dev(fn, dev, &id)); id++)
			fare_plane_unlink(fn, plane, NULL);
		return;
	}
}

/*
 * Under RTNL: a device of the namespace changed; it may be a plane of any
 * of the namespace's fare devices. A fare device's own state comes and
 * goes with its ndo_init and ndo_uninit (device.c).
 */
static int fare_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct fare_net *fn;

	if (fare_dev_is_fare(dev))
		return NOTIFY_DONE;
	list_for_each_entry(fn, &fare_ns(dev_net(dev))->devs, list)
		fare_plane_dev_event(fn, dev, event);
	return NOTIFY_DONE;
}

static struct notifier_block fare_netdev_notifier = {
	.notifier_call = fare_netdev_event,
};

int fare_notifier_register(void)
{
	return register_netdevice_notifier(&fare_netdev_notifier);
}

void fare_notifier_unregister(void)
{
	unregister_netdevice_notifier(&fare_netdev_notifier);
}
