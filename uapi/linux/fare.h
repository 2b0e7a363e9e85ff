/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * fare: Fully Adaptive Routing Ethernet across independent network planes.
 *
 * The generic netlink contract between fare.ko and userland (libfare,
 * farectl, fared). Documentation/uapi.md describes every command and
 * attribute with its unit. Only ever add commands and attributes; never
 * renumber or change the meaning of an existing one.
 *
 * The family validates every command strictly, so requests carry only
 * NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO or NLM_F_DUMP; "replace" is the
 * FARE_A_REPLACE flag attribute, not NLM_F_REPLACE.
 */
#ifndef _UAPI_LINUX_FARE_H
#define _UAPI_LINUX_FARE_H

#define FARE_GENL_NAME		"fare"
#define FARE_GENL_VERSION	1
#define FARE_MCGRP_EVENTS	"events"

/* Name of the steering device fare.ko creates in a namespace on first use. */
#define FARE_DEV_NAME		"fare0"
/* rtnetlink protocol of the kernel routes libfare points at the fare device. */
#define FARE_RTPROT		249
/*
 * libfare keeps those routes in routing table FARE_RT_TABLE, which a rule
 * at priority FARE_RULE_PREF (just before table main) consults for every
 * uid up to FARE_RULE_UID_MAX, in both families. fare.ko's fallback
 * lookups use the one uid above it, which no process can have, so they skip
 * the table and find the kernel's normal route.
 */
#define FARE_RT_TABLE		249
#define FARE_RULE_PREF		32765
#define FARE_RULE_UID_MAX	0xfffffffe
/*
 * For each of those routes libfare also keeps, in table FARE_PLANE_TABLE,
 * "PREFIX proto FARE_RTPROT nexthop via GW dev PLANE onlink ..." over the
 * planes that carry the route, and for each plane's device a rule at
 * FARE_PLANE_RULE_PREF "oif DEV lookup FARE_PLANE_TABLE": a lookup bound
 * to a plane's device (SO_BINDTODEVICE, oif) resolves via that plane's
 * gateway; no other lookup sees the table.
 */
#define FARE_PLANE_TABLE	248
#define FARE_PLANE_RULE_PREF	32764

/* Plane ids are 1..FARE_PLANE_ID_MAX; 0 is never a valid plane. */
#define FARE_PLANE_ID_MAX	255
/* Most next hops one route may carry. */
#define FARE_NEXTHOP_MAX	64
/* Range of FARE_A_CONFIG_FLOWLET_US, the flowlet idle gap. */
#define FARE_FLOWLET_US_MIN	1
#define FARE_FLOWLET_US_MAX	10000000
/*
 * FARE_A_CONFIG_FLOWLET_SLOTS, the size of the namespace's flowlet table:
 * a power of two in this range (anything else is refused, not rounded).
 * A slot is 16 bytes. A size above the default needs CAP_NET_ADMIN in the
 * initial user namespace. A resize starts every flowlet anew.
 */
#define FARE_FLOWLET_SLOTS_MIN		256
#define FARE_FLOWLET_SLOTS_MAX		4194304
#define FARE_FLOWLET_SLOTS_DEFAULT	4096
/*
 * Tier spill-over (Documentation/datapath.md, "Tier spill-over (UGAL-L)").
 * Per-tier counters cover tiers 0..FARE_TIER_MAX; a next hop of a higher
 * tier counts in FARE_TIER_MAX. FARE_A_CONFIG_TIER_HOPS holds 1 to
 * FARE_TIER_MAX + 1 hop counts (u8, each at least 1).
 */
#define FARE_TIER_MAX		7
#define FARE_SPILL_BIAS_DEFAULT	65536	/* bytes */
/*
 * Per-namespace limits (FARE_A_CONFIG_MAX_*): their defaults and the
 * largest value each may be set to. A PLANE_NEW, ROUTE_NEW or GROUP_NEW
 * that would exceed one fails with -ENOSPC (routes, planes, groups: named
 * and anonymous count alike) or -E2BIG (next hops)
 * and an extack message; replacing an existing object never counts.
 * Raising a limit needs CAP_NET_ADMIN in the initial user namespace;
 * lowering one needs it in the namespace's own.
 */
