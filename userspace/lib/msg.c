// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building and parsing the messages of the "fare" generic netlink family
 * (and of the controller, to resolve it). Pure: no socket, so the unit
 * tests can build a request and parse it back.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fare_int.h"

#define MALFORMED "malformed reply from fare.ko: "

struct attr_table {
	const struct nlattr **tb;
	unsigned int max;
};

static int attr_table_cb(const struct nlattr *attr, void *data)
{
	const struct attr_table *t = data;
	uint16_t type = mnl_attr_get_type(attr);

	/* Newer kernels may add attributes: ignore what we do not know. */
	if (type <= t->max)
		t->tb[type] = attr;
	return MNL_CB_OK;
}

static int parse_table(const struct nlmsghdr *nlh, const struct nlattr *nest,
		       const struct nlattr **tb, unsigned int max)
{
	struct attr_table t = { .tb = tb, .max = max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (nest)
		return mnl_attr_parse_nested(nest, attr_table_cb, &t);
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_ERROR;
	return mnl_attr_parse(nlh, GENL_HDRLEN, attr_table_cb, &t);
}

static bool len_is(const struct nlattr *attr, size_t len)
{
	return mnl_attr_get_payload_len(attr) == len;
}

/* Optional attributes of a fixed size: absent is fine, a wrong size is not. */
static bool bad_len(const struct nlattr *attr, size_t len)
{
	return attr && !len_is(attr, len);
}

static int malformed(struct fare_err *err, const char *what)
{
	return fare_err_set(err, -EPROTO, MALFORMED "%s", what);
}

static int too_long(struct fare_err *err)
{
	return fare_err_set(err, -EMSGSIZE, "request does not fit in %d bytes",
			    FARE_TX_SIZE);
}

void *fare_nlmsg_start(void *buf, uint16_t type, uint16_t flags, uint32_t seq,
		       size_t hdr_len, struct nlmsghdr **nlh)
{
	*nlh = mnl_nlmsg_put_header(buf);
	(*nlh)->nlmsg_type = type;
	(*nlh)->nlmsg_flags = NLM_F_REQUEST | flags;
	(*nlh)->nlmsg_seq = seq;
	return mnl_nlmsg_put_extra_header(*nlh, hdr_len);
}

struct nlmsghdr *fare_msg_start(void *buf, uint16_t family_id, uint8_t cmd,
				uint16_t flags, uint32_t seq)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	genl = fare_nlmsg_start(buf, family_id, flags, seq, sizeof(*genl),
				&nlh);
	genl->cmd = cmd;
	genl->version = FARE_GENL_VERSION;
	return nlh;
}

/* A request of @f's: its header, and its fare device if it names one. */
struct nlmsghdr *fare_req_start(const struct fare *f, void *buf, uint8_t cmd,
				uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = fare_msg_start(buf, f->family_id, cmd, flags,
					      seq);

	if (f->dev[0])
		mnl_attr_put_strz(nlh, FARE_A_IFNAME, f->dev);
	return nlh;
}

struct nlmsghdr *fare_msg_getfamily(void *buf, uint32_t seq)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	genl = fare_nlmsg_start(buf, GENL_ID_CTRL, NLM_F_ACK, seq,
				sizeof(*genl), &nlh);
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, FARE_GENL_NAME);
	return nlh;
}

int fare_msg_put_plane(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_plane *plane, struct fare_err *err)
{
	if (plane->id < 1 || plane->id > FARE_PLANE_ID_MAX)
		return fare_err_set(err, -EINVAL,
				    "plane id %u out of range (1..%u)",
				    plane->id, FARE_PLANE_ID_MAX);
	if (!mnl_attr_put_u32_check(nlh, buflen, FARE_A_PLANE_ID, plane->id) ||
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_PLANE_IFINDEX,
				    plane->ifindex))
		return too_long(err);
	if (plane->has_gw4 &&
	    !mnl_attr_put_check(nlh, buflen, FARE_A_PLANE_GW4,
				sizeof(plane->gw4), &plane->gw4))
		return too_long(err);
	if (plane->has_gw6 &&
	    !mnl_attr_put_check(nlh, buflen, FARE_A_PLANE_GW6,
				sizeof(plane->gw6), &plane->gw6))
		return too_long(err);
	/* Only when set: a fare.ko without it refuses what it does not know. */
	if (plane->admin_down &&
	    !mnl_attr_put_check(nlh, buflen, FARE_A_PLANE_ADMIN_DOWN, 0, ""))
		return too_long(err);
	return 0;
}

int fare_msg_put_prefix(struct nlmsghdr *nlh, size_t buflen,
			const struct fare_prefix *dst, struct fare_err *err)
{
	size_t alen = fare_addr_len(dst->family);

	if (!alen)
		return fare_err_set(err, -EAFNOSUPPORT,
				    "address family %u is not IPv4 or IPv6",
				    dst->family);
	if (dst->plen > alen * 8)
		return fare_err_set(err, -EINVAL,
				    "prefix length %u out of range (0..%zu)",
				    dst->plen, alen * 8);
	if (!mnl_attr_put_u8_check(nlh, buflen, FARE_A_ROUTE_FAMILY,
				   dst->family) ||
	    !mnl_attr_put_check(nlh, buflen, FARE_A_ROUTE_DST, alen,
				&dst->addr) ||
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_ROUTE_PLEN, dst->plen))
		return too_long(err);
	return 0;
}

