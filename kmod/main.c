// SPDX-License-Identifier: GPL-2.0
/*
 * fare.ko: steers host-originated and forwarded traffic across independent
 * network planes in proportion to the bandwidth each plane can carry.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>
#include "device.h"
#include "fare.h"
#include "flowlet.h"
#include "gateway.h"
#include "netlink.h"
#include "plane.h"
#include "route.h"
#include "stats.h"

#define FARE_DEFAULT_FLOWLET_US	100

unsigned int fare_net_id __read_mostly;

static int __net_init fare_net_init(struct net *net)
{
	struct fare_net *fn = fare_pernet(net);
	int err;

	fn->net = net;
	mutex_init(&fn->lock);
	fn->default_mode = FARE_MODE_PACKET;
	fn->flowlet_us = FARE_DEFAULT_FLOWLET_US;
	/* The table itself comes with the fare device (device.c). */
	fn->flowlet_slots = FARE_FLOWLET_SLOTS_DEFAULT;
	fn->hash_seed = get_random_u32();
	/* Dragonfly+ paths (seed 001): L-G-L, L-G-G-L, L-G-L-L-G-L. */
	fn->tier_hops[0] = 3;
	fn->tier_hops[1] = 4;
	fn->tier_hops[2] = 6;
	fn->n_tier_hops = 3;
	fn->spill_bias = FARE_SPILL_BIAS_DEFAULT;
	fn->max_routes = FARE_MAX_ROUTES_DEFAULT;
	fn->max_planes = FARE_MAX_PLANES_DEFAULT;
	fn->max_nexthops = FARE_MAX_NEXTHOPS_DEFAULT;
	fare_gw_net_init(fn);
	fn->stats = fare_alloc_pcpu_stats(struct fare_pcpu_net);
	if (!fn->stats)
		return -ENOMEM;
	err = fare_table_init(fn);
	if (err)
		free_percpu(fn->stats);
	return err;
}

/*
 * Runs after the namespaces' devices are gone (fare is a pernet subsystem,
 * whose exits follow the device exits): nothing can transmit through fare
 * any more and the notifier has already dropped planes of unregistered
 * devices. One grace period covers the whole batch of namespaces.
 */
static void __net_exit fare_net_exit_batch(struct list_head *net_list)
{
	struct fare_net *fn;
	struct net *net;

	rtnl_lock();
	list_for_each_entry(net, net_list, exit_list)
		fare_planes_flush(fare_pernet(net));
	rtnl_unlock();
	list_for_each_entry(net, net_list, exit_list)
		fare_gw_net_exit(fare_pernet(net));

	/* Readers that started before the devices went away are done. */
	synchronize_rcu();
	list_for_each_entry(net, net_list, exit_list) {
		fn = fare_pernet(net);
		mutex_lock(&fn->lock);
		fare_table_destroy(fn);
		fare_flowlets_destroy(fn);
		mutex_unlock(&fn->lock);
		free_percpu(fn->stats);
	}
}

static struct pernet_operations fare_net_ops = {
	.init = fare_net_init,
	.exit_batch = fare_net_exit_batch,
	.id = &fare_net_id,
	.size = sizeof(struct fare_net),
};

static int __init fare_init(void)
{
	int err;

	err = register_pernet_subsys(&fare_net_ops);
	if (err)
		return err;
	err = fare_notifier_register();
	if (err)
		goto err_pernet;
	err = fare_gw_notifier_register();
	if (err)
		goto err_notifier;
	err = rtnl_link_register(&fare_link_ops);
	if (err)
		goto err_gw;
	err = fare_genl_register();
	if (err)
		goto err_link;
	pr_info("loaded\n");
	return 0;

err_link:
	rtnl_link_unregister(&fare_link_ops);
err_gw:
	fare_gw_notifier_unregister();
err_notifier:
	fare_notifier_unregister();
err_pernet:
	unregister_pernet_subsys(&fare_net_ops);
	return err;
}

static void __exit fare_exit(void)
{
	fare_genl_unregister();
	/* Deletes every fare device, so nothing transmits through fare. */
	rtnl_link_unregister(&fare_link_ops);
	/* Replays NETDEV_UNREGISTER for every device: drops every plane. */
	fare_notifier_unregister();
	fare_gw_notifier_unregister();
	unregister_pernet_subsys(&fare_net_ops);
	/* Wait for the call_rcu() frees of planes, routes and groups. */
	rcu_barrier();
}

module_init(fare_init);
module_exit(fare_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("FARE: weighted multi-plane steering");
MODULE_VERSION(FARE_VERSION);
MODULE_ALIAS_RTNL_LINK("fare");
MODULE_ALIAS_GENL_FAMILY(FARE_GENL_NAME);
