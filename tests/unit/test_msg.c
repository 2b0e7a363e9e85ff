// SPDX-License-Identifier: GPL-2.0-only
/*
 * libfare's messages, without a kernel: requests are built into a buffer
 * and read back with libmnl; replies, acks and dumps are made by hand the
 * way the kernel makes them and fed to the parsers.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/fib_rules.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "fare_int.h"
#include "harness.h"

#define FAMILY_ID 0x1c

static char buf[FARE_TX_SIZE] __attribute__((aligned(8)));
static char buf2[FARE_TX_SIZE] __attribute__((aligned(8)));

static struct fare_route route;

static void make_route(void)
{
	memset(&route, 0, sizeof(route));
	fare_prefix_parse("10.0.0.0/24", &route.dst, NULL);
	route.mode = FARE_MODE_FLOWLET;
	route.n_nexthops = 2;
	route.nexthops[0] = (struct fare_nexthop){ .plane_id = 1, .weight = 3 };
	route.nexthops[1] = (struct fare_nexthop){
		.plane_id = 2, .weight = 4000000000u, .tier = 1,
	};
}

static const struct nlattr *find(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static const struct nlattr *find_nested(const struct nlattr *nest,
					uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

TEST(route_new_sets_nla_f_nested_on_both_nest_levels)
{
	struct nlmsghdr *nlh;
	const struct nlattr *hops, *e;
	int entries = 0;

	make_route();
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW,
			     NLM_F_ACK, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	hops = find(nlh, FARE_A_ROUTE_NEXTHOPS);
	CHECK(hops);
	CHECK(hops->nla_type & NLA_F_NESTED);
	mnl_attr_for_each_nested(e, hops) {
		CHECK_INT(e->nla_type, FARE_A_NEXTHOPS_ENTRY | NLA_F_NESTED);
		CHECK(find_nested(e, FARE_A_NH_PLANE_ID));
		CHECK(find_nested(e, FARE_A_NH_WEIGHT));
		CHECK(find_nested(e, FARE_A_NH_TIER));
		CHECK(!find_nested(e, FARE_A_NH_TX_PACKETS));
		entries++;
	}
	CHECK_INT(entries, 2);
}

TEST(route_new_reads_back_as_the_same_route)
{
	struct fare_route back;
	struct nlmsghdr *nlh;

	make_route();
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW,
			     NLM_F_ACK, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	CHECK(mnl_attr_get_payload_len(find(nlh, FARE_A_ROUTE_DST)) == 4);
	CHECK_INT(mnl_attr_get_u8(find(nlh, FARE_A_ROUTE_FAMILY)), AF_INET);
	CHECK_INT(fare_msg_parse_route(nlh, &back, NULL), 0);
	CHECK_INT(back.dst.family, AF_INET);
	CHECK_INT(back.dst.plen, 24);
	CHECK(back.dst.addr.v4.s_addr == htonl(0x0a000000));
	CHECK_INT(back.mode, FARE_MODE_FLOWLET);
	CHECK_INT(back.n_nexthops, 2);
	CHECK_INT(back.nexthops[0].plane_id, 1);
	CHECK_INT(back.nexthops[0].weight, 3);
	CHECK_INT(back.nexthops[0].tier, 0);
	CHECK_INT(back.nexthops[1].plane_id, 2);
	CHECK_INT(back.nexthops[1].weight, 4000000000u);
	CHECK_INT(back.nexthops[1].tier, 1);
}

TEST(request_header_names_family_command_version_and_flags)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_NEW,
			     NLM_F_ACK | NLM_F_REPLACE, 77);
	g = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(nlh->nlmsg_type, FAMILY_ID);
	CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE);
	CHECK_INT(nlh->nlmsg_seq, 77);
	CHECK_INT(g->cmd, FARE_CMD_PLANE_NEW);
	CHECK_INT(g->version, FARE_GENL_VERSION);
	CHECK_INT(nlh->nlmsg_len, NLMSG_HDRLEN + GENL_HDRLEN);
}

TEST(default_mode_is_not_sent)
{
	struct nlmsghdr *nlh;

	make_route();
	route.mode = FARE_MODE_DEFAULT;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	CHECK(!find(nlh, FARE_A_ROUTE_MODE));
	CHECK(find(nlh, FARE_A_ROUTE_NEXTHOPS));
	CHECK(find(nlh, FARE_A_ROUTE_PLEN));
}

TEST(tcp_mode_is_sent_only_when_set_checked_and_read_back)
{
	struct fare_route back;
	struct nlmsghdr *nlh;

	make_route();
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	CHECK(!find(nlh, FARE_A_ROUTE_TCP_MODE));

	route.mode = FARE_MODE_PACKET;
	route.tcp_mode = FARE_MODE_FLOWLET;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	CHECK_INT(mnl_attr_get_u8(find(nlh, FARE_A_ROUTE_TCP_MODE)),
		  FARE_MODE_FLOWLET);
	CHECK_INT(fare_msg_parse_route(nlh, &back, NULL), 0);
	CHECK_INT(back.mode, FARE_MODE_PACKET);
	CHECK_INT(back.tcp_mode, FARE_MODE_FLOWLET);

	route.tcp_mode = FARE_MODE_MAX + 1;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), -EINVAL);
}

TEST(ipv6_prefix_is_sent_as_16_bytes)
{
	struct fare_prefix p;
	struct nlmsghdr *nlh;

	CHECK_INT(fare_prefix_parse("2001:db8:1::/48", &p, NULL), 0);
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_DEL, 0, 1);
	CHECK_INT(fare_msg_put_prefix(nlh, sizeof(buf), &p, NULL), 0);
	CHECK_INT(mnl_attr_get_u8(find(nlh, FARE_A_ROUTE_FAMILY)), AF_INET6);
	CHECK_INT(mnl_attr_get_payload_len(find(nlh, FARE_A_ROUTE_DST)), 16);
	CHECK_INT(mnl_attr_get_u8(find(nlh, FARE_A_ROUTE_PLEN)), 48);
}

TEST(plane_new_carries_only_the_gateways_given)
{
	struct fare_plane p = { .id = 3, .ifindex = 42, .has_gw6 = true };
	struct fare_plane back;
	struct nlmsghdr *nlh;

	inet_pton(AF_INET6, "fe80::1", &p.gw6);
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_plane(nlh, sizeof(buf), &p, NULL), 0);
	CHECK(!find(nlh, FARE_A_PLANE_GW4));
	CHECK_INT(mnl_attr_get_payload_len(find(nlh, FARE_A_PLANE_GW6)), 16);
	CHECK(!find(nlh, FARE_A_PLANE_FLAGS));
	CHECK_INT(fare_msg_parse_plane(nlh, &back, NULL), 0);
	CHECK_INT(back.id, 3);
	CHECK_INT(back.ifindex, 42);
	CHECK(!back.has_gw4 && back.has_gw6);
	CHECK(!memcmp(&back.gw6, &p.gw6, 16));
	CHECK(!find(nlh, FARE_A_PLANE_ADMIN_DOWN));
	CHECK(!back.admin_down);
}

TEST(plane_new_admin_down_is_a_flag)
{
	struct fare_plane p = { .id = 2, .ifindex = 7, .has_gw4 = true,
				.admin_down = true };
	struct fare_plane back;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_plane(nlh, sizeof(buf), &p, NULL), 0);
	CHECK_INT(mnl_attr_get_payload_len(find(nlh, FARE_A_PLANE_ADMIN_DOWN)),
		  0);
	CHECK_INT(fare_msg_parse_plane(nlh, &back, NULL), 0);
	CHECK(back.admin_down);
}

TEST(builders_refuse_what_the_kernel_would)
{
	struct fare_plane p = { .id = 0, .ifindex = 1 };
	struct fare_config cfg = { 0 };
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_plane(nlh, sizeof(buf), &p, &err), -EINVAL);
	CHECK_STR(err.msg, "plane id 0 out of range (1..255)");

	make_route();
	route.n_nexthops = FARE_NEXTHOP_MAX + 1;
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, &err), -E2BIG);
	CHECK_STR(err.msg, "65 next hops, at most 64 allowed");

	make_route();
	route.dst.plen = 33;
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, &err), -EINVAL);
	CHECK_STR(err.msg, "prefix length 33 out of range (0..32)");

	route.dst.plen = 24;
	route.n_nexthops = 0;
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, &err), -EINVAL);
	CHECK_STR(err.msg, "a route needs at least one next hop");

	route.dst.family = AF_UNIX;
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, &err),
		  -EAFNOSUPPORT);

	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg, "nothing to set");
	cfg.set = FARE_CONFIG_MODE;
	cfg.mode = FARE_MODE_DEFAULT;
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg, "mode 0 out of range (1..3)");
}

TEST(route_with_64_hops_fits_and_a_small_buffer_is_refused)
{
	struct fare_err err;
	struct nlmsghdr *nlh;
	unsigned int i;

	make_route();
	route.n_nexthops = FARE_NEXTHOP_MAX;
	for (i = 0; i < FARE_NEXTHOP_MAX; i++)
		route.nexthops[i] = (struct fare_nexthop){
			.plane_id = i + 1, .weight = 1,
		};
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, &err), 0);
	CHECK(nlh->nlmsg_len < 2048);
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, 256, &route, &err), -EMSGSIZE);
}

TEST(config_set_sends_only_the_fields_set)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_HASH_SEED, .hash_seed = 0xabcdef01,
		.mode = FARE_MODE_PACKET, .flowlet_us = 5,
	};
	struct fare_config back;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), 0);
	CHECK(!find(nlh, FARE_A_CONFIG_MODE));
	CHECK(!find(nlh, FARE_A_CONFIG_FLOWLET_US));
	CHECK_INT(mnl_attr_get_u32(find(nlh, FARE_A_CONFIG_HASH_SEED)),
		  0xabcdef01);
	CHECK_INT(fare_msg_parse_config(nlh, &back, NULL), 0);
	CHECK_INT(back.set, FARE_CONFIG_HASH_SEED);
	CHECK_INT(back.ifindex, 0);
}

TEST(config_limits_are_sent_checked_and_read_back)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_MAX_ROUTES | FARE_CONFIG_MAX_PLANES |
		       FARE_CONFIG_MAX_NEXTHOPS,
		.max_routes = 5000, .max_planes = 3, .max_nexthops = 2,
	};
	struct fare_config back;
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), 0);
	CHECK_INT(mnl_attr_get_u32(find(nlh, FARE_A_CONFIG_MAX_ROUTES)), 5000);
	CHECK_INT(mnl_attr_get_u32(find(nlh, FARE_A_CONFIG_MAX_PLANES)), 3);
	CHECK_INT(mnl_attr_get_u32(find(nlh, FARE_A_CONFIG_MAX_NEXTHOPS)), 2);
	CHECK(!find(nlh, FARE_A_CONFIG_HASH_SEED));
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_NUM_ROUTES, 7);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_NUM_PLANES, 1);
	CHECK_INT(fare_msg_parse_config(nlh, &back, NULL), 0);
	CHECK_INT(back.set, cfg.set | FARE_CONFIG_COUNTS);
	CHECK_INT(back.max_routes, 5000);
	CHECK_INT(back.max_planes, 3);
	CHECK_INT(back.max_nexthops, 2);
	CHECK_INT(back.num_routes, 7);
	CHECK_INT(back.num_planes, 1);

	cfg.max_nexthops = 65;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg, "nexthop-limit 65 out of range (1..64)");
	cfg.max_nexthops = 1;
	cfg.max_routes = FARE_MAX_ROUTES_LIMIT + 1;
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg, "route-limit 16777217 out of range (0..16777216)");
}

TEST(config_flowlet_slots_is_sent_checked_and_read_back)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_FLOWLET_SLOTS, .flowlet_slots = 65536,
	};
	struct fare_config back;
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), 0);
	CHECK_INT(mnl_attr_get_u32(find(nlh, FARE_A_CONFIG_FLOWLET_SLOTS)),
		  65536);
	CHECK(!find(nlh, FARE_A_CONFIG_FLOWLET_US));
	CHECK_INT(fare_msg_parse_config(nlh, &back, NULL), 0);
	CHECK_INT(back.set, FARE_CONFIG_FLOWLET_SLOTS);
	CHECK_INT(back.flowlet_slots, 65536);

	cfg.flowlet_slots = 3000;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg,
		  "flowlet-slots 3000 is not a power of two in 256..4194304");
	cfg.flowlet_slots = 128;
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	cfg.flowlet_slots = FARE_FLOWLET_SLOTS_MAX * 2;
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);

	/* A reply whose size attribute is not a u32 is refused. */
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_GET, 0, 1);
	mnl_attr_put_u16(nlh, FARE_A_CONFIG_FLOWLET_SLOTS, 256);
	CHECK(fare_msg_parse_config(nlh, &back, &err) < 0);
}

