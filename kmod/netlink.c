// SPDX-License-Identifier: GPL-2.0
/*
 * The "fare" generic netlink family: planes, routes, namespace config and
 * counters, plus an "events" multicast group that announces every change.
 * Every change needs CAP_NET_ADMIN in the namespace's user namespace, every
 * command is strictly validated, and every refusal carries an extack text.
 */
#include <linux/rtnetlink.h>
#include <linux/socket.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "fare.h"
#include "flowlet.h"
#include "policy.h"
#include "limits.h"
#include "dump.h"

static struct genl_family fare_family;

enum { FARE_MCGRP_EVENTS_IDX };

static const struct genl_multicast_group fare_mcgrps[] = {
	[FARE_MCGRP_EVENTS_IDX] = {
		.name = FARE_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static void fare_sum_tx(struct fare_pcpu_tx __percpu *tx, u64 *packets,
			u64 *bytes)
{
	unsigned int cpu, start;
	u64 p, b;

	*packets = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		const struct fare_pcpu_tx *t = per_cpu_ptr(tx, cpu);

		do {
			start = u64_stats_fetch_begin(&t->syncp);
			p = u64_stats_read(&t->packets);
			b = u64_stats_read(&t->bytes);
		} while (u64_stats_fetch_retry(&t->syncp, start));
		*packets += p;
		*bytes += b;
	}
}

static void *fare_msg_start(struct sk_buff *skb, u32 portid, u32 seq,
			    int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &fare_family, flags, cmd);
}

/* ---- planes ---- */

static int fare_plane_fill(struct sk_buff *skb, struct fare_plane *plane,
			   u32 portid, u32 seq, int flags, u8 cmd)
{
	u64 packets, bytes;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	fare_sum_tx(plane->tx, &packets, &bytes);
	if (nla_put_u32(skb, FARE_A_PLANE_ID, plane->id) ||
	    nla_put_u32(skb, FARE_A_PLANE_IFINDEX, plane->dev->ifindex) ||
	    (plane->has_gw4 &&
	     nla_put_in_addr(skb, FARE_A_PLANE_GW4, plane->gw4)) ||
	    (plane->has_gw6 &&
	     nla_put_in6_addr(skb, FARE_A_PLANE_GW6, &plane->gw6)) ||
	    nla_put_u32(skb, FARE_A_PLANE_FLAGS,
			(READ_ONCE(plane->oper_up) ? FARE_PLANE_F_OPER_UP : 0) |
			(plane->admin_down ? FARE_PLANE_F_ADMIN_DOWN : 0)) ||
	    nla_put_u64_64bit(skb, FARE_A_PLANE_TX_PACKETS, packets,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(skb, FARE_A_PLANE_TX_BYTES, bytes, FARE_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Whether to build the event a change makes: for the events group's
 * listeners, or for the requester of the change (@info; NULL for a change
 * the kernel made itself) if it asked for it with NLM_F_ECHO.
 */
static bool fare_want_event(struct fare_net *fn, const struct genl_info *info)
{
	return genl_has_listeners(&fare_family, fn->net,
				  FARE_MCGRP_EVENTS_IDX) ||
	       (info && nlmsg_report(info->nlhdr));
}

/*
 * The header of an event: the requester's port id and sequence number if
 * it gets the event as its echo, so that it can match it, else none.
 */
static u32 fare_event_portid(const struct genl_info *info)
{
	return info && nlmsg_report(info->nlhdr) ? info->snd_portid : 0;
}

static u32 fare_event_seq(const struct genl_info *info)
{
	return info && nlmsg_report(info->nlhdr) ? info->snd_seq : 0;
}

/*
 * Sends an event to the events group and, if the request (@info) had
 * NLM_F_ECHO, to the requester too (genl_notify()).
 */
static void fare_notify(struct fare_net *fn, struct sk_buff *skb,
			struct genl_info *info)
{
	if (info)
		genl_notify(&fare_family, skb, info, FARE_MCGRP_EVENTS_IDX,
			    GFP_KERNEL);
	else
		genlmsg_multicast_netns(&fare_family, fn->net, skb, 0,
					FARE_MCGRP_EVENTS_IDX, GFP_KERNEL);
}

static void fare_nl_event_plane(struct fare_net *fn, u8 cmd,
				struct fare_plane *plane,
				struct genl_info *info)
{
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (fare_plane_fill(skb, plane, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info);
}

/* A plane event the kernel raised itself (device.c). */
void fare_nl_notify_plane(struct fare_net *fn, u8 cmd,
			  struct fare_plane *plane)
{
	fare_nl_event_plane(fn, cmd, plane, NULL);
}

static int fare_nl_plane_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct fare_plane *plane, *old;
	struct net_device *dev;
	u32 id;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_IFINDEX))
		return -EINVAL;
	if (!attrs[FARE_A_PLANE_GW4] && !attrs[FARE_A_PLANE_GW6]) {
		NL_SET_ERR_MSG(extack, "a plane needs a gateway (IPv4 or IPv6)");
		return -EINVAL;
	}
	id = nla_get_u32(attrs[FARE_A_PLANE_ID]);

	plane = kzalloc(sizeof(*plane), GFP_KERNEL_ACCOUNT);
	if (plane)
		plane->tx = fare_alloc_pcpu_stats(struct fare_pcpu_tx);
	if (!plane || !plane->tx) {
		kfree(plane);
		NL_SET_ERR_MSG(extack, "no memory for the plane");
		return -ENOMEM;
	}
	plane->id = id;
	if (attrs[FARE_A_PLANE_GW4]) {
		plane->has_gw4 = true;
		plane->gw4 = nla_get_in_addr(attrs[FARE_A_PLANE_GW4]);
	}
	if (attrs[FARE_A_PLANE_GW6]) {
		plane->has_gw6 = true;
		plane->gw6 = nla_get_in6_addr(attrs[FARE_A_PLANE_GW6]);
	}
	plane->admin_down = nla_get_flag(attrs[FARE_A_PLANE_ADMIN_DOWN]);

	rtnl_lock();
	old = rtnl_dereference(fn->planes[id]);
	if (old && !nla_get_flag(attrs[FARE_A_REPLACE])) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_ID],
				    "plane already exists (use replace)");
		err = -EEXIST;
		goto err_unlock;
	}
	if (!old) {
		err = fare_limit_planes(fn->num_planes,
					READ_ONCE(fn->max_planes), extack);
		if (err)
			goto err_unlock;
	}
	dev = __dev_get_by_index(fn->net,
				 nla_get_u32(attrs[FARE_A_PLANE_IFINDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_IFINDEX],
				    "no such device in this namespace");
		err = -ENODEV;
		goto err_unlock;
	}
	if (dev->rtnl_link_ops == &fare_link_ops) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_IFINDEX],
				    "a plane cannot be a fare device");
		err = -EINVAL;
		goto err_unlock;
	}
	err = fare_dev_ensure(fn, extack);
	if (err)
		goto err_unlock;

	plane->dev = dev;
	netdev_hold(dev, &plane->dev_tracker, GFP_KERNEL);
	fare_plane_update_oper(plane);
	rcu_assign_pointer(fn->planes[id], plane);
	if (!old)
		WRITE_ONCE(fn->num_planes, fn->num_planes + 1);
	fare_plane_free_rcu(old);
	fare_nl_event_plane(fn, FARE_CMD_PLANE_NEW, plane, info);
	fare_dev_sync(fn);
	rtnl_unlock();
	return 0;

