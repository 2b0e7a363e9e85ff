/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attribute policies of the fare family, one per command, in a header
 * of their own so that the KUnit suite checks the very tables netlink.c
 * validates with. Include once per object: the tables are static, and
 * each object uses some of them only (hence __maybe_unused).
 */
#ifndef _FARE_POLICY_H
#define _FARE_POLICY_H

#include <net/netlink.h>
#include <linux/if.h>
#include <linux/in6.h>
#include <linux/fare.h>

static struct netlink_range_validation fare_flowlet_range = {
	.min = FARE_FLOWLET_US_MIN,
	.max = FARE_FLOWLET_US_MAX,
};

static struct netlink_range_validation fare_max_routes_range = {
	.min = 0,
	.max = FARE_MAX_ROUTES_LIMIT,
};

static struct netlink_range_validation fare_group_id_range = {
	.min = 1,
	.max = FARE_GROUP_ID_MAX,
};

/* A power of two, besides: fare_flowlet_slots_check() (flowlet.h). */
static struct netlink_range_validation fare_flowlet_slots_range = {
	.min = FARE_FLOWLET_SLOTS_MIN,
	.max = FARE_FLOWLET_SLOTS_MAX,
};

static struct netlink_range_validation fare_max_groups_range = {
	.min = 0,
	.max = FARE_MAX_GROUPS_LIMIT,
};

static struct netlink_range_validation fare_mem_budget_range = {
	.min = 0,
	.max = FARE_MEMORY_BUDGET_LIMIT,
};

/* FARE_A_CONFIG_TIER_HOPS: 1..FARE_TIER_MAX + 1 hop counts, none 0. */
static int fare_tier_hops_validate(const struct nlattr *attr,
				   struct netlink_ext_ack *extack)
{
	const u8 *hops = nla_data(attr);
	int i, n = nla_len(attr);

	if (n < 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "tier hop counts: at least one is needed");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (!hops[i]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a tier hop count must be at least 1");
			return -EINVAL;
		}
	}
	return 0;
}

static const struct nla_policy fare_nh_policy[FARE_A_NH_MAX + 1] = {
	[FARE_A_NH_PLANE_ID] = NLA_POLICY_RANGE(NLA_U32, 1, FARE_PLANE_ID_MAX),
	[FARE_A_NH_WEIGHT] = NLA_POLICY_MIN(NLA_U32, 1),
	/*
	 * At most FARE_TIER_MAX + 1 distinct tiers: a group's per-CPU
	 * schedule state stays far below what the per-CPU allocator takes.
	 */
	[FARE_A_NH_TIER] = NLA_POLICY_MAX(NLA_U8, FARE_TIER_MAX),
	[FARE_A_NH_BANDWIDTH] = { .type = NLA_U64 },
};

static const struct nla_policy fare_nexthops_policy[FARE_A_NEXTHOPS_MAX + 1] = {
	[FARE_A_NEXTHOPS_ENTRY] = NLA_POLICY_NESTED(fare_nh_policy),
};

/*
 * Each request attribute's rule, wherever a command takes it. Each
 * command's policy below lists the attributes it takes and no other:
 * strict validation refuses the rest ("Unsupported attribute"), read-only
 * ones included. They follow the requests of
 * Documentation/netlink/specs/fare.yaml.
 */
#define FARE_POL_DEV							\
	[FARE_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),			\
	[FARE_A_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 }
#define FARE_POL_REPLACE						\
	[FARE_A_REPLACE] = { .type = NLA_FLAG }
#define FARE_POL_PLANE_ID						\
	[FARE_A_PLANE_ID] = NLA_POLICY_RANGE(NLA_U32, 1, FARE_PLANE_ID_MAX)
#define FARE_POL_PLANE							\
	[FARE_A_PLANE_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),		\
	[FARE_A_PLANE_GW4] = NLA_POLICY_EXACT_LEN(sizeof(__be32)),	\
	[FARE_A_PLANE_GW6] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)), \
	[FARE_A_PLANE_ADMIN_DOWN] = { .type = NLA_FLAG },		\
	FARE_POL_PLANE_ID
#define FARE_POL_PREFIX							\
	[FARE_A_ROUTE_FAMILY] = { .type = NLA_U8 },			\
	[FARE_A_ROUTE_DST] = { .type = NLA_BINARY,			\
			       .len = sizeof(struct in6_addr) },	\
	[FARE_A_ROUTE_PLEN] = NLA_POLICY_MAX(NLA_U8, 128)