static int put_nexthops(struct nlmsghdr *nlh, size_t buflen,
			const struct fare_nexthop *nhs, unsigned int n,
			struct fare_err *err)
{
	struct nlattr *hops, *entry;
	unsigned int i;

	/* Strict validation wants NLA_F_NESTED on both levels of nests. */
	hops = mnl_attr_nest_start_check(nlh, buflen,
					 FARE_A_ROUTE_NEXTHOPS | NLA_F_NESTED);
	if (!hops)
		return too_long(err);
	for (i = 0; i < n; i++) {
		const struct fare_nexthop *nh = &nhs[i];

		entry = mnl_attr_nest_start_check(nlh, buflen,
						  FARE_A_NEXTHOPS_ENTRY |
						  NLA_F_NESTED);
		if (!entry ||
		    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_NH_PLANE_ID,
					    nh->plane_id) ||
		    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_NH_WEIGHT,
					    nh->weight) ||
		    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_NH_TIER,
					   nh->tier) ||
		    /* Only when set, so that older kernels still take it. */
		    (nh->bandwidth &&
		     !mnl_attr_put_u64_check(nlh, buflen, FARE_A_NH_BANDWIDTH,
					     nh->bandwidth))) {
			mnl_attr_nest_cancel(nlh, hops);
			return too_long(err);
		}
		mnl_attr_nest_end(nlh, entry);
	}
	mnl_attr_nest_end(nlh, hops);
	return 0;
}

int fare_msg_put_route(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_route *route, struct fare_err *err)
{
	bool by_group = !route->n_nexthops && route->group_id;
	int ret;

	if (route->mode > FARE_MODE_MAX)
		return fare_err_set(err, -EINVAL, "mode %u out of range (0..%u)",
				    route->mode, FARE_MODE_MAX);
	if (route->tcp_mode > FARE_MODE_MAX)
		return fare_err_set(err, -EINVAL,
				    "tcp-mode %u out of range (0..%u)",
				    route->tcp_mode, FARE_MODE_MAX);
	if (route->n_nexthops > FARE_NEXTHOP_MAX)
		return fare_err_set(err, -E2BIG,
				    "%u next hops, at most %u allowed",
				    route->n_nexthops, FARE_NEXTHOP_MAX);
	if (by_group && route->group_id > FARE_GROUP_ID_MAX)
		return fare_err_set(err, -EINVAL,
				    "group %u is anonymous: give the next hops",
				    route->group_id);
	if (route->stats > FARE_ROUTE_STATS_OFF)
		return fare_err_set(err, -EINVAL, "stats %u out of range",
				    route->stats);
	ret = fare_msg_put_prefix(nlh, buflen, &route->dst, err);
	if (ret)
		return ret;
	if (route->mode != FARE_MODE_DEFAULT &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_ROUTE_MODE,
				   route->mode))
		return too_long(err);
	if (route->tcp_mode != FARE_MODE_DEFAULT &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_ROUTE_TCP_MODE,
				   route->tcp_mode))
		return too_long(err);
	if (route->stats != FARE_ROUTE_STATS_DEFAULT &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_ROUTE_STATS,
				   route->stats == FARE_ROUTE_STATS_ON))
		return too_long(err);
	if (by_group) {
		if (!mnl_attr_put_u32_check(nlh, buflen, FARE_A_ROUTE_GROUP_ID,
					    route->group_id))
			return too_long(err);
		return 0;
	}
	if (!route->n_nexthops)
		return fare_err_set(err, -EINVAL,
				    "a route needs at least one next hop");
	return put_nexthops(nlh, buflen, route->nexthops, route->n_nexthops,
			    err);
}

int fare_msg_put_group(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_group *group, struct fare_err *err)
{
	if (!group->id || group->id > FARE_GROUP_ID_MAX)
		return fare_err_set(err, -EINVAL,
				    "group id %u out of range (1..%u)",
				    group->id, FARE_GROUP_ID_MAX);
	if (!group->n_nexthops)
		return fare_err_set(err, -EINVAL,
				    "a group needs at least one next hop");
	if (group->n_nexthops > FARE_NEXTHOP_MAX)
		return fare_err_set(err, -E2BIG,
				    "%u next hops, at most %u allowed",
				    group->n_nexthops, FARE_NEXTHOP_MAX);
	if (!mnl_attr_put_u32_check(nlh, buflen, FARE_A_GROUP_ID, group->id))
		return too_long(err);
	return put_nexthops(nlh, buflen, group->nexthops, group->n_nexthops,
			    err);
}

