// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the fare family's attribute policies: every input the
 * strict validation must refuse is refused, with the extack text a caller
 * then sees, and a well-formed request passes. The handlers' own refusals
 * (missing attributes, unknown planes, duplicates) are covered by the labs
 * genl-basics and ynl, which need a namespace and devices.
 */
#include <kunit/test.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include "policy.h"
#include "limits.h"
#include "dump.h"

struct policy_case {
	const char *name;
	int type;		/* top-level attribute to send */
	int len;		/* payload bytes */
	u32 value;		/* for 1-, 2- and 4-byte payloads */
	int err;
	const char *msg;
};

static const struct policy_case policy_cases[] = {
	{ "plane id 0", FARE_A_PLANE_ID, 4, 0, -ERANGE, "integer out of range" },
	{ "plane id 256", FARE_A_PLANE_ID, 4, 256, -ERANGE,
	  "integer out of range" },
	{ "plane id as u8", FARE_A_PLANE_ID, 1, 1, -EINVAL,
	  "invalid attribute length" },
	{ "ifindex 0", FARE_A_PLANE_IFINDEX, 4, 0, -ERANGE,
	  "integer out of range" },
	{ "gw4 of 3 bytes", FARE_A_PLANE_GW4, 3, 0, -ERANGE,
	  "binary attribute size out of range" },
	{ "gw4 of 16 bytes", FARE_A_PLANE_GW4, 16, 0, -ERANGE,
	  "binary attribute size out of range" },
	{ "gw6 of 4 bytes", FARE_A_PLANE_GW6, 4, 0, -ERANGE,
	  "binary attribute size out of range" },
	{ "family as u32", FARE_A_ROUTE_FAMILY, 4, 2, -EINVAL,
	  "invalid attribute length" },
	{ "dst of 17 bytes", FARE_A_ROUTE_DST, 17, 0, -ERANGE,
	  "Attribute failed policy validation" },
	{ "plen 129", FARE_A_ROUTE_PLEN, 1, 129, -ERANGE,
	  "integer out of range" },
	{ "route mode 4", FARE_A_ROUTE_MODE, 1, FARE_MODE_MAX + 1, -ERANGE,
	  "integer out of range" },
	{ "config mode 0", FARE_A_CONFIG_MODE, 1, FARE_MODE_DEFAULT, -ERANGE,
	  "integer out of range" },
	{ "config mode 4", FARE_A_CONFIG_MODE, 1, FARE_MODE_MAX + 1, -ERANGE,
	  "integer out of range" },
	{ "flowlet 0 us", FARE_A_CONFIG_FLOWLET_US, 4, 0, -ERANGE,
	  "integer out of range" },
	{ "flowlet above max", FARE_A_CONFIG_FLOWLET_US, 4,
	  FARE_FLOWLET_US_MAX + 1, -ERANGE, "integer out of range" },
	{ "flowlet slots 255", FARE_A_CONFIG_FLOWLET_SLOTS, 4,
	  FARE_FLOWLET_SLOTS_MIN - 1, -ERANGE, "integer out of range" },
	{ "flowlet slots above max", FARE_A_CONFIG_FLOWLET_SLOTS, 4,
	  FARE_FLOWLET_SLOTS_MAX + 1, -ERANGE, "integer out of range" },
	{ "flowlet slots as u16", FARE_A_CONFIG_FLOWLET_SLOTS, 2, 4096,
	  -EINVAL, "invalid attribute length" },
	{ "hash seed as u8", FARE_A_CONFIG_HASH_SEED, 1, 1, -EINVAL,
	  "invalid attribute length" },
	{ "replace flag with data", FARE_A_REPLACE, 4, 1, -ERANGE,
	  "Attribute failed policy validation" },
	{ "admin-down flag with data", FARE_A_PLANE_ADMIN_DOWN, 4, 1, -ERANGE,
	  "Attribute failed policy validation" },
	{ "use-neigh 2", FARE_A_CONFIG_USE_NEIGH, 1, 2, -ERANGE,
	  "integer out of range" },
	{ "use-neigh as u32", FARE_A_CONFIG_USE_NEIGH, 4, 1, -EINVAL,
	  "invalid attribute length" },
	{ "read only: gateway failures", FARE_A_PLANE_GW_FAILS, 8, 0, -EINVAL,
	  "Unsupported attribute" },
	{ "nexthops not nested", FARE_A_ROUTE_NEXTHOPS, 4, 0, -EINVAL,
	  "NLA_F_NESTED is missing" },
	{ "read only: plane flags", FARE_A_PLANE_FLAGS, 4, 1, -EINVAL,
	  "Unsupported attribute" },
	{ "read only: plane tx packets", FARE_A_PLANE_TX_PACKETS, 8, 0,
	  -EINVAL, "Unsupported attribute" },
	{ "read only: route noplane", FARE_A_ROUTE_NOPLANE_PACKETS, 8, 0,
	  -EINVAL, "Unsupported attribute" },
	{ "read only: route fallback", FARE_A_ROUTE_FALLBACK_PACKETS, 8, 0,
	  -EINVAL, "Unsupported attribute" },
	{ "read only: config ifindex", FARE_A_CONFIG_IFINDEX, 4, 1, -EINVAL,
	  "Unsupported attribute" },
	{ "read only: stats noroute", FARE_A_STATS_NOROUTE_PACKETS, 8, 0,
	  -EINVAL, "Unsupported attribute" },
	{ "read only: stats fallback", FARE_A_STATS_FALLBACK_PACKETS, 8, 0,
	  -EINVAL, "Unsupported attribute" },
	{ "tier hops empty", FARE_A_CONFIG_TIER_HOPS, 0, 0, -EINVAL,
	  "tier hop counts: at least one is needed" },
	{ "tier hops of 9 bytes", FARE_A_CONFIG_TIER_HOPS, FARE_TIER_MAX + 2,
	  0x01010101, -ERANGE, "Attribute failed policy validation" },
	{ "tier hop count 0", FARE_A_CONFIG_TIER_HOPS, 2, 0x0003, -EINVAL,
	  "a tier hop count must be at least 1" },
	{ "tier hop count 0 first", FARE_A_CONFIG_TIER_HOPS, 4, 0x03030300,
	  -EINVAL, "a tier hop count must be at least 1" },
	{ "spill bias as u8", FARE_A_CONFIG_SPILL_BIAS, 1, 1, -EINVAL,
	  "invalid attribute length" },
	{ "read only: stats tiers", FARE_A_STATS_TIERS, 4, 0, -EINVAL,
	  "Unsupported attribute" },
	{ "max routes above the limit", FARE_A_CONFIG_MAX_ROUTES, 4,
	  FARE_MAX_ROUTES_LIMIT + 1, -ERANGE, "integer out of range" },
	{ "max routes as u8", FARE_A_CONFIG_MAX_ROUTES, 1, 1, -EINVAL,
	  "invalid attribute length" },
	{ "max planes 256", FARE_A_CONFIG_MAX_PLANES, 4, FARE_PLANE_ID_MAX + 1,
	  -ERANGE, "integer out of range" },
	{ "max next hops 0", FARE_A_CONFIG_MAX_NEXTHOPS, 4, 0, -ERANGE,
	  "integer out of range" },
	{ "max next hops 65", FARE_A_CONFIG_MAX_NEXTHOPS, 4,
	  FARE_NEXTHOP_MAX + 1, -ERANGE, "integer out of range" },
	{ "read only: num routes", FARE_A_CONFIG_NUM_ROUTES, 4, 0, -EINVAL,
	  "Unsupported attribute" },
	{ "read only: num planes", FARE_A_CONFIG_NUM_PLANES, 4, 0, -EINVAL,
	  "Unsupported attribute" },
	{ "device ifindex 0", FARE_A_IFINDEX, 4, 0, -ERANGE,
	  "integer out of range" },
	{ "device name without its NUL", FARE_A_IFNAME, 4, 0x61616161,
	  -EINVAL, "Attribute failed policy validation" },
	{ "device name of 17 bytes", FARE_A_IFNAME, 17, 0, -ERANGE,
	  "Attribute failed policy validation" },
	{ "memory budget as u32", FARE_A_CONFIG_MEMORY_BUDGET, 4, 1, -EINVAL,
	  "invalid attribute length" },
	{ "read only: memory used", FARE_A_CONFIG_MEMORY_USED, 8, 0, -EINVAL,
	  "Unsupported attribute" },
	{ "pad", FARE_A_PAD, 4, 0, -EINVAL, "Unsupported attribute" },
	{ "unknown attribute", FARE_A_MAX + 1, 4, 0, -EINVAL,
	  "Unknown attribute type" },
};