TEST(config_memory_budget_is_sent_checked_and_read_back)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_MEMORY_BUDGET,
		.memory_budget = 5ULL << 30,
	};
	struct fare_config back;
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), 0);
	CHECK(mnl_attr_get_u64(find(nlh, FARE_A_CONFIG_MEMORY_BUDGET)) ==
	      5ULL << 30);
	CHECK(!find(nlh, FARE_A_CONFIG_MAX_ROUTES));
	/* What the kernel sends back: the budget and what is used. */
	mnl_attr_put_u64(nlh, FARE_A_CONFIG_MEMORY_USED, 123456);
	CHECK_INT(fare_msg_parse_config(nlh, &back, NULL), 0);
	CHECK_INT(back.set, FARE_CONFIG_MEMORY_BUDGET | FARE_CONFIG_MEMORY_USED);
	CHECK(back.memory_budget == 5ULL << 30);
	CHECK(back.memory_used == 123456);

	cfg.memory_budget = FARE_MEMORY_BUDGET_LIMIT + 1;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, &err), -EINVAL);
	CHECK_STR(err.msg,
		  "memory-budget 1099511627777 out of range (0..1099511627776)");

	/* A budget that is not a u64 is refused. */
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_GET, 0, 1);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_MEMORY_BUDGET, 256);
	CHECK(fare_msg_parse_config(nlh, &back, &err) < 0);
}

TEST(nexthop_bandwidth_is_sent_only_when_set_and_reads_back)
{
	const struct nlattr *hops, *e;
	struct fare_route back;
	struct nlmsghdr *nlh;
	int with = 0;

	make_route();
	route.nexthops[1].bandwidth = 1250000000ull * 8;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 1);
	CHECK_INT(fare_msg_put_route(nlh, sizeof(buf), &route, NULL), 0);
	hops = find(nlh, FARE_A_ROUTE_NEXTHOPS);
	mnl_attr_for_each_nested(e, hops)
		if (find_nested(e, FARE_A_NH_BANDWIDTH))
			with++;
	CHECK_INT(with, 1);
	CHECK_INT(fare_msg_parse_route(nlh, &back, NULL), 0);
	CHECK_INT(back.nexthops[0].bandwidth, 0);
	CHECK(back.nexthops[1].bandwidth == 10000000000ull);
}

TEST(config_set_sends_tier_hops_and_spill_bias)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_TIER_HOPS | FARE_CONFIG_SPILL_BIAS,
		.n_tier_hops = 3, .tier_hops = { 3, 4, 6 },
		.spill_bias = 1000,
	};
	struct fare_config back;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), 0);
	CHECK_INT(mnl_attr_get_payload_len(find(nlh, FARE_A_CONFIG_TIER_HOPS)),
		  3);
	CHECK_INT(fare_msg_parse_config(nlh, &back, NULL), 0);
	CHECK_INT(back.set, FARE_CONFIG_TIER_HOPS | FARE_CONFIG_SPILL_BIAS);
	CHECK_INT(back.n_tier_hops, 3);
	CHECK_INT(back.tier_hops[2], 6);
	CHECK_INT(back.spill_bias, 1000);

	cfg.n_tier_hops = 0;
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 1);
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), -EINVAL);
	cfg.n_tier_hops = FARE_TIER_MAX + 2;
	CHECK_INT(fare_msg_put_config(nlh, sizeof(buf), &cfg, NULL), -EINVAL);
}

/* A reply as the kernel sends it: u64 counters after a FARE_A_PAD. */
static struct nlmsghdr *plane_reply(void *b, uint32_t seq, uint32_t id)
{
	struct nlmsghdr *nlh;
	struct in_addr gw;