err_unlock:
	rtnl_unlock();
	free_percpu(plane->tx);
	kfree(plane);
	return err;
}

static int fare_nl_plane_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_plane *plane;
	u32 id;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[FARE_A_PLANE_ID]);

	rtnl_lock();
	plane = rtnl_dereference(fn->planes[id]);
	if (!plane) {
		rtnl_unlock();
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FARE_A_PLANE_ID],
				    "no such plane");
		return -ENOENT;
	}
	RCU_INIT_POINTER(fn->planes[id], NULL);
	WRITE_ONCE(fn->num_planes, fn->num_planes - 1);
	fare_nl_event_plane(fn, FARE_CMD_PLANE_DEL, plane, info);
	fare_plane_free_rcu(plane);
	fare_dev_sync(fn);
	rtnl_unlock();
	return 0;
}

static int fare_nl_plane_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_plane *plane;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_PLANE_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	rcu_read_lock();
	plane = fare_plane_get_rcu(fn,
				   nla_get_u32(info->attrs[FARE_A_PLANE_ID]));
	if (plane)
		err = fare_plane_fill(msg, plane, info->snd_portid,
				      info->snd_seq, 0, FARE_CMD_PLANE_GET);
	else
		err = -ENOENT;
	rcu_read_unlock();
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[FARE_A_PLANE_ID],
					    "no such plane");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Resumes at the plane id in cb->args[0]; marked NLM_F_DUMP_INTR if a
 * plane comes, goes or changes state meanwhile: fare_net.plane_gen, bumped
 * after each change, so a round that races one sees the new gen the next
 * time. cb->seq must not be 0 ("no generation"): gen 0 and U32_MAX share
 * seq 1.
 */
static int fare_nl_plane_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fare_net *fn = fare_pernet(sock_net(skb->sk));
	struct fare_plane *plane;
	struct nlmsghdr *nlh;
	long id;
	int err = 0;

	/* Pairs with fare_planes_changed(), as the packet path's read. */
	cb->seq = (smp_load_acquire(&fn->plane_gen) + 1) ?: 1;
	rcu_read_lock();
	for (id = max(cb->args[0], 1L); id <= FARE_PLANE_ID_MAX; id++) {
		plane = fare_plane_get_rcu(fn, id);
		if (!plane)
			continue;
		nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
		err = fare_plane_fill(skb, plane, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      FARE_CMD_PLANE_GET);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlh);
	}
	rcu_read_unlock();
	cb->args[0] = id;
	return fare_dump_result(skb, err);
}

/* ---- routes ---- */

/*
 * Next hop @i of @grp; its counters are the route's own (@rst), or the
 * group's when @grp is shown as a group (@group), or none.
 */
static int fare_nh_fill(struct sk_buff *skb, struct fare_group *grp,
			unsigned int i, struct fare_route_stats *rst,
			bool group)
{
	struct nlattr *entry;
	u64 packets, bytes;

	if (rst)
		fare_route_stats_read(rst, grp->nh[i].plane_id, &packets,
				      &bytes);
	else if (group)
		fare_group_nh_tx(grp, i, &packets, &bytes);

	entry = nla_nest_start(skb, FARE_A_NEXTHOPS_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FARE_A_NH_PLANE_ID, grp->nh[i].plane_id) ||
	    nla_put_u32(skb, FARE_A_NH_WEIGHT, grp->nh[i].weight) ||
	    nla_put_u8(skb, FARE_A_NH_TIER, grp->nh[i].tier) ||
	    (grp->nh[i].bandwidth &&
	     nla_put_u64_64bit(skb, FARE_A_NH_BANDWIDTH, grp->nh[i].bandwidth,
			       FARE_A_NH_PAD)))
		goto cancel;
	if ((rst || group) &&
	    (nla_put_u64_64bit(skb, FARE_A_NH_TX_PACKETS, packets,
			       FARE_A_NH_PAD) ||
	     nla_put_u64_64bit(skb, FARE_A_NH_TX_BYTES, bytes, FARE_A_NH_PAD)))
		goto cancel;
	nla_nest_end(skb, entry);
	return 0;
