// SPDX-License-Identifier: GPL-2.0
/*
 * The "fare" generic netlink family: planes, routes, namespace config and
 * counters, plus an "events" multicast group that announces every change.
 * Every change needs CAP_NET_ADMIN in the namespace's user namespace, every
 * command is strictly validated, and every refusal carries an extack text.
 * Each handler parses (nl_parse.c), checks, has the object's own code make
 * the change, and answers (nl_fill.c) or announces it (nl_notify.c).
 */
#include <linux/rtnetlink.h>
#include <linux/socket.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "device.h"
#include "dump.h"
#include "flowlet.h"
#include "gateway.h"
#include "limits.h"
#include "netlink.h"
#include "nhg.h"
#include "nl.h"
#include "plane.h"
#include "policy.h"
#include "route.h"

static const struct genl_multicast_group fare_mcgrps[] = {
	[FARE_MCGRP_EVENTS_IDX] = {
		.name = FARE_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

/*
 * Before every doit: the fare device the request is for (nl_parse.c,
 * fare_nl_dev()), held until fare_nl_post_doit(), its state in
 * info->user_ptr[0]. FARE_DEV_NAME is made on first use by a change, or
 * by a read of someone who could have made it.
 */
static int fare_nl_pre_doit(const struct fare_genl_doit_ops *ops,
			    struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	bool create = (ops->flags & GENL_UNS_ADMIN_PERM) ||
		      netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN);
	struct net_device *dev;

	dev = fare_nl_dev(net, info->attrs, create, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (!dev) {
		NL_SET_ERR_MSG(info->extack,
			       "no fare device " FARE_DEV_NAME " in this namespace");
		return -ENODEV;
	}
	info->user_ptr[0] = fare_dev_state(dev);
	return 0;
}

static void fare_nl_post_doit(const struct fare_genl_doit_ops *ops,
			      struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];

	dev_put(fn->dev);
}

/*
 * A dump keeps the ifindex of its device (0: none, an empty dump) in
 * cb->args[FARE_DUMP_DEV_ARG] and finds it again every round, so that it
 * holds no reference between rounds (a reader that never finishes its
 * dump must not keep the device from going).
 */
#define FARE_DUMP_DEV_ARG	5

/* Before every dump: the device the request names, checked likewise. */
static int fare_nl_dump_start(struct netlink_callback *cb)
{
	struct net_device *dev;

	dev = fare_nl_dev(sock_net(cb->skb->sk), fare_dump_attrs(cb), false,
			  cb->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	if (dev) {
		cb->args[FARE_DUMP_DEV_ARG] = dev->ifindex;
		dev_put(dev);
	}
	return 0;
}

/*
 * The device of a dump round, held: NULL if there is none, -ENODEV if it
 * went away since the dump started.
 */
static struct net_device *fare_nl_dump_dev(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	int ifindex = cb->args[FARE_DUMP_DEV_ARG];
	struct net_device *dev;

	if (!ifindex)
		return NULL;
	dev = dev_get_by_index(sock_net(skb->sk), ifindex);
	if (dev && !fare_dev_is_fare(dev)) {
		dev_put(dev);
		dev = NULL;
	}
	return dev ?: ERR_PTR(-ENODEV);
}

/* ---- planes ---- */

/*
 * Checks a PLANE_NEW of plane @id against the planes there are, under
 * RTNL: a new id within the limit, an existing one only with replace; and
 * finds its device, which must not be a fare device.
 */
static struct net_device *fare_nl_plane_dev(struct fare_net *fn,
					    struct genl_info *info, u32 id)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct net_device *dev;
	int err;

	if (rtnl_dereference(fn->planes[id])) {
		if (!nla_get_flag(attrs[FARE_A_REPLACE])) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_ID],
					    "plane already exists (use replace)");
			return ERR_PTR(-EEXIST);
		}
	} else {
		err = fare_limit_planes(fn->num_planes,
					READ_ONCE(fn->max_planes), extack);
		if (err)
			return ERR_PTR(err);
	}
	dev = __dev_get_by_index(fn->net,
				 nla_get_u32(attrs[FARE_A_PLANE_IFINDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_IFINDEX],
				    "no such device in this namespace");
		return ERR_PTR(-ENODEV);
	}
	if (fare_dev_is_fare(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[FARE_A_PLANE_IFINDEX],
				    "a plane cannot be a fare device");
		return ERR_PTR(-EINVAL);
	}
	return dev;
}