	nlh = fare_msg_start(b, FAMILY_ID, FARE_CMD_PLANE_GET, NLM_F_MULTI,
			     seq);
	nlh->nlmsg_flags &= ~NLM_F_REQUEST;
	mnl_attr_put_u32(nlh, FARE_A_PLANE_ID, id);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_IFINDEX, 10 + id);
	inet_pton(AF_INET, "10.1.0.1", &gw);
	mnl_attr_put(nlh, FARE_A_PLANE_GW4, 4, &gw);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_FLAGS, FARE_PLANE_F_OPER_UP);
	mnl_attr_put(nlh, FARE_A_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, FARE_A_PLANE_TX_PACKETS, 3000);
	mnl_attr_put(nlh, FARE_A_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, FARE_A_PLANE_TX_BYTES, 1ull << 40);
	/* From a newer kernel: must be ignored. */
	mnl_attr_put_u32(nlh, FARE_A_MAX + 7, 0xdead);
	return nlh;
}

TEST(plane_reply_reads_padded_counters_and_ignores_new_attributes)
{
	struct fare_plane p;

	CHECK_INT(fare_msg_parse_plane(plane_reply(buf, 1, 5), &p, NULL), 0);
	CHECK_INT(p.id, 5);
	CHECK_INT(p.ifindex, 15);
	CHECK(p.has_gw4 && !p.has_gw6);
	CHECK(p.gw4.s_addr == htonl(0x0a010001));
	CHECK_INT(p.flags, FARE_PLANE_F_OPER_UP);
	CHECK_INT(p.tx_packets, 3000);
	CHECK_INT(p.tx_bytes, 1ll << 40);
}

TEST(plane_reply_without_id_or_with_short_gateway_is_malformed)
{
	struct fare_plane p;
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_GET, 0, 1);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_IFINDEX, 1);
	CHECK_INT(fare_msg_parse_plane(nlh, &p, &err), -EPROTO);
	CHECK_STR(err.msg, "malformed reply from fare.ko: plane without an id");

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_PLANE_GET, 0, 1);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_ID, 1);
	mnl_attr_put_u32(nlh, FARE_A_PLANE_IFINDEX, 1);
	mnl_attr_put_u16(nlh, FARE_A_PLANE_GW4, 1);
	CHECK_INT(fare_msg_parse_plane(nlh, &p, &err), -EPROTO);
	CHECK_STR(err.msg,
		  "malformed reply from fare.ko: plane attribute of the wrong size");
}

static struct nlmsghdr *route_reply(void *b, uint32_t seq, int n_hops)
{
	struct nlattr *hops, *e;
	struct nlmsghdr *nlh;
	struct in6_addr dst;
	int i;

	nlh = fare_msg_start(b, FAMILY_ID, FARE_CMD_ROUTE_GET, NLM_F_MULTI,
			     seq);
	nlh->nlmsg_flags &= ~NLM_F_REQUEST;
	inet_pton(AF_INET6, "2001:db8::", &dst);
	mnl_attr_put_u8(nlh, FARE_A_ROUTE_FAMILY, AF_INET6);
	mnl_attr_put(nlh, FARE_A_ROUTE_DST, 16, &dst);
	mnl_attr_put_u8(nlh, FARE_A_ROUTE_PLEN, 32);
	mnl_attr_put_u8(nlh, FARE_A_ROUTE_MODE, FARE_MODE_PACKET);
	mnl_attr_put(nlh, FARE_A_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, FARE_A_ROUTE_NOPLANE_PACKETS, 9);
	hops = mnl_attr_nest_start(nlh, FARE_A_ROUTE_NEXTHOPS);
	for (i = 0; i < n_hops; i++) {
		e = mnl_attr_nest_start(nlh, FARE_A_NEXTHOPS_ENTRY);
		mnl_attr_put_u32(nlh, FARE_A_NH_PLANE_ID, i + 1);
		mnl_attr_put_u32(nlh, FARE_A_NH_WEIGHT, 10 * (i + 1));
		mnl_attr_put_u8(nlh, FARE_A_NH_TIER, i % 2);
		mnl_attr_put(nlh, FARE_A_NH_PAD, 0, NULL);
		mnl_attr_put_u64(nlh, FARE_A_NH_TX_PACKETS, 100 * (i + 1));
		mnl_attr_put(nlh, FARE_A_NH_PAD, 0, NULL);
		mnl_attr_put_u64(nlh, FARE_A_NH_TX_BYTES, 1000 * (i + 1));
		mnl_attr_put_u32(nlh, FARE_A_NH_MAX + 3, 1);
		mnl_attr_nest_end(nlh, e);
	}
	/* An entry type from a newer kernel: skipped. */
	e = mnl_attr_nest_start(nlh, FARE_A_NEXTHOPS_MAX + 1);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, hops);
	return nlh;
}

TEST(route_reply_reads_per_hop_counters)
{
	static struct fare_route r;

	CHECK_INT(fare_msg_parse_route(route_reply(buf, 1, 3), &r, NULL), 0);
	CHECK_INT(r.dst.family, AF_INET6);
	CHECK_INT(r.dst.plen, 32);
	CHECK_INT(r.mode, FARE_MODE_PACKET);
	CHECK_INT(r.noplane_packets, 9);
	CHECK(!r.has_src);
	CHECK_INT(r.n_nexthops, 3);
	CHECK_INT(r.nexthops[2].plane_id, 3);
	CHECK_INT(r.nexthops[2].weight, 30);
	CHECK_INT(r.nexthops[2].tier, 0);
	CHECK_INT(r.nexthops[1].tier, 1);
	CHECK_INT(r.nexthops[2].tx_packets, 300);
	CHECK_INT(r.nexthops[2].tx_bytes, 3000);
}

TEST(route_reply_with_more_than_64_hops_is_malformed)
{
	static char big[16384] __attribute__((aligned(8)));
	static struct fare_route r;
	struct fare_err err;

	CHECK_INT(fare_msg_parse_route(route_reply(big, 1, 65), &r, &err),
		  -EPROTO);
	CHECK_STR(err.msg,
		  "malformed reply from fare.ko: more next hops than FARE_NEXTHOP_MAX");
}

TEST(route_reply_with_a_destination_of_the_wrong_family_is_malformed)
{
	static struct fare_route r;
	struct nlmsghdr *nlh;
	struct fare_err err;
	uint32_t dst = 0;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_GET, 0, 1);
	mnl_attr_put_u8(nlh, FARE_A_ROUTE_FAMILY, AF_INET6);
	mnl_attr_put(nlh, FARE_A_ROUTE_DST, 4, &dst);
	mnl_attr_put_u8(nlh, FARE_A_ROUTE_PLEN, 0);
	CHECK_INT(fare_msg_parse_route(nlh, &r, &err), -EPROTO);
	CHECK_STR(err.msg,
		  "malformed reply from fare.ko: route destination of the wrong family");
}

TEST(config_and_stats_replies_are_read)
{
	struct fare_config cfg;
	struct fare_stats st;
	struct nlmsghdr *nlh;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_GET, 0, 1);
	mnl_attr_put_u8(nlh, FARE_A_CONFIG_MODE, FARE_MODE_FLOW);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_FLOWLET_US, 50);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_HASH_SEED, 7);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_IFINDEX, 12);
	CHECK_INT(fare_msg_parse_config(nlh, &cfg, NULL), 0);
	CHECK_INT(cfg.mode, FARE_MODE_FLOW);
	CHECK_INT(cfg.flowlet_us, 50);
	CHECK_INT(cfg.hash_seed, 7);
	CHECK_INT(cfg.ifindex, 12);

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_STATS_GET, 0, 1);
	mnl_attr_put_u64(nlh, FARE_A_STATS_NOROUTE_PACKETS, 1);
	mnl_attr_put_u64(nlh, FARE_A_STATS_NOPLANE_PACKETS, 2);
	mnl_attr_put_u64(nlh, FARE_A_STATS_ERROR_PACKETS, 3);
	CHECK_INT(fare_msg_parse_stats(nlh, &st, NULL), 0);
	CHECK_INT(st.noroute_packets, 1);
	CHECK_INT(st.noplane_packets, 2);
	CHECK_INT(st.error_packets, 3);
	CHECK_INT(st.tiers[0].packets, 0);
}