int fare_msg_put_config(struct nlmsghdr *nlh, size_t buflen,
			const struct fare_config *cfg, struct fare_err *err)
{
	if (!cfg->set)
		return fare_err_set(err, -EINVAL, "nothing to set");
	if ((cfg->set & FARE_CONFIG_MODE) &&
	    (cfg->mode == FARE_MODE_DEFAULT || cfg->mode > FARE_MODE_MAX))
		return fare_err_set(err, -EINVAL,
				    "mode %u out of range (1..%u)", cfg->mode,
				    FARE_MODE_MAX);
	if ((cfg->set & FARE_CONFIG_MODE) &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_CONFIG_MODE, cfg->mode))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_FLOWLET_US) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_FLOWLET_US,
				    cfg->flowlet_us))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_HASH_SEED) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_HASH_SEED,
				    cfg->hash_seed))
		return too_long(err);
	if (cfg->set & FARE_CONFIG_TIER_HOPS) {
		if (!cfg->n_tier_hops || cfg->n_tier_hops > FARE_TIER_MAX + 1)
			return fare_err_set(err, -EINVAL,
					    "%u tier hop counts, 1..%u allowed",
					    cfg->n_tier_hops,
					    FARE_TIER_MAX + 1);
		if (!mnl_attr_put_check(nlh, buflen, FARE_A_CONFIG_TIER_HOPS,
					cfg->n_tier_hops, cfg->tier_hops))
			return too_long(err);
	}
	if ((cfg->set & FARE_CONFIG_SPILL_BIAS) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_SPILL_BIAS,
				    cfg->spill_bias))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MAX_ROUTES) &&
	    cfg->max_routes > FARE_MAX_ROUTES_LIMIT)
		return fare_err_set(err, -EINVAL,
				    "route-limit %u out of range (0..%u)",
				    cfg->max_routes, FARE_MAX_ROUTES_LIMIT);
	if ((cfg->set & FARE_CONFIG_MAX_PLANES) &&
	    cfg->max_planes > FARE_PLANE_ID_MAX)
		return fare_err_set(err, -EINVAL,
				    "plane-limit %u out of range (0..%u)",
				    cfg->max_planes, FARE_PLANE_ID_MAX);
	if ((cfg->set & FARE_CONFIG_MAX_NEXTHOPS) &&
	    (!cfg->max_nexthops || cfg->max_nexthops > FARE_NEXTHOP_MAX))
		return fare_err_set(err, -EINVAL,
				    "nexthop-limit %u out of range (1..%u)",
				    cfg->max_nexthops, FARE_NEXTHOP_MAX);
	if ((cfg->set & FARE_CONFIG_MAX_GROUPS) &&
	    cfg->max_groups > FARE_MAX_GROUPS_LIMIT)
		return fare_err_set(err, -EINVAL,
				    "group-limit %u out of range (0..%u)",
				    cfg->max_groups, FARE_MAX_GROUPS_LIMIT);
	if ((cfg->set & FARE_CONFIG_FLOWLET_SLOTS) &&
	    (cfg->flowlet_slots < FARE_FLOWLET_SLOTS_MIN ||
	     cfg->flowlet_slots > FARE_FLOWLET_SLOTS_MAX ||
	     (cfg->flowlet_slots & (cfg->flowlet_slots - 1))))
		return fare_err_set(err, -EINVAL,
				    "flowlet-slots %u is not a power of two in %u..%u",
				    cfg->flowlet_slots, FARE_FLOWLET_SLOTS_MIN,
				    FARE_FLOWLET_SLOTS_MAX);
	if ((cfg->set & FARE_CONFIG_FLOWLET_SLOTS) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_FLOWLET_SLOTS,
				    cfg->flowlet_slots))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MAX_GROUPS) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_MAX_GROUPS,
				    cfg->max_groups))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_ROUTE_STATS) &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_CONFIG_ROUTE_STATS,
				   cfg->route_stats))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_USE_NEIGH) &&
	    !mnl_attr_put_u8_check(nlh, buflen, FARE_A_CONFIG_USE_NEIGH,
				   cfg->use_neigh))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MAX_ROUTES) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_MAX_ROUTES,
				    cfg->max_routes))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MAX_PLANES) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_MAX_PLANES,
				    cfg->max_planes))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MAX_NEXTHOPS) &&
	    !mnl_attr_put_u32_check(nlh, buflen, FARE_A_CONFIG_MAX_NEXTHOPS,
				    cfg->max_nexthops))
		return too_long(err);
	if ((cfg->set & FARE_CONFIG_MEMORY_BUDGET) &&
	    cfg->memory_budget > FARE_MEMORY_BUDGET_LIMIT)
		return fare_err_set(err, -EINVAL,
				    "memory-budget %llu out of range (0..%llu)",
				    (unsigned long long)cfg->memory_budget,
				    (unsigned long long)FARE_MEMORY_BUDGET_LIMIT);
	if ((cfg->set & FARE_CONFIG_MEMORY_BUDGET) &&
	    !mnl_attr_put_u64_check(nlh, buflen, FARE_A_CONFIG_MEMORY_BUDGET,
				    cfg->memory_budget))
		return too_long(err);
	return 0;
}

struct family_info {
	uint32_t events_group;
};