cancel:
	nla_nest_cancel(skb, entry);
	return -EMSGSIZE;
}

static int fare_nhs_fill(struct sk_buff *skb, struct fare_group *grp,
			 struct fare_route_stats *rst, bool group)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, FARE_A_ROUTE_NEXTHOPS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < grp->num_nh; i++)
		if (fare_nh_fill(skb, grp, i, rst, group))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int fare_route_fill_key(struct sk_buff *skb,
			       const struct fare_prefix *key)
{
	return nla_put_u8(skb, FARE_A_ROUTE_FAMILY, key->family) ||
	       nla_put(skb, FARE_A_ROUTE_DST,
		       key->family == AF_INET ? 4 : 16, key->addr) ||
	       nla_put_u8(skb, FARE_A_ROUTE_PLEN, key->plen);
}

/* Called under fare_net.lock. */
static int fare_route_fill(struct sk_buff *skb, struct fare_route *rt,
			   struct fare_net *fn, u32 portid, u32 seq, int flags,
			   u8 cmd)
{
	struct fare_route_stats *rst;
	struct fare_group *grp;
	struct fare_nhg *nhg;
	u64 noplane, fallback;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (fare_route_fill_key(skb, &rt->key))
		goto cancel;
	if (cmd == FARE_CMD_ROUTE_DEL)
		goto done;

	nhg = rcu_dereference_protected(rt->nhg, lockdep_is_held(&fn->lock));
	grp = rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
	rst = fare_route_stats_locked(fn, rt);
	if (nla_put_u8(skb, FARE_A_ROUTE_MODE, rt->mode) ||
	    nla_put_u32(skb, FARE_A_ROUTE_GROUP_ID, nhg->id) ||
	    nla_put_u8(skb, FARE_A_ROUTE_STATS, !!rst))
		goto cancel;
	if (rst) {
		fare_route_stats_drops(rst, &noplane, &fallback);
		if (nla_put_u64_64bit(skb, FARE_A_ROUTE_NOPLANE_PACKETS,
				      noplane, FARE_A_PAD) ||
		    nla_put_u64_64bit(skb, FARE_A_ROUTE_FALLBACK_PACKETS,
				      fallback, FARE_A_PAD))
			goto cancel;
	}
	if (fare_nhs_fill(skb, grp, rst, false))
		goto cancel;
done:
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Under fare_net.lock. */
static unsigned int fare_route_num_nh(struct fare_net *fn,
				      struct fare_route *rt)
{
	struct fare_nhg *nhg;

	nhg = rcu_dereference_protected(rt->nhg, lockdep_is_held(&fn->lock));
	return rcu_dereference_protected(nhg->grp,
					 lockdep_is_held(&fn->lock))->num_nh;
}

static void fare_nl_notify_route(struct fare_net *fn, u8 cmd,
				 struct fare_route *rt, struct genl_info *info)
{
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	skb = genlmsg_new(fare_route_payload(fare_route_num_nh(fn, rt)),
			  GFP_KERNEL);
	if (!skb)
		return;
	if (fare_route_fill(skb, rt, fn, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info);
}

/* Parses FAMILY, DST and PLEN into @key, with an extack on every refusal. */
static int fare_nl_parse_prefix(struct genl_info *info,
				struct fare_prefix *key)
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
 * The next hops of a route or group, as a group filled but not finished:
 * fare_nhg_get_anon() or fare_nhg_set() finishes it if it is kept.
 */
static int fare_nl_parse_nexthops(struct genl_info *info,
				  struct fare_group **grpp)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct nlattr *nhs = info->attrs[FARE_A_ROUTE_NEXTHOPS];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[FARE_A_NH_MAX + 1];
	DECLARE_BITMAP(seen, FARE_PLANE_ID_MAX + 1);
	struct fare_group *grp;
	unsigned int n = 0, i;
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
	i = 0;
	nla_for_each_nested(entry, nhs, rem) {
		/* Already validated against the policy; this fills tb. */
		err = nla_parse_nested(tb, FARE_A_NH_MAX, entry, fare_nh_policy,
				       extack);
		if (err)
			goto err_free;
		err = -EINVAL;
		if (!tb[FARE_A_NH_PLANE_ID] || !tb[FARE_A_NH_WEIGHT]) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "a next hop needs a plane and a weight");
			goto err_free;
		}
		grp->nh[i].plane_id = nla_get_u32(tb[FARE_A_NH_PLANE_ID]);
		grp->nh[i].weight = nla_get_u32(tb[FARE_A_NH_WEIGHT]);
		if (tb[FARE_A_NH_TIER])
			grp->nh[i].tier = nla_get_u8(tb[FARE_A_NH_TIER]);
		if (tb[FARE_A_NH_BANDWIDTH])
			grp->nh[i].bandwidth =
				nla_get_u64(tb[FARE_A_NH_BANDWIDTH]);
		grp->weights[i] = grp->nh[i].weight;
		grp->tiers[i] = grp->nh[i].tier;
		if (test_and_set_bit(grp->nh[i].plane_id, seen)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FARE_A_NH_PLANE_ID],
					    "plane appears twice in the route");
			goto err_free;
		}
		rcu_read_lock();
		err = fare_plane_get_rcu(fn, grp->nh[i].plane_id) ? 0 : -ENOENT;
		rcu_read_unlock();
		if (err) {
			NL_SET_ERR_MSG_ATTR(extack, tb[FARE_A_NH_PLANE_ID],
					    "no such plane");
			goto err_free;
		}
		i++;
	}
	*grpp = grp;
	return 0;