static void put_tier(struct nlmsghdr *nlh, uint8_t idx, uint64_t base)
{
	struct nlattr *e;

	e = mnl_attr_nest_start(nlh, FARE_A_STATS_TIERS_ENTRY);
	mnl_attr_put_u8(nlh, FARE_A_TIER_INDEX, idx);
	mnl_attr_put(nlh, FARE_A_TIER_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, FARE_A_TIER_TX_PACKETS, base);
	mnl_attr_put_u64(nlh, FARE_A_TIER_TX_BYTES, base * 100);
	mnl_attr_put_u64(nlh, FARE_A_TIER_SPILLS, base / 10);
	mnl_attr_nest_end(nlh, e);
}

TEST(stats_reply_reads_tier_counters_and_folds_unknown_tiers)
{
	struct fare_stats st;
	struct nlmsghdr *nlh;
	struct nlattr *tiers;

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_STATS_GET, 0, 1);
	tiers = mnl_attr_nest_start(nlh, FARE_A_STATS_TIERS);
	put_tier(nlh, 0, 1000);
	put_tier(nlh, 1, 50);
	put_tier(nlh, FARE_TIER_MAX, 20);
	put_tier(nlh, FARE_TIER_MAX + 1, 30);
	mnl_attr_nest_end(nlh, tiers);
	CHECK_INT(fare_msg_parse_stats(nlh, &st, NULL), 0);
	CHECK_INT(st.tiers[0].packets, 1000);
	CHECK_INT(st.tiers[0].bytes, 100000);
	CHECK_INT(st.tiers[0].spills, 100);
	CHECK_INT(st.tiers[1].packets, 50);
	CHECK_INT(st.tiers[2].packets, 0);
	CHECK_INT(st.tiers[FARE_TIER_MAX].packets, 50);

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_STATS_GET, 0, 1);
	tiers = mnl_attr_nest_start(nlh, FARE_A_STATS_TIERS);
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh,
						   FARE_A_STATS_TIERS_ENTRY));
	mnl_attr_nest_end(nlh, tiers);
	CHECK_INT(fare_msg_parse_stats(nlh, &st, NULL), -EPROTO);
}

/* NLMSG_ERROR as netlink_ack() builds it. */
static struct nlmsghdr *make_error(void *b, const struct nlmsghdr *req,
				   int error, bool capped, const char *msg)
{
	size_t echo = capped ? sizeof(*req) : req->nlmsg_len;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = req->nlmsg_seq;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(int) + echo);
	e->error = error;
	memcpy(&e->msg, req, echo);
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	return nlh;
}

static struct nlmsghdr *sample_request(void)
{
	struct nlmsghdr *nlh;

	make_route();
	nlh = fare_msg_start(buf2, FAMILY_ID, FARE_CMD_ROUTE_NEW,
			     NLM_F_ACK, 9);
	fare_msg_put_route(nlh, sizeof(buf2), &route, NULL);
	return nlh;
}

TEST(error_takes_the_extack_message_after_the_echoed_request)
{
	struct fare_err err;

	CHECK_INT(fare_msg_parse_error(make_error(buf, sample_request(),
						  -EINVAL, false,
						  "plane 9 does not exist"),
				       &err), -EINVAL);
	CHECK_INT(err.code, -EINVAL);
	CHECK_STR(err.msg, "plane 9 does not exist");
}

TEST(error_takes_the_extack_message_of_a_capped_ack)
{
	struct fare_err err;

	CHECK_INT(fare_msg_parse_error(make_error(buf, sample_request(),
						  -EEXIST, true,
						  "route exists\n"),
				       &err), -EEXIST);
	CHECK_STR(err.msg, "route exists");
}

TEST(error_without_extack_falls_back_to_strerror)
{
	struct fare_err err;

	CHECK_INT(fare_msg_parse_error(make_error(buf, sample_request(),
						  -EPERM, true, NULL),
				       &err), -EPERM);
	CHECK_STR(err.msg, strerror(EPERM));
}

TEST(error_names_a_missing_attribute_when_there_is_no_message)
{
	struct fare_err err;
	struct nlmsghdr *nlh;

	nlh = make_error(buf, sample_request(), -EINVAL, true, NULL);
	nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_MISS_TYPE, FARE_A_ROUTE_NEXTHOPS);
	CHECK_INT(fare_msg_parse_error(nlh, &err), -EINVAL);
	CHECK_STR(err.msg, "Invalid argument (missing attribute 13)");
}

TEST(ack_is_success_and_keeps_a_warning)
{
	struct fare_err err = { 0 };

	CHECK_INT(fare_msg_parse_error(make_error(buf, sample_request(), 0,
						  true, "weights rounded"),
				       &err), 0);
	CHECK_INT(err.code, 0);
	CHECK_STR(err.msg, "weights rounded");
}

TEST(done_carries_the_error_of_a_failed_dump)
{
	struct fare_err err;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int *code;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI | NLM_F_ACK_TLVS;
	code = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*code = -EMSGSIZE;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "route too large to dump");
	CHECK_INT(fare_msg_parse_done(nlh, &err), -EMSGSIZE);
	CHECK_STR(err.msg, "route too large to dump");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	code = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*code = 0;
	CHECK_INT(fare_msg_parse_done(nlh, &err), 0);
}

TEST(family_reply_gives_the_id_and_the_events_group)
{
	struct nlattr *groups, *g;
	struct nlmsghdr *nlh;
	uint32_t version, events;
	uint16_t id;

	nlh = fare_msg_getfamily(buf, 1);
	CHECK_INT(nlh->nlmsg_type, GENL_ID_CTRL);
	CHECK_STR(mnl_attr_get_str(find(nlh, CTRL_ATTR_FAMILY_NAME)), "fare");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "fare");
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x22);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	groups = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	g = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, "other");
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 5);
	mnl_attr_nest_end(nlh, g);
	g = mnl_attr_nest_start(nlh, 2);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, 9);
	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, "events");
	mnl_attr_nest_end(nlh, g);
	mnl_attr_nest_end(nlh, groups);
	CHECK_INT(fare_msg_parse_family(nlh, &id, &version, &events, NULL), 0);
	CHECK_INT(id, 0x22);
	CHECK_INT(version, 1);
	CHECK_INT(events, 9);
}

/* IPv4: through the fare device's own next hop, not a device of its own. */
TEST(kernel_route_request_points_the_prefix_at_fare0)
{
	const struct nlattr *a;
	struct fare_prefix p;
	union fare_addr src;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int seen = 0;

	fare_prefix_parse("10.0.0.0/24", &p, NULL);
	inet_pton(AF_INET, "192.0.2.7", &src.v4);
	nlh = fare_rtnl_msg_route(buf, sizeof(buf), RTM_NEWROUTE, 4, &p, &src,
				  33);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_flags,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	rtm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(rtm->rtm_family, AF_INET);
	CHECK_INT(rtm->rtm_dst_len, 24);
	CHECK_INT(rtm->rtm_table, FARE_RT_TABLE);
	CHECK_INT(rtm->rtm_protocol, FARE_RTPROT);
	CHECK_INT(rtm->rtm_scope, RT_SCOPE_LINK);
	CHECK_INT(rtm->rtm_type, RTN_UNICAST);
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_DST:
			CHECK(*(uint32_t *)mnl_attr_get_payload(a) ==
			      htonl(0x0a000000));
			seen |= 1;
			break;
		case RTA_NH_ID:
			/* Plane 0's IPv4 next hop of fare device 33. */
			CHECK(mnl_attr_get_u32(a) == 0xf0000000u + 1024 * 33);
			seen |= 2;
			break;
		case RTA_PREFSRC:
			CHECK(*(uint32_t *)mnl_attr_get_payload(a) ==
			      src.v4.s_addr);
			seen |= 4;
			break;
		default:
			seen |= 8;
		}
	}
	CHECK_INT(seen, 7);
}

/*
 * One neighbour entry for every IPv6 destination: via a fixed gateway,
 * the fare device's IPv6 nexthop object's, or, for a route with a source
 * (which an object would share), a gateway of the route's own.
 */
