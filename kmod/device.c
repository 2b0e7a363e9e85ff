// SPDX-License-Identifier: GPL-2.0
/*
 * The fare device: a virtual L3 device the kernel FIB routes fare's prefixes
 * to (its transmit is xmit.c's). Here: its link ops, its ndo, its standard
 * counters, and how it follows its planes' MTU, GSO limits and offloads.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/rtnetlink.h>
#include "device.h"
#include "fare_version.h"
#include "flowlet.h"
#include "gateway.h"
#include "plane.h"
#include "route.h"
#include "stats.h"
#include "xmit.h"

/*
 * fare0 keeps taking GSO super-packets with partial checksums whatever the
 * planes offer: a plane without an offload segments or checksums in
 * software, at the cost the stack would pay before fare0, and per-packet
 * spray keeps its one decision per super-packet (datapath.md). These it
 * offers only while every plane has them too.
 */
#define FARE_FEATURES_KEEP (NETIF_F_HW_CSUM | NETIF_F_SG | NETIF_F_GSO | \
			    NETIF_F_GSO_SOFTWARE)
#define FARE_FEATURES_SHARED (NETIF_F_HIGHDMA | NETIF_F_FRAGLIST | \
			      NETIF_F_GSO_ENCAP_ALL)

static netdev_features_t fare_fix_features(struct net_device *dev,
					   netdev_features_t features)
{
	struct fare_net *fn = fare_dev_state(dev);
	netdev_features_t shared = FARE_FEATURES_SHARED;
	struct fare_plane *plane;
	unsigned int id;

	ASSERT_RTNL();
	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rtnl_dereference(fn->planes[id]);
		if (plane)
			shared &= plane->dev->features;
	}
	/*
	 * Only the shared offloads follow the planes: NETIF_F_LLTX and
	 * NETIF_F_NETNS_LOCAL (features before 6.12) stay.
	 */
	return features & ~(FARE_FEATURES_SHARED & ~shared);
}

/* The planes' limits that fare0 takes on: the smallest of each. */
struct fare_dev_limits {
	unsigned int mtu;
	unsigned int headroom;		/* the largest, this one */
	unsigned int gso_max_size;
	unsigned int gso_ipv4_max_size;
	unsigned int gso_max_segs;
	unsigned int tso_max_size;
	unsigned int tso_max_segs;
};

/* Under RTNL; false if the namespace has no plane. */
static bool fare_dev_limits(struct fare_net *fn, struct fare_dev_limits *l)
{
	struct fare_plane *plane;
	struct net_device *pdev;
	bool any = false;
	unsigned int id;

	ASSERT_RTNL();
	*l = (struct fare_dev_limits){
		.mtu = UINT_MAX,
		.gso_max_size = UINT_MAX,
		.gso_ipv4_max_size = UINT_MAX,
		.gso_max_segs = UINT_MAX,
		.tso_max_size = UINT_MAX,
		.tso_max_segs = UINT_MAX,
	};
	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rtnl_dereference(fn->planes[id]);
		if (!plane)
			continue;
		pdev = plane->dev;
		any = true;
		l->mtu = min(l->mtu, pdev->mtu);
		l->headroom = max_t(unsigned int, l->headroom,
				    pdev->hard_header_len +
				    pdev->needed_headroom);
		l->gso_max_size = min(l->gso_max_size,
				      READ_ONCE(pdev->gso_max_size));
		l->gso_ipv4_max_size = min(l->gso_ipv4_max_size,
					   fare_gso_ipv4_max_size(pdev));
		l->gso_max_segs = min_t(unsigned int, l->gso_max_segs,
					READ_ONCE(pdev->gso_max_segs));
		l->tso_max_size = min(l->tso_max_size,
				      fare_tso_max_size(pdev));
		l->tso_max_segs = min(l->tso_max_segs,
				      fare_tso_max_segs(pdev));
	}
	return any;
}

/*
 * Fits fare0 to its planes, under RTNL, after a plane comes, goes or
 * changes: its MTU is the smallest plane MTU, or the lower one an admin
 * set (fare_change_mtu()), and it cannot be raised above the planes', so
 * whatever fare0 accepts fits the plane that takes it; its GSO and TSO
 * limits are the smallest of the planes', so a GSO packet it accepts is
 * one every plane takes; its headroom is the largest link header, so no
 * plane has to reallocate; its offloads are those of every plane
 * (fare_fix_features()). Without planes it keeps what it has, and so does
 * a fare0 that is being unregistered: when a namespace goes, a plane
 * registered after fare0 is unregistered after fare0 started to be, and
 * fare0 must not take an MTU or feature change then.
 */