err_free:
	fare_group_discard(grp);
	return err;
}

/*
 * The group a ROUTE_NEW names (FARE_A_ROUTE_GROUP_ID, a named group) or
 * gives inline (FARE_A_ROUTE_NEXTHOPS, an anonymous group shared by
 * content), with a reference for the route. @old is the group the route
 * has now, if it is being replaced. Under fn->lock; @grp (the parsed
 * inline next hops) is consumed.
 */
static int fare_nl_route_nhg(struct fare_net *fn, struct genl_info *info,
			     struct fare_group *grp, struct fare_nhg *old,
			     struct fare_nhg **nhgp)
{
	struct nlattr *id_attr = info->attrs[FARE_A_ROUTE_GROUP_ID];
	const struct fare_group *prev = NULL;
	struct fare_nhg *nhg;

	if (grp) {
		if (old)
			prev = rcu_dereference_protected(old->grp,
							 lockdep_is_held(&fn->lock));
		/* Its own anonymous group, if only it used it, goes. */
		return fare_nhg_get_anon(fn, grp, prev,
					 old && old->refs == 1 &&
					 fare_nhg_anon(old),
					 nhgp, info->extack);
	}
	nhg = fare_nhg_find(fn, nla_get_u32(id_attr));
	if (!nhg || fare_nhg_anon(nhg)) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr, "no such group");
		return -ENOENT;
	}
	nhg->refs++;
	*nhgp = nhg;
	return 0;
}

static int fare_nl_route_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_route_stats *rst = NULL, *old_rst;
	struct nlattr **attrs = info->attrs;
	struct fare_nhg *nhg, *old = NULL;
	struct fare_group *grp = NULL;
	struct fare_route *rt, *new;
	struct fare_prefix key;
	u8 mode = FARE_MODE_DEFAULT;
	bool stats;
	int err;

	if (!attrs[FARE_A_ROUTE_NEXTHOPS] == !attrs[FARE_A_ROUTE_GROUP_ID]) {
		NL_SET_ERR_MSG(info->extack,
			       "a route needs either next hops or a group id");
		return -EINVAL;
	}
	err = fare_nl_parse_prefix(info, &key);
	if (err)
		return err;
	if (attrs[FARE_A_ROUTE_MODE])
		mode = nla_get_u8(attrs[FARE_A_ROUTE_MODE]);
	if (attrs[FARE_A_ROUTE_NEXTHOPS]) {
		err = fare_nl_parse_nexthops(info, &grp);
		if (err)
			return err;
	}

	mutex_lock(&fn->lock);
	rt = fare_route_find(fn, &key);
	if (rt) {
		if (!nla_get_flag(attrs[FARE_A_REPLACE])) {
			NL_SET_ERR_MSG(info->extack,
				       "route already exists (use replace)");
			err = -EEXIST;
			goto err_unlock;
		}
		old = rcu_dereference_protected(rt->nhg,
						lockdep_is_held(&fn->lock));
	} else {
		err = fare_limit_routes(fn->num_routes, fn->max_routes,
					info->extack);
		if (err)
			goto err_unlock;
	}
	stats = attrs[FARE_A_ROUTE_STATS] ?
		nla_get_u8(attrs[FARE_A_ROUTE_STATS]) : fn->route_stats;

	err = fare_nl_route_nhg(fn, info, grp, old, &nhg);
	grp = NULL;			/* consumed */
	if (err)
		goto err_unlock;
	if (stats) {
		/* Fresh counters with every NEW, as for new next hops. */
		rst = fare_route_stats_alloc(rcu_dereference_protected(nhg->grp,
								       lockdep_is_held(&fn->lock)));
		if (!rst) {
			NL_SET_ERR_MSG(info->extack,
				       "no memory for the route's counters");
			err = -ENOMEM;
			goto err_put;
		}
	}
	if (rt && !!rst == !!(rt->flags & FARE_ROUTE_F_STATS)) {
		/* Readers see the old group or the new one, never a mix. */
		old_rst = fare_route_stats_locked(fn, rt);
		WRITE_ONCE(rt->mode, mode);
		rcu_assign_pointer(rt->nhg, nhg);
		if (rst)
			rcu_assign_pointer(fare_route_ext(rt)->stats, rst);
		fare_route_stats_free_rcu(old_rst);
		fare_nhg_put(fn, old);
		goto done;
	}
	/* A new route, or one that gains or loses its counters: new object. */
	err = -ENOMEM;
	new = fare_route_alloc(rst);
	if (!new) {
		NL_SET_ERR_MSG(info->extack, "no memory for the route");
		goto err_put;
	}
	rst = NULL;			/* the route's now */
	new->key = key;
	new->mode = mode;
	RCU_INIT_POINTER(new->nhg, nhg);
	if (rt) {
		/* Same place in the table and the list; dumps resume by seq. */
		err = fare_route_swap(fn, rt, new);
		if (err) {
			NL_SET_ERR_MSG(info->extack,
				       "cannot replace the route in the table");
			goto err_new;
		}
		/* Readers of @rt finish with its old group and counters. */
		fare_route_free(fn, rt);
	} else {
		err = fare_route_insert(fn, new);
		if (err) {
			NL_SET_ERR_MSG(info->extack,
				       "cannot insert the route into the table");
			goto err_new;
		}
	}
	rt = new;