TEST(kernel_ipv6_route_request_goes_via_one_link_local_gateway)
{
	static const uint8_t gw[16] = { 0xfe, 0x80, [15] = 0x01 };
	const struct nlattr *a;
	union fare_addr src;
	struct fare_prefix p;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int seen = 0;

	fare_prefix_parse("2001:db8:5::/48", &p, NULL);
	nlh = fare_rtnl_msg_route(buf, sizeof(buf), RTM_NEWROUTE, 4, &p, NULL,
				  33);
	CHECK(nlh);
	rtm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(rtm->rtm_family, AF_INET6);
	CHECK_INT(rtm->rtm_scope, RT_SCOPE_UNIVERSE);
	CHECK_INT(rtm->rtm_type, RTN_UNICAST);
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		/* Plane 0's IPv6 next hop of fare device 33. */
		if (mnl_attr_get_type(a) == RTA_NH_ID)
			CHECK(mnl_attr_get_u32(a) == 0xf0000000u + 1024 * 33 + 1);
		seen |= 1 << mnl_attr_get_type(a);
	}
	CHECK_INT(seen, (1 << RTA_DST) | (1 << RTA_NH_ID));

	inet_pton(AF_INET6, "2001:db8:7::7", &src.v6);
	nlh = fare_rtnl_msg_route(buf, sizeof(buf), RTM_NEWROUTE, 4, &p, &src,
				  33);
	CHECK(nlh);
	seen = 0;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(a) == RTA_GATEWAY) {
			CHECK_INT(mnl_attr_get_payload_len(a), 16);
			CHECK(!memcmp(mnl_attr_get_payload(a), gw, 16));
		}
		if (mnl_attr_get_type(a) == RTA_OIF)
			CHECK_INT(mnl_attr_get_u32(a), 33);
		seen |= 1 << mnl_attr_get_type(a);
	}
	CHECK_INT(seen, (1 << RTA_DST) | (1 << RTA_OIF) | (1 << RTA_GATEWAY) |
		  (1 << RTA_PREFSRC));
	/* Too small a buffer for the gateway too: no request at all. */
	CHECK(!fare_rtnl_msg_route(buf, 60, RTM_NEWROUTE, 4, &p, &src, 33));
}

/*
 * Only our protocol's route to the fare device goes. IPv6 names the
 * device, which a route to a nexthop object matches too and our
 * unreachable route (on lo) does not. IPv4 names neither device nor
 * nexthop id, or the kernel would not match a route to the device's next
 * hop (or one made before to fare0 itself), but asks for a unicast
 * route, so that an unreachable one of ours stays.
 */
TEST(kernel_route_removal_matches_only_our_route_to_the_device)
{
	static const struct {
		const char *prefix;
		uint8_t type;
		int attrs;
	} cases[] = {
		{ "2001:db8::/64", RTN_UNSPEC, (1 << RTA_DST) | (1 << RTA_OIF) },
		{ "10.0.0.0/24", RTN_UNICAST, 1 << RTA_DST },
	};
	const struct nlattr *a;
	struct fare_prefix p;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;
	int seen;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		fare_prefix_parse(cases[i].prefix, &p, NULL);
		nlh = fare_rtnl_msg_route(buf, sizeof(buf), RTM_DELROUTE, 4,
					  &p, NULL, 33);
		CHECK_INT(nlh->nlmsg_type, RTM_DELROUTE);
		CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
		rtm = mnl_nlmsg_get_payload(nlh);
		CHECK_INT(rtm->rtm_family, p.family);
		CHECK_INT(rtm->rtm_table, FARE_RT_TABLE);
		CHECK_INT(rtm->rtm_protocol, FARE_RTPROT);
		CHECK_INT(rtm->rtm_scope, RT_SCOPE_NOWHERE);
		CHECK_INT(rtm->rtm_type, cases[i].type);
		seen = 0;
		mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
			if (mnl_attr_get_type(a) == RTA_DST)
				CHECK_INT(mnl_attr_get_payload_len(a),
					  fare_addr_len(p.family));
			if (mnl_attr_get_type(a) == RTA_OIF)
				CHECK_INT(mnl_attr_get_u32(a), 33);
			seen |= 1 << mnl_attr_get_type(a);
		}
		CHECK_INT(seen, cases[i].attrs);
	}
}

/*
 * The plane route: the nexthop group of the planes that can carry the
 * route (a gateway of the family, weight above 0), by id; a set of planes
 * without a known group, no request; with none, the removal of the route.
 */
TEST(plane_route_points_at_the_group_of_its_carrying_planes_or_is_removed)
{
	struct fare_nexthop nh[4] = {
		{ .plane_id = 1, .weight = 3 }, { .plane_id = 2, .weight = 1 },
		{ .plane_id = 3, .weight = 9 }, { .plane_id = 4, .weight = 9 },
	};
	struct fare_nexthop one = { .plane_id = 1, .weight = 1 };
	struct fare_nexthop zero[2] = {
		{ .plane_id = 1, .weight = 0 }, { .plane_id = 2, .weight = 5 },
	};
	struct fare_nh_group g = { .id = 0xe0000005, .family = AF_INET };
	static struct fare_plane_map m;
	const struct nlattr *a;
	union fare_addr src;
	struct fare_prefix p;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t nhid = 0;
	int seen = 0;

	memset(&m, 0, sizeof(m));
	m.p[1] = (struct fare_plane_info){ .ifindex = 11, .has_gw4 = true };
	m.p[2] = (struct fare_plane_info){ .ifindex = 12, .has_gw4 = true,
					   .up = true };
	/* Plane 3 has only an IPv6 gateway; there is no plane 4. */
	m.p[3] = (struct fare_plane_info){ .ifindex = 13, .has_gw6 = true };
	/* Planes 1 and 2, whether their devices are up or not. */
	g.planes[0] = (1ULL << 1) | (1ULL << 2);
	m.groups = &g;
	m.n_groups = 1;
	fare_prefix_parse("198.51.100.0/24", &p, NULL);
	inet_pton(AF_INET, "192.0.2.7", &src.v4);
	nlh = fare_rtnl_msg_plane_route(buf, sizeof(buf), 7, &p, &src, nh, 4,
					&m);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_NEWROUTE);
	CHECK_INT(nlh->nlmsg_flags,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	rtm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(rtm->rtm_table, FARE_PLANE_TABLE);
	CHECK_INT(rtm->rtm_protocol, FARE_RTPROT);
	CHECK_INT(rtm->rtm_scope, RT_SCOPE_UNIVERSE);
	CHECK_INT(rtm->rtm_type, RTN_UNICAST);
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		seen |= 1 << mnl_attr_get_type(a);
		if (mnl_attr_get_type(a) == RTA_NH_ID)
			nhid = mnl_attr_get_u32(a);
	}
	CHECK_INT(seen, (1 << RTA_DST) | (1 << RTA_PREFSRC) |
		  (1 << RTA_NH_ID));
	CHECK(nhid == 0xe0000005);

	/* Plane 1 alone has no group in m: nothing to send. */
	CHECK(!fare_rtnl_msg_plane_route(buf, sizeof(buf), 8, &p, &src, &one,
					 1, &m));
	/* Weight 0 carries nothing: plane 2 alone, no group either. */
	CHECK(!fare_rtnl_msg_plane_route(buf, sizeof(buf), 8, &p, &src, zero,
					 2, &m));

	/* No plane carries it (only planes 3 and 4): removal, by table. */
	nlh = fare_rtnl_msg_plane_route(buf, sizeof(buf), 8, &p, &src, nh + 2,
					2, &m);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_DELROUTE);
	CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	rtm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(rtm->rtm_table, FARE_PLANE_TABLE);
	CHECK_INT(rtm->rtm_protocol, FARE_RTPROT);
	CHECK_INT(rtm->rtm_scope, RT_SCOPE_NOWHERE);
	CHECK_INT(rtm->rtm_type, RTN_UNSPEC);
	seen = 0;
	mnl_attr_for_each(a, nlh, sizeof(*rtm))
		seen |= 1 << mnl_attr_get_type(a);
	CHECK_INT(seen, 1 << RTA_DST);
	/* Too small a buffer: no request at all. */
	CHECK(!fare_rtnl_msg_plane_route(buf, 40, 9, &p, &src, nh, 4, &m));
}

/*
 * A plane's next hop (onlink via its gateway) and its mark (on the fare
 * device, no gateway) are fare's (protocol 249) and replace what is there;
 * a new group never takes over an id (EXCL), a repaired one replaces it,
 * every member weighing the same.
 */