#define FARE_POL_NEXTHOPS						\
	[FARE_A_ROUTE_NEXTHOPS] = NLA_POLICY_NESTED(fare_nexthops_policy)
#define FARE_POL_ROUTE							\
	[FARE_A_ROUTE_MODE] = NLA_POLICY_MAX(NLA_U8, FARE_MODE_MAX),	\
	[FARE_A_ROUTE_TCP_MODE] = NLA_POLICY_MAX(NLA_U8, FARE_MODE_MAX), \
	FARE_POL_NEXTHOPS,						\
	[FARE_A_ROUTE_GROUP_ID] =					\
		NLA_POLICY_FULL_RANGE(NLA_U32, &fare_group_id_range),	\
	[FARE_A_ROUTE_STATS] = NLA_POLICY_MAX(NLA_U8, 1),		\
	FARE_POL_PREFIX
/* Ids above FARE_GROUP_ID_MAX are anonymous: only GET takes them. */
#define FARE_POL_GROUP_ID						\
	[FARE_A_GROUP_ID] = NLA_POLICY_MIN(NLA_U32, 1)
/* Tier hops longer than FARE_TIER_MAX + 1 bytes: refused before the fn. */
#define FARE_POL_CONFIG							\
	[FARE_A_CONFIG_MODE] = NLA_POLICY_RANGE(NLA_U8, 1, FARE_MODE_MAX), \
	[FARE_A_CONFIG_FLOWLET_US] =					\
		NLA_POLICY_FULL_RANGE(NLA_U32, &fare_flowlet_range),	\
	[FARE_A_CONFIG_HASH_SEED] = { .type = NLA_U32 },		\
	[FARE_A_CONFIG_TIER_HOPS] =					\
		NLA_POLICY_VALIDATE_FN(NLA_BINARY, fare_tier_hops_validate, \
				       FARE_TIER_MAX + 1),		\
	[FARE_A_CONFIG_SPILL_BIAS] = { .type = NLA_U32 },		\
	[FARE_A_CONFIG_MAX_ROUTES] =					\
		NLA_POLICY_FULL_RANGE(NLA_U32, &fare_max_routes_range),	\
	[FARE_A_CONFIG_MAX_PLANES] =					\
		NLA_POLICY_MAX(NLA_U32, FARE_PLANE_ID_MAX),		\
	[FARE_A_CONFIG_MAX_NEXTHOPS] =					\
		NLA_POLICY_RANGE(NLA_U32, 1, FARE_NEXTHOP_MAX),		\
	[FARE_A_CONFIG_ROUTE_STATS] = NLA_POLICY_MAX(NLA_U8, 1),	\
	[FARE_A_CONFIG_MAX_GROUPS] =					\
		NLA_POLICY_FULL_RANGE(NLA_U32, &fare_max_groups_range),	\
	[FARE_A_CONFIG_FLOWLET_SLOTS] =					\
		NLA_POLICY_FULL_RANGE(NLA_U32, &fare_flowlet_slots_range), \
	[FARE_A_CONFIG_USE_NEIGH] = NLA_POLICY_MAX(NLA_U8, 1),		\
	[FARE_A_CONFIG_MEMORY_BUDGET] =					\
		NLA_POLICY_FULL_RANGE(NLA_U64, &fare_mem_budget_range)

/* CONFIG_GET, STATS_GET, and the dumps: the device only. */
static const struct nla_policy fare_dev_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
};

static const struct nla_policy fare_plane_new_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_PLANE,
	FARE_POL_REPLACE,
};

/* PLANE_DEL, PLANE_GET (and its dump). */
static const struct nla_policy fare_plane_id_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_PLANE_ID,
};

static const struct nla_policy fare_route_new_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_ROUTE,
	FARE_POL_REPLACE,
};

/* ROUTE_DEL, ROUTE_GET (and its dump). */
static const struct nla_policy fare_prefix_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_PREFIX,
};

static const struct nla_policy fare_config_set_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_CONFIG,
};

static const struct nla_policy fare_group_new_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_GROUP_ID,
	FARE_POL_NEXTHOPS,
	FARE_POL_REPLACE,
};

/* GROUP_DEL, GROUP_GET (and its dump). */
static const struct nla_policy fare_group_id_policy[FARE_A_MAX + 1] __maybe_unused = {
	FARE_POL_DEV,
	FARE_POL_GROUP_ID,
};

#endif /* _FARE_POLICY_H */
