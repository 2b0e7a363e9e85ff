// SPDX-License-Identifier: GPL-2.0
/*
 * The fare device: a virtual L3 device the kernel FIB routes fare's prefixes
 * to. Its transmit looks the destination up in fare's table, picks a plane
 * and hands the packet to that plane's gateway with neigh_xmit(). It holds
 * no dst, so TCP's cached route, MTU and offloads belong to the fare device
 * and stay stable while planes come and go.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sch_generic.h>
#include <net/rtnetlink.h>
#include "fare.h"
#include "flowlet.h"

/*
 * Whether the kernel has IPv6 neighbour discovery: not when IPv6 is
 * disabled at boot (ipv6.disable=1), and neigh_xmit() to a missing table
 * would not take the packet.
 */
static bool fare_have_nd(void)
{
	return IS_ENABLED(CONFIG_IPV6) && READ_ONCE(ipv6_stub->nd_tbl);
}

/*
 * The plane->carries bits a plane needs to carry a packet of @family: an
 * IPv4 packet may go to an IPv4 or an IPv6 gateway, an IPv6 one only to
 * an IPv6 gateway, and an IPv6 gateway only with neighbour discovery.
 */
static u8 fare_carry_mask(u8 family)
{
	u8 gw6 = fare_have_nd() ? FARE_PLANE_C_GW6 : 0;

	return family == AF_INET ? FARE_PLANE_C_GW4 | gw6 : gw6;
}

/* Sets the plane's oper state and what it carries with it. */
static void fare_plane_set_oper(struct fare_plane *plane, bool up)
{
	WRITE_ONCE(plane->oper_up, up);
	WRITE_ONCE(plane->carries,
		   up ? (plane->has_gw4 ? FARE_PLANE_C_GW4 : 0) |
			(plane->has_gw6 ? FARE_PLANE_C_GW6 : 0) : 0);
}

/* Scratch per next hop for the decisions below; BHs are off. */
static DEFINE_PER_CPU(u64 [FARE_NEXTHOP_MAX], fare_sent_scratch);
static DEFINE_PER_CPU(u64 [FARE_NEXTHOP_MAX], fare_q_scratch);

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
static u64 fare_plane_backlog(struct fare_plane *plane, u64 now)
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

static void fare_count_spill(struct fare_net *fn, u8 tier)
{
	struct fare_pcpu_net *st = this_cpu_ptr(fn->stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->tier[min_t(u8, tier, FARE_TIER_MAX)].spills);
	u64_stats_update_end(&st->syncp);
}

/*
 * The next hops a new flowlet may use (UGAL-L, datapath.md "Tier
 * spill-over"): those of @up in the lowest tier, unless that tier's
 * congestion sends the flowlet to a higher one. Each hop's congestion q is
 * the larger of its plane device's qdisc backlog and its virtual queue.
 */
static u64 fare_tier_choose(struct fare_net *fn, struct fare_group *grp,
			    u64 up, u64 now)
{
	u8 hops[FARE_TIER_MAX + 1];
	struct fare_plane *plane;
	unsigned int i, n_hops;
	u64 mask, real, virt, *q;
	bool spilled;

	mask = fare_tier_usable(grp->tiers, up, grp->num_nh);
	if (mask == up)
		return mask;	/* one tier left: nowhere to spill */

	q = *this_cpu_ptr(&fare_q_scratch);
	for (i = 0; i < grp->num_nh; i++) {
		q[i] = 0;
		if (!(up & BIT_ULL(i)))
			continue;
		plane = fare_plane_get_rcu(fn, grp->nh[i].plane_id);
		real = plane ? fare_plane_backlog(plane, now) : 0;
		virt = grp->nh[i].bandwidth ?
		       fare_vq_backlog(atomic64_read(&grp->nh[i].vq_vt), now,
				       grp->nh[i].bandwidth) : 0;
		q[i] = max(real, virt);
	}
	n_hops = clamp_t(unsigned int, READ_ONCE(fn->n_tier_hops), 1,
			 FARE_TIER_MAX + 1);
	for (i = 0; i < n_hops; i++)
		hops[i] = READ_ONCE(fn->tier_hops[i]);
	mask = fare_tier_spill(grp->tiers, up, q, grp->num_nh, hops, n_hops,
			       READ_ONCE(fn->spill_bias), &spilled);
	if (spilled && mask)
		fare_count_spill(fn, grp->tiers[__ffs64(mask)]);
	return mask;
}