static void policy_case_desc(const struct policy_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(policy, policy_cases, policy_case_desc);

static void policy_put(struct sk_buff *skb, int type, int len, u32 value)
{
	u8 buf[17] = { };

	if (len == 1)
		buf[0] = value;
	else if (len == 2)
		*(u16 *)buf = value;
	else if (len == 4)
		*(u32 *)buf = value;
	nla_put(skb, type, len, buf);
}

/*
 * Every request attribute's rule, from the same definitions as the
 * commands' policies (policy.h): the cases above check each rule once,
 * whichever commands take it; each_command_takes_only_its_attributes
 * checks which command takes which.
 */
static const struct nla_policy fare_policy[FARE_A_MAX + 1] = {
	FARE_POL_DEV,
	FARE_POL_PLANE,
	FARE_POL_REPLACE,
	FARE_POL_ROUTE,
	FARE_POL_GROUP_ID,
	FARE_POL_CONFIG,
};

/* Parses @skb's attributes by @policy as genetlink does (strict). */
static int policy_parse_by(struct sk_buff *skb,
			   const struct nla_policy *policy,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[FARE_A_MAX + 1];

	return nla_parse(tb, FARE_A_MAX, (struct nlattr *)skb->data, skb->len,
			 policy, extack);
}

static int policy_parse(struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	return policy_parse_by(skb, fare_policy, extack);
}

struct op_case {
	const char *op;
	const struct nla_policy *policy;
	int takes;		/* an attribute it takes (as a u32 of 1) */
	int refuses;		/* one another command takes, but not it */
};

/*
 * Each command's policy takes its own attributes and the device, and
 * refuses, with the attribute, one that only another command takes.
 */
static void each_command_takes_only_its_attributes(struct kunit *test)
{
	static const struct op_case cases[] = {
		{ "CONFIG_GET, STATS_GET", fare_dev_policy, FARE_A_IFINDEX,
		  FARE_A_PLANE_ID },
		{ "PLANE_NEW", fare_plane_new_policy, FARE_A_PLANE_IFINDEX,
		  FARE_A_ROUTE_GROUP_ID },
		{ "PLANE_DEL, PLANE_GET", fare_plane_id_policy, FARE_A_PLANE_ID,
		  FARE_A_PLANE_IFINDEX },
		{ "ROUTE_NEW", fare_route_new_policy, FARE_A_ROUTE_GROUP_ID,
		  FARE_A_CONFIG_HASH_SEED },
		{ "ROUTE_DEL, ROUTE_GET", fare_prefix_policy, FARE_A_IFINDEX,
		  FARE_A_ROUTE_GROUP_ID },
		{ "CONFIG_SET", fare_config_set_policy, FARE_A_CONFIG_HASH_SEED,
		  FARE_A_GROUP_ID },
		{ "GROUP_NEW", fare_group_new_policy, FARE_A_GROUP_ID,
		  FARE_A_PLANE_ID },
		{ "GROUP_DEL, GROUP_GET", fare_group_id_policy, FARE_A_GROUP_ID,
		  FARE_A_ROUTE_GROUP_ID },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct op_case *c = &cases[i];
		struct netlink_ext_ack extack = { };
		struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, skb);
		nla_put_string(skb, FARE_A_IFNAME, "fare0");
		nla_put_u32(skb, c->takes, 1);
		KUNIT_EXPECT_EQ_MSG(test, policy_parse_by(skb, c->policy,
							  &extack), 0,
				    "%s: %s", c->op, extack._msg);
		nla_put_u32(skb, c->refuses, 1);
		KUNIT_EXPECT_EQ_MSG(test, policy_parse_by(skb, c->policy,
							  &extack), -EINVAL,
				    "%s", c->op);
		KUNIT_EXPECT_STREQ_MSG(test, extack._msg,
				       "Unsupported attribute", "%s", c->op);
		KUNIT_EXPECT_EQ_MSG(test, nla_type(extack.bad_attr), c->refuses,
				    "%s", c->op);
		kfree_skb(skb);
	}
}