static int fare_nl_plane_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
	struct fare_plane *plane;
	struct net_device *dev;
	int err;

	plane = fare_nl_parse_plane(info);
	if (IS_ERR(plane))
		return PTR_ERR(plane);
	rtnl_lock();
	dev = fare_nl_plane_dev(fn, info, plane->id);
	err = PTR_ERR_OR_ZERO(dev);
	if (!err && fn->dev->reg_state != NETREG_REGISTERED) {
		NL_SET_ERR_MSG(info->extack, "the fare device is going away");
		err = -ENODEV;
	}
	if (!err)
		fare_plane_publish(fn, plane, dev, info);
	rtnl_unlock();
	if (err)
		fare_plane_discard(plane);
	return err;
}

static int fare_nl_plane_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
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
	fare_plane_unlink(fn, plane, info);
	rtnl_unlock();
	return 0;
}

static int fare_nl_plane_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
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
		err = fare_plane_fill(msg, fn, plane, info->snd_portid,
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
static int fare_nl_plane_dump_fn(struct fare_net *fn, struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct fare_plane *plane;
	struct nlmsghdr *nlh;
	long id;
	int err = 0;

	/* Pairs with fare_planes_bump(), as the packet path's read. */
	cb->seq = ((u32)atomic_read_acquire(&fn->plane_gen) + 1) ?: 1;
	rcu_read_lock();
	for (id = max(cb->args[0], 1L); id <= FARE_PLANE_ID_MAX; id++) {
		plane = fare_plane_get_rcu(fn, id);
		if (!plane)
			continue;
		nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
		err = fare_plane_fill(skb, fn, plane,
				      NETLINK_CB(cb->skb).portid,
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
		bool going = old && old->refs == 1 && fare_nhg_anon(old);

		if (old)
			prev = rcu_dereference_protected(old->grp,
							 lockdep_is_held(&fn->lock));
		/* Its own anonymous group, if only it used it, goes. */
		return fare_nhg_get_anon(fn, grp, prev, going,
					 going ? fare_nhg_bytes(fn, old) : 0,
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

/*
 * Whether ROUTE_NEW may make or replace the route at @key, under the lock:
 * *@rtp is the route there now, if any, and then replace must be asked.
 */
static int fare_nl_route_check(struct fare_net *fn, struct genl_info *info,
			       const struct fare_prefix *key,
			       struct fare_route **rtp)
{
	struct fare_route *rt = fare_route_find(fn, key);

	*rtp = rt;
	if (rt && !nla_get_flag(info->attrs[FARE_A_REPLACE])) {
		NL_SET_ERR_MSG(info->extack,
			       "route already exists (use replace)");
		return -EEXIST;
	}
	if (rt)
		return 0;
	return fare_limit_routes(fn->num_routes, fn->max_routes, info->extack);
}

static int fare_nl_route_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
	struct fare_nhg *nhg, *old = NULL;
	struct fare_route_req req;
	struct fare_route *rt;
	bool stats;
	int err;

	err = fare_nl_parse_route(info, &req);
	if (err)
		return err;

	mutex_lock(&fn->lock);
	err = fare_nl_route_check(fn, info, &req.key, &rt);
	if (err)
		goto out_unlock;
	if (rt)
		old = rcu_dereference_protected(rt->nhg,
						lockdep_is_held(&fn->lock));
	stats = req.stats < 0 ? fn->route_stats : req.stats;
	err = fare_nl_route_nhg(fn, info, req.grp, old, &nhg);
	req.grp = NULL;			/* consumed */
	if (err)
		goto out_unlock;
	err = fare_route_set(fn, rt, &req.key, req.mode, req.tcp_mode, stats,
			     nhg, &rt, info->extack);
	if (!err) {
		fare_dump_gen_bump(fn);
		fare_nl_notify_route(fn, FARE_CMD_ROUTE_NEW, rt, info);
	}
out_unlock:
	mutex_unlock(&fn->lock);
	fare_group_discard(req.grp);
	return err;
}

static int fare_nl_route_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
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
	struct fare_net *fn = info->user_ptr[0];
	struct fare_prefix key;
	struct fare_route *rt;
	struct sk_buff *msg;
	int err;

	err = fare_nl_parse_prefix(info, &key);
	if (err)
		return err;

	/*
	 * The reply is sized for the route found, under the lock that keeps
	 * its next hops: libfare reads every route a batch replaces or
	 * deletes, and room for the largest route the policy admits (64 next
	 * hops, zeroed where init_on_alloc is on) cost each of them.
	 */
	mutex_lock(&fn->lock);
	rt = fare_route_find(fn, &key);
	if (!rt) {
		mutex_unlock(&fn->lock);
		NL_SET_ERR_MSG(info->extack, "no such route");
		return -ENOENT;
	}
	msg = genlmsg_new(fare_route_payload(fare_route_num_nh(fn, rt)),
			  GFP_KERNEL);
	if (!msg) {
		mutex_unlock(&fn->lock);
		return -ENOMEM;
	}
	err = fare_route_fill(msg, rt, fn, info->snd_portid, info->snd_seq,
			      0, FARE_CMD_ROUTE_GET);
	mutex_unlock(&fn->lock);
	if (err) {
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
	return fare_nl_dump_start(cb);
}

static int fare_nl_route_dump_fn(struct fare_net *fn, struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct fare_route_dump_ctx *ctx = (void *)cb->ctx;
	struct rb_node *node = NULL;
	struct nlmsghdr *nlh;
	struct fare_route *rt;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > FARE_DUMP_DEV_ARG * sizeof(cb->args[0]));

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

static int fare_nl_group_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
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
	struct fare_net *fn = info->user_ptr[0];
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
	struct fare_net *fn = info->user_ptr[0];
	struct fare_nhg *nhg;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, FARE_A_GROUP_ID))
		return -EINVAL;
	/* Sized for the group found, as a route's reply is. */
	mutex_lock(&fn->lock);
	nhg = fare_nhg_find(fn, nla_get_u32(info->attrs[FARE_A_GROUP_ID]));
	if (!nhg) {
		mutex_unlock(&fn->lock);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FARE_A_GROUP_ID],
				    "no such group");
		return -ENOENT;
	}
	msg = genlmsg_new(fare_group_payload(fare_nhg_num_nh(fn, nhg)),
			  GFP_KERNEL);
	if (!msg) {
		mutex_unlock(&fn->lock);
		return -ENOMEM;
	}
	err = fare_group_fill(msg, nhg, fn, info->snd_portid, info->snd_seq,
			      0, FARE_CMD_GROUP_GET);
	mutex_unlock(&fn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int fare_nl_group_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = nlmsg_total_size(GENL_HDRLEN +
					      fare_group_payload(FARE_NEXTHOP_MAX));
	return fare_nl_dump_start(cb);
}