done:
	fare_dump_gen_bump(fn);
	fare_nl_notify_route(fn, FARE_CMD_ROUTE_NEW, rt, info);
	mutex_unlock(&fn->lock);
	return 0;

err_new:
	/* Its counters go with it; the group reference is dropped below. */
	RCU_INIT_POINTER(new->nhg, NULL);
	fare_route_free(fn, new);
err_put:
	fare_route_stats_free_rcu(rst);
	fare_nhg_put(fn, nhg);
err_unlock:
	mutex_unlock(&fn->lock);
	fare_group_discard(grp);
	return err;
}

static int fare_nl_route_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_prefix key;
	struct fare_route *rt;
	int err;

	err = fare_nl_parse_prefix(info, &key);
	if (err)
		return err;

	mutex_lock(&fn->lock);
	rt = fare_route_find(fn, &key);
	if (!rt) {
		mutex_unlock(&fn->lock);
		NL_SET_ERR_MSG(info->extack, "no such route");
		return -ENOENT;
	}
	fare_route_remove(fn, rt);
	fare_dump_gen_bump(fn);
	fare_nl_notify_route(fn, FARE_CMD_ROUTE_DEL, rt, info);
	fare_route_free(fn, rt);
	mutex_unlock(&fn->lock);
	return 0;
}

static int fare_nl_route_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_prefix key;
	struct fare_route *rt;
	struct sk_buff *msg;
	int err;

	err = fare_nl_parse_prefix(info, &key);
	if (err)
		return err;
	/* Room for the largest route the policy admits. */
	msg = genlmsg_new(fare_route_payload(FARE_NEXTHOP_MAX), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&fn->lock);
	rt = fare_route_find(fn, &key);
	if (rt)
		err = fare_route_fill(msg, rt, fn, info->snd_portid,
				      info->snd_seq, 0, FARE_CMD_ROUTE_GET);
	else
		err = -ENOENT;
	mutex_unlock(&fn->lock);
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no such route");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * A route dump lists the routes in key order (family, address, prefix
 * length) and resumes at the first key after the last one it sent, which
 * one lookup in the route tree finds whether or not that route is still
 * there: routes that stay put are listed exactly once; routes added during
 * the dump may or may not be. A dump that spans a change of the routes
 * is marked NLM_F_DUMP_INTR (fare_net.dump_gen).
 */
struct fare_route_dump_ctx {
	struct fare_prefix last;
	bool started;
};

/*
 * A dump message has room for the largest route, whatever the receiver's
 * buffer: else a route of many next hops that does not fit an empty
 * message could only fail the dump.
 */
static int fare_nl_route_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = nlmsg_total_size(GENL_HDRLEN +
					      fare_route_payload(FARE_NEXTHOP_MAX));
	return 0;
}

static int fare_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fare_route_dump_ctx *ctx = (void *)cb->ctx;
	struct fare_net *fn = fare_pernet(sock_net(skb->sk));
	struct rb_node *node = NULL;
	struct nlmsghdr *nlh;
	struct fare_route *rt;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	mutex_lock(&fn->lock);
	cb->seq = fn->dump_gen;
	for (rt = fare_route_after(fn, ctx->started ? &ctx->last : NULL); rt;
	     rt = node ? rb_entry(node, struct fare_route, tree) : NULL) {
		nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
		err = fare_route_fill(skb, rt, fn, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      FARE_CMD_ROUTE_GET);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlh);
		ctx->last = rt->key;
		ctx->started = true;
		node = rb_next(&rt->tree);
	}
	mutex_unlock(&fn->lock);
	return fare_dump_result(skb, err);
}

/* ---- next-hop groups ---- */

/* Called under fare_net.lock. */
static int fare_group_fill(struct sk_buff *skb, struct fare_nhg *nhg,
			   struct fare_net *fn, u32 portid, u32 seq, int flags,
			   u8 cmd)
{
	struct fare_group *grp;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, FARE_A_GROUP_ID, nhg->id))
		goto cancel;
	if (cmd == FARE_CMD_GROUP_DEL)
		goto done;
	grp = rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
	if (nla_put_u32(skb, FARE_A_GROUP_REFS, nhg->refs) ||
	    fare_nhs_fill(skb, grp, NULL, true))
		goto cancel;
done:
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static void fare_nl_notify_group(struct fare_net *fn, u8 cmd,
				 struct fare_nhg *nhg, struct genl_info *info)
{
	struct fare_group *grp;
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	grp = rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
	skb = genlmsg_new(fare_group_payload(grp->num_nh), GFP_KERNEL);
	if (!skb)
		return;
	if (fare_group_fill(skb, nhg, fn, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info);
}

static int fare_nl_group_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_group *grp;
	struct fare_nhg *nhg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_GROUP_ID) ||
	    GENL_REQ_ATTR_CHECK(info, FARE_A_ROUTE_NEXTHOPS))
		return -EINVAL;
	err = fare_nl_parse_nexthops(info, &grp);
	if (err)
		return err;
	mutex_lock(&fn->lock);
	err = fare_nhg_set(fn, nla_get_u32(info->attrs[FARE_A_GROUP_ID]), grp,
			   nla_get_flag(info->attrs[FARE_A_REPLACE]), &nhg,
			   info->extack);
	if (!err) {
		fare_dump_gen_bump(fn);
		fare_nl_notify_group(fn, FARE_CMD_GROUP_NEW, nhg, info);
	}
	mutex_unlock(&fn->lock);
	return err;
}

