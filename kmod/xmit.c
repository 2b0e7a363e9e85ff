// SPDX-License-Identifier: GPL-2.0
/*
 * The fare device's transmit: looks the destination up in fare's table,
 * has a next hop decided (decide.c) and hands the packet to that plane's
 * gateway with neigh_xmit(), or to the kernel's normal route when no plane
 * can carry it. It holds no dst, so TCP's cached route, MTU and offloads
 * belong to the fare device and stay stable while planes come and go.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/route.h>
#include "decide.h"
#include "nhg.h"
#include "plane.h"
#include "route.h"
#include "stats.h"
#include "xmit.h"

#define CREATE_TRACE_POINTS
#include "fare_trace.h"

/*
 * Adds a packet of @len bytes to next hop @i's virtual queue. The bytes
 * gather in this CPU's @gtx until FARE_VQ_BATCH of them are due, which
 * then go in at once: one compare-and-swap on the shared queue per batch,
 * not per packet, retried only while another CPU updates the same hop.
 * The queue a decision reads lacks at most FARE_VQ_BATCH - 1 bytes per
 * CPU.
 */
static void fare_vq_count(struct fare_group *grp, struct fare_group_tx *gtx,
			  unsigned int i, unsigned int len)
{
	atomic64_t *vq = &grp->vq[i];
	u32 pending = gtx->nh[i].vq_pending;
	u64 rate = grp->nh[i].bandwidth, now;
	s64 old;

	if (len < FARE_VQ_BATCH - pending) {
		gtx->nh[i].vq_pending = pending + len;
		return;
	}
	gtx->nh[i].vq_pending = 0;
	now = ktime_get_mono_fast_ns();
	old = atomic64_read(vq);
	while (!atomic64_try_cmpxchg(vq, &old,
				     fare_vq_add(old, now, rate,
						 min_t(u64, (u64)pending + len,
						       U32_MAX))))
		;
}

static void fare_count_tx(struct fare_net *fn, struct fare_route *rt,
			  struct fare_group *grp, int idx,
			  struct fare_plane *plane, unsigned int len)
{
	struct fare_group_tx *gtx = this_cpu_ptr(grp->tx);
	struct fare_pcpu_tx *ptx = this_cpu_ptr(plane->tx);
	struct fare_pcpu_net *st = this_cpu_ptr(fn->stats);
	u8 tier = min_t(u8, grp->tiers[idx], FARE_TIER_MAX);
	struct fare_route_stats *rst = fare_route_stats_rcu(rt);

	/* Only a group of several tiers has (and reads) virtual queues. */
	if (grp->vq && grp->nh[idx].bandwidth)
		fare_vq_count(grp, gtx, idx, len);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->tier[tier].packets);
	u64_stats_add(&st->tier[tier].bytes, len);
	u64_stats_update_end(&st->syncp);

	u64_stats_update_begin(&gtx->syncp);
	u64_stats_inc(&gtx->nh[idx].packets);
	u64_stats_add(&gtx->nh[idx].bytes, len);
	u64_stats_update_end(&gtx->syncp);

	u64_stats_update_begin(&ptx->syncp);
	u64_stats_inc(&ptx->packets);
	u64_stats_add(&ptx->bytes, len);
	u64_stats_update_end(&ptx->syncp);

	if (rst)
		fare_route_count_tx(rst, grp, idx, len);
}

/*
 * Frees @skb, which fare does not transmit, and counts it as a drop for
 * @why in fare's counters, in @dev's tx_dropped (`ip -s link`) and for
 * @reason in the kernel's (kfree_skb tracepoint, drop monitor). netpoll
 * may transmit with interrupts off, where only dev_kfree_skb_any() may
 * free.
 */