/*
 * Resumes at the id after the last one sent, kept in cb->args[0]; marked
 * NLM_F_DUMP_INTR if the groups change meanwhile (fare_net.dump_gen).
 */
static int fare_nl_group_dump_fn(struct fare_net *fn, struct sk_buff *skb,
				 struct netlink_callback *cb)
{
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

static int fare_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
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
	size_t now = fare_flowlets_bytes(fn->flowlet_slots);
	size_t want = fare_flowlets_bytes(slots);
	int err;

	err = fare_flowlet_slots_check(slots, may_grow, attr, extack);
	if (err || slots == fn->flowlet_slots)
		return err;
	/* The new table against the budget, the old one's bytes credited. */
	err = fare_budget_charge(fn, want, now, extack);
	if (err)
		return err;
	err = fare_flowlets_resize(fn, slots);
	if (err) {
		fare_budget_uncharge(fn, want);
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no memory for a flowlet table of this size");
		return err;
	}
	fare_budget_uncharge(fn, now);
	return 0;
}

/*
 * FARE_A_CONFIG_MEMORY_BUDGET: never below one empty device (a namespace
 * left without devices could not make the one it needs to raise it), then
 * as any limit.
 */
static int fare_config_check_budget(struct fare_net *fn,
				    const struct nlattr *attr, bool may_raise,
				    struct netlink_ext_ack *extack)
{
	u64 budget = nla_get_u64(attr), floor = fare_dev_budget_floor();