static int fare_nl_group_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_nhg *nhg;
	int err = 0;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_GROUP_ID))
		return -EINVAL;
	mutex_lock(&fn->lock);
	nhg = fare_nhg_deletable(fn, nla_get_u32(info->attrs[FARE_A_GROUP_ID]),
				 info->extack);
	if (IS_ERR(nhg)) {
		err = PTR_ERR(nhg);
	} else {
		/* Announced first: the group is freed with the delete. */
		fare_nl_notify_group(fn, FARE_CMD_GROUP_DEL, nhg, info);
		fare_nhg_remove(fn, nhg);
		fare_dump_gen_bump(fn);
	}
	mutex_unlock(&fn->lock);
	return err;
}

static int fare_nl_group_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct fare_nhg *nhg;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_GROUP_ID))
		return -EINVAL;
	msg = genlmsg_new(fare_group_payload(FARE_NEXTHOP_MAX), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&fn->lock);
	nhg = fare_nhg_find(fn, nla_get_u32(info->attrs[FARE_A_GROUP_ID]));
	if (nhg)
		err = fare_group_fill(msg, nhg, fn, info->snd_portid,
				      info->snd_seq, 0, FARE_CMD_GROUP_GET);
	else
		err = -ENOENT;
	mutex_unlock(&fn->lock);
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[FARE_A_GROUP_ID],
					    "no such group");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int fare_nl_group_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = nlmsg_total_size(GENL_HDRLEN +
					      fare_group_payload(FARE_NEXTHOP_MAX));
	return 0;
}

/*
 * Resumes at the id after the last one sent, kept in cb->args[0]; marked
 * NLM_F_DUMP_INTR if the groups change meanwhile (fare_net.dump_gen).
 */
static int fare_nl_group_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct fare_net *fn = fare_pernet(sock_net(skb->sk));
	unsigned long id = cb->args[0];
	struct nlmsghdr *nlh;
	struct fare_nhg *nhg;
	int err = 0;

	mutex_lock(&fn->lock);
	/* Also for the round that only ends the dump (its NLMSG_DONE). */
	cb->seq = fn->dump_gen;
	if (cb->args[1]) {		/* the last id was sent */
		mutex_unlock(&fn->lock);
		return 0;
	}
	xa_for_each_start(&fn->nhgs, id, nhg, id) {
		nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
		err = fare_group_fill(skb, nhg, fn, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI,
				      FARE_CMD_GROUP_GET);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlh);
		cb->args[0] = id + 1;
		if (id == U32_MAX)
			cb->args[1] = 1;
	}
	mutex_unlock(&fn->lock);
	return fare_dump_result(skb, err);
}

/* ---- namespace config and counters ---- */

/*
 * The namespace config, under fare_net.lock. The flow hash seed is a
 * secret (who knows it can aim flows at one plane): only @with_seed, for
 * CAP_NET_ADMIN, sees it.
 */