#define FARE_MAX_ROUTES_DEFAULT		262144
#define FARE_MAX_ROUTES_LIMIT		16777216
#define FARE_MAX_PLANES_DEFAULT		64
#define FARE_MAX_NEXTHOPS_DEFAULT	FARE_NEXTHOP_MAX
#define FARE_MAX_GROUPS_DEFAULT		262144
#define FARE_MAX_GROUPS_LIMIT		16777216
/*
 * The namespace's memory budget (FARE_A_CONFIG_MEMORY_BUDGET), in bytes:
 * what fare.ko allocates for the namespace's routes, their counters and
 * its next-hop groups, per-CPU state counted once per possible CPU. A
 * ROUTE_NEW or GROUP_NEW that would pass it fails with -ENOSPC and an
 * extack message naming the budget ("fare: memory budget of 64 MiB for
 * this namespace reached"). A namespace owned by a user namespace other
 * than the initial one starts at FARE_MEMORY_BUDGET_DEFAULT whatever the
 * CPU count; one owned by the initial user namespace at
 * FARE_MEMORY_BUDGET_HOST_DEFAULT. Raising it, like any limit, needs
 * CAP_NET_ADMIN in the initial user namespace.
 */
#define FARE_MEMORY_BUDGET_DEFAULT	(64ULL * 1024 * 1024)
#define FARE_MEMORY_BUDGET_HOST_DEFAULT	(4096ULL * 1024 * 1024)
#define FARE_MEMORY_BUDGET_LIMIT	(1048576ULL * 1024 * 1024)

/*
 * Next-hop groups (FARE_CMD_GROUP_*). Many routes share one group; a
 * change of a group's next hops or weights is one GROUP_NEW with
 * FARE_A_REPLACE, whatever the number of routes that use it. Ids
 * 1..FARE_GROUP_ID_MAX are the user's (GROUP_NEW); a route given its next
 * hops inline (FARE_A_ROUTE_NEXTHOPS) shares an anonymous group found by
 * its content, whose id fare.ko picks above FARE_GROUP_ID_MAX and which
 * lives as long as a route uses it. A group in use cannot be deleted.
 */
#define FARE_GROUP_ID_MAX	0x7fffffff

enum fare_mode {
	FARE_MODE_DEFAULT,	/* the namespace default (route only) */
	FARE_MODE_PACKET,	/* smooth weighted round-robin per packet */
	FARE_MODE_FLOW,		/* a flow hash picks a resilient bucket */
	FARE_MODE_FLOWLET,	/* a flow re-picks after an idle gap */
	__FARE_MODE_MAX,
};

#define FARE_MODE_MAX (__FARE_MODE_MAX - 1)

enum fare_cmd {
	FARE_CMD_UNSPEC,
	FARE_CMD_PLANE_NEW,	/* FARE_A_REPLACE replaces an existing plane */
	FARE_CMD_PLANE_DEL,
	FARE_CMD_PLANE_GET,	/* do: one plane; dump: every plane */
	FARE_CMD_ROUTE_NEW,	/* FARE_A_REPLACE replaces an existing route */
	FARE_CMD_ROUTE_DEL,
	FARE_CMD_ROUTE_GET,	/* do: exact prefix; dump: every route */
	FARE_CMD_CONFIG_SET,
	FARE_CMD_CONFIG_GET,
	FARE_CMD_STATS_GET,	/* namespace counters */
	FARE_CMD_GROUP_NEW,	/* FARE_A_REPLACE replaces an existing group */
	FARE_CMD_GROUP_DEL,	/* -EBUSY while a route uses the group */
	FARE_CMD_GROUP_GET,	/* do: one group; dump: every group */
	/* notifications on FARE_MCGRP_EVENTS reuse the commands above */
	__FARE_CMD_MAX,
};

#define FARE_CMD_MAX (__FARE_CMD_MAX - 1)