void fare_dev_sync(struct fare_net *fn)
{
	struct net_device *dev = fn->dev;
	struct fare_dev_limits l;
	unsigned int mtu;
	int err;

	ASSERT_RTNL();
	if (dev->reg_state != NETREG_REGISTERED ||
	    !fare_dev_limits(fn, &l))
		return;
	/* Read locklessly by the stack when it sizes an skb: a hint. */
	WRITE_ONCE(dev->needed_headroom, l.headroom);
	fare_set_tso_max(dev, l.tso_max_size, l.tso_max_segs);
	WRITE_ONCE(dev->gso_max_size, l.gso_max_size);
	fare_set_gso_ipv4_max_size(dev, l.gso_ipv4_max_size);
	WRITE_ONCE(dev->gso_max_segs, l.gso_max_segs);
	mtu = clamp(l.mtu, dev->min_mtu, ETH_MAX_MTU);
	/* "ip link set fare0 mtu" then says why it cannot go higher. */
	dev->max_mtu = mtu;
	if (fn->dev_mtu_admin)
		mtu = min(mtu, fn->dev_mtu_admin);
	if (dev->mtu != mtu) {
		fn->dev_mtu_syncing = true;
		err = dev_set_mtu(dev, mtu);
		fn->dev_mtu_syncing = false;
		if (err)
			netdev_warn(dev, "cannot follow the planes' MTU %u: %d\n",
				    mtu, err);
	}
	netdev_update_features(dev);
}

/*
 * No MTU above the smallest plane's: a larger packet would leave fare0
 * only to be dropped or fragmented by the plane. An MTU an admin sets
 * below that is kept through plane changes (fare_dev_sync()) until the
 * planes' smallest falls below it; setting the planes' smallest MTU
 * makes fare0 follow the planes again. Under RTNL.
 */
static int fare_change_mtu(struct net_device *dev, int new_mtu)
{
	struct fare_net *fn = fare_dev_state(dev);
	struct fare_dev_limits l;
	bool planes = fare_dev_limits(fn, &l);

	if (planes && new_mtu > l.mtu) {
		netdev_dbg(dev, "MTU %d is above the planes' %u\n", new_mtu,
			   l.mtu);
		return -EINVAL;
	}
	if (!fn->dev_mtu_syncing)
		fn->dev_mtu_admin = planes && new_mtu == l.mtu ? 0 : new_mtu;
	WRITE_ONCE(dev->mtu, new_mtu);
	return 0;
}

#define FARE_DEFAULT_FLOWLET_US	100

/*
 * What a fare device holds before it has a route, charged to its
 * namespace's budget so that a tenant cannot make devices without bound:
 * its state, its per-CPU counters (once per possible CPU) and its flowlet
 * table (the table's resizes charge the difference, netlink.c).
 */
static size_t fare_dev_own_bytes(void)
{
	return sizeof(struct fare_net) +
	       num_possible_cpus() * (sizeof(struct fare_pcpu_net) +
				      sizeof(struct pcpu_sw_netstats));
}

/*
 * The least a namespace's memory budget may be set to: what one empty fare
 * device with the default flowlet table takes, so that a namespace whose
 * devices are all gone can always make one again and, through it, change
 * its budget.
 */
u64 fare_dev_budget_floor(void)
{
	return fare_dev_own_bytes() +
	       fare_flowlets_bytes(FARE_FLOWLET_SLOTS_DEFAULT);
}

/*
 * The device's own state, empty, with the defaults of a new namespace's
 * config; on error nothing is left. Under RTNL (the flowlet table's).
 */