static int mcast_group_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct family_info *info = data;

	if (parse_table(NULL, attr, tb, CTRL_ATTR_MCAST_GRP_MAX) < 0)
		return MNL_CB_ERROR;
	if (!tb[CTRL_ATTR_MCAST_GRP_NAME] || !tb[CTRL_ATTR_MCAST_GRP_ID] ||
	    mnl_attr_validate(tb[CTRL_ATTR_MCAST_GRP_NAME],
			      MNL_TYPE_NUL_STRING) < 0 ||
	    !len_is(tb[CTRL_ATTR_MCAST_GRP_ID], sizeof(uint32_t)))
		return MNL_CB_OK;
	if (!strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
		    FARE_MCGRP_EVENTS))
		info->events_group = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
	return MNL_CB_OK;
}

int fare_msg_parse_family(const struct nlmsghdr *nlh, uint16_t *id,
			  uint32_t *version, uint32_t *events_group,
			  struct fare_err *err)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct family_info info = { 0 };
	const struct nlattr *a;

	if (parse_table(nlh, NULL, tb, CTRL_ATTR_MAX) < 0)
		return fare_err_set(err, -EPROTO,
				    "malformed reply from the genetlink controller");
	a = tb[CTRL_ATTR_FAMILY_ID];
	if (!a || !len_is(a, sizeof(uint16_t)))
		return fare_err_set(err, -EPROTO,
				    "the genetlink controller sent no family id");
	*id = mnl_attr_get_u16(a);
	a = tb[CTRL_ATTR_VERSION];
	*version = a && len_is(a, sizeof(uint32_t)) ? mnl_attr_get_u32(a) : 0;
	a = tb[CTRL_ATTR_MCAST_GROUPS];
	if (a && mnl_attr_parse_nested(a, mcast_group_cb, &info) < 0)
		return fare_err_set(err, -EPROTO,
				    "malformed multicast groups from the genetlink controller");
	*events_group = info.events_group;
	return 0;
}

static uint64_t get_u64(const struct nlattr *attr)
{
	return attr ? mnl_attr_get_u64(attr) : 0;
}

int fare_msg_parse_plane(const struct nlmsghdr *nlh, struct fare_plane *out,
			 struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];

	memset(out, 0, sizeof(*out));
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad plane attributes");
	if (!tb[FARE_A_PLANE_ID] || !len_is(tb[FARE_A_PLANE_ID], 4))
		return malformed(err, "plane without an id");
	if (!tb[FARE_A_PLANE_IFINDEX] || !len_is(tb[FARE_A_PLANE_IFINDEX], 4))
		return malformed(err, "plane without an ifindex");
	if (bad_len(tb[FARE_A_PLANE_GW4], 4) ||
	    bad_len(tb[FARE_A_PLANE_GW6], 16) ||
	    bad_len(tb[FARE_A_PLANE_FLAGS], 4) ||
	    bad_len(tb[FARE_A_PLANE_TX_PACKETS], 8) ||
	    bad_len(tb[FARE_A_PLANE_TX_BYTES], 8) ||
	    bad_len(tb[FARE_A_PLANE_GW_FAILS], 8))
		return malformed(err, "plane attribute of the wrong size");

	out->id = mnl_attr_get_u32(tb[FARE_A_PLANE_ID]);
	out->ifindex = mnl_attr_get_u32(tb[FARE_A_PLANE_IFINDEX]);
	if (tb[FARE_A_PLANE_GW4]) {
		out->has_gw4 = true;
		memcpy(&out->gw4, mnl_attr_get_payload(tb[FARE_A_PLANE_GW4]),
		       sizeof(out->gw4));
	}
	if (tb[FARE_A_PLANE_GW6]) {
		out->has_gw6 = true;
		memcpy(&out->gw6, mnl_attr_get_payload(tb[FARE_A_PLANE_GW6]),
		       sizeof(out->gw6));
	}
	if (tb[FARE_A_PLANE_FLAGS])
		out->flags = mnl_attr_get_u32(tb[FARE_A_PLANE_FLAGS]);
	out->admin_down = (out->flags & FARE_PLANE_F_ADMIN_DOWN) ||
			  tb[FARE_A_PLANE_ADMIN_DOWN];
	out->tx_packets = get_u64(tb[FARE_A_PLANE_TX_PACKETS]);
	out->tx_bytes = get_u64(tb[FARE_A_PLANE_TX_BYTES]);
	out->gw_fails = get_u64(tb[FARE_A_PLANE_GW_FAILS]);
	return 0;
}