static void policy_refuses_with_its_message(struct kunit *test)
{
	const struct policy_case *c = test->param_value;
	struct netlink_ext_ack extack = { };
	struct sk_buff *skb;

	skb = alloc_skb(256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	/* A valid attribute first: the bad one is refused wherever it is. */
	policy_put(skb, FARE_A_PLANE_ID, 4, 1);
	policy_put(skb, c->type, c->len, c->value);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), c->err);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)", c->msg);
	kfree_skb(skb);
}

/* Builds a next-hop entry; returns its nest for the caller to end. */
static struct nlattr *policy_nh(struct sk_buff *skb, u32 plane, u32 weight)
{
	struct nlattr *nh = nla_nest_start(skb, FARE_A_NEXTHOPS_ENTRY);

	nla_put_u32(skb, FARE_A_NH_PLANE_ID, plane);
	nla_put_u32(skb, FARE_A_NH_WEIGHT, weight);
	return nh;
}

/*
 * The nested next hops: a good route parses; plane 0, weight 0, a tier of
 * the wrong size and an unknown next-hop attribute are refused with the
 * inner attribute's message.
 */
static void policy_checks_nested_next_hops(struct kunit *test)
{
	static const struct {
		u32 plane, weight;
		int extra_type, extra_len;
		int err;
		const char *msg;
		u32 extra_value;	/* 1 unless given */
	} cases[] = {
		{ 1, 1, 0, 0, 0, NULL },
		{ 1, 1, FARE_A_NH_TIER, 1, 0, NULL },
		{ 0, 1, 0, 0, -ERANGE, "integer out of range" },
		{ 1, 0, 0, 0, -ERANGE, "integer out of range" },
		{ 1, 1, FARE_A_NH_TIER, 4, -EINVAL, "invalid attribute length" },
		/* Distinct tiers are bounded: the per-CPU state is sized by them. */
		{ 1, 1, FARE_A_NH_TIER, 1, 0, NULL, FARE_TIER_MAX },
		{ 1, 1, FARE_A_NH_TIER, 1, -ERANGE, "integer out of range",
		  FARE_TIER_MAX + 1 },
		{ 1, 1, FARE_A_NH_TIER, 1, -ERANGE, "integer out of range",
		  255 },
		{ 1, 1, FARE_A_NH_BANDWIDTH, 8, 0, NULL },
		{ 1, 1, FARE_A_NH_BANDWIDTH, 4, -EINVAL,
		  "invalid attribute length" },
		{ 1, 1, FARE_A_NH_TX_PACKETS, 8, -EINVAL,
		  "Unsupported attribute" },
		{ 1, 1, FARE_A_NH_MAX + 1, 4, -EINVAL,
		  "Unknown attribute type" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct netlink_ext_ack extack = { };
		struct nlattr *nhs, *nh;
		struct sk_buff *skb;

		skb = alloc_skb(512, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		nla_put_u8(skb, FARE_A_ROUTE_FAMILY, AF_INET);
		nla_put_in_addr(skb, FARE_A_ROUTE_DST, htonl(0x0a000000));
		nla_put_u8(skb, FARE_A_ROUTE_PLEN, 8);
		nla_put_u8(skb, FARE_A_ROUTE_MODE, FARE_MODE_FLOW);
		nhs = nla_nest_start(skb, FARE_A_ROUTE_NEXTHOPS);
		nla_nest_end(skb, policy_nh(skb, 2, 7));
		nh = policy_nh(skb, cases[i].plane, cases[i].weight);
		if (cases[i].extra_type)
			policy_put(skb, cases[i].extra_type,
				   cases[i].extra_len,
				   max(cases[i].extra_value, 1U));
		nla_nest_end(skb, nh);
		nla_nest_end(skb, nhs);
		nla_put_flag(skb, FARE_A_REPLACE);

		KUNIT_EXPECT_EQ_MSG(test, policy_parse(skb, &extack),
				    cases[i].err, "case %u", i);
		if (cases[i].msg)
			KUNIT_EXPECT_STREQ_MSG(test, extack._msg ?: "(none)",
					       cases[i].msg, "case %u", i);
		else
			KUNIT_EXPECT_NULL_MSG(test, extack._msg, "case %u", i);
		kfree_skb(skb);
	}
}

/* Every bound itself is accepted. */
static void policy_accepts_the_bounds(struct kunit *test)
{
	struct netlink_ext_ack extack = { };
	struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	nla_put_u32(skb, FARE_A_PLANE_ID, FARE_PLANE_ID_MAX);
	nla_put_u32(skb, FARE_A_PLANE_IFINDEX, 1);
	nla_put_in_addr(skb, FARE_A_PLANE_GW4, htonl(0x0a000001));
	nla_put_in6_addr(skb, FARE_A_PLANE_GW6, &in6addr_loopback);
	nla_put_u8(skb, FARE_A_ROUTE_PLEN, 128);
	nla_put_u8(skb, FARE_A_ROUTE_MODE, FARE_MODE_DEFAULT);
	nla_put_u8(skb, FARE_A_CONFIG_MODE, FARE_MODE_MAX);
	nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_US, FARE_FLOWLET_US_MIN);
	nla_put_u32(skb, FARE_A_CONFIG_HASH_SEED, U32_MAX);
	nla_put_u8(skb, FARE_A_CONFIG_TIER_HOPS, 1);
	nla_put_u32(skb, FARE_A_CONFIG_SPILL_BIAS, U32_MAX);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), 0);
	kfree_skb(skb);

	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nla_put(skb, FARE_A_CONFIG_TIER_HOPS, FARE_TIER_MAX + 1,
		"\x01\x02\x03\x04\x05\x06\x07\xff");
	nla_put_u32(skb, FARE_A_CONFIG_SPILL_BIAS, 0);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_ROUTES, FARE_MAX_ROUTES_LIMIT);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_PLANES, FARE_PLANE_ID_MAX);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_NEXTHOPS, FARE_NEXTHOP_MAX);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), 0);
	kfree_skb(skb);

	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_ROUTES, 0);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_PLANES, 0);
	nla_put_u32(skb, FARE_A_CONFIG_MAX_NEXTHOPS, 1);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), 0);
	kfree_skb(skb);

	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_US, FARE_FLOWLET_US_MAX);
	nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_SLOTS, FARE_FLOWLET_SLOTS_MAX);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), 0);
	kfree_skb(skb);

	skb = alloc_skb(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	nla_put_u32(skb, FARE_A_CONFIG_FLOWLET_SLOTS, FARE_FLOWLET_SLOTS_MIN);
	KUNIT_EXPECT_EQ(test, policy_parse(skb, &extack), 0);
	kfree_skb(skb);
}