TEST(nexthop_objects_and_groups_are_fares_and_say_their_members)
{
	uint32_t members[3] = { 0xf000002c, 0xf000002e, 0xf0000032 };
	const struct nexthop_grp *grp = NULL;
	union fare_addr gw;
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	struct nhmsg *nhm;
	unsigned int i, n = 0;
	int seen = 0;

	inet_pton(AF_INET, "10.1.0.1", &gw.v4);
	nlh = fare_rtnl_msg_nexthop(buf, sizeof(buf), 4, 0xf000002c, AF_INET,
				    11, &gw);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_NEWNEXTHOP);
	CHECK_INT(nlh->nlmsg_flags,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	nhm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(nhm->nh_family, AF_INET);
	CHECK_INT(nhm->nh_protocol, FARE_RTPROT);
	CHECK_INT(nhm->nh_flags, RTNH_F_ONLINK);
	mnl_attr_for_each(a, nlh, sizeof(*nhm)) {
		seen |= 1 << mnl_attr_get_type(a);
		if (mnl_attr_get_type(a) == NHA_OIF)
			CHECK_INT(mnl_attr_get_u32(a), 11);
		if (mnl_attr_get_type(a) == NHA_GATEWAY)
			CHECK(*(uint32_t *)mnl_attr_get_payload(a) ==
			      gw.v4.s_addr);
	}
	CHECK_INT(seen, (1 << NHA_ID) | (1 << NHA_OIF) | (1 << NHA_GATEWAY));

	/* The mark: the fare device, no gateway, not onlink. */
	nlh = fare_rtnl_msg_nexthop(buf, sizeof(buf), 5, 0xf000002f, AF_INET6,
				    3, NULL);
	CHECK(nlh);
	nhm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(nhm->nh_family, AF_INET6);
	CHECK_INT(nhm->nh_flags, 0);
	seen = 0;
	mnl_attr_for_each(a, nlh, sizeof(*nhm))
		seen |= 1 << mnl_attr_get_type(a);
	CHECK_INT(seen, (1 << NHA_ID) | (1 << NHA_OIF));

	nlh = fare_rtnl_msg_nh_group(buf, sizeof(buf), 6, 0xe0000001, members,
				     3, true);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_NEWNEXTHOP);
	CHECK_INT(nlh->nlmsg_flags,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	nhm = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(nhm->nh_family, AF_UNSPEC);
	CHECK_INT(nhm->nh_protocol, FARE_RTPROT);
	mnl_attr_for_each(a, nlh, sizeof(*nhm)) {
		if (mnl_attr_get_type(a) == NHA_ID)
			CHECK(mnl_attr_get_u32(a) == 0xe0000001);
		if (mnl_attr_get_type(a) != NHA_GROUP)
			continue;
		grp = mnl_attr_get_payload(a);
		n = mnl_attr_get_payload_len(a) / sizeof(*grp);
	}
	CHECK(grp);
	CHECK_INT(n, 3);
	for (i = 0; grp && i < n && i < 3; i++) {
		CHECK(grp[i].id == members[i]);
		CHECK_INT(grp[i].weight, 0);
	}
	nlh = fare_rtnl_msg_nh_group(buf, sizeof(buf), 7, 0xe0000001, members,
				     3, false);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_flags,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	/* An empty group is no group. */
	CHECK(!fare_rtnl_msg_nh_group(buf, sizeof(buf), 8, 1, members, 0,
				      true));
}

/* Only a lookup bound to the plane's device consults the plane table. */
TEST(plane_rule_selects_the_device_and_is_added_once)
{
	const struct fib_rule_hdr *frh;
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	int seen = 0;

	nlh = fare_rtnl_msg_plane_rule(buf, sizeof(buf), 3, AF_INET6, "eth-p1");
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_NEWRULE);
	CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
		  NLM_F_EXCL);
	frh = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(frh->family, AF_INET6);
	CHECK_INT(frh->action, FR_ACT_TO_TBL);
	mnl_attr_for_each(a, nlh, sizeof(*frh)) {
		seen |= 1 << mnl_attr_get_type(a);
		if (mnl_attr_get_type(a) == FRA_OIFNAME)
			CHECK(!strcmp(mnl_attr_get_str(a), "eth-p1"));
		if (mnl_attr_get_type(a) == FRA_PRIORITY)
			CHECK_INT(mnl_attr_get_u32(a), FARE_PLANE_RULE_PREF);
		if (mnl_attr_get_type(a) == FRA_TABLE)
			CHECK_INT(mnl_attr_get_u32(a), FARE_PLANE_TABLE);
	}
	CHECK_INT(seen, (1 << FRA_OIFNAME) | (1 << FRA_PRIORITY) |
		  (1 << FRA_TABLE));
	/* A name longer than a device's is refused, not cut. */
	CHECK(!fare_rtnl_msg_plane_rule(buf, sizeof(buf), 3, AF_INET,
					"a-name-far-too-long-for-a-device"));
}

/* An unreachable prefix: replaces a fare0 route; removal spares one. */
TEST(kernel_unreachable_route_is_typed_both_ways_and_has_no_device)
{
	static const uint16_t types[] = { RTM_NEWROUTE, RTM_DELROUTE };
	const struct nlattr *a;
	struct fare_prefix p;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;
	int seen;

	fare_prefix_parse("198.51.100.7/32", &p, NULL);
	CHECK(!fare_rtnl_msg_unreachable(buf, 32, RTM_NEWROUTE, 5, &p));
	for (i = 0; i < 2; i++) {
		nlh = fare_rtnl_msg_unreachable(buf, sizeof(buf), types[i], 5,
						&p);
		CHECK(nlh);
		CHECK_INT(nlh->nlmsg_type, types[i]);
		CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK |
			  (i ? 0 : NLM_F_CREATE | NLM_F_REPLACE));
		rtm = mnl_nlmsg_get_payload(nlh);
		CHECK_INT(rtm->rtm_family, AF_INET);
		CHECK_INT(rtm->rtm_dst_len, 32);
		CHECK_INT(rtm->rtm_table, FARE_RT_TABLE);
		CHECK_INT(rtm->rtm_protocol, FARE_RTPROT);
		CHECK_INT(rtm->rtm_type, RTN_UNREACHABLE);
		CHECK_INT(rtm->rtm_scope, i ? RT_SCOPE_NOWHERE :
			  RT_SCOPE_UNIVERSE);
		seen = 0;
		mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
			if (mnl_attr_get_type(a) == RTA_DST)
				CHECK(*(uint32_t *)mnl_attr_get_payload(a) ==
				      htonl(0xc6336407));
			seen |= 1 << mnl_attr_get_type(a);
		}
		CHECK_INT(seen, 1 << RTA_DST);
	}
}

/*
 * A flush recognises fare's unreachable routes in a route dump by type,
 * protocol and table (RTA_TABLE, when present, over rtm_table), and no
 * other route.
 */
TEST(kernel_unreachable_route_is_recognised_in_a_dump)
{
	struct fare_prefix p, got;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t len;

	fare_prefix_parse("2001:db8:7::/48", &p, NULL);
	nlh = fare_rtnl_msg_unreachable(buf, sizeof(buf), RTM_NEWROUTE, 5, &p);
	CHECK(nlh);
	rtm = mnl_nlmsg_get_payload(nlh);
	CHECK(fare_rtnl_parse_unreachable(nlh, &got));
	CHECK_INT(got.family, AF_INET6);
	CHECK_INT(got.plen, 48);
	CHECK(!memcmp(&got.addr, &p.addr, 16));

	rtm->rtm_protocol = RTPROT_BOOT;
	CHECK(!fare_rtnl_parse_unreachable(nlh, &got));
	rtm->rtm_protocol = FARE_RTPROT;
	rtm->rtm_type = RTN_UNICAST;
	CHECK(!fare_rtnl_parse_unreachable(nlh, &got));
	rtm->rtm_type = RTN_UNREACHABLE;
	rtm->rtm_table = RT_TABLE_MAIN;
	CHECK(!fare_rtnl_parse_unreachable(nlh, &got));
	/* rtm_table is only 8 bits: the dump's RTA_TABLE decides. */
	len = nlh->nlmsg_len;
	mnl_attr_put_u32(nlh, RTA_TABLE, FARE_RT_TABLE);
	CHECK(fare_rtnl_parse_unreachable(nlh, &got));
	nlh->nlmsg_len = len;
	mnl_attr_put_u32(nlh, RTA_TABLE, 1000);
	rtm->rtm_table = FARE_RT_TABLE;
	CHECK(!fare_rtnl_parse_unreachable(nlh, &got));
	nlh->nlmsg_type = RTM_DELROUTE;
	CHECK(!fare_rtnl_parse_unreachable(nlh, &got));
}