static int parse_nexthop(const struct nlattr *entry, struct fare_nexthop *nh,
			 struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_NH_MAX + 1];

	if (parse_table(NULL, entry, tb, FARE_A_NH_MAX) < 0)
		return malformed(err, "bad next hop attributes");
	if (!tb[FARE_A_NH_PLANE_ID] || !len_is(tb[FARE_A_NH_PLANE_ID], 4) ||
	    !tb[FARE_A_NH_WEIGHT] || !len_is(tb[FARE_A_NH_WEIGHT], 4))
		return malformed(err, "next hop without a plane or weight");
	if (bad_len(tb[FARE_A_NH_TIER], 1) ||
	    bad_len(tb[FARE_A_NH_TX_PACKETS], 8) ||
	    bad_len(tb[FARE_A_NH_TX_BYTES], 8) ||
	    bad_len(tb[FARE_A_NH_BANDWIDTH], 8))
		return malformed(err, "next hop attribute of the wrong size");
	nh->plane_id = mnl_attr_get_u32(tb[FARE_A_NH_PLANE_ID]);
	nh->weight = mnl_attr_get_u32(tb[FARE_A_NH_WEIGHT]);
	if (tb[FARE_A_NH_TIER])
		nh->tier = mnl_attr_get_u8(tb[FARE_A_NH_TIER]);
	nh->tx_packets = get_u64(tb[FARE_A_NH_TX_PACKETS]);
	nh->tx_bytes = get_u64(tb[FARE_A_NH_TX_BYTES]);
	nh->bandwidth = get_u64(tb[FARE_A_NH_BANDWIDTH]);
	return 0;
}

/* The FARE_A_ROUTE_NEXTHOPS nest @hops (may be NULL) into @nhs. */
static int parse_nexthops(const struct nlattr *hops, struct fare_nexthop *nhs,
			  unsigned int *n, struct fare_err *err)
{
	const struct nlattr *entry;
	int ret;

	if (!hops)
		return 0;
	mnl_attr_for_each_nested(entry, hops) {
		if (mnl_attr_get_type(entry) != FARE_A_NEXTHOPS_ENTRY)
			continue;
		if (*n == FARE_NEXTHOP_MAX)
			return malformed(err, "more next hops than FARE_NEXTHOP_MAX");
		ret = parse_nexthop(entry, &nhs[*n], err);
		if (ret)
			return ret;
		(*n)++;
	}
	return 0;
}

int fare_msg_parse_route(const struct nlmsghdr *nlh, struct fare_route *out,
			 struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];
	size_t alen;

	memset(out, 0, sizeof(*out));
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad route attributes");
	if (!tb[FARE_A_ROUTE_FAMILY] || !len_is(tb[FARE_A_ROUTE_FAMILY], 1) ||
	    !tb[FARE_A_ROUTE_DST] || !tb[FARE_A_ROUTE_PLEN] ||
	    !len_is(tb[FARE_A_ROUTE_PLEN], 1))
		return malformed(err, "route without family, destination or length");
	out->dst.family = mnl_attr_get_u8(tb[FARE_A_ROUTE_FAMILY]);
	alen = fare_addr_len(out->dst.family);
	if (!alen || !len_is(tb[FARE_A_ROUTE_DST], alen))
		return malformed(err, "route destination of the wrong family");
	memcpy(&out->dst.addr, mnl_attr_get_payload(tb[FARE_A_ROUTE_DST]),
	       alen);
	out->dst.plen = mnl_attr_get_u8(tb[FARE_A_ROUTE_PLEN]);
	if (out->dst.plen > alen * 8)
		return malformed(err, "route prefix length out of range");
	if (bad_len(tb[FARE_A_ROUTE_MODE], 1) ||
	    bad_len(tb[FARE_A_ROUTE_TCP_MODE], 1) ||
	    bad_len(tb[FARE_A_ROUTE_NOPLANE_PACKETS], 8) ||
	    bad_len(tb[FARE_A_ROUTE_FALLBACK_PACKETS], 8) ||
	    bad_len(tb[FARE_A_ROUTE_GROUP_ID], 4) ||
	    bad_len(tb[FARE_A_ROUTE_STATS], 1))
		return malformed(err, "route attribute of the wrong size");
	if (tb[FARE_A_ROUTE_MODE])
		out->mode = mnl_attr_get_u8(tb[FARE_A_ROUTE_MODE]);
	if (tb[FARE_A_ROUTE_TCP_MODE])
		out->tcp_mode = mnl_attr_get_u8(tb[FARE_A_ROUTE_TCP_MODE]);
	if (tb[FARE_A_ROUTE_GROUP_ID])
		out->group_id = mnl_attr_get_u32(tb[FARE_A_ROUTE_GROUP_ID]);
	/* A kernel without the attribute always has the counters. */
	out->stats = !tb[FARE_A_ROUTE_STATS] ||
		     mnl_attr_get_u8(tb[FARE_A_ROUTE_STATS]) ?
		     FARE_ROUTE_STATS_ON : FARE_ROUTE_STATS_OFF;
	out->noplane_packets = get_u64(tb[FARE_A_ROUTE_NOPLANE_PACKETS]);
	out->fallback_packets = get_u64(tb[FARE_A_ROUTE_FALLBACK_PACKETS]);
	return parse_nexthops(tb[FARE_A_ROUTE_NEXTHOPS], out->nexthops,
			      &out->n_nexthops, err);
}