/*
 * The next hop of @fl's decision @plane_id if it is still @live and its
 * plane is in @up, with the slot refreshed at @now (fare_slot_touch());
 * else -1 and a new decision is due.
 */
static int fare_slot_keep(struct fare_group *grp, struct fare_flowlet *fl,
			  bool live, u32 plane_id, u64 up, u64 now,
			  u64 gap_ns)
{
	unsigned int i;

	if (!live)
		return -1;
	for (i = 0; i < grp->num_nh; i++)
		if (grp->nh[i].plane_id == plane_id && (up & BIT_ULL(i))) {
			fare_slot_touch(fl, now, gap_ns);
			return i;
		}
	return -1;
}

/*
 * A flow keeps its plane while its packets keep coming and the plane is
 * usable (whatever its tier); after an idle gap longer than the flowlet
 * timeout, or if that plane stopped being usable, the next packet starts a
 * new flowlet: its tier by fare_tier_choose(), then within the tier the
 * plane furthest behind its byte share, counted since the namespace's
 * planes last changed (the generation of @up, this CPU's last scan).
 */
static int fare_flowlet_select(struct fare_net *fn, struct fare_group *grp,
			       struct sk_buff *skb, u64 up)
{
	u32 hash = skb_get_hash(skb), v;
	u64 now, gap, *sent, packets, usable;
	struct fare_flowlet *fl;
	unsigned int i;
	bool live;
	int idx;

	now = ktime_get_mono_fast_ns();
	gap = (u64)READ_ONCE(fn->flowlet_us) * NSEC_PER_USEC;
	fl = fare_slot(rcu_dereference(fn->flowlets), hash, now, gap, &live,
		       &v);
	idx = fare_slot_keep(grp, fl, live, v, up, now, gap);
	if (idx >= 0)
		return idx;

	usable = fare_tier_choose(fn, grp, up, now);
	sent = *this_cpu_ptr(&fare_sent_scratch);
	/* Every hop's: a new baseline takes them all. */
	for (i = 0; i < grp->num_nh; i++)
		fare_group_nh_tx(grp, i, &packets, &sent[i]);
	idx = fare_deficit_pick_since(grp->weights, sent, &grp->deficit,
				      this_cpu_ptr(grp->tx)->up_gen, usable,
				      grp->num_nh);
	if (idx >= 0)
		fare_slot_set(fl, hash, grp->nh[idx].plane_id, now);
	return idx;
}

/*
 * Flow mode over several tiers: a flow's tier is chosen when it is first
 * seen and kept while it sends at least once per FARE_FLOW_TIER_IDLE_NS,
 * in the flowlet table; within the tier its plane comes from the resilient
 * buckets (preferred tier) or by hash-threshold (another tier).
 */
static int fare_flow_tier_select(struct fare_net *fn, struct fare_group *grp,
				 struct sk_buff *skb, u64 up, u32 fhash)
{
	u32 hash = skb_get_hash(skb), v;
	struct fare_flowlet *fl;
	u64 now, usable;
	bool live;
	int idx;

	now = ktime_get_mono_fast_ns();
	fl = fare_slot(rcu_dereference(fn->flowlets), hash, now,
		       FARE_FLOW_TIER_IDLE_NS, &live, &v);
	idx = fare_slot_keep(grp, fl, live, v, up, now,
			     FARE_FLOW_TIER_IDLE_NS);
	if (idx >= 0)
		return idx;
	usable = fare_tier_choose(fn, grp, up, now);
	idx = fare_bucket_pick(grp->buckets, usable, fhash);
	if (idx < 0)
		idx = fare_hash_pick(grp->weights, usable, grp->num_nh, fhash);
	if (idx >= 0)
		fare_slot_set(fl, hash, grp->nh[idx].plane_id, now);
	return idx;
}