	if (budget < floor) {
#ifdef NL_SET_ERR_MSG_FMT
		NL_SET_ERR_MSG_FMT(extack,
				   "memory budget below %llu bytes, what one empty fare device takes",
				   floor);
#else
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "memory budget below what one empty fare device takes");
#endif
		return -EINVAL;
	}
	return fare_limit_set(READ_ONCE(fn->budget->limit), budget, may_raise,
			      attr, extack);
}

/* A limit @attr sets in place of @cur, if present (limits.h). */
static int fare_nl_config_limit(u32 cur, const struct nlattr *attr,
				bool may_raise, struct netlink_ext_ack *extack)
{
	if (!attr)
		return 0;
	return fare_limit_set(cur, nla_get_u32(attr), may_raise, attr, extack);
}

/*
 * Checks every limit a CONFIG_SET changes, then resizes the flowlet table
 * if asked: the only step that may fail (-ENOMEM), so it comes before any
 * other change. Under the lock.
 */
static int fare_nl_config_check(struct fare_net *fn, struct genl_info *info,
				bool may_raise)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	int err;

	err = fare_nl_config_limit(fn->max_routes,
				   attrs[FARE_A_CONFIG_MAX_ROUTES], may_raise,
				   extack) ?:
	      fare_nl_config_limit(fn->max_planes,
				   attrs[FARE_A_CONFIG_MAX_PLANES], may_raise,
				   extack) ?:
	      fare_nl_config_limit(fn->max_nexthops,
				   attrs[FARE_A_CONFIG_MAX_NEXTHOPS],
				   may_raise, extack) ?:
	      fare_nl_config_limit(fn->max_groups,
				   attrs[FARE_A_CONFIG_MAX_GROUPS], may_raise,
				   extack);
	if (!err && attrs[FARE_A_CONFIG_MEMORY_BUDGET])
		err = fare_config_check_budget(fn,
					       attrs[FARE_A_CONFIG_MEMORY_BUDGET],
					       may_raise, extack);
	if (!err && attrs[FARE_A_CONFIG_FLOWLET_SLOTS])
		err = fare_config_set_slots(fn, attrs[FARE_A_CONFIG_FLOWLET_SLOTS],
					    may_raise, extack);
	return err;
}

/*
 * The rest of a CONFIG_SET, checked: it cannot fail. Under the lock; the
 * packet path reads what it reads with READ_ONCE.
 */
static void fare_nl_config_apply(struct fare_net *fn, struct nlattr **attrs)
{
	/* A lower limit refuses new objects; those present stay. */
	if (attrs[FARE_A_CONFIG_MAX_GROUPS])
		fn->max_groups = nla_get_u32(attrs[FARE_A_CONFIG_MAX_GROUPS]);
	/* Likewise: what the namespace holds stays, new objects are refused. */
	if (attrs[FARE_A_CONFIG_MEMORY_BUDGET])
		fare_budget_set(fn->budget,
				nla_get_u64(attrs[FARE_A_CONFIG_MEMORY_BUDGET]));
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
	if (attrs[FARE_A_CONFIG_USE_NEIGH])
		fare_gw_set_use_neigh(fn,
				      nla_get_u8(attrs[FARE_A_CONFIG_USE_NEIGH]));
}

static int fare_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
	int err;

	mutex_lock(&fn->lock);
	err = fare_nl_config_check(fn, info,
				   netlink_capable(skb, CAP_NET_ADMIN));
	if (!err) {
		fare_nl_config_apply(fn, info->attrs);
		fare_nl_notify_config(fn, info);
	}
	mutex_unlock(&fn->lock);
	return err;
}