int fare_msg_parse_group(const struct nlmsghdr *nlh, struct fare_group *out,
			 struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];

	memset(out, 0, sizeof(*out));
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad group attributes");
	if (!tb[FARE_A_GROUP_ID] || !len_is(tb[FARE_A_GROUP_ID], 4))
		return malformed(err, "group without an id");
	if (bad_len(tb[FARE_A_GROUP_REFS], 4))
		return malformed(err, "group attribute of the wrong size");
	out->id = mnl_attr_get_u32(tb[FARE_A_GROUP_ID]);
	if (tb[FARE_A_GROUP_REFS])
		out->refs = mnl_attr_get_u32(tb[FARE_A_GROUP_REFS]);
	return parse_nexthops(tb[FARE_A_ROUTE_NEXTHOPS], out->nexthops,
			      &out->n_nexthops, err);
}

int fare_msg_parse_config(const struct nlmsghdr *nlh, struct fare_config *out,
			  struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];

	memset(out, 0, sizeof(*out));
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad config attributes");
	if (bad_len(tb[FARE_A_CONFIG_MODE], 1) ||
	    bad_len(tb[FARE_A_CONFIG_FLOWLET_US], 4) ||
	    bad_len(tb[FARE_A_CONFIG_HASH_SEED], 4) ||
	    bad_len(tb[FARE_A_CONFIG_IFINDEX], 4) ||
	    bad_len(tb[FARE_A_CONFIG_SPILL_BIAS], 4) ||
	    bad_len(tb[FARE_A_CONFIG_MAX_ROUTES], 4) ||
	    bad_len(tb[FARE_A_CONFIG_MAX_PLANES], 4) ||
	    bad_len(tb[FARE_A_CONFIG_MAX_NEXTHOPS], 4) ||
	    bad_len(tb[FARE_A_CONFIG_NUM_ROUTES], 4) ||
	    bad_len(tb[FARE_A_CONFIG_NUM_PLANES], 4) ||
	    bad_len(tb[FARE_A_CONFIG_ROUTE_STATS], 1) ||
	    bad_len(tb[FARE_A_CONFIG_MAX_GROUPS], 4) ||
	    bad_len(tb[FARE_A_CONFIG_NUM_GROUPS], 4) ||
	    bad_len(tb[FARE_A_CONFIG_FLOWLET_SLOTS], 4) ||
	    bad_len(tb[FARE_A_CONFIG_USE_NEIGH], 1) ||
	    bad_len(tb[FARE_A_CONFIG_MEMORY_BUDGET], 8) ||
	    bad_len(tb[FARE_A_CONFIG_MEMORY_USED], 8))
		return malformed(err, "config attribute of the wrong size");
	if (tb[FARE_A_CONFIG_USE_NEIGH]) {
		out->use_neigh = mnl_attr_get_u8(tb[FARE_A_CONFIG_USE_NEIGH]);
		out->set |= FARE_CONFIG_USE_NEIGH;
	}
	if (tb[FARE_A_CONFIG_MEMORY_BUDGET]) {
		out->memory_budget =
			mnl_attr_get_u64(tb[FARE_A_CONFIG_MEMORY_BUDGET]);
		out->set |= FARE_CONFIG_MEMORY_BUDGET;
	}
	if (tb[FARE_A_CONFIG_MEMORY_USED]) {
		out->memory_used = mnl_attr_get_u64(tb[FARE_A_CONFIG_MEMORY_USED]);
		out->set |= FARE_CONFIG_MEMORY_USED;
	}
	if (tb[FARE_A_CONFIG_ROUTE_STATS]) {
		out->route_stats = mnl_attr_get_u8(tb[FARE_A_CONFIG_ROUTE_STATS]);
		out->set |= FARE_CONFIG_ROUTE_STATS;
	}
	if (tb[FARE_A_CONFIG_MAX_GROUPS]) {
		out->max_groups = mnl_attr_get_u32(tb[FARE_A_CONFIG_MAX_GROUPS]);
		out->set |= FARE_CONFIG_MAX_GROUPS;
	}
	if (tb[FARE_A_CONFIG_NUM_GROUPS]) {
		out->num_groups = mnl_attr_get_u32(tb[FARE_A_CONFIG_NUM_GROUPS]);
		out->set |= FARE_CONFIG_NUM_GROUPS;
	}
	if (tb[FARE_A_CONFIG_FLOWLET_SLOTS]) {
		out->flowlet_slots =
			mnl_attr_get_u32(tb[FARE_A_CONFIG_FLOWLET_SLOTS]);
		out->set |= FARE_CONFIG_FLOWLET_SLOTS;
	}
	if (tb[FARE_A_CONFIG_MODE]) {
		out->mode = mnl_attr_get_u8(tb[FARE_A_CONFIG_MODE]);
		out->set |= FARE_CONFIG_MODE;
	}
	if (tb[FARE_A_CONFIG_FLOWLET_US]) {
		out->flowlet_us = mnl_attr_get_u32(tb[FARE_A_CONFIG_FLOWLET_US]);
		out->set |= FARE_CONFIG_FLOWLET_US;
	}
	if (tb[FARE_A_CONFIG_HASH_SEED]) {
		out->hash_seed = mnl_attr_get_u32(tb[FARE_A_CONFIG_HASH_SEED]);
		out->set |= FARE_CONFIG_HASH_SEED;
	}
	if (tb[FARE_A_CONFIG_IFINDEX])
		out->ifindex = mnl_attr_get_u32(tb[FARE_A_CONFIG_IFINDEX]);
	if (tb[FARE_A_CONFIG_TIER_HOPS]) {
		size_t n = mnl_attr_get_payload_len(tb[FARE_A_CONFIG_TIER_HOPS]);

		if (!n || n > sizeof(out->tier_hops))
			return malformed(err, "tier hop counts of the wrong size");
		memcpy(out->tier_hops,
		       mnl_attr_get_payload(tb[FARE_A_CONFIG_TIER_HOPS]), n);
		out->n_tier_hops = n;
		out->set |= FARE_CONFIG_TIER_HOPS;
	}
	if (tb[FARE_A_CONFIG_SPILL_BIAS]) {
		out->spill_bias = mnl_attr_get_u32(tb[FARE_A_CONFIG_SPILL_BIAS]);
		out->set |= FARE_CONFIG_SPILL_BIAS;
	}
	if (tb[FARE_A_CONFIG_MAX_ROUTES]) {
		out->max_routes = mnl_attr_get_u32(tb[FARE_A_CONFIG_MAX_ROUTES]);
		out->set |= FARE_CONFIG_MAX_ROUTES;
	}
	if (tb[FARE_A_CONFIG_MAX_PLANES]) {
		out->max_planes = mnl_attr_get_u32(tb[FARE_A_CONFIG_MAX_PLANES]);
		out->set |= FARE_CONFIG_MAX_PLANES;
	}
	if (tb[FARE_A_CONFIG_MAX_NEXTHOPS]) {
		out->max_nexthops =
			mnl_attr_get_u32(tb[FARE_A_CONFIG_MAX_NEXTHOPS]);
		out->set |= FARE_CONFIG_MAX_NEXTHOPS;
	}
	if (tb[FARE_A_CONFIG_NUM_ROUTES] && tb[FARE_A_CONFIG_NUM_PLANES]) {
		out->num_routes = mnl_attr_get_u32(tb[FARE_A_CONFIG_NUM_ROUTES]);
		out->num_planes = mnl_attr_get_u32(tb[FARE_A_CONFIG_NUM_PLANES]);
		out->set |= FARE_CONFIG_COUNTS;
	}
	return 0;
}