enum fare_attr {
	FARE_A_UNSPEC,
	FARE_A_PAD,
	FARE_A_PLANE_ID,		/* u32, 1..FARE_PLANE_ID_MAX */
	FARE_A_PLANE_IFINDEX,		/* u32, egress device of the plane */
	FARE_A_PLANE_GW4,		/* 4 bytes, IPv4 gateway, network order */
	FARE_A_PLANE_GW6,		/* 16 bytes, IPv6 gateway */
	FARE_A_PLANE_FLAGS,		/* u32, FARE_PLANE_F_* (read only) */
	FARE_A_PLANE_TX_PACKETS,	/* u64, packets steered to the plane */
	FARE_A_PLANE_TX_BYTES,		/* u64, bytes steered to the plane */
	FARE_A_ROUTE_FAMILY,		/* u8, AF_INET or AF_INET6 */
	FARE_A_ROUTE_DST,		/* 4 or 16 bytes, network order */
	FARE_A_ROUTE_PLEN,		/* u8, prefix length in bits */
	FARE_A_ROUTE_MODE,		/* u8, enum fare_mode */
	FARE_A_ROUTE_NEXTHOPS,		/* nest of FARE_A_NEXTHOPS_ENTRY */
	FARE_A_ROUTE_NOPLANE_PACKETS,	/* u64, dropped: no usable plane */
	FARE_A_CONFIG_MODE,		/* u8, default enum fare_mode (not 0) */
	FARE_A_CONFIG_FLOWLET_US,	/* u32, flowlet idle gap, microseconds */
	FARE_A_CONFIG_HASH_SEED,	/* u32, seed of the flow hash; shown
					 * only to CAP_NET_ADMIN
					 */
	FARE_A_CONFIG_IFINDEX,		/* u32, the fare device (read only) */
	FARE_A_STATS_NOROUTE_PACKETS,	/* u64, dropped: no fare route */
	FARE_A_STATS_NOPLANE_PACKETS,	/* u64, dropped: no usable plane */
	FARE_A_STATS_ERROR_PACKETS,	/* u64, dropped: not IP, no memory */
	FARE_A_REPLACE,			/* flag: a NEW may replace what exists */
	FARE_A_ROUTE_FALLBACK_PACKETS,	/* u64, no usable plane: normal route */
	FARE_A_STATS_FALLBACK_PACKETS,	/* u64, no usable plane: normal route */
	FARE_A_CONFIG_TIER_HOPS,	/* binary, u8 hop count H per tier */
	FARE_A_CONFIG_SPILL_BIAS,	/* u32, spill bias T, bytes */
	FARE_A_STATS_TIERS,		/* nest of FARE_A_STATS_TIERS_ENTRY */
	FARE_A_CONFIG_MAX_ROUTES,	/* u32, routes in the namespace */
	FARE_A_CONFIG_MAX_PLANES,	/* u32, planes in the namespace */
	FARE_A_CONFIG_MAX_NEXTHOPS,	/* u32, 1..FARE_NEXTHOP_MAX per route */
	FARE_A_CONFIG_NUM_ROUTES,	/* u32, routes now (read only) */
	FARE_A_CONFIG_NUM_PLANES,	/* u32, planes now (read only) */
	FARE_A_GROUP_ID,		/* u32, 1..FARE_GROUP_ID_MAX given by
					 * the user, above it anonymous
					 */
	FARE_A_GROUP_REFS,		/* u32, routes using it (read only) */
	FARE_A_ROUTE_GROUP_ID,		/* u32, the route's group: instead of
					 * FARE_A_ROUTE_NEXTHOPS in a NEW
					 */
	FARE_A_ROUTE_STATS,		/* u8, 1: per-route counters on; a NEW
					 * without it takes the namespace's
					 * FARE_A_CONFIG_ROUTE_STATS
					 */
	FARE_A_CONFIG_ROUTE_STATS,	/* u8, default of FARE_A_ROUTE_STATS
					 * (0 when the namespace is made)
					 */
	FARE_A_CONFIG_MAX_GROUPS,	/* u32, groups in the namespace */
	FARE_A_CONFIG_NUM_GROUPS,	/* u32, groups now (read only) */
	FARE_A_CONFIG_FLOWLET_SLOTS,	/* u32, flowlet table slots, a power
					 * of two, FARE_FLOWLET_SLOTS_MIN..MAX
					 */
	FARE_A_IFINDEX,			/* u32, the fare device a command is
					 * for (none: fare0); in a plane,
					 * route, group or config message and
					 * event, the device it belongs to
					 */
	FARE_A_IFNAME,			/* string, the same by name */
	FARE_A_PLANE_ADMIN_DOWN,	/* flag: a PLANE_NEW's plane carries
					 * nothing, as if its carrier were
					 * lost, until a PLANE_NEW without it
					 */
	FARE_A_ROUTE_TCP_MODE,		/* u8, enum fare_mode of the route's
					 * TCP packets; FARE_MODE_DEFAULT (or
					 * absent): the route's mode
					 */
	FARE_A_PLANE_GW_FAILS,		/* u64, times a gateway of the plane
					 * was found unreachable (read only)
					 */
	FARE_A_CONFIG_USE_NEIGH,	/* u8, 1 (default): a plane whose
					 * gateway's neighbour entry failed
					 * carries nothing by that gateway
					 */
	FARE_A_CONFIG_MEMORY_BUDGET,	/* u64, bytes the namespace's routes
					 * and groups may hold
					 */
	FARE_A_CONFIG_MEMORY_USED,	/* u64, bytes they hold now (read
					 * only)
					 */
	__FARE_A_MAX,
};

