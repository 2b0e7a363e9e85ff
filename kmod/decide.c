// SPDX-License-Identifier: GPL-2.0
/*
 * A packet's decision: which next hop of its route's group it takes, by
 * the route's mode (flow, flowlet, packet; its TCP packets by its TCP mode
 * if it has one), over the planes that are up
 * and carry its family, and across tiers by the spill-over of
 * datapath.md. The arithmetic is select.c's; this is the glue that feeds
 * it the planes, the flowlet table and the counters.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/skbuff.h>
#include <net/ipv6_stubs.h>
#include "decide.h"
#include "flowlet.h"
#include "nhg.h"
#include "plane.h"
#include "route.h"
#include "stats.h"
#include "fare_trace.h"

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

/* Scratch per next hop for the decisions below; BHs are off. */
static DEFINE_PER_CPU(u64 [FARE_NEXTHOP_MAX], fare_sent_scratch);
static DEFINE_PER_CPU(u64 [FARE_NEXTHOP_MAX], fare_q_scratch);

/*
 * The next hops a new flowlet may use (UGAL-L, datapath.md "Tier
 * spill-over"): those of @up in the lowest tier, unless that tier's
 * congestion sends the flowlet to a higher one. Each hop's congestion q is
 * the larger of its plane device's qdisc backlog and its virtual queue
 * (a group of several tiers, the only one that gets past the first test,
 * has grp->vq).
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
		       fare_vq_backlog(atomic64_read(&grp->vq[i]), now,
				       grp->nh[i].bandwidth) : 0;
		q[i] = max(real, virt);
	}
	n_hops = clamp_t(unsigned int, READ_ONCE(fn->n_tier_hops), 1,
			 FARE_TIER_MAX + 1);
	for (i = 0; i < n_hops; i++)
		hops[i] = READ_ONCE(fn->tier_hops[i]);
	mask = fare_tier_spill(grp->tiers, up, q, grp->num_nh, hops, n_hops,
			       READ_ONCE(fn->spill_bias), &spilled);
	if (spilled && mask) {
		fare_count_spill(fn, grp->tiers[__ffs64(mask)]);
		trace_fare_tier_spill(grp->tiers[__ffs64(mask)]);
	}
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
 * plane furthest behind its byte share of what this CPU sent since the
 * namespace's planes last changed (the generation of @up, this CPU's last
 * scan). Each CPU balances its own bytes, so a decision reads only this
 * CPU's counters, whatever the CPU count; the sum over CPUs of shares
 * each within a flowlet of its target is within that many flowlets.
 */
static int fare_flowlet_select(struct fare_net *fn, struct fare_group *grp,
			       struct sk_buff *skb, u64 up)
{
	u32 hash = skb_get_hash(skb), v;
	struct fare_group_tx *gtx;
	u64 now, gap, *sent, usable;
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
	gtx = this_cpu_ptr(grp->tx);
	sent = *this_cpu_ptr(&fare_sent_scratch);
	/* Every hop's: a new baseline takes them all. */
	for (i = 0; i < grp->num_nh; i++)
		sent[i] = u64_stats_read(&gtx->nh[i].bytes);
	idx = fare_deficit_pick_since(grp->weights, sent, &gtx->deficit,
				      gtx->up_gen, usable, grp->num_nh);
	if (idx >= 0)
		fare_slot_set(fl, hash, grp->nh[idx].plane_id, now);
	trace_fare_flowlet_new(hash, idx >= 0 ? grp->nh[idx].plane_id : 0,
			       idx);
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
	u64 now, gap, members, usable = 0;
	unsigned int ord;
	bool live;

	now = ktime_get_mono_fast_ns();
	gap = (u64)READ_ONCE(fn->flowlet_us) * NSEC_PER_USEC;
	fl = fare_slot(rcu_dereference(fn->flowlets), hash, now, gap, &live,
		       &v);
	/* The flowlet's tier, by rank: each rank's schedule has members. */
	for (ord = 0; live && (v & FARE_SLOT_TIER) && ord < grp->num_tiers;
	     ord++) {
		members = grp->sched[ord].members;
		if (grp->tiers[__ffs64(members)] == (u8)(v & ~FARE_SLOT_TIER)) {
			usable = up & members;
			break;
		}
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
		ord = grp->tier_ord[__ffs64(usable)];
	}
	return fare_group_spray_pick(grp, ord, usable);
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
	/* Pairs with fare_planes_bump(): a new gen, the new planes. */
	u32 gen = atomic_read_acquire(&fn->plane_gen);
	struct fare_plane *plane;
	unsigned int i;
	u64 up = 0;