/*
 * The namespace limits: the last object that fits is taken, the next one
 * refused with its error and message; raising a limit needs the initial
 * namespace's CAP_NET_ADMIN, lowering it does not.
 */
static void limits_refuse_past_the_limit(struct kunit *test)
{
	struct netlink_ext_ack extack = { };

	KUNIT_EXPECT_EQ(test, fare_limit_routes(9, 10, &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, fare_limit_routes(10, 10, &extack), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "route limit of the namespace reached (config route-limit)");
	KUNIT_EXPECT_EQ(test, fare_limit_routes(0, 0, &extack), -ENOSPC);

	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_limit_planes(63, 64, &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, fare_limit_planes(64, 64, &extack), -ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "plane limit of the namespace reached (config plane-limit)");

	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_limit_nexthops(4, 4, NULL, &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, fare_limit_nexthops(5, 4, NULL, &extack), -E2BIG);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "more next hops than the namespace allows (config nexthop-limit)");

	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_limit_set(100, 10, false, NULL, &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_limit_set(100, 100, false, NULL, &extack), 0);
	KUNIT_EXPECT_EQ(test, fare_limit_set(100, 1000, true, NULL, &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, fare_limit_set(100, 101, false, NULL, &extack),
			-EPERM);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)",
			   "raising a limit needs CAP_NET_ADMIN in the initial user namespace");
	/* The memory budget is a u64 like any other limit. */
	extack._msg = NULL;
	KUNIT_EXPECT_EQ(test, fare_limit_set(64ULL << 20, 5ULL << 30, false,
					     NULL, &extack), -EPERM);
	KUNIT_EXPECT_EQ(test, fare_limit_set(5ULL << 30, 64ULL << 20, false,
					     NULL, &extack), 0);
}