static int parse_tier_stats(const struct nlattr *entry,
			    struct fare_stats *out, struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_TIER_MAX + 1];
	struct fare_tier_stats *t;
	unsigned int idx;

	if (parse_table(NULL, entry, tb, FARE_A_TIER_MAX) < 0)
		return malformed(err, "bad tier counter attributes");
	if (!tb[FARE_A_TIER_INDEX] || !len_is(tb[FARE_A_TIER_INDEX], 1))
		return malformed(err, "tier counters without a tier");
	if (bad_len(tb[FARE_A_TIER_TX_PACKETS], 8) ||
	    bad_len(tb[FARE_A_TIER_TX_BYTES], 8) ||
	    bad_len(tb[FARE_A_TIER_SPILLS], 8))
		return malformed(err, "tier counter of the wrong size");
	idx = mnl_attr_get_u8(tb[FARE_A_TIER_INDEX]);
	/* A newer kernel's higher tiers add to the last one known here. */
	if (idx > FARE_TIER_MAX)
		idx = FARE_TIER_MAX;
	t = &out->tiers[idx];
	t->packets += get_u64(tb[FARE_A_TIER_TX_PACKETS]);
	t->bytes += get_u64(tb[FARE_A_TIER_TX_BYTES]);
	t->spills += get_u64(tb[FARE_A_TIER_SPILLS]);
	return 0;
}