static int fare_dev_state_init(struct net_device *dev)
{
	struct fare_net *fn = fare_dev_state(dev);
	struct net *net = dev_net(dev);
	int err;

	fn->net = net;
	fn->dev = dev;
	INIT_LIST_HEAD(&fn->list);
	fn->budget = &fare_ns(net)->budget;
	mutex_init(&fn->lock);
	fn->default_mode = FARE_MODE_PACKET;
	fn->flowlet_us = FARE_DEFAULT_FLOWLET_US;
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
	/* Refused before anything is allocated, as routes and groups are. */
	mutex_lock(&fn->lock);
	err = fare_budget_charge(fn, fare_dev_own_bytes() +
				 fare_flowlets_bytes(fn->flowlet_slots), 0,
				 NULL);
	mutex_unlock(&fn->lock);
	if (err)
		return err;
	fn->stats = fare_alloc_pcpu_stats(struct fare_pcpu_net);
	if (!fn->stats) {
		err = -ENOMEM;
		goto err_budget;
	}
	err = fare_table_init(fn);
	if (err)
		goto err_stats;
	err = fare_flowlets_prepare(fn);
	if (err)
		goto err_table;
	return 0;

err_table:
	mutex_lock(&fn->lock);
	fare_table_destroy(fn);
	mutex_unlock(&fn->lock);
err_stats:
	free_percpu(fn->stats);
	fn->stats = NULL;
err_budget:
	fare_budget_release(fn);
	return err;
}

/*
 * The device's standard per-CPU counters: tx packets and bytes in
 * dev->tstats (fare_dev_count_xmit()), drops in the core's tx_dropped;
 * charged to the creator's memory cgroup. Then its own state, which
 * fare_dev_register() lists in the namespace's. Under RTNL.
 */
static int fare_dev_init(struct net_device *dev)
{
	int err;

	dev->tstats = fare_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		return -ENOMEM;
	err = fare_dev_state_init(dev);
	if (err) {
		free_percpu(dev->tstats);
		dev->tstats = NULL;
		return err;
	}
	return 0;
}

/*
 * Unregistering (ip link del, namespace exit, module unload), after the
 * device stopped transmitting, under RTNL: its planes let their devices
 * go now, the gateway probe stops, and the neighbour events stop finding
 * it (the core waits for a grace period before the device is freed).
 */
static void fare_dev_uninit(struct net_device *dev)
{
	struct fare_net *fn = fare_dev_state(dev);

	ASSERT_RTNL();
	fare_planes_flush(fn);
	fare_gw_net_exit(fn);
	/* Not listed if its registration failed before the end. */
	if (!list_empty(&fn->list))
		list_del_rcu(&fn->list);
}

/*
 * After the last reference (no request works on the device any more), or
 * when registration fails after ndo_init: the routes, groups and flowlet
 * table go, and what they held goes back to the namespace's budget.
 */
static void fare_dev_free(struct net_device *dev)
{
	struct fare_net *fn = fare_dev_state(dev);

	mutex_lock(&fn->lock);
	fare_table_destroy(fn);
	fare_flowlets_destroy(fn);
	mutex_unlock(&fn->lock);
	fare_budget_release(fn);
	free_percpu(fn->stats);
	fn->stats = NULL;
	free_percpu(dev->tstats);
	dev->tstats = NULL;
}

/* `ethtool -i`: the driver and the release it was built from. */
static void fare_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->version, FARE_VERSION, sizeof(info->version));
}

static const struct ethtool_ops fare_ethtool_ops = {
	.get_drvinfo = fare_get_drvinfo,
	.get_link = ethtool_op_get_link,
};

static const struct net_device_ops fare_netdev_ops = {
	.ndo_init = fare_dev_init,
	.ndo_uninit = fare_dev_uninit,
	.ndo_start_xmit = fare_xmit,
	.ndo_get_stats64 = dev_get_tstats64,
	.ndo_fix_features = fare_fix_features,
	.ndo_change_mtu = fare_change_mtu,
};

static void fare_setup(struct net_device *dev)
{
	const netdev_features_t features = FARE_FEATURES_KEEP |
					   FARE_FEATURES_SHARED;

	dev->netdev_ops = &fare_netdev_ops;
	dev->ethtool_ops = &fare_ethtool_ops;
	dev->type = ARPHRD_NONE;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	/* Room for any plane's link-layer header without a reallocation. */
	dev->needed_headroom = LL_MAX_HEADER;
	/*
	 * Point-to-point: IPv4 output resolves every destination on fare0
	 * to the one neighbour entry of key 0 (__ipv4_neigh_lookup_noref())
	 * instead of one entry per destination.
	 */
	dev->flags = IFF_POINTOPOINT | IFF_NOARP;
	dev->priv_flags |= IFF_NO_QUEUE;
	fare_dev_set_lltx(dev);
	/*
	 * Its planes are devices of its namespace, and its budget is the
	 * namespace's: it cannot move to another one.
	 */
	fare_dev_set_netns_local(dev);
	dev->features |= features;
	dev->hw_features |= features;
	dev->mtu = ETH_DATA_LEN;
	/* Below IPv6's minimum only if a plane is: IPv6 then stops on it. */
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
	dev->needs_free_netdev = true;
	dev->priv_destructor = fare_dev_free;
}