/* Every uid but the one fare.ko's fallback lookups use reaches the table. */
TEST(rule_sends_fare_table_at_its_priority_for_all_uids_but_the_last)
{
	const struct fib_rule_uid_range *u;
	const struct fib_rule_hdr *frh;
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	int seen = 0;

	nlh = fare_rtnl_msg_rule(buf, sizeof(buf), 9, AF_INET6, 0,
				 FARE_RULE_UID_MAX);
	CHECK(nlh);
	CHECK_INT(nlh->nlmsg_type, RTM_NEWRULE);
	CHECK_INT(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK |
		  NLM_F_CREATE | NLM_F_EXCL);
	frh = mnl_nlmsg_get_payload(nlh);
	CHECK_INT(frh->family, AF_INET6);
	CHECK_INT(frh->action, FR_ACT_TO_TBL);
	CHECK_INT(frh->flags, 0);
	mnl_attr_for_each(a, nlh, sizeof(*frh)) {
		seen |= 1 << mnl_attr_get_type(a);
		if (mnl_attr_get_type(a) == FRA_PRIORITY)
			CHECK_INT(mnl_attr_get_u32(a), 32765);
		if (mnl_attr_get_type(a) == FRA_TABLE)
			CHECK_INT(mnl_attr_get_u32(a), FARE_RT_TABLE);
		if (mnl_attr_get_type(a) == FRA_UID_RANGE) {
			CHECK_INT(mnl_attr_get_payload_len(a), sizeof(*u));
			u = mnl_attr_get_payload(a);
			CHECK_INT(u->start, 0);
			CHECK_INT(u->end, 0xfffffffeu);
		}
	}
	CHECK_INT(seen, (1 << FRA_PRIORITY) | (1 << FRA_TABLE) |
		  (1 << FRA_UID_RANGE));
	CHECK(!fare_rtnl_msg_rule(buf, 40, 9, AF_INET, 0, FARE_RULE_UID_MAX));
}

/* The uids a user namespace maps: all of them, but never the last uid. */
TEST(uid_span_covers_every_mapped_uid_and_never_the_fallback_uid)
{
	uint32_t lo = 7, hi = 7;

	CHECK_INT(fare_uid_span("         0          0 4294967295\n", &lo, &hi), 0);
	CHECK_INT(lo, 0);
	CHECK_INT(hi, 0xfffffffeu);
	/* An unprivileged container: root and 65535 more. */
	CHECK_INT(fare_uid_span("0 100000 65536\n", &lo, &hi), 0);
	CHECK_INT(lo, 0);
	CHECK_INT(hi, 65535);
	/* unshare -Ur: only root. */
	CHECK_INT(fare_uid_span("0 1000 1\n", &lo, &hi), 0);
	CHECK_INT(hi, 0);
	/* Several extents, in any order. */
	CHECK_INT(fare_uid_span("1000 1000 1\n0 100000 1000\n2000 300000 5\n",
				&lo, &hi), 0);
	CHECK_INT(lo, 0);
	CHECK_INT(hi, 2004);
	CHECK_INT(fare_uid_span("", &lo, &hi), -EINVAL);
	CHECK_INT(fare_uid_span("0 0 0\n", &lo, &hi), -EINVAL);
}

TEST(prefix_parse_and_format_round_trip)
{
	char s[FARE_PREFIX_STRLEN];
	struct fare_prefix p;
	struct fare_err err;

	CHECK_INT(fare_prefix_parse("0.0.0.0/0", &p, NULL), 0);
	CHECK_STR(fare_prefix_format(&p, s, sizeof(s)), "0.0.0.0/0");
	CHECK_INT(fare_prefix_parse("2001:DB8:0:0::/64", &p, NULL), 0);
	CHECK_STR(fare_prefix_format(&p, s, sizeof(s)), "2001:db8::/64");
	CHECK_INT(fare_prefix_parse("10.1.2.3", &p, NULL), 0);
	CHECK_STR(fare_prefix_format(&p, s, sizeof(s)), "10.1.2.3/32");
	CHECK_INT(fare_prefix_parse("10.1.2.128/25", &p, NULL), 0);
	CHECK_INT(fare_prefix_parse("10.1.2.64/25", &p, &err), -EINVAL);
	CHECK_STR(err.msg, "host bits set beyond the prefix length");
	CHECK_INT(fare_prefix_parse("2001:db8::1/127", &p, &err), -EINVAL);
	CHECK_INT(fare_prefix_parse("10.0.0.0/ 8", &p, &err), -EINVAL);
	CHECK_INT(fare_prefix_parse("10.0.0.0/8x", &p, &err), -EINVAL);
	CHECK_INT(fare_prefix_parse(
		"0000:0000:0000:0000:0000:0000:0000:0000:0000/1", &p, &err),
		-EINVAL);
	CHECK_STR(err.msg, "not an IPv4 or IPv6 address");
}

/* --- the exchange: how replies, dumps and errors end a request --- */

struct seen {
	int calls;
	uint32_t ids[8];
	int fail_at;		/* 1-based call that returns an error */
};

static int count_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct seen *s = arg;
	struct fare_plane p;

	if (fare_msg_parse_plane(nlh, &p, NULL))
		return -EPROTO;
	if (s->calls < 8)
		s->ids[s->calls] = p.id;
	s->calls++;
	return s->calls == s->fail_at ? -ECANCELED : 0;
}

/* Append a copy of message m to the datagram d (at *len). */
static void append(char *d, size_t *len, const struct nlmsghdr *m)
{
	memcpy(d + *len, m, m->nlmsg_len);
	*len += NLMSG_ALIGN(m->nlmsg_len);
}

static struct nlmsghdr *done_msg(void *b, uint32_t seq, int error)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
	int *code;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	code = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*code = error;
	return nlh;
}

static struct nlmsghdr *dump_request(uint32_t seq)
{
	return fare_msg_start(buf2, FAMILY_ID, FARE_CMD_PLANE_GET,
			      NLM_F_DUMP, seq);
}

static char dgram[16384] __attribute__((aligned(8)));

TEST(dump_spans_datagrams_until_done)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	struct fare_err err;
	size_t len = 0;

	fare_exchange_init(&x, dump_request(5), 0, count_cb, &s, &err);
	append(dgram, &len, plane_reply(buf, 5, 1));
	append(dgram, &len, plane_reply(buf, 5, 2));
	CHECK(!fare_exchange_feed(&x, dgram, len));
	len = 0;
	append(dgram, &len, plane_reply(buf, 5, 3));
	append(dgram, &len, done_msg(buf, 5, 0));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, 0);
	CHECK_INT(s.calls, 3);
	CHECK_INT(s.ids[2], 3);
}

TEST(dump_ignores_an_ack_and_messages_of_other_requests)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	size_t len = 0;

	fare_exchange_init(&x, dump_request(6), 0, count_cb, &s, NULL);
	append(dgram, &len, plane_reply(buf, 4, 1));
	append(dgram, &len, done_msg(buf, 4, 0));
	append(dgram, &len, make_error(buf, dump_request(6), 0, true, NULL));
	append(dgram, &len, plane_reply(buf, 6, 2));
	CHECK(!fare_exchange_feed(&x, dgram, len));
	len = 0;
	append(dgram, &len, done_msg(buf, 6, 0));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, 0);
	CHECK_INT(s.calls, 1);
	CHECK_INT(s.ids[0], 2);
}

TEST(dump_that_fails_midway_returns_the_error_of_done)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	struct fare_err err;
	size_t len = 0;

	fare_exchange_init(&x, dump_request(7), 0, count_cb, &s, &err);
	append(dgram, &len, plane_reply(buf, 7, 1));
	append(dgram, &len, done_msg(buf, 7, -ENOBUFS));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, -ENOBUFS);
	CHECK_INT(err.code, -ENOBUFS);
	CHECK_INT(s.calls, 1);
}

TEST(dump_refused_at_the_start_returns_the_error)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	struct fare_err err;
	size_t len = 0;

	fare_exchange_init(&x, dump_request(8), 0, count_cb, &s, &err);
	append(dgram, &len, make_error(buf, dump_request(8), -EOPNOTSUPP,
				       true, "dump not supported"));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, -EOPNOTSUPP);
	CHECK_STR(err.msg, "dump not supported");
	CHECK_INT(s.calls, 0);
}