int fare_msg_parse_stats(const struct nlmsghdr *nlh, struct fare_stats *out,
			 struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];
	const struct nlattr *entry;
	int ret;

	memset(out, 0, sizeof(*out));
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad stats attributes");
	if (bad_len(tb[FARE_A_STATS_NOROUTE_PACKETS], 8) ||
	    bad_len(tb[FARE_A_STATS_NOPLANE_PACKETS], 8) ||
	    bad_len(tb[FARE_A_STATS_ERROR_PACKETS], 8) ||
	    bad_len(tb[FARE_A_STATS_FALLBACK_PACKETS], 8))
		return malformed(err, "stats attribute of the wrong size");
	out->noroute_packets = get_u64(tb[FARE_A_STATS_NOROUTE_PACKETS]);
	out->noplane_packets = get_u64(tb[FARE_A_STATS_NOPLANE_PACKETS]);
	out->error_packets = get_u64(tb[FARE_A_STATS_ERROR_PACKETS]);
	out->fallback_packets = get_u64(tb[FARE_A_STATS_FALLBACK_PACKETS]);
	if (!tb[FARE_A_STATS_TIERS])
		return 0;
	mnl_attr_for_each_nested(entry, tb[FARE_A_STATS_TIERS]) {
		if (mnl_attr_get_type(entry) != FARE_A_STATS_TIERS_ENTRY)
			continue;
		ret = parse_tier_stats(entry, out, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* NLMSGERR_ATTR_MISS_TYPE (Linux 6.0), spelled out for older headers. */
#define EXTACK_MISS_TYPE	5

struct extack {
	const struct nlattr *msg;
	const struct nlattr *miss_type;
};

static int extack_cb(const struct nlattr *attr, void *data)
{
	struct extack *ea = data;

	switch (mnl_attr_get_type(attr)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			ea->msg = attr;
		break;
	case EXTACK_MISS_TYPE:
		if (len_is(attr, sizeof(uint32_t)))
			ea->miss_type = attr;
		break;
	}
	return MNL_CB_OK;
}

/*
 * Put the extack found from offset on into err, keeping err's code: the
 * message if there is one, else the missing attribute if one is named.
 */
static void parse_extack(const struct nlmsghdr *nlh, size_t offset,
			 struct fare_err *err)
{
	struct extack ea = { 0 };
	const char *s;
	size_t len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || !err)
		return;
	if (offset > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, offset, extack_cb, &ea);
	if (ea.msg) {
		s = mnl_attr_get_str(ea.msg);
		len = strnlen(s, mnl_attr_get_payload_len(ea.msg));
		/* The kernel's messages carry no newline, but be sure. */
		while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
			len--;
		if (len) {
			snprintf(err->msg, sizeof(err->msg), "%.*s", (int)len,
				 s);
			return;
		}
	}
	if (ea.miss_type && err->code)
		snprintf(err->msg, sizeof(err->msg),
			 "%s (missing attribute %u)", strerror(-err->code),
			 mnl_attr_get_u32(ea.miss_type));
}

int fare_msg_parse_error(const struct nlmsghdr *nlh, struct fare_err *err)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t offset = sizeof(*e);
	int code;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e))
		return fare_err_set(err, -EPROTO, "truncated netlink error message");
	code = e->error > 0 ? -e->error : e->error;
	if (code)
		fare_err_set(err, code, "%s", strerror(-code));
	/* Unless NETLINK_CAP_ACK took it out, our request is echoed back. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
			return code;
		offset += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	parse_extack(nlh, offset, err);
	return code;
}

int fare_msg_parse_done(const struct nlmsghdr *nlh, struct fare_err *err)
{
	int code;

	/* Old kernels may send an empty NLMSG_DONE. */
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
		return 0;
	memcpy(&code, mnl_nlmsg_get_payload(nlh), sizeof(code));
	if (code > 0)
		code = -code;
	if (code)
		fare_err_set(err, code, "%s", strerror(-code));
	parse_extack(nlh, sizeof(int), err);
	return code;
}

/* An event's fare device (FARE_A_IFINDEX), 0 if it names none. */
static int parse_event_dev(const struct nlmsghdr *nlh, uint32_t *ifindex,
			   struct fare_err *err)
{
	const struct nlattr *tb[FARE_A_MAX + 1];

	*ifindex = 0;
	if (parse_table(nlh, NULL, tb, FARE_A_MAX) < 0)
		return malformed(err, "bad event attributes");
	if (bad_len(tb[FARE_A_IFINDEX], 4))
		return malformed(err, "event device of the wrong size");
	if (tb[FARE_A_IFINDEX])
		*ifindex = mnl_attr_get_u32(tb[FARE_A_IFINDEX]);
	return 0;
}

int fare_msg_parse_event(const struct nlmsghdr *nlh, uint16_t family_id,
			 struct fare_event *ev, struct fare_err *err)
{
	const struct genlmsghdr *genl;
	int ret;

	if (nlh->nlmsg_type != family_id ||
	    mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return -ENOMSG;
	genl = mnl_nlmsg_get_payload(nlh);
	ret = parse_event_dev(nlh, &ev->ifindex, err);
	if (ret)
		return ret;
	switch (genl->cmd) {
	case FARE_CMD_PLANE_NEW:
	case FARE_CMD_PLANE_DEL:
		ev->type = genl->cmd == FARE_CMD_PLANE_NEW ?
			   FARE_EVENT_PLANE_NEW : FARE_EVENT_PLANE_DEL;
		return fare_msg_parse_plane(nlh, &ev->plane, err);
	case FARE_CMD_ROUTE_NEW:
	case FARE_CMD_ROUTE_DEL:
		ev->type = genl->cmd == FARE_CMD_ROUTE_NEW ?
			   FARE_EVENT_ROUTE_NEW : FARE_EVENT_ROUTE_DEL;
		return fare_msg_parse_route(nlh, &ev->route, err);
	case FARE_CMD_CONFIG_SET:
		ev->type = FARE_EVENT_CONFIG;
		return fare_msg_parse_config(nlh, &ev->config, err);
	case FARE_CMD_GROUP_NEW:
	case FARE_CMD_GROUP_DEL:
		ev->type = genl->cmd == FARE_CMD_GROUP_NEW ?
			   FARE_EVENT_GROUP_NEW : FARE_EVENT_GROUP_DEL;
		return fare_msg_parse_group(nlh, &ev->group, err);
	default:
		/* A newer kernel's event: not one we can show. */
		return -ENOMSG;
	}
}