/*
 * The memory budget: a charge that would pass it is refused with the
 * budget's text and changes nothing; what a request replaces counts as
 * released; the budget is named in MiB when whole.
 */
static void memory_charge_refuses_past_the_budget(struct kunit *test)
{
	struct netlink_ext_ack extack = { };
	char msg[FARE_MEM_MSG_LEN];
	u64 used = 1000;

	fare_mem_msg_format(msg, 64ULL << 20);
	KUNIT_EXPECT_STREQ(test, msg,
			   "fare: memory budget of 64 MiB for this namespace reached");
	fare_mem_msg_format(msg, 1500);
	KUNIT_EXPECT_STREQ(test, msg,
			   "fare: memory budget of 1500 bytes for this namespace reached");
	KUNIT_EXPECT_EQ(test, fare_mem_charge(&used, 1500, 500, 0, msg,
					      &extack), 0);
	KUNIT_EXPECT_EQ(test, used, 1500ULL);
	KUNIT_EXPECT_NULL(test, extack._msg);
	KUNIT_EXPECT_EQ(test, fare_mem_charge(&used, 1500, 1, 0, msg, &extack),
			-ENOSPC);
	KUNIT_EXPECT_STREQ(test, extack._msg ?: "(none)", msg);
	KUNIT_EXPECT_EQ(test, used, 1500ULL);
	/* 300 bytes about to go make room for 300. */
	KUNIT_EXPECT_EQ(test, fare_mem_charge(&used, 1500, 300, 300, msg,
					      &extack), 0);
	KUNIT_EXPECT_EQ(test, used, 1800ULL);
	fare_mem_uncharge(&used, 300);
	KUNIT_EXPECT_EQ(test, used, 1500ULL);
	/* Per-CPU state counts once per possible CPU. */
	KUNIT_EXPECT_EQ(test, fare_pcpu_bytes(24, 8),
			(size_t)24 * num_possible_cpus());
	KUNIT_EXPECT_EQ(test, fare_pcpu_bytes(1, 1),
			(size_t)PCPU_MIN_ALLOC_SIZE * num_possible_cpus());
}

