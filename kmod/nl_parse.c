// SPDX-License-Identifier: GPL-2.0
/*
 * The fare family's requests, parsed: a route's prefix and a route's or
 * group's next hops, with an extack on every refusal. The policies
 * (policy.h) checked each attribute's type and range already.
 */
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include "device.h"
#include "limits.h"
#include "nhg.h"
#include "nl.h"
#include "plane.h"
#include "policy.h"
#include "route.h"

/* Parses FAMILY, DST and PLEN into @key, with an extack on every refusal. */
int fare_nl_parse_prefix(struct genl_info *info, struct fare_prefix *key)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	unsigned int alen;
	u8 family;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_ROUTE_FAMILY) ||
	    GENL_REQ_ATTR_CHECK(info, FARE_A_ROUTE_DST) ||
	    GENL_REQ_ATTR_CHECK(info, FARE_A_ROUTE_PLEN))
		return -EINVAL;
	family = nla_get_u8(attrs[FARE_A_ROUTE_FAMILY]);
	if (family != AF_INET && family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_ROUTE_FAMILY],
				    "family must be AF_INET or AF_INET6");
		return -EAFNOSUPPORT;
	}
	alen = family == AF_INET ? 4 : 16;
	if (nla_len(attrs[FARE_A_ROUTE_DST]) != alen) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_ROUTE_DST],
				    "destination length does not match the family");
		return -EINVAL;
	}
	if (nla_get_u8(attrs[FARE_A_ROUTE_PLEN]) > alen * 8) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_ROUTE_PLEN],
				    "prefix length too long for the family");
		return -EINVAL;
	}
	return fare_prefix_make(key, family, nla_data(attrs[FARE_A_ROUTE_DST]),
				nla_get_u8(attrs[FARE_A_ROUTE_PLEN]));
}

/*
 * Next hop @i of @grp from @entry, a FARE_A_NEXTHOPS_ENTRY: a plane that
 * exists and is not in @seen yet (then it is), and a weight.
 */
static int fare_nl_parse_nh(struct fare_net *fn, struct nlattr *entry,
			    struct fare_group *grp, unsigned int i,
			    unsigned long *seen, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FARE_A_NH_MAX + 1];
	struct fare_nh *nh = &grp->nh[i];
	bool exists;
	int err;

	/*
	 * Only fills tb: genl's strict validation of the request already
	 * checked every entry against fare_nh_policy (FARE_POL_NEXTHOPS
	 * nests it), so a second pass would be one validation of each
	 * attribute of each next hop of every route again.
	 */
	err = nla_parse_nested(tb, FARE_A_NH_MAX, entry, NULL, extack);
	if (err)
		return err;
	if (!tb[FARE_A_NH_PLANE_ID] || !tb[FARE_A_NH_WEIGHT]) {
		NL_SET_ERR_MSG_ATTR(extack, entry,
				    "a next hop needs a plane and a weight");
		return -EINVAL;
	}
	nh->plane_id = nla_get_u32(tb[FARE_A_NH_PLANE_ID]);
	nh->weight = nla_get_u32(tb[FARE_A_NH_WEIGHT]);
	if (tb[FARE_A_NH_TIER])
		nh->tier = nla_get_u8(tb[FARE_A_NH_TIER]);
	if (tb[FARE_A_NH_BANDWIDTH])
		nh->bandwidth = nla_get_u64(tb[FARE_A_NH_BANDWIDTH]);
	grp->weights[i] = nh->weight;
	grp->tiers[i] = nh->tier;
	if (test_and_set_bit(nh->plane_id, seen)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FARE_A_NH_PLANE_ID],
				    "plane appears twice in the route");
		return -EINVAL;
	}
	rcu_read_lock();
	exists = fare_plane_get_rcu(fn, nh->plane_id);
	rcu_read_unlock();
	if (!exists) {
		NL_SET_ERR_MSG_ATTR(extack, tb[FARE_A_NH_PLANE_ID],
				    "no such plane");
		return -ENOENT;
	}
	return 0;
}

/*
 * The next hops of a route or group, as a group filled but not finished:
 * fare_nhg_get_anon() or fare_nhg_set() finishes it if it is kept. For a
 * request that passed fare_nl_pre_doit().
 */
int fare_nl_parse_nexthops(struct genl_info *info, struct fare_group **grpp)
{
	struct nlattr *nhs = info->attrs[FARE_A_ROUTE_NEXTHOPS];
	struct netlink_ext_ack *extack = info->extack;
	DECLARE_BITMAP(seen, FARE_PLANE_ID_MAX + 1);
	struct fare_net *fn = info->user_ptr[0];
	struct fare_group *grp;
	unsigned int n = 0, i = 0;
	struct nlattr *entry;
	int rem, err;

	nla_for_each_nested(entry, nhs, rem)
		n++;
	if (!n) {
		NL_SET_ERR_MSG_ATTR(extack, nhs, "at least one next hop is needed");
		return -EINVAL;
	}
	err = fare_limit_nexthops(n, READ_ONCE(fn->max_nexthops), nhs, extack);
	if (err)
		return err;
	grp = fare_group_alloc(n);
	if (!grp) {
		NL_SET_ERR_MSG(extack, "no memory for the next hops");
		return -ENOMEM;
	}
	bitmap_zero(seen, FARE_PLANE_ID_MAX + 1);
	nla_for_each_nested(entry, nhs, rem) {
		err = fare_nl_parse_nh(fn, entry, grp, i++, seen, extack);
		if (err) {
			fare_group_discard(grp);
			return err;
		}
	}
	*grpp = grp;
	return 0;
}