TEST(callback_error_drains_the_dump_then_is_returned)
{
	struct fare_exchange x;
	struct seen s = { .fail_at = 1 };
	struct fare_err err = { 0 };
	size_t len = 0;

	fare_exchange_init(&x, dump_request(9), 0, count_cb, &s, &err);
	append(dgram, &len, plane_reply(buf, 9, 1));
	append(dgram, &len, plane_reply(buf, 9, 2));
	CHECK(!fare_exchange_feed(&x, dgram, len));
	len = 0;
	append(dgram, &len, done_msg(buf, 9, 0));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, -ECANCELED);
	CHECK_INT(s.calls, 1);
	CHECK_STR(err.msg, strerror(ECANCELED));
}

TEST(interrupted_dump_asks_to_try_again)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	struct fare_err err;
	struct nlmsghdr *nlh;
	size_t len = 0;

	fare_exchange_init(&x, dump_request(10), 0, count_cb, &s, &err);
	nlh = plane_reply(buf, 10, 1);
	nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
	append(dgram, &len, nlh);
	append(dgram, &len, done_msg(buf, 10, 0));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, -EINTR);
	CHECK_STR(err.msg,
		  "the dump was interrupted by a change and may be inconsistent; try again");
}

TEST(request_ends_at_its_ack_after_the_reply)
{
	struct fare_exchange x;
	struct seen s = { 0 };
	struct nlmsghdr *req;
	size_t len = 0;

	req = fare_msg_start(buf2, FAMILY_ID, FARE_CMD_PLANE_GET, NLM_F_ACK,
			     11);
	fare_exchange_init(&x, req, 0, count_cb, &s, NULL);
	append(dgram, &len, plane_reply(buf, 11, 4));
	CHECK(!fare_exchange_feed(&x, dgram, len));
	len = 0;
	append(dgram, &len, make_error(buf, req, 0, true, NULL));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, 0);
	CHECK_INT(s.calls, 1);
}

TEST(truncated_datagram_is_an_error)
{
	struct fare_exchange x;
	struct fare_err err;
	struct nlmsghdr *nlh;

	fare_exchange_init(&x, dump_request(12), 0, NULL, NULL, &err);
	nlh = plane_reply(dgram, 12, 1);
	CHECK(fare_exchange_feed(&x, dgram, nlh->nlmsg_len - 8));
	CHECK_INT(x.ret, -EPROTO);
	CHECK_STR(err.msg, "truncated netlink message");
}

TEST(replace_request_is_not_mistaken_for_a_dump)
{
	struct fare_exchange x;
	struct nlmsghdr *req;
	size_t len = 0;

	/* NLM_F_REPLACE is NLM_F_ROOT, one half of NLM_F_DUMP. */
	req = fare_msg_start(buf2, FAMILY_ID, FARE_CMD_ROUTE_NEW,
			     NLM_F_ACK | NLM_F_REPLACE, 13);
	fare_exchange_init(&x, req, 0, NULL, NULL, NULL);
	CHECK(!x.dump);
	append(dgram, &len, make_error(buf, req, 0, true, NULL));
	CHECK(fare_exchange_feed(&x, dgram, len));
	CHECK_INT(x.ret, 0);
}

/* --- pipelined requests: acks in bulk, the first failure by position --- */

static struct nlmsghdr *ack_for(void *b, uint32_t seq, int error,
				const char *msg)
{
	struct nlmsghdr *req = fare_msg_start(buf2, FAMILY_ID,
					      FARE_CMD_ROUTE_DEL, NLM_F_ACK,
					      seq);

	return make_error(b, req, error, true, msg);
}

TEST(pipe_records_every_ack_and_the_first_failure_by_position)
{
	int rets[4] = { 1, 1, 1, 1 };
	struct fare_pipe p = {
		.base_seq = 100, .n = 4, .cap = 4, .rets = rets,
		.first_fail = SIZE_MAX,
	};
	struct fare_err err;
	size_t len = 0;

	append(dgram, &len, ack_for(buf, 100, 0, NULL));
	append(dgram, &len, ack_for(buf, 101, -EEXIST,
				    "route already exists (use replace)"));
	CHECK_INT(fare_pipe_feed(&p, dgram, len, &err), 0);
	CHECK_INT(p.acked, 2);
	len = 0;
	/* Another request's ack and a stray sequence number are not ours. */
	append(dgram, &len, ack_for(buf, 99, -EPERM, "not ours"));
	append(dgram, &len, ack_for(buf, 102, -ENOENT, "no such plane"));
	append(dgram, &len, ack_for(buf, 104, -EPERM, "not ours either"));
	append(dgram, &len, ack_for(buf, 103, 0, NULL));
	CHECK_INT(fare_pipe_feed(&p, dgram, len, &err), 0);
	CHECK_INT(p.acked, 4);
	CHECK_INT(rets[0], 0);
	CHECK_INT(rets[1], -EEXIST);
	CHECK_INT(rets[2], -ENOENT);
	CHECK_INT(rets[3], 0);
	CHECK_INT(p.first_fail, 1);
	CHECK_INT(p.fail_err.code, -EEXIST);
	CHECK_STR(p.fail_err.msg, "route already exists (use replace)");
}

static int pipe_cb_calls;

static int pipe_count_cb(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	pipe_cb_calls++;
	return 0;
}

TEST(pipe_hands_replies_to_the_callback_and_refuses_a_truncated_one)
{
	int rets[1];
	struct fare_pipe p = {
		.base_seq = 7, .n = 1, .cap = 1, .rets = rets,
		.first_fail = SIZE_MAX, .cb = pipe_count_cb,
	};
	struct fare_err err;
	struct nlmsghdr *nlh;
	size_t len = 0;

	pipe_cb_calls = 0;
	append(dgram, &len, plane_reply(buf, 7, 1));
	append(dgram, &len, ack_for(buf, 7, 0, NULL));
	CHECK_INT(fare_pipe_feed(&p, dgram, len, &err), 0);
	CHECK_INT(pipe_cb_calls, 1);
	CHECK_INT(p.acked, 1);
	nlh = plane_reply(dgram, 7, 2);
	CHECK_INT(fare_pipe_feed(&p, dgram, nlh->nlmsg_len - 8, &err),
		  -EPROTO);
	CHECK_STR(err.msg, "truncated netlink message");
}

TEST(events_are_read_by_command_and_others_skipped)
{
	static struct fare_event ev;
	struct nlmsghdr *nlh;

	nlh = plane_reply(buf, 0, 3);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd =
		FARE_CMD_PLANE_DEL;
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), 0);
	CHECK_INT(ev.type, FARE_EVENT_PLANE_DEL);
	CHECK_INT(ev.plane.id, 3);

	make_route();
	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_NEW, 0, 0);
	fare_msg_put_route(nlh, sizeof(buf), &route, NULL);
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), 0);
	CHECK_INT(ev.type, FARE_EVENT_ROUTE_NEW);
	CHECK_INT(ev.route.n_nexthops, 2);
	CHECK_INT(ev.route.nexthops[1].weight, 4000000000u);

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_ROUTE_DEL, 0, 0);
	fare_msg_put_prefix(nlh, sizeof(buf), &route.dst, NULL);
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), 0);
	CHECK_INT(ev.type, FARE_EVENT_ROUTE_DEL);
	CHECK_INT(ev.route.dst.plen, 24);
	CHECK_INT(ev.route.n_nexthops, 0);

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_CONFIG_SET, 0, 0);
	mnl_attr_put_u8(nlh, FARE_A_CONFIG_MODE, FARE_MODE_FLOW);
	mnl_attr_put_u32(nlh, FARE_A_CONFIG_IFINDEX, 6);
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), 0);
	CHECK_INT(ev.type, FARE_EVENT_CONFIG);
	CHECK_INT(ev.config.mode, FARE_MODE_FLOW);
	CHECK_INT(ev.config.ifindex, 6);

	nlh = fare_msg_start(buf, FAMILY_ID, FARE_CMD_STATS_GET, 0, 0);
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), -ENOMSG);
	nlh = fare_msg_start(buf, FAMILY_ID + 1, FARE_CMD_ROUTE_DEL, 0, 0);
	CHECK_INT(fare_msg_parse_event(nlh, FAMILY_ID, &ev, NULL), -ENOMSG);
}