#define FARE_A_MAX (__FARE_A_MAX - 1)

/* Inside FARE_A_ROUTE_NEXTHOPS: one FARE_A_NEXTHOPS_ENTRY per next hop. */
enum fare_nexthops_attr {
	FARE_A_NEXTHOPS_UNSPEC,
	FARE_A_NEXTHOPS_ENTRY,		/* nest of enum fare_nh_attr */
	__FARE_A_NEXTHOPS_MAX,
};

#define FARE_A_NEXTHOPS_MAX (__FARE_A_NEXTHOPS_MAX - 1)

enum fare_nh_attr {
	FARE_A_NH_UNSPEC,
	FARE_A_NH_PAD,
	FARE_A_NH_PLANE_ID,		/* u32, the plane */
	FARE_A_NH_WEIGHT,		/* u32, 1..U32_MAX, relative share */
	FARE_A_NH_TIER,			/* u8, 0..FARE_TIER_MAX, 0 = preferred */
	FARE_A_NH_TX_PACKETS,		/* u64, packets sent via this hop */
	FARE_A_NH_TX_BYTES,		/* u64, bytes sent via this hop */
	FARE_A_NH_BANDWIDTH,		/* u64, path bytes per second, 0 none */
	__FARE_A_NH_MAX,
};

#define FARE_A_NH_MAX (__FARE_A_NH_MAX - 1)

/* Inside FARE_A_STATS_TIERS: one FARE_A_STATS_TIERS_ENTRY per tier. */
enum fare_stats_tiers_attr {
	FARE_A_STATS_TIERS_UNSPEC,
	FARE_A_STATS_TIERS_ENTRY,	/* nest of enum fare_tier_attr */
	__FARE_A_STATS_TIERS_MAX,
};

#define FARE_A_STATS_TIERS_MAX (__FARE_A_STATS_TIERS_MAX - 1)

enum fare_tier_attr {
	FARE_A_TIER_UNSPEC,
	FARE_A_TIER_PAD,
	FARE_A_TIER_INDEX,		/* u8, 0..FARE_TIER_MAX */
	FARE_A_TIER_TX_PACKETS,		/* u64, packets sent via the tier */
	FARE_A_TIER_TX_BYTES,		/* u64, bytes sent via the tier */
	FARE_A_TIER_SPILLS,		/* u64, decisions spilled to the tier */
	__FARE_A_TIER_MAX,
};

#define FARE_A_TIER_MAX (__FARE_A_TIER_MAX - 1)

/* FARE_A_PLANE_FLAGS */
enum fare_plane_flags {
	FARE_PLANE_F_OPER_UP = 1,	/* device up with carrier, not
					 * administratively down
					 */
	FARE_PLANE_F_ADMIN_DOWN = 2,	/* FARE_A_PLANE_ADMIN_DOWN was set */
	FARE_PLANE_F_GW4_FAILED = 4,	/* the IPv4 gateway's neighbour entry
					 * is FAILED (no ARP answer)
					 */
	FARE_PLANE_F_GW6_FAILED = 8,	/* the IPv6 gateway's, no ND answer */
};

#endif /* _UAPI_LINUX_FARE_H */