/*
 * A dump round whose first entry does not fit fails the dump with
 * -EMSGSIZE; one that filled a message goes on; other errors pass.
 */
static void dump_fails_when_the_first_entry_does_not_fit(struct kunit *test)
{
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, fare_dump_result(skb, -EMSGSIZE), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, fare_dump_result(skb, 0), 0);
	KUNIT_EXPECT_EQ(test, fare_dump_result(skb, -ENOMEM), -ENOMEM);
	skb_put_zero(skb, 20);
	KUNIT_EXPECT_EQ(test, fare_dump_result(skb, -EMSGSIZE), 20);
	KUNIT_EXPECT_EQ(test, fare_dump_result(skb, 0), 20);
	kfree_skb(skb);
}

static struct kunit_case fare_policy_cases[] = {
	KUNIT_CASE_PARAM(policy_refuses_with_its_message, policy_gen_params),
	KUNIT_CASE(policy_checks_nested_next_hops),
	KUNIT_CASE(policy_accepts_the_bounds),
	KUNIT_CASE(each_command_takes_only_its_attributes),
	KUNIT_CASE(limits_refuse_past_the_limit),
	KUNIT_CASE(memory_charge_refuses_past_the_budget),
	KUNIT_CASE(dump_fails_when_the_first_entry_does_not_fit),
	{}
};

static struct kunit_suite fare_policy_suite = {
	.name = "fare_policy",
	.test_cases = fare_policy_cases,
};

kunit_test_suite(fare_policy_suite);
