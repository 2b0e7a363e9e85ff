// SPDX-License-Identifier: GPL-2.0
/*
 * The fare family's messages: a plane, a route, a group, the namespace's
 * config and its counters, each put into a message by one function, for
 * replies, dumps and events alike.
 */
#include <net/genetlink.h>
#include <net/netlink.h>
#include "nhg.h"
#include "nl.h"
#include "plane.h"
#include "route.h"
#include "stats.h"

void *fare_msg_start(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &fare_family, flags, cmd);
}

/*
 * The next hops that fare_group_fill() and fare_route_fill() put in a
 * message, to size it (dump.h). Under fare_net.lock, which keeps them.
 */
unsigned int fare_nhg_num_nh(struct fare_net *fn, struct fare_nhg *nhg)
{
	return rcu_dereference_protected(nhg->grp,
					 lockdep_is_held(&fn->lock))->num_nh;
}

unsigned int fare_route_num_nh(struct fare_net *fn, struct fare_route *rt)
{
	return fare_nhg_num_nh(fn, rcu_dereference_protected(rt->nhg,
				lockdep_is_held(&fn->lock)));
}

/*
 * The fare device an object belongs to: in every plane, route, group and
 * config message, so that a listener on the events group, which hears
 * every device of the namespace, can tell them apart.
 */
static int fare_dev_fill(struct sk_buff *skb, const struct fare_net *fn)
{
	return nla_put_u32(skb, FARE_A_IFINDEX, fn->dev->ifindex);
}

/* FARE_PLANE_F_GW*_FAILED for a plane's gw_failed bits. */
static u32 fare_gw_failed_flags(u8 failed)
{
	return (failed & FARE_PLANE_C_GW4 ? FARE_PLANE_F_GW4_FAILED : 0) |
	       (failed & FARE_PLANE_C_GW6 ? FARE_PLANE_F_GW6_FAILED : 0);
}

int fare_plane_fill(struct sk_buff *skb, struct fare_net *fn,
		    struct fare_plane *plane, u32 portid, u32 seq, int flags,
		    u8 cmd)
{
	u64 packets, bytes;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	fare_sum_tx(plane->tx, &packets, &bytes);
	if (fare_dev_fill(skb, fn) ||
	    nla_put_u32(skb, FARE_A_PLANE_ID, plane->id) ||
	    nla_put_u32(skb, FARE_A_PLANE_IFINDEX, plane->dev->ifindex) ||
	    (plane->has_gw4 &&
	     nla_put_in_addr(skb, FARE_A_PLANE_GW4, plane->gw4)) ||
	    (plane->has_gw6 &&
	     nla_put_in6_addr(skb, FARE_A_PLANE_GW6, &plane->gw6)) ||
	    nla_put_u32(skb, FARE_A_PLANE_FLAGS,
			(READ_ONCE(plane->oper_up) ? FARE_PLANE_F_OPER_UP : 0) |
			(plane->admin_down ? FARE_PLANE_F_ADMIN_DOWN : 0) |
			fare_gw_failed_flags(READ_ONCE(plane->gw_failed))) ||
	    nla_put_u64_64bit(skb, FARE_A_PLANE_GW_FAILS,
			      READ_ONCE(plane->gw_fails), FARE_A_PAD) ||
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
int fare_route_fill(struct sk_buff *skb, struct fare_route *rt,
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
	if (fare_dev_fill(skb, fn) || fare_route_fill_key(skb, &rt->key))
		goto cancel;
	if (cmd == FARE_CMD_ROUTE_DEL)
		goto done;

	nhg = rcu_dereference_protected(rt->nhg, lockdep_is_held(&fn->lock));
	grp = rcu_dereference_protected(nhg->grp, lockdep_is_held(&fn->lock));
	rst = fare_route_stats_locked(fn, rt);
	if (nla_put_u8(skb, FARE_A_ROUTE_MODE, rt->mode) ||
	    nla_put_u8(skb, FARE_A_ROUTE_TCP_MODE, rt->tcp_mode) ||
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

/* Called under fare_net.lock. */
int fare_group_fill(struct sk_buff *skb, struct fare_nhg *nhg,
		    struct fare_net *fn, u32 portid, u32 seq, int flags,
		    u8 cmd)
{
	struct fare_group *grp;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (fare_dev_fill(skb, fn) || nla_put_u32(skb, FARE_A_GROUP_ID, nhg->id))
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

/*
 * The namespace config, under fare_net.lock. The flow hash seed is a
 * secret (who knows it can aim flows at one plane): only @with_seed, for
 * CAP_NET_ADMIN, sees it.
 */
int fare_config_fill(struct sk_buff *skb, struct fare_net *fn,
		     u32 portid, u32 seq, u8 cmd, bool with_seed)
{
	u64 budget, used;
	void *hdr;

	hdr = fare_msg_start(skb, portid, seq, 0, cmd);
	if (!hdr)
		return -EMSGSIZE;
	/* The namespace's: what every fare device in it holds together. */
	spin_lock(&fn->budget->lock);
	budget = fn->budget->limit;
	used = fn->budget->used;
	spin_unlock(&fn->budget->lock);
	if (fare_dev_fill(skb, fn) ||
	    nla_put_u32(skb, FARE_A_CONFIG_IFINDEX, fn->dev->ifindex) ||
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
	    nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_SLOTS, fn->flowlet_slots) ||
	    nla_put_u8(skb, FARE_A_CONFIG_USE_NEIGH, READ_ONCE(fn->use_neigh)) ||
	    nla_put_u64_64bit(skb, FARE_A_CONFIG_MEMORY_BUDGET, budget,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(skb, FARE_A_CONFIG_MEMORY_USED, used,
			      FARE_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The namespace's counters, summed, as a STATS_GET reply. */
int fare_stats_fill(struct sk_buff *msg, struct fare_net *fn, u32 portid,
		    u32 seq)
{
	struct nlattr *nest, *entry;
	struct fare_stats sum;
	unsigned int t;
	void *hdr;

	fare_stats_read(fn, &sum);
	hdr = fare_msg_start(msg, portid, seq, 0, FARE_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, FARE_A_STATS_NOROUTE_PACKETS, sum.noroute,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_NOPLANE_PACKETS, sum.noplane,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_ERROR_PACKETS, sum.error,
			      FARE_A_PAD) ||
	    nla_put_u64_64bit(msg, FARE_A_STATS_FALLBACK_PACKETS, sum.fallback,
			      FARE_A_PAD))
		goto cancel;
	nest = nla_nest_start(msg, FARE_A_STATS_TIERS);
	if (!nest)
		goto cancel;
	for (t = 0; t <= FARE_TIER_MAX; t++) {
		entry = nla_nest_start(msg, FARE_A_STATS_TIERS_ENTRY);
		if (!entry ||
		    nla_put_u8(msg, FARE_A_TIER_INDEX, t) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_TX_PACKETS,
				      sum.tier[t].packets, FARE_A_TIER_PAD) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_TX_BYTES,
				      sum.tier[t].bytes, FARE_A_TIER_PAD) ||
		    nla_put_u64_64bit(msg, FARE_A_TIER_SPILLS,
				      sum.tier[t].spills, FARE_A_TIER_PAD))
			goto cancel;
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return 0;
cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}