static int fare_config_fill(struct sk_buff *skb, struct fare_net *fn,
			    u32 portid, u32 seq, u8 cmd, bool with_seed)
{
	struct net_device *dev;
	void *hdr;
	int err;

	hdr = fare_msg_start(skb, portid, seq, 0, cmd);
	if (!hdr)
		return -EMSGSIZE;
	rcu_read_lock();
	dev = rcu_dereference(fn->dev);
	err = nla_put_u32(skb, FARE_A_CONFIG_IFINDEX, dev ? dev->ifindex : 0);
	rcu_read_unlock();
	if (err ||
	    nla_put_u8(skb, FARE_A_CONFIG_MODE, fn->default_mode) ||
	    nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_US, fn->flowlet_us) ||
	    (with_seed &&
	     nla_put_u32(skb, FARE_A_CONFIG_HASH_SEED, fn->hash_seed)) ||
	    nla_put(skb, FARE_A_CONFIG_TIER_HOPS, fn->n_tier_hops,
		    fn->tier_hops) ||
	    nla_put_u32(skb, FARE_A_CONFIG_SPILL_BIAS, fn->spill_bias) ||
	    nla_put_u32(skb, FARE_A_CONFIG_MAX_ROUTES, fn->max_routes) ||
	    nla_put_u32(skb, FARE_A_CONFIG_MAX_PLANES,
			READ_ONCE(fn->max_planes)) ||
	    nla_put_u32(skb, FARE_A_CONFIG_MAX_NEXTHOPS,
			READ_ONCE(fn->max_nexthops)) ||
	    nla_put_u32(skb, FARE_A_CONFIG_NUM_ROUTES, fn->num_routes) ||
	    nla_put_u32(skb, FARE_A_CONFIG_NUM_PLANES,
			READ_ONCE(fn->num_planes)) ||
	    nla_put_u8(skb, FARE_A_CONFIG_ROUTE_STATS, fn->route_stats) ||
	    nla_put_u32(skb, FARE_A_CONFIG_MAX_GROUPS, fn->max_groups) ||
	    nla_put_u32(skb, FARE_A_CONFIG_NUM_GROUPS, fn->num_groups) ||
	    nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_SLOTS, fn->flowlet_slots)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int fare_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&fn->lock);
	err = fare_config_fill(msg, fn, info->snd_portid, info->snd_seq,
			       FARE_CMD_CONFIG_GET,
			       netlink_net_capable(skb, CAP_NET_ADMIN));
	mutex_unlock(&fn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* FARE_A_CONFIG_FLOWLET_SLOTS: checks the size, then resizes (flowlet.c). */
static int fare_config_set_slots(struct fare_net *fn, const struct nlattr *attr,
				 bool may_grow, struct netlink_ext_ack *extack)
{
	u32 slots = nla_get_u32(attr);
	int err;

	err = fare_flowlet_slots_check(slots, may_grow, attr, extack);
	if (err)
		return err;
	err = fare_flowlets_resize(fn, slots);
	if (err)
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no memory for a flowlet table of this size");
	return err;
}

static int fare_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	bool may_raise = netlink_capable(skb, CAP_NET_ADMIN);
	struct sk_buff *msg;
	int err = 0;

	mutex_lock(&fn->lock);
	/* Every limit is checked before anything changes. */
	if (attrs[FARE_A_CONFIG_MAX_ROUTES])
		err = fare_limit_set(fn->max_routes,
				     nla_get_u32(attrs[FARE_A_CONFIG_MAX_ROUTES]),
				     may_raise, attrs[FARE_A_CONFIG_MAX_ROUTES],
				     info->extack);
	if (!err && attrs[FARE_A_CONFIG_MAX_PLANES])
		err = fare_limit_set(fn->max_planes,
				     nla_get_u32(attrs[FARE_A_CONFIG_MAX_PLANES]),
				     may_raise, attrs[FARE_A_CONFIG_MAX_PLANES],
				     info->extack);
	if (!err && attrs[FARE_A_CONFIG_MAX_NEXTHOPS])
		err = fare_limit_set(fn->max_nexthops,
				     nla_get_u32(attrs[FARE_A_CONFIG_MAX_NEXTHOPS]),
				     may_raise, attrs[FARE_A_CONFIG_MAX_NEXTHOPS],
				     info->extack);
	if (!err && attrs[FARE_A_CONFIG_MAX_GROUPS])
		err = fare_limit_set(fn->max_groups,
				     nla_get_u32(attrs[FARE_A_CONFIG_MAX_GROUPS]),
				     may_raise, attrs[FARE_A_CONFIG_MAX_GROUPS],
				     info->extack);
	/* The only step that may fail (-ENOMEM): before any other change. */
	if (!err && attrs[FARE_A_CONFIG_FLOWLET_SLOTS])
		err = fare_config_set_slots(fn, attrs[FARE_A_CONFIG_FLOWLET_SLOTS],
					    may_raise, info->extack);
	if (err) {
		mutex_unlock(&fn->lock);
		return err;
	}
	/* A lower limit refuses new objects; those present stay. */
	if (attrs[FARE_A_CONFIG_MAX_GROUPS])
		fn->max_groups = nla_get_u32(attrs[FARE_A_CONFIG_MAX_GROUPS]);
	/* Routes made from now on; those present keep what they have. */
	if (attrs[FARE_A_CONFIG_ROUTE_STATS])
		fn->route_stats = nla_get_u8(attrs[FARE_A_CONFIG_ROUTE_STATS]);
	if (attrs[FARE_A_CONFIG_MAX_ROUTES])
		fn->max_routes = nla_get_u32(attrs[FARE_A_CONFIG_MAX_ROUTES]);
	if (attrs[FARE_A_CONFIG_MAX_PLANES])
		WRITE_ONCE(fn->max_planes,
			   nla_get_u32(attrs[FARE_A_CONFIG_MAX_PLANES]));
	if (attrs[FARE_A_CONFIG_MAX_NEXTHOPS])
		WRITE_ONCE(fn->max_nexthops,
			   nla_get_u32(attrs[FARE_A_CONFIG_MAX_NEXTHOPS]));
	if (attrs[FARE_A_CONFIG_MODE])
		WRITE_ONCE(fn->default_mode,
			   nla_get_u8(attrs[FARE_A_CONFIG_MODE]));
	if (attrs[FARE_A_CONFIG_FLOWLET_US])
		WRITE_ONCE(fn->flowlet_us,
			   nla_get_u32(attrs[FARE_A_CONFIG_FLOWLET_US]));
	if (attrs[FARE_A_CONFIG_HASH_SEED])
		WRITE_ONCE(fn->hash_seed,
			   nla_get_u32(attrs[FARE_A_CONFIG_HASH_SEED]));
	if (attrs[FARE_A_CONFIG_TIER_HOPS]) {
		/* The policy checked 1..FARE_TIER_MAX + 1 counts, none 0. */
		const u8 *hops = nla_data(attrs[FARE_A_CONFIG_TIER_HOPS]);
		int i, n = nla_len(attrs[FARE_A_CONFIG_TIER_HOPS]);

		for (i = 0; i < n; i++)
			WRITE_ONCE(fn->tier_hops[i], hops[i]);
		WRITE_ONCE(fn->n_tier_hops, n);
	}
	if (attrs[FARE_A_CONFIG_SPILL_BIAS])
		WRITE_ONCE(fn->spill_bias,
			   nla_get_u32(attrs[FARE_A_CONFIG_SPILL_BIAS]));
	if (fare_want_event(fn, info)) {
		msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
		/*
		 * The group is CAP_NET_ADMIN's only, and so is this command:
		 * listeners and the requester see the seed.
		 */
		if (msg && !fare_config_fill(msg, fn, fare_event_portid(info),
					     fare_event_seq(info),
					     FARE_CMD_CONFIG_SET, true))
			fare_notify(fn, msg, info);
		else
			nlmsg_free(msg);
	}
	mutex_unlock(&fn->lock);
	return 0;
}

