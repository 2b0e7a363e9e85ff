/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fare's tracepoints (datapath.md "Tracepoints"): the plane a packet was
 * handed to, a new flowlet's decision, a tier spill and a packet that no
 * plane could carry. Off, each costs a patched-out branch; perf, bpftrace
 * and tracefs (events/fare/) turn them on.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM fare

#if !defined(_FARE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _FARE_TRACE_H

#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <net/ipv6.h>

#ifndef _FARE_TRACE_HELPERS
#define _FARE_TRACE_HELPERS
/* The destination as an IPv6 address, IPv4 mapped (::ffff:a.b.c.d). */
static inline void fare_trace_daddr(u8 *to, u8 family, const void *daddr)
{
	if (family == AF_INET)
		ipv6_addr_set_v4mapped(*(const __be32 *)daddr,
				       (struct in6_addr *)to);
	else
		memcpy(to, daddr, sizeof(struct in6_addr));
}
#endif

TRACE_EVENT(fare_xmit,
	    TP_PROTO(const struct net_device *dev, u8 family,
		     const void *daddr, u32 plane_id, int idx,
		     unsigned int len),
	    TP_ARGS(dev, family, daddr, plane_id, idx, len),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __array(u8, daddr, 16)
			     __field(u32, plane)
			     __field(int, nexthop)
			     __field(unsigned int, len)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   fare_trace_daddr(__entry->daddr, family, daddr);
			   __entry->plane = plane_id;
			   __entry->nexthop = idx;
			   __entry->len = len;),
	    TP_printk("ifindex=%d daddr=%pI6c plane=%u nexthop=%d len=%u",
		      __entry->ifindex, __entry->daddr, __entry->plane,
		      __entry->nexthop, __entry->len)
);

TRACE_EVENT(fare_flowlet_new,
	    TP_PROTO(u32 hash, u32 plane_id, int idx),
	    TP_ARGS(hash, plane_id, idx),
	    TP_STRUCT__entry(__field(u32, hash)
			     __field(u32, plane)
			     __field(int, nexthop)),
	    TP_fast_assign(__entry->hash = hash;
			   __entry->plane = plane_id;
			   __entry->nexthop = idx;),
	    TP_printk("hash=%08x plane=%u nexthop=%d", __entry->hash,
		      __entry->plane, __entry->nexthop)
);

TRACE_EVENT(fare_tier_spill,
	    TP_PROTO(u8 tier),
	    TP_ARGS(tier),
	    TP_STRUCT__entry(__field(u8, tier)),
	    TP_fast_assign(__entry->tier = tier;),
	    TP_printk("tier=%u", __entry->tier)
);

TRACE_EVENT(fare_noplane,
	    TP_PROTO(const struct net_device *dev, u8 family,
		     const void *daddr, bool fallback),
	    TP_ARGS(dev, family, daddr, fallback),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __array(u8, daddr, 16)
			     __field(bool, fallback)),
	    TP_fast_assign(__entry->ifindex = dev->ifindex;
			   fare_trace_daddr(__entry->daddr, family, daddr);
			   __entry->fallback = fallback;),
	    TP_printk("ifindex=%d daddr=%pI6c %s", __entry->ifindex,
		      __entry->daddr,
		      __entry->fallback ? "fallback" : "dropped")
);

#endif /* _FARE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fare_trace
#include <trace/define_trace.h>