static int fare_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct fare_net *fn = info->user_ptr[0];
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	if (fare_stats_fill(msg, fn, info->snd_portid, info->snd_seq)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/* A dump round of @dump on the dump's device (fare_nl_dump_dev()). */
static int fare_nl_dump_on_dev(struct sk_buff *skb, struct netlink_callback *cb,
			       int (*dump)(struct fare_net *fn,
					   struct sk_buff *skb,
					   struct netlink_callback *cb))
{
	struct net_device *dev = fare_nl_dump_dev(skb, cb);
	int ret;

	if (IS_ERR_OR_NULL(dev))
		return PTR_ERR_OR_ZERO(dev);
	ret = dump(fare_dev_state(dev), skb, cb);
	dev_put(dev);
	return ret;
}

static int fare_nl_plane_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return fare_nl_dump_on_dev(skb, cb, fare_nl_plane_dump_fn);
}

static int fare_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return fare_nl_dump_on_dev(skb, cb, fare_nl_route_dump_fn);
}

static int fare_nl_group_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return fare_nl_dump_on_dev(skb, cb, fare_nl_group_dump_fn);
}

/*
 * Each command validates by a policy of its own, which takes the
 * attributes its request may carry and refuses every other one.
 */
static const struct genl_ops fare_genl_ops[] = {
	{
		.cmd = FARE_CMD_PLANE_NEW,
		.policy = fare_plane_new_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_plane_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_PLANE_DEL,
		.policy = fare_plane_id_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_plane_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_PLANE_GET,
		.policy = fare_plane_id_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_plane_get,
		.start = fare_nl_dump_start,
		.dumpit = fare_nl_plane_dump,
	},
	{
		.cmd = FARE_CMD_ROUTE_NEW,
		.policy = fare_route_new_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_route_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_ROUTE_DEL,
		.policy = fare_prefix_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_route_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_ROUTE_GET,
		.policy = fare_prefix_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_route_get,
		.start = fare_nl_route_dump_start,
		.dumpit = fare_nl_route_dump,
	},
	{
		.cmd = FARE_CMD_CONFIG_SET,
		.policy = fare_config_set_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_config_set,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_CONFIG_GET,
		.policy = fare_dev_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_config_get,
	},
	{
		.cmd = FARE_CMD_STATS_GET,
		.policy = fare_dev_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_stats_get,
	},
	{
		.cmd = FARE_CMD_GROUP_NEW,
		.policy = fare_group_new_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_group_new,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_GROUP_DEL,
		.policy = fare_group_id_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_group_del,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = FARE_CMD_GROUP_GET,
		.policy = fare_group_id_policy,
		.maxattr = FARE_A_MAX,
		.doit = fare_nl_group_get,
		.start = fare_nl_group_dump_start,
		.dumpit = fare_nl_group_dump,
	},
};

/*
 * parallel_ops: no handler runs under the kernel-wide genl_mutex, so a slow
 * request (a group of many next hops and tiers, a long dump) holds up no
 * other genetlink family and no other namespace. Each handler takes what
 * it needs itself:
 *  - pre_doit and dump starts find the device under RCU, or make
 *    FARE_DEV_NAME under RTNL (fare_nl_dev()); a doit holds the device
 *    until post_doit, a dump round while it runs;
 *  - PLANE_NEW and PLANE_DEL take RTNL (the device's plane table);
 *    PLANE_GET and the plane dump read under RCU;
 *  - ROUTE_*, GROUP_*, CONFIG_SET and CONFIG_GET, and the route and group
 *    dumps, take fare_net.lock, which also orders their notifications;
 *  - STATS_GET sums per-CPU counters and needs no lock;
 *  - ROUTE_NEW and GROUP_NEW check the next-hop limit while parsing, with
 *    READ_ONCE, before the lock: one lowered meanwhile applies from the
 *    next request, as a lower limit keeps what exists.
 * genl_unregister_family() still waits for requests in flight (cb_lock).
 */
struct genl_family fare_family __ro_after_init = {
	.name = FARE_GENL_NAME,
	.version = FARE_GENL_VERSION,
	/* No family-wide policy: each command has its own (policy.h). */
	.netnsok = true,
	.parallel_ops = true,
	.pre_doit = fare_nl_pre_doit,
	.post_doit = fare_nl_post_doit,
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