/*
 * Packet mode over several tiers: each flowlet's tier is chosen at its
 * start and kept in the flowlet table (as FARE_SLOT_TIER | tier), its
 * packets sprayed over that tier's planes, so a tier change never
 * reorders a flowlet. Each tier has a schedule of its own.
 */
static int fare_packet_tier_select(struct fare_net *fn,
				   struct fare_group *grp,
				   struct sk_buff *skb, u64 up)
{
	u32 hash = skb_get_hash(skb), v;
	struct fare_flowlet *fl;
	u64 now, gap, usable = 0;
	unsigned int i;
	bool live;

	now = ktime_get_mono_fast_ns();
	gap = (u64)READ_ONCE(fn->flowlet_us) * NSEC_PER_USEC;
	fl = fare_slot(rcu_dereference(fn->flowlets), hash, now, gap, &live,
		       &v);
	if (live && (v & FARE_SLOT_TIER)) {
		for (i = 0; i < grp->num_nh; i++)
			if ((up & BIT_ULL(i)) &&
			    grp->tiers[i] == (u8)(v & ~FARE_SLOT_TIER))
				usable |= BIT_ULL(i);
	}
	if (usable) {
		fare_slot_touch(fl, now, gap);
	} else {
		usable = fare_tier_choose(fn, grp, up, now);
		if (!usable)
			return -1;
		fare_slot_set(fl, hash,
			      FARE_SLOT_TIER | grp->tiers[__ffs64(usable)],
			      now);
	}
	return fare_group_spray_pick(grp, grp->tier_ord[__ffs64(usable)],
				     usable);
}

/*
 * The next hops of @grp whose plane can carry a packet that needs @carry
 * (fare_carry_mask()): this CPU's last scan of the planes while no plane
 * has changed since (fare_net.plane_gen) and @carry is the same, else
 * (or with @rescan) a new scan, kept for the next packet. BHs off.
 */
static u64 fare_group_up(struct fare_net *fn, struct fare_group *grp,
			 u8 carry, bool rescan)
{
	struct fare_group_tx *gtx = this_cpu_ptr(grp->tx);
	/* Pairs with fare_planes_changed(): a new gen, the new planes. */
	u32 gen = smp_load_acquire(&fn->plane_gen);
	struct fare_plane *plane;
	unsigned int i;
	u64 up = 0;

	if (likely(!rescan && gtx->up_gen == gen && gtx->up_carry == carry))
		return gtx->up;
	for (i = 0; i < grp->num_nh; i++) {
		plane = fare_plane_get_rcu(fn, grp->nh[i].plane_id);
		if (plane && (READ_ONCE(plane->carries) & carry))
			up |= BIT_ULL(i);
	}
	gtx->up = up;
	gtx->up_carry = carry;
	gtx->up_gen = gen;
	return up;
}

/*
 * Tells the packet path that a plane came, went or changed what it
 * carries, after the change: every CPU scans the planes again
 * (fare_group_up()). Under RTNL.
 */
static void fare_planes_changed(struct fare_net *fn)
{
	ASSERT_RTNL();
	/* The changes before the new gen (fare_group_up()'s acquire). */
	smp_store_release(&fn->plane_gen, fn->plane_gen + 1);
}

/*
 * Chooses a next hop of @grp for @skb. Only planes that are up and can
 * carry the packet's family count, and of those the lowest tier, unless a
 * new flowlet spills to a higher one (fare_tier_choose()). A route of one
 * tier in flow or packet mode never looks at the flowlet table.
 * Returns the next hop's index and its plane, read again and checked to
 * carry the packet, or -1 if none is usable.
 */