/* The plane a PLANE_NEW describes, made but not yet published. */
struct fare_plane *fare_nl_parse_plane(struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct fare_plane *plane;
	struct in6_addr gw6;
	__be32 gw4;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_IFINDEX))
		return ERR_PTR(-EINVAL);
	if (!attrs[FARE_A_PLANE_GW4] && !attrs[FARE_A_PLANE_GW6]) {
		NL_SET_ERR_MSG(info->extack,
			       "a plane needs a gateway (IPv4 or IPv6)");
		return ERR_PTR(-EINVAL);
	}
	if (attrs[FARE_A_PLANE_GW4])
		gw4 = nla_get_in_addr(attrs[FARE_A_PLANE_GW4]);
	if (attrs[FARE_A_PLANE_GW6])
		gw6 = nla_get_in6_addr(attrs[FARE_A_PLANE_GW6]);
	plane = fare_plane_alloc(nla_get_u32(attrs[FARE_A_PLANE_ID]),
				 attrs[FARE_A_PLANE_GW4] ? &gw4 : NULL,
				 attrs[FARE_A_PLANE_GW6] ? &gw6 : NULL);
	if (!plane) {
		NL_SET_ERR_MSG(info->extack, "no memory for the plane");
		return ERR_PTR(-ENOMEM);
	}
	plane->admin_down = nla_get_flag(attrs[FARE_A_PLANE_ADMIN_DOWN]);
	return plane;
}

/*
 * A ROUTE_NEW: its prefix, its mode, whether it asked for counters, and
 * its inline next hops (req->grp, the caller's to consume) unless it names
 * a group.
 */
int fare_nl_parse_route(struct genl_info *info, struct fare_route_req *req)
{
	struct nlattr **attrs = info->attrs;
	int err;

	if (!attrs[FARE_A_ROUTE_NEXTHOPS] == !attrs[FARE_A_ROUTE_GROUP_ID]) {
		NL_SET_ERR_MSG(info->extack,
			       "a route needs either next hops or a group id");
		return -EINVAL;
	}
	err = fare_nl_parse_prefix(info, &req->key);
	if (err)
		return err;
	req->mode = attrs[FARE_A_ROUTE_MODE] ?
		    nla_get_u8(attrs[FARE_A_ROUTE_MODE]) : FARE_MODE_DEFAULT;
	req->tcp_mode = attrs[FARE_A_ROUTE_TCP_MODE] ?
			nla_get_u8(attrs[FARE_A_ROUTE_TCP_MODE]) :
			FARE_MODE_DEFAULT;
	req->stats = attrs[FARE_A_ROUTE_STATS] ?
		     nla_get_u8(attrs[FARE_A_ROUTE_STATS]) : -1;
	req->grp = NULL;
	if (attrs[FARE_A_ROUTE_NEXTHOPS])
		return fare_nl_parse_nexthops(info, &req->grp);
	return 0;
}

/* The device @attr (FARE_A_IFINDEX or FARE_A_IFNAME) names; under RCU. */
static struct net_device *fare_nl_dev_rcu(struct net *net,
					  const struct nlattr *attr)
{
	char ifname[IFNAMSIZ];

	if (nla_type(attr) == FARE_A_IFINDEX)
		return dev_get_by_index_rcu(net, nla_get_u32(attr));
	nla_strscpy(ifname, attr, sizeof(ifname));
	return dev_get_by_name_rcu(net, ifname);
}

/* @dev, which @attr names (NULL: none), must be a fare device. */
static int fare_nl_dev_check(const struct nlattr *attr,
			     const struct net_device *dev,
			     struct netlink_ext_ack *extack)
{
	if (!attr)
		return 0;
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no such device in this namespace");
		return -ENODEV;
	}
	if (!fare_dev_is_fare(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a fare device");
		return -EINVAL;
	}
	return 0;
}

/*
 * The fare device a request is for, held (dev_hold()): the one it names
 * (FARE_A_IFINDEX, FARE_A_IFNAME, or both naming the same one), which
 * must be a fare device of the request's namespace; else the namespace's
 * FARE_DEV_NAME, made on first use if @create (fare_dev_default()). NULL
 * if it names none, there is no FARE_DEV_NAME and not @create.
 */
struct net_device *fare_nl_dev(struct net *net, struct nlattr **attrs,
			       bool create, struct netlink_ext_ack *extack)
{
	struct nlattr *idx = attrs[FARE_A_IFINDEX];
	struct nlattr *name = attrs[FARE_A_IFNAME];
	struct net_device *by_idx = NULL, *by_name = NULL, *dev;
	int err;

	rcu_read_lock();
	if (idx)
		by_idx = fare_nl_dev_rcu(net, idx);
	if (name)
		by_name = fare_nl_dev_rcu(net, name);
	if (!idx && !name)
		by_name = dev_get_by_name_rcu(net, FARE_DEV_NAME);
	err = fare_nl_dev_check(idx, by_idx, extack) ?:
	      fare_nl_dev_check(name, by_name, extack);
	if (!err && idx && name && by_idx != by_name) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "ifindex and ifname name different devices");
		err = -EINVAL;
	}
	dev = by_idx ?: by_name;
	if (!err && dev)
		dev_hold(dev);
	rcu_read_unlock();
	if (err)
		return ERR_PTR(err);
	if (!dev && create) {
		rtnl_lock();
		dev = fare_dev_default(net, extack);
		if (!IS_ERR(dev))
			dev_hold(dev);
		rtnl_unlock();
		if (IS_ERR(dev))
			return dev;
	}
	if (dev && !fare_dev_is_fare(dev)) {
		NL_SET_ERR_MSG(extack,
			       "device " FARE_DEV_NAME " is not a fare device");
		dev_put(dev);
		return ERR_PTR(-EINVAL);
	}
	return dev;
}