static void fare_drop(struct fare_net *fn, struct net_device *dev,
		      struct sk_buff *skb, enum fare_drop_reason why,
		      enum skb_drop_reason reason)
{
	fare_count(fn, why);
	dev_core_stats_tx_dropped_inc(dev);
	if (in_hardirq() || irqs_disabled())
		dev_kfree_skb_any(skb);
	else
		kfree_skb_reason(skb, reason);
}

/* The destination address in @skb's pulled IP header. */
static const void *fare_skb_daddr(struct sk_buff *skb, u8 family)
{
	if (family == AF_INET)
		return &ip_hdr(skb)->daddr;
	return &ipv6_hdr(skb)->daddr;
}

/*
 * The kernel's normal route for a packet no plane can carry. libfare keeps
 * fare's kernel routes in table FARE_RT_TABLE behind a rule matching every
 * uid but INVALID_UID, which no process can have: an output lookup as that
 * uid skips the table and finds whatever would route the packet without
 * fare. Returns the route, or NULL when there is none or it leads back to
 * this device (the rule is missing, or someone routed the prefix to fare0
 * in another table), which would loop.
 */
static struct dst_entry *fare_fallback_route(struct net *net,
					     struct net_device *dev,
					     struct sk_buff *skb, u8 family)
{
	struct dst_entry *dst;

	if (family == AF_INET) {
		const struct iphdr *iph = ip_hdr(skb);
		struct flowi4 fl4 = {
			.daddr = iph->daddr,
			.saddr = iph->saddr,
			.flowi4_tos = RT_TOS(iph->tos),
			.flowi4_proto = iph->protocol,
			.flowi4_mark = skb->mark,
			.flowi4_uid = INVALID_UID,
			/* A forwarded packet's source is not ours. */
			.flowi4_flags = FLOWI_FLAG_ANYSRC,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return NULL;
		if (rt->rt_type != RTN_UNICAST) {
			ip_rt_put(rt);
			return NULL;
		}
		dst = &rt->dst;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);
		struct flowi6 fl6 = {
			.daddr = ip6h->daddr,
			.saddr = ip6h->saddr,
			.flowlabel = ip6_flowinfo(ip6h),
			.flowi6_proto = ip6h->nexthdr,
			.flowi6_mark = skb->mark,
			.flowi6_uid = INVALID_UID,
		};

		dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
		if (IS_ERR(dst))
			return NULL;
	}
	if (dst->dev == dev) {
		dst_release(dst);
		return NULL;
	}
	return dst;
}

/*
 * Sends @skb by the kernel's normal route, through the output path of the
 * route's device (POSTROUTING, fragmentation, neighbour). The header is
 * complete: a forwarded packet's TTL was already decremented. Consumes
 * @skb and sets *@err to dst_output()'s result; returns false, leaving
 * @skb to the caller, if there is no route.
 */
static bool fare_fallback_xmit(struct net *net, struct net_device *dev,
			       struct sk_buff *skb, u8 family, int *err)
{
	struct dst_entry *dst = fare_fallback_route(net, dev, skb, family);

	if (!dst)
		return false;
	trace_fare_noplane(dev, family, fare_skb_daddr(skb, family), true);
	skb_dst_drop(skb);
	skb_dst_set(skb, dst);
	/* Whatever the first pass or a tc hook left in cb means nothing now. */
	if (family == AF_INET)
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	else
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	*err = dst_output(net, skb->sk, skb);
	return true;
}

/*
 * Counts a packet of @len bytes that fare0 handed on, to a plane or the
 * normal route, in fare0's own device counters (`ip -s link show fare0`):
 * sent if the output took it (@err, its result), else dropped by the
 * output (fare's "error" counter too).
 */
static void fare_dev_count_xmit(struct fare_net *fn, struct net_device *dev,
				int err, unsigned int len)
{
	if (likely(!net_xmit_eval(err))) {
		dev_sw_netstats_tx_add(dev, 1, len);
		return;
	}
	fare_count(fn, FARE_DROP_ERROR);
	dev_core_stats_tx_dropped_inc(dev);
}