static int fare_group_select(struct fare_net *fn, struct fare_route *rt,
			     struct fare_group *grp, struct sk_buff *skb,
			     struct fare_plane **planep)
{
	u8 family = skb->protocol == htons(ETH_P_IP) ? AF_INET : AF_INET6;
	u8 mode, carry = fare_carry_mask(family);
	struct fare_plane *plane;
	bool rescan = false;
	u64 usable, up;
	int idx;

again:
	up = fare_group_up(fn, grp, carry, rescan);
	if (!up)
		return -1;
	/* With one tier, every plane that is up is usable. */
	usable = grp->num_tiers > 1 ?
		 fare_tier_usable(grp->tiers, up, grp->num_nh) : up;

	mode = READ_ONCE(rt->mode);
	if (mode == FARE_MODE_DEFAULT)
		mode = READ_ONCE(fn->default_mode);
	if (mode == FARE_MODE_FLOW) {
		u32 hash = fare_flow_hash(skb_get_hash(skb),
					  READ_ONCE(fn->hash_seed));

		if (grp->num_tiers > 1) {
			idx = fare_flow_tier_select(fn, grp, skb, up, hash);
		} else {
			/* A flow whose bucket's plane is unusable re-picks. */
			idx = fare_bucket_pick(grp->buckets, usable, hash);
			if (idx < 0)
				idx = fare_hash_pick(grp->weights, usable,
						     grp->num_nh, hash);
		}
	} else if (mode == FARE_MODE_FLOWLET) {
		idx = fare_flowlet_select(fn, grp, skb, up);
	} else if (grp->num_tiers > 1) {
		idx = fare_packet_tier_select(fn, grp, skb, up);
	} else {
		idx = fare_group_spray_pick(grp, 0, usable);
	}
	if (idx < 0 || !(up & BIT_ULL(idx)))
		return -1;
	plane = fare_plane_get_rcu(fn, grp->nh[idx].plane_id);
	if (unlikely(!plane || !(READ_ONCE(plane->carries) & carry))) {
		/* A plane changed since this CPU's scan: once more, afresh. */
		if (rescan)
			return -1;
		rescan = true;
		goto again;
	}
	*planep = plane;
	return idx;
}

/*
 * Adds a packet of @len bytes to next hop @i's virtual queue. The bytes
 * gather in this CPU's @gtx until FARE_VQ_BATCH of them are due, which
 * then go in at once: one compare-and-swap on the shared hop per batch,
 * not per packet, retried only while another CPU updates the same hop.
 * The queue a decision reads lacks at most FARE_VQ_BATCH - 1 bytes per
 * CPU.
 */