	if (likely(!rescan && gtx->up_gen == gen && gtx->up_carry == carry))
		return gtx->up;
	for (i = 0; i < grp->num_nh; i++) {
		plane = fare_plane_get_rcu(fn, grp->nh[i].plane_id);
		if (plane && (fare_plane_carries(fn, plane) & carry))
			up |= BIT_ULL(i);
	}
	gtx->up = up;
	gtx->up_carry = carry;
	gtx->up_gen = gen;
	return up;
}

/*
 * Whether @skb is TCP by its IP header (fare_xmit() pulled it): an IPv6
 * segment behind extension headers is not looked for, so it takes the
 * route's own mode.
 */
static bool fare_skb_is_tcp(const struct sk_buff *skb, u8 family)
{
	if (family == AF_INET)
		return ip_hdr(skb)->protocol == IPPROTO_TCP;
	return ipv6_hdr(skb)->nexthdr == IPPROTO_TCP;
}

/*
 * Chooses a next hop of @grp for @skb. Only planes that are up and can
 * carry the packet's family count, and of those the lowest tier, unless a
 * new flowlet spills to a higher one (fare_tier_choose()). A route of one
 * tier in flow or packet mode never looks at the flowlet table.
 * Returns the next hop's index and its plane, read again and checked to
 * carry the packet, and in *@gwp the gateway to send it to (FARE_PLANE_C_*:
 * an IPv4 packet goes to the IPv4 gateway unless that one cannot carry it
 * now), or -1 if none is usable.
 */
int fare_group_select(struct fare_net *fn, struct fare_route *rt,
		      struct fare_group *grp, struct sk_buff *skb,
		      struct fare_plane **planep, u8 *gwp)
{
	u8 family = skb->protocol == htons(ETH_P_IP) ? AF_INET : AF_INET6;
	u8 mode, tcp_mode, can, carry = fare_carry_mask(family);
	struct fare_plane *plane;
	bool rescan = false;
	u64 up;
	int idx;

again:
	up = fare_group_up(fn, grp, carry, rescan);
	if (!up)
		return -1;

	/*
	 * With one tier every plane that is up is usable; with several, the
	 * tier is chosen per flow or flowlet, from @up, below.
	 */
	mode = READ_ONCE(rt->mode);
	if (mode == FARE_MODE_DEFAULT)
		mode = READ_ONCE(fn->default_mode);
	tcp_mode = READ_ONCE(rt->tcp_mode);
	if (tcp_mode != FARE_MODE_DEFAULT && fare_skb_is_tcp(skb, family))
		mode = tcp_mode;
	if (mode == FARE_MODE_FLOW) {
		u32 hash = fare_flow_hash(skb_get_hash(skb),
					  READ_ONCE(fn->hash_seed));

		if (grp->num_tiers > 1) {
			idx = fare_flow_tier_select(fn, grp, skb, up, hash);
		} else {
			/* A flow whose bucket's plane is unusable re-picks. */
			idx = fare_bucket_pick(grp->buckets, up, hash);
			if (idx < 0)
				idx = fare_hash_pick(grp->weights, up,
						     grp->num_nh, hash);
		}
	} else if (mode == FARE_MODE_FLOWLET) {
		idx = fare_flowlet_select(fn, grp, skb, up);
	} else if (grp->num_tiers > 1) {
		idx = fare_packet_tier_select(fn, grp, skb, up);
	} else {
		idx = fare_group_spray_pick(grp, 0, up);
	}
	if (idx < 0 || !(up & BIT_ULL(idx)))
		return -1;
	plane = fare_plane_get_rcu(fn, grp->nh[idx].plane_id);
	can = plane ? fare_plane_carries(fn, plane) & carry : 0;
	if (unlikely(!can)) {
		/* A plane changed since this CPU's scan: once more, afresh. */
		if (rescan)
			return -1;
		rescan = true;
		goto again;
	}
	*planep = plane;
	*gwp = can & FARE_PLANE_C_GW4 ?: FARE_PLANE_C_GW6;
	return idx;
}

