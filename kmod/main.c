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
#include "fare_version.h"
#include "flowlet.h"
#include "gateway.h"
#include "netlink.h"
#include "plane.h"
#include "route.h"
#include "stats.h"

unsigned int fare_net_id __read_mostly;

/* A namespace's shared part: no device, no table until one is made. */
static int __net_init fare_net_init(struct net *net)
{
	struct fare_ns *ns = fare_ns(net);

	INIT_LIST_HEAD(&ns->devs);
	fare_budget_init(&ns->budget, net);
	return 0;
}

/*
 * Runs after the namespace's devices are gone (fare is a pernet subsystem,
 * whose exits follow the device exits, which delete every fare device):
 * their state went with them (device.c).
 */
static void __net_exit fare_net_exit(struct net *net)
{
	struct fare_ns *ns = fare_ns(net);

	WARN_ON_ONCE(!list_empty(&ns->devs));
	WARN_ON_ONCE(ns->budget.used);
}

static struct pernet_operations fare_net_ops = {
	.init = fare_net_init,
	.exit = fare_net_exit,
	.id = &fare_net_id,
	.size = sizeof(struct fare_ns),
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
	/*
	 * Wait for the call_rcu() frees of planes, routes, groups and
	 * flowlet tables.
	 */
	rcu_barrier();
}

module_init(fare_init);
module_exit(fare_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("FARE: weighted multi-plane steering");
MODULE_VERSION(FARE_VERSION);
MODULE_ALIAS_RTNL_LINK("fare");
MODULE_ALIAS_GENL_FAMILY(FARE_GENL_NAME);