/*
 * fare0 needs no IPv6 link-local address: without one it sends no router
 * solicitation and no MLD report, which it could only count as packets
 * without a fare route. As "ip link set fare0 addrgenmode none"; under
 * RTNL, after registration and before the device comes up.
 */
static void fare_dev_no_addrconf(struct net_device *dev)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct inet6_dev *idev = __in6_dev_get(dev);

	if (idev)
		WRITE_ONCE(idev->cnf.addr_gen_mode, IN6_ADDR_GEN_MODE_NONE);
#endif
}

bool fare_dev_is_fare(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &fare_link_ops;
}

/*
 * Registers fare device @dev and lists its state in its namespace's, where
 * the notifiers find it; under RTNL, so no plane can be added before. A
 * registration that fails after ndo_init is undone without a grace period
 * (ndo_uninit, the destructor): the state is listed only once there is no
 * going back, and unlisted by ndo_uninit, which the core follows with one.
 */
static int fare_dev_register(struct net_device *dev)
{
	struct fare_net *fn;
	int err;

	ASSERT_RTNL();
	err = register_netdevice(dev);
	if (err)
		return err;
	fn = fare_dev_state(dev);
	list_add_tail_rcu(&fn->list, &fare_ns(dev_net(dev))->devs);
	fare_dev_no_addrconf(dev);
	return 0;
}

/* The refusal of a device its namespace's budget has no room for. */
#define FARE_DEV_NO_BUDGET \
	"fare: the namespace's memory budget has no room for another fare device"

static int fare_newlink_common(struct net_device *dev,
			       struct netlink_ext_ack *extack)
{
	int err = fare_dev_register(dev);

	if (err == -ENOSPC)
		NL_SET_ERR_MSG(extack, FARE_DEV_NO_BUDGET);
	return err;
}

#ifdef FARE_HAVE_NEWLINK_PARAMS
static int fare_newlink(struct net_device *dev,
			struct rtnl_newlink_params *params,
			struct netlink_ext_ack *extack)
{
	return fare_newlink_common(dev, extack);
}
#else
static int fare_newlink(struct net *src_net, struct net_device *dev,
			struct nlattr *tb[], struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	return fare_newlink_common(dev, extack);
}
#endif

struct rtnl_link_ops fare_link_ops __read_mostly = {
	.kind = "fare",
	.priv_size = sizeof(struct fare_net),
	.setup = fare_setup,
	.newlink = fare_newlink,
};

/*
 * The namespace's default fare device, FARE_DEV_NAME: what a request that
 * names no device works on. Created and opened on first use; a device of
 * that name that is not a fare device is the caller's to refuse. Under
 * RTNL.
 */
struct net_device *fare_dev_default(struct net *net,
				    struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	int err;

	ASSERT_RTNL();
	dev = __dev_get_by_name(net, FARE_DEV_NAME);
	if (dev)
		return dev;
	dev = alloc_netdev(sizeof(struct fare_net), FARE_DEV_NAME,
			   NET_NAME_USER, fare_setup);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "no memory for device " FARE_DEV_NAME);
		return ERR_PTR(-ENOMEM);
	}
	dev_net_set(dev, net);
	dev->rtnl_link_ops = &fare_link_ops;
	err = fare_dev_register(dev);
	if (err) {
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(extack, FARE_DEV_NO_BUDGET);
		else
			NL_SET_ERR_MSG(extack,
				       "cannot create device " FARE_DEV_NAME);
		free_netdev(dev);
		return ERR_PTR(err);
	}
	err = dev_open(dev, extack);
	if (err) {
		unregister_netdevice(dev);
		return ERR_PTR(err);
	}
	return dev;
}