static void fare_vq_count(struct fare_nh *nh, struct fare_group_tx *gtx,
			  unsigned int i, unsigned int len)
{
	u32 pending = gtx->nh[i].vq_pending;
	u64 now;
	s64 old;

	if (len < FARE_VQ_BATCH - pending) {
		gtx->nh[i].vq_pending = pending + len;
		return;
	}
	gtx->nh[i].vq_pending = 0;
	now = ktime_get_mono_fast_ns();
	old = atomic64_read(&nh->vq_vt);
	while (!atomic64_try_cmpxchg(&nh->vq_vt, &old,
				     fare_vq_add(old, now, nh->bandwidth,
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

	/* Only a route with several tiers ever reads the virtual queues. */
	if (grp->num_tiers > 1 && grp->nh[idx].bandwidth)
		fare_vq_count(&grp->nh[idx], gtx, idx, len);

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

enum fare_drop_reason {
	FARE_DROP_NOROUTE,
	FARE_DROP_NOPLANE,
	FARE_DROP_FALLBACK,	/* not a drop: sent by the normal route */
	FARE_DROP_ERROR,
};

static void fare_count(struct fare_net *fn, enum fare_drop_reason why)
{
	struct fare_pcpu_net *st = this_cpu_ptr(fn->stats);

	u64_stats_update_begin(&st->syncp);
	if (why == FARE_DROP_NOROUTE)
		u64_stats_inc(&st->noroute);
	else if (why == FARE_DROP_NOPLANE)
		u64_stats_inc(&st->noplane);
	else if (why == FARE_DROP_FALLBACK)
		u64_stats_inc(&st->fallback);
	else
		u64_stats_inc(&st->error);
	u64_stats_update_end(&st->syncp);
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

static netdev_tx_t fare_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fare_net *fn = fare_pernet(dev_net(dev));
	struct fare_plane *plane = NULL;
	struct net_device *pdev;
	struct fare_route *rt;
	struct fare_group *grp;
	unsigned int len;
	const void *daddr;
	int idx, err;
	u8 family;

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
	idx = fare_group_select(fn, rt, grp, skb, &plane);
	if (idx < 0) {
		len = skb->len;
		if (fare_fallback_xmit(dev_net(dev), dev, skb, family,
				       &err)) {
			fare_route_count_drop(rt, true);
			fare_count(fn, FARE_DROP_FALLBACK);
			fare_dev_count_xmit(fn, dev, err, len);
			goto out_unlock;
		}
		fare_route_count_drop(rt, false);
		fare_drop(fn, dev, skb, FARE_DROP_NOPLANE,
			  FARE_DROP_REASON_NOPLANE);
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

	skb_dst_drop(skb);
	skb->dev = pdev;
	/*
	 * The plane carries @family (fare_carry_mask()): an IPv4 gateway
	 * for IPv4, else an IPv6 one with neighbour discovery present, so
	 * neigh_xmit() finds its table and owns the packet from here on,
	 * whatever it returns.
	 */
	if (family == AF_INET && plane->has_gw4)
		err = neigh_xmit(NEIGH_ARP_TABLE, pdev, &plane->gw4, skb);
	else
		err = neigh_xmit(NEIGH_ND_TABLE, pdev, &plane->gw6, skb);
	fare_dev_count_xmit(fn, dev, err, len);
out_unlock:
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

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
	struct fare_net *fn = fare_pernet(dev_net(dev));
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
	struct net_device *dev = rtnl_dereference(fn->dev);
	struct fare_dev_limits l;
	unsigned int mtu;
	int err;

	ASSERT_RTNL();
	/* Called after every change of the plane table. */
	fare_planes_changed(fn);
	if (!dev || dev->reg_state != NETREG_REGISTERED ||
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
	struct fare_net *fn = fare_pernet(dev_net(dev));
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

/*
 * fare0's standard per-CPU counters: tx packets and bytes in dev->tstats
 * (fare_dev_count_xmit()), drops in the core's tx_dropped. Charged to the
 * creator's memory cgroup; freed by fare_dev_free().
 */
static int fare_dev_init(struct net_device *dev)
{
	dev->tstats = fare_alloc_pcpu_stats(struct pcpu_sw_netstats);
	return dev->tstats ? 0 : -ENOMEM;
}

/* After the last reference, or when registration fails after ndo_init. */
static void fare_dev_free(struct net_device *dev)
{
	free_percpu(dev->tstats);
	dev->tstats = NULL;
}

static const struct net_device_ops fare_netdev_ops = {
	.ndo_init = fare_dev_init,
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
	 * fare0's state (flowlet table, planes, routes) is its namespace's:
	 * it cannot move to another one.
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

static bool fare_dev_is_fare(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &fare_link_ops;
}

static int fare_newlink_common(struct net_device *dev,
			       struct netlink_ext_ack *extack)
{
	struct fare_net *fn = fare_pernet(dev_net(dev));
	int err;

	ASSERT_RTNL();
	if (rtnl_dereference(fn->dev)) {
		NL_SET_ERR_MSG(extack,
			       "this namespace already has a fare device");
		return -EEXIST;
	}
	err = fare_flowlets_prepare(fn);
	if (err) {
		NL_SET_ERR_MSG(extack, "no memory for the flowlet table");
		return err;
	}
	err = register_netdevice(dev);
	if (!err)
		fare_dev_no_addrconf(dev);
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
	.setup = fare_setup,
	.newlink = fare_newlink,
};

/*
 * Makes sure the namespace has its fare device, creating and opening
 * FARE_DEV_NAME on first use. Called under RTNL.
 */
int fare_dev_ensure(struct fare_net *fn, struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	int err;

	ASSERT_RTNL();
	if (rtnl_dereference(fn->dev))
		return 0;
	err = fare_flowlets_prepare(fn);
	if (err) {
		NL_SET_ERR_MSG(extack, "no memory for the flowlet table");
		return err;
	}

	dev = alloc_netdev(0, FARE_DEV_NAME, NET_NAME_USER, fare_setup);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "no memory for device " FARE_DEV_NAME);
		return -ENOMEM;
	}
	dev_net_set(dev, fn->net);
	dev->rtnl_link_ops = &fare_link_ops;
	err = register_netdevice(dev);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create device " FARE_DEV_NAME);
		free_netdev(dev);
		return err;
	}
	fare_dev_no_addrconf(dev);
	err = dev_open(dev, extack);
	if (err)
		unregister_netdevice(dev);
	return err;
}

void fare_plane_update_oper(struct fare_plane *plane)
{
	/* Administratively down is carrier loss that no device event ends. */
	bool up = !plane->admin_down && netif_running(plane->dev) &&
		  netif_carrier_ok(plane->dev);

	fare_plane_set_oper(plane, up);
}

static int fare_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct fare_net *fn = fare_pernet(dev_net(dev));
	struct fare_plane *plane;
	unsigned int id;

	if (fare_dev_is_fare(dev)) {
		if (event == NETDEV_REGISTER && !rtnl_dereference(fn->dev)) {
			/* A new fare device follows its planes' MTU. */
			fn->dev_mtu_admin = 0;
			rcu_assign_pointer(fn->dev, dev);
		} else if (event == NETDEV_UNREGISTER &&
			 rtnl_dereference(fn->dev) == dev)
			RCU_INIT_POINTER(fn->dev, NULL);
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_CHANGEMTU:
	case NETDEV_FEAT_CHANGE:
		for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
			plane = rtnl_dereference(fn->planes[id]);
			if (plane && plane->dev == dev) {
				fare_dev_sync(fn);
				break;
			}
		}
		return NOTIFY_DONE;
	case NETDEV_GOING_DOWN:
		/* Stop choosing the plane before the device stops sending. */
		for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
			plane = rtnl_dereference(fn->planes[id]);
			if (!plane || plane->dev != dev ||
			    !READ_ONCE(plane->oper_up))
				continue;
			fare_plane_set_oper(plane, false);
			fare_planes_changed(fn);
			fare_nl_notify_plane(fn, FARE_CMD_PLANE_NEW, plane);
		}
		return NOTIFY_DONE;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}

	for (id = 1; id <= FARE_PLANE_ID_MAX; id++) {
		plane = rtnl_dereference(fn->planes[id]);
		if (!plane || plane->dev != dev)
			continue;
		if (event != NETDEV_UNREGISTER) {
			bool was_up = READ_ONCE(plane->oper_up);

			fare_plane_update_oper(plane);
			fare_planes_changed(fn);
			if (READ_ONCE(plane->oper_up) != was_up)
				fare_nl_notify_plane(fn, FARE_CMD_PLANE_NEW,
						     plane);
			continue;
		}
		/* The device goes away, and the plane with it. */
		fare_plane_set_oper(plane, false);
		RCU_INIT_POINTER(fn->planes[id], NULL);
		WRITE_ONCE(fn->num_planes, fn->num_planes - 1);
		fare_nl_notify_plane(fn, FARE_CMD_PLANE_DEL, plane);
		fare_plane_free_rcu(plane);
		fare_dev_sync(fn);
	}
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