/* Sums the per-tier counters and puts them in a FARE_A_STATS_TIERS nest. */
static int fare_stats_tiers_fill(struct sk_buff *msg, struct fare_net *fn)
{
	u64 tot[FARE_TIER_MAX + 1][3] = { };
	struct nlattr *nest, *entry;
	unsigned int cpu, start, t;

	for_each_possible_cpu(cpu) {
		const struct fare_pcpu_net *st = per_cpu_ptr(fn->stats, cpu);
		u64 v[FARE_TIER_MAX + 1][3];

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			for (t = 0; t <= FARE_TIER_MAX; t++) {
				v[t][0] = u64_stats_read(&st->tier[t].packets);
				v[t][1] = u64_stats_read(&st->tier[t].bytes);
				v[t][2] = u64_stats_read(&st->tier[t].spills);
			}
		} while (u64_stats_fetch_retry(&st->syncp, start));
		for (t = 0; t <= FARE_TIER_MAX; t++) {
			tot[t][0] += v[t][0];
			tot[t][1] += v[t][1];
			tot[t][2] += v[t][2];
		}
	}

	nest = nla_nest_start(msg, FARE_A_STATS_TIERS);
	if (!nest)
		return -EMSGSIZE;
	for (t = 0; t <= FARE_TIER_MAX; t++) {
		entry = nla_nest_start(msg, FARE_A_STATS_TIERS_ENTRY);
		if (!entry ||
		    nla_put_u8(msg, FARE_A_TIER_INDEX, t) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_TX_PACKETS, tot[t][0],
				      FARE_A_TIER_PAD) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_TX_BYTES, tot[t][1],
				      FARE_A_TIER_PAD) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_SPILLS, tot[t][2],
				      FARE_A_TIER_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int fare_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = fare_pernet(genl_info_net(info));
	u64 noroute = 0, noplane = 0, fallback = 0, error = 0;
	unsigned int cpu, start;
	struct sk_buff *msg;
	void *hdr;

	for_each_possible_cpu(cpu) {
		const struct fare_pcpu_net *st = per_cpu_ptr(fn->stats, cpu);
		u64 a, b, c, d;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			a = u64_stats_read(&st->noroute);
			b = u64_stats_read(&st->noplane);
			c = u64_stats_read(&st->error);
			d = u64_stats_read(&st->fallback);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		noroute += a;
		noplane += b;
		error += c;
		fallback += d;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = fare_msg_start(msg, info->snd_portid, info->snd_seq, 0,
			     FARE_CMD_STATS_GET);
	if (!hdr ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_NOROUTE_PACKETS, noroute,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_NOPLANE_PACKETS, noplane,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_ERROR_PACKETS, error,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_FALLBACK_PACKETS, fallback,
			      FARE_A_PAD) ||
	    fare_stats_tiers_fill(msg, fn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_ops fare_genl_ops[] = {
	{
		.cmd = FARE_CMD_PLANE_NEW,
		.doit = fare_nl_plane_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_PLANE_DEL,
		.doit = fare_nl_plane_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_PLANE_GET,
		.doit = fare_nl_plane_get,
		.dumpit = fare_nl_plane_dump,
	},
	{
		.cmd = FARE_CMD_ROUTE_NEW,
		.doit = fare_nl_route_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_ROUTE_DEL,
		.doit = fare_nl_route_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_ROUTE_GET,
		.doit = fare_nl_route_get,
		.start = fare_nl_route_dump_start,
		.dumpit = fare_nl_route_dump,
	},
	{
		.cmd = FARE_CMD_CONFIG_SET,
		.doit = fare_nl_config_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_CONFIG_GET,
		.doit = fare_nl_config_get,
	},
	{
		.cmd = FARE_CMD_STATS_GET,
		.doit = fare_nl_stats_get,
	},
	{
		.cmd = FARE_CMD_GROUP_NEW,
		.doit = fare_nl_group_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_GROUP_DEL,
		.doit = fare_nl_group_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_GROUP_GET,
		.doit = fare_nl_group_get,
		.start = fare_nl_group_dump_start,
		.dumpit = fare_nl_group_dump,
	},
};

static struct genl_family fare_family __ro_after_init = {
	.name = FARE_GENL_NAME,
	.version = FARE_GENL_VERSION,
	.maxattr = FARE_A_MAX,
	.policy = fare_policy,
	.netnsok = true,
	/* Every command, old and new, is strictly validated. */
	.resv_start_op = 0,
	.ops = fare_genl_ops,
	.n_ops = ARRAY_SIZE(fare_genl_ops),
	.mcgrps = fare_mcgrps,
	.n_mcgrps = ARRAY_SIZE(fare_mcgrps),
	.module = THIS_MODULE,
};

int fare_genl_register(void)
{
	return genl_register_family(&fare_family);
}

void fare_genl_unregister(void)
{
	genl_unregister_family(&fare_family);
}