/*
 * A packet of @rt that no plane can carry: to the kernel's normal route
 * if there is one, else dropped; counted either way. Under RCU.
 */
static void fare_xmit_noplane(struct fare_net *fn, struct net_device *dev,
			      struct fare_route *rt, struct sk_buff *skb,
			      u8 family)
{
	unsigned int len = skb->len;
	int err;

	if (fare_fallback_xmit(dev_net(dev), dev, skb, family, &err)) {
		fare_route_count_drop(rt, true);
		fare_count(fn, FARE_DROP_FALLBACK);
		fare_dev_count_xmit(fn, dev, err, len);
		return;
	}
	fare_route_count_drop(rt, false);
	trace_fare_noplane(dev, family, fare_skb_daddr(skb, family), false);
	fare_drop(fn, dev, skb, FARE_DROP_NOPLANE, FARE_DROP_REASON_NOPLANE);
}

netdev_tx_t fare_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fare_net *fn = fare_dev_state(dev);
	struct fare_plane *plane = NULL;
	struct net_device *pdev;
	struct fare_route *rt;
	struct fare_group *grp;
	unsigned int len;
	const void *daddr;
	int idx, err;
	u8 family, gw;

	if (skb->protocol == htons(ETH_P_IP) &&
	    pskb_network_may_pull(skb, sizeof(struct iphdr))) {
		family = AF_INET;
		daddr = &ip_hdr(skb)->daddr;
	} else if (skb->protocol == htons(ETH_P_IPV6) &&
		   pskb_network_may_pull(skb, sizeof(struct ipv6hdr))) {
		family = AF_INET6;
		daddr = &ipv6_hdr(skb)->daddr;
	} else {
		fare_drop(fn, dev, skb, FARE_DROP_ERROR,
			  SKB_DROP_REASON_UNHANDLED_PROTO);
		return NETDEV_TX_OK;
	}

	/* The stack calls us under rcu_read_lock_bh(); lookups want RCU. */
	rcu_read_lock();
	rt = fare_route_lookup(fn, family, daddr);
	if (!rt) {
		fare_drop(fn, dev, skb, FARE_DROP_NOROUTE,
			  SKB_DROP_REASON_IP_OUTNOROUTES);
		goto out_unlock;
	}
	grp = rcu_dereference(rcu_dereference(rt->nhg)->grp);
	idx = fare_group_select(fn, rt, grp, skb, &plane, &gw);
	if (idx < 0) {
		fare_xmit_noplane(fn, dev, rt, skb, family);
		goto out_unlock;
	}

	pdev = plane->dev;
	if (skb_cow_head(skb, LL_RESERVED_SPACE(pdev))) {
		fare_drop(fn, dev, skb, FARE_DROP_ERROR,
			  SKB_DROP_REASON_NOMEM);
		goto out_unlock;
	}
	len = skb->len;
	fare_count_tx(fn, rt, grp, idx, plane, len);
	/* Read again: skb_cow_head() may have moved the header. */
	trace_fare_xmit(dev, family, fare_skb_daddr(skb, family),
			grp->nh[idx].plane_id, idx, len);

	skb_dst_drop(skb);
	skb->dev = pdev;
	/*
	 * @gw can carry @family (fare_carry_mask()): an IPv4 gateway for
	 * IPv4, else an IPv6 one with neighbour discovery present, so
	 * neigh_xmit() finds its table and owns the packet from here on,
	 * whatever it returns.
	 */
	if (gw == FARE_PLANE_C_GW4)
		err = neigh_xmit(NEIGH_ARP_TABLE, pdev, &plane->gw4, skb);
	else
		err = neigh_xmit(NEIGH_ND_TABLE, pdev, &plane->gw6, skb);
	fare_dev_count_xmit(fn, dev, err, len);
out_unlock:
	rcu_read_unlock();
	return NETDEV_TX_OK;
}
