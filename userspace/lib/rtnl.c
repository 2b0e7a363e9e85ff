// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel FIB side of a fare route. fare.ko never edits the FIB: for
 * every fare route libfare installs "PREFIX nhid N proto FARE_RTPROT" (N
 * the fare device's own next hop of the family, "dev fare0" or "via
 * fe80::1 dev fare0": nexthop.c; IPv4 with "scope link [src SRC]"), or
 * for an IPv6 route with a source "PREFIX via fe80::1 dev fare0 proto
 * FARE_RTPROT src SRC", in table FARE_RT_TABLE, and removes it with the
 * route.
 * Before the first route of a family it adds the rule that consults that
 * table ("pref FARE_RULE_PREF uidrange 0-FARE_RULE_UID_MAX lookup
 * FARE_RT_TABLE", or the uids a user namespace maps inside one); the rule
 * stays, harmless once the table is empty. fare.ko's fallback lookups (no
 * usable plane) use a uid above the range, skip the table and find the
 * normal route.
 * A prefix no plane can deliver to gets "unreachable PREFIX proto
 * FARE_RTPROT" in the same table instead (fare_route_unreachable()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>

#include "fare_int.h"

/*
 * The part every message about one of fare's kernel routes shares: a
 * request for dst in fare's table and protocol, acked; a new route
 * replaces whatever fare route to dst is there.
 */
static struct rtmsg *route_msg_start(void *buf, uint16_t type, uint32_t seq,
				     const struct fare_prefix *dst)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	rtm = fare_nlmsg_start(buf, type,
			       NLM_F_ACK | (type == RTM_NEWROUTE ?
					    NLM_F_CREATE | NLM_F_REPLACE : 0),
			       seq, sizeof(*rtm), &nlh);
	rtm->rtm_family = dst->family;
	rtm->rtm_dst_len = dst->plen;
	rtm->rtm_table = FARE_RT_TABLE;
	rtm->rtm_protocol = FARE_RTPROT;
	return rtm;
}

/*
 * IPv6 output keys its neighbour entry by the route's gateway, or by the
 * destination itself when there is none: a route straight out of fare0
 * would make one entry per destination until the neighbour table
 * overflows. Through this link-local gateway every destination shares one
 * entry, which fare0 (no link layer, NOARP) never resolves or uses:
 * fare.ko picks the plane's own next hop from the packet's destination.
 */
const struct in6_addr fare_dev_gw6 = {
	.s6_addr = { 0xfe, 0x80, [15] = 0x01 },
};

/*
 * Whether a route to dst from src goes through the fare device's nexthop
 * object: all but an IPv6 one with a source, which the object's shared
 * dst would give another route's source (nexthop.c).
 */
static bool via_dev_object(const struct fare_prefix *dst,
			   const union fare_addr *src)
{
	return dst->family == AF_INET || !src;
}

struct nlmsghdr *fare_rtnl_msg_route(void *buf, size_t buflen, uint16_t type,
				     uint32_t seq,
				     const struct fare_prefix *dst,
				     const union fare_addr *src, uint32_t oif)
{
	size_t alen = fare_addr_len(dst->family);
	struct nlmsghdr *nlh = buf;
	struct rtmsg *rtm;

	if (buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*rtm)) +
		     4 * MNL_ATTR_HDRLEN + 3 * MNL_ALIGN(alen) + 4)
		return NULL;
	rtm = route_msg_start(buf, type, seq, dst);
	if (type == RTM_NEWROUTE && dst->family == AF_INET6) {
		rtm->rtm_scope = RT_SCOPE_UNIVERSE;
		rtm->rtm_type = RTN_UNICAST;
		if (!via_dev_object(dst, src))
			mnl_attr_put(nlh, RTA_GATEWAY, sizeof(fare_dev_gw6),
				     &fare_dev_gw6);
	} else if (type == RTM_NEWROUTE) {
		/* IPv4 output via a point-to-point device shares one. */
		rtm->rtm_scope = RT_SCOPE_LINK;
		rtm->rtm_type = RTN_UNICAST;
	} else if (dst->family == AF_INET6) {
		/*
		 * As "ip route del": any scope and type, but only our
		 * protocol and device, so that nobody else's route to the
		 * same prefix goes (an unreachable one is on lo).
		 */
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
		rtm->rtm_type = RTN_UNSPEC;
	} else {
		/*
		 * IPv4 matches a route to a nexthop object only when the
		 * request names no device, and one to fare0 itself (made
		 * before routes pointed at the object) only when it names
		 * none or fare0: our protocol's unicast route to dst,
		 * either way, and never our unreachable one.
		 */
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
		rtm->rtm_type = RTN_UNICAST;
	}
	mnl_attr_put(nlh, RTA_DST, alen, &dst->addr);
	if (type == RTM_NEWROUTE && via_dev_object(dst, src))
		mnl_attr_put_u32(nlh, RTA_NH_ID,
				 fare_nh_dev_id(oif, dst->family));
	else if (dst->family == AF_INET6)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	if (src)
		mnl_attr_put(nlh, RTA_PREFSRC, alen, src);
	return nlh;
}

/*
 * rule_msg_start: an RTM_NEWRULE "lookup TABLE" at PREF in BUF, which the
 * caller has checked holds it and its selector (one more attribute).
 */
static struct nlmsghdr *rule_msg_start(void *buf, uint32_t seq,
				       uint8_t family, uint32_t table,
				       uint32_t pref)
{
	struct fib_rule_hdr *frh;
	struct nlmsghdr *nlh;

	/* EXCL: without it the kernel adds a duplicate rule every time. */
	frh = fare_nlmsg_start(buf, RTM_NEWRULE,
			       NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, seq,
			       sizeof(*frh), &nlh);
	frh->family = family;
	frh->action = FR_ACT_TO_TBL;
	frh->table = table;
	mnl_attr_put_u32(nlh, FRA_PRIORITY, pref);
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	return nlh;
}

struct nlmsghdr *fare_rtnl_msg_rule(void *buf, size_t buflen, uint32_t seq,
				    uint8_t family, uint32_t uid_lo,
				    uint32_t uid_hi)
{
	struct fib_rule_uid_range uids = { uid_lo, uid_hi };
	struct fib_rule_hdr *frh;
	struct nlmsghdr *nlh;

	if (buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*frh)) +
		     3 * MNL_ATTR_HDRLEN + 4 + 4 + MNL_ALIGN(sizeof(uids)))
		return NULL;
	nlh = rule_msg_start(buf, seq, family, FARE_RT_TABLE, FARE_RULE_PREF);
	mnl_attr_put(nlh, FRA_UID_RANGE, sizeof(uids), &uids);
	return nlh;
}

/*
 * rule_add: sends the rule request NLH (NULL: it did not fit); a rule
 * that is already there is fine. A refusal names the rule as ip rule
 * would take it (WHAT).
 */
static int rule_add(struct fare *f, struct nlmsghdr *nlh, const char *what,
		    struct fare_err *err)
{
	char reason[sizeof(err->msg)] = "";
	int ret;

	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "rule request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	if (ret == -EEXIST) {
		fare_err_clear(err);
		return 0;
	}
	if (!ret)
		return 0;
	if (err)
		snprintf(reason, sizeof(reason), "%s", err->msg);
	return fare_err_set(err, ret, "adding the rule \"%s\": %s", what,
			    reason[0] ? reason : strerror(-ret));
}

int fare_uid_span(const char *map, uint32_t *lo, uint32_t *hi)
{
	unsigned long long inside, outside, count, last;
	bool any = false;
	int used;

	while (sscanf(map, "%llu %llu %llu%n", &inside, &outside, &count,
		      &used) == 3) {
		map += used;
		if (!count || inside > FARE_RULE_UID_MAX)
			continue;
		last = inside + count - 1;
		if (last > FARE_RULE_UID_MAX)
			last = FARE_RULE_UID_MAX;
		if (!any || inside < *lo)
			*lo = inside;
		if (!any || last > *hi)
			*hi = last;
		any = true;
	}
	return any ? 0 : -EINVAL;
}

/*
 * The rule's uid range is read in the caller's user namespace, where only
 * mapped uids exist (the kernel refuses the rule otherwise: "Invalid uid
 * range"): every uid of the namespace, which in the initial one is every
 * uid but the last, the one fare.ko's fallback lookups use.
 */
static int rule_uid_span(uint32_t *lo, uint32_t *hi, struct fare_err *err)
{
	char map[4096];
	ssize_t len;
	int fd;

	fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		/* No /proc: a namespace that is not the initial one is rare. */
		*lo = 0;
		*hi = FARE_RULE_UID_MAX;
		return 0;
	}
	len = read(fd, map, sizeof(map) - 1);
	close(fd);
	if (len < 0)
		return fare_err_set(err, -errno, "reading /proc/self/uid_map: %s",
				    strerror(errno));
	map[len] = '\0';
	if (fare_uid_span(map, lo, hi))
		return fare_err_set(err, -EINVAL,
				    "this user namespace maps no uid (/proc/self/uid_map is empty)");
	return 0;
}

int fare_rtnl_rule_ensure(struct fare *f, uint8_t family,
			  struct fare_err *err)
{
	bool *done = family == AF_INET ? &f->rule4 : &f->rule6;
	uint32_t lo, hi;
	char what[96];
	int ret;

	if (*done)
		return 0;
	ret = rule_uid_span(&lo, &hi, err);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "%s pref %d uidrange %u-%u lookup %d",
		 family == AF_INET ? "-4" : "-6", FARE_RULE_PREF, lo, hi,
		 FARE_RT_TABLE);
	ret = rule_add(f, fare_rtnl_msg_rule(f->tx, sizeof(f->tx),
					     fare_next_seq(f), family, lo, hi),
		       what, err);
	if (ret)
		return ret;
	*done = true;
	return 0;
}

static const char *describe(const struct fare_prefix *dst, char *buf,
			    size_t len)
{
	char p[FARE_PREFIX_STRLEN];

	snprintf(buf, len, "%s dev %s proto %d",
		 fare_prefix_format(dst, p, sizeof(p)), FARE_DEV_NAME,
		 FARE_RTPROT);
	return buf;
}

/* Turn err into "installing the kernel route ...: <reason>". */
static int explain(struct fare_err *err, int code, const char *doing,
		   const struct fare_prefix *dst, const union fare_addr *src)
{
	char what[FARE_PREFIX_STRLEN + 64];
	char reason[sizeof(err->msg)];
	char s[INET6_ADDRSTRLEN];
	size_t len;

	if (!err)
		return code;
	snprintf(reason, sizeof(reason), "%s", err->msg);
	describe(dst, what, sizeof(what));
	if (src && inet_ntop(dst->family, src, s, sizeof(s))) {
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, " src %s", s);
	}
	return fare_err_set(err, code, "%s the kernel route %s: %s", doing,
			    what, reason[0] ? reason : strerror(-code));
}

int fare_rtnl_route_install(struct fare *f, const struct fare_route *route,
			    uint32_t oif, struct fare_err *err)
{
	const union fare_addr *src = route->has_src ? &route->src : NULL;
	struct nlmsghdr *nlh;
	int ret;

	ret = fare_rtnl_rule_ensure(f, route->dst.family, err);
	if (!ret && via_dev_object(&route->dst, src))
		ret = fare_nh_dev_ensure(f, oif, route->dst.family, err);
	if (ret)
		return ret;
	nlh = fare_rtnl_msg_route(f->tx, sizeof(f->tx), RTM_NEWROUTE,
				  fare_next_seq(f), &route->dst, src, oif);
	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "route request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	if (ret)
		return explain(err, ret, "installing", &route->dst, src);
	return 0;
}

int fare_rtnl_route_remove(struct fare *f, const struct fare_prefix *dst,
			   uint32_t oif, struct fare_err *err)
{
	struct nlmsghdr *nlh;
	int ret;

	nlh = fare_rtnl_msg_route(f->tx, sizeof(f->tx), RTM_DELROUTE,
				  fare_next_seq(f), dst, NULL, oif);
	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "route request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	/* IPv4 says ESRCH, IPv6 ENOENT: either way it is already gone. */
	if (ret == -ESRCH || ret == -ENOENT) {
		fare_err_clear(err);
		return 0;
	}
	if (ret)
		return explain(err, ret, "removing", dst, NULL);
	return 0;
}

struct nlmsghdr *fare_rtnl_msg_unreachable(void *buf, size_t buflen,
					   uint16_t type, uint32_t seq,
					   const struct fare_prefix *dst)
{
	size_t alen = fare_addr_len(dst->family);
	struct nlmsghdr *nlh = buf;
	struct rtmsg *rtm;

	if (buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*rtm)) +
		     MNL_ATTR_HDRLEN + MNL_ALIGN(alen))
		return NULL;
	/* As a new route it takes the place of "PREFIX dev fare0". */
	rtm = route_msg_start(buf, type, seq, dst);
	/* Removal too names the type: a fare0 route is not touched. */
	rtm->rtm_type = RTN_UNREACHABLE;
	rtm->rtm_scope = type == RTM_NEWROUTE ? RT_SCOPE_UNIVERSE :
			 RT_SCOPE_NOWHERE;
	mnl_attr_put(nlh, RTA_DST, alen, &dst->addr);
	return nlh;
}

int fare_route_unreachable(struct fare *f, const struct fare_prefix *dst,
			   bool on, struct fare_err *err)
{
	char what[FARE_PREFIX_STRLEN];
	char reason[sizeof(err->msg)];
	struct nlmsghdr *nlh;
	int ret;

	if (on) {
		ret = fare_rtnl_rule_ensure(f, dst->family, err);
		if (ret)
			return ret;
		/* Nor does a plane-bound lookup find a plane route. */
		ret = fare_rtnl_plane_route(f, dst, NULL, NULL, 0, NULL, err);
		if (ret)
			return ret;
	}
	nlh = fare_rtnl_msg_unreachable(f->tx, sizeof(f->tx),
					on ? RTM_NEWROUTE : RTM_DELROUTE,
					fare_next_seq(f), dst);
	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "route request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	if (!on && (ret == -ESRCH || ret == -ENOENT)) {
		fare_err_clear(err);
		return 0;
	}
	if (!ret || !err)
		return ret;
	snprintf(reason, sizeof(reason), "%s", err->msg);
	return fare_err_set(err, ret,
			    "%s the kernel route \"unreachable %s proto %d table %d\": %s",
			    on ? "installing" : "removing",
			    fare_prefix_format(dst, what, sizeof(what)),
			    FARE_RTPROT, FARE_RT_TABLE,
			    reason[0] ? reason : strerror(-ret));
}

bool fare_rtnl_parse_unreachable(const struct nlmsghdr *nlh,
				 struct fare_prefix *out)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	uint32_t table = rtm->rtm_table;
	const struct nlattr *a;
	size_t alen;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    rtm->rtm_type != RTN_UNREACHABLE ||
	    rtm->rtm_protocol != FARE_RTPROT)
		return false;
	alen = fare_addr_len(rtm->rtm_family);
	if (!alen)
		return false;
	memset(out, 0, sizeof(*out));
	out->family = rtm->rtm_family;
	out->plen = rtm->rtm_dst_len;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		if (mnl_attr_get_type(a) == RTA_TABLE &&
		    mnl_attr_get_payload_len(a) == sizeof(uint32_t))
			table = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == RTA_DST &&
			 mnl_attr_get_payload_len(a) == alen)
			memcpy(&out->addr, mnl_attr_get_payload(a), alen);
	}
	return table == FARE_RT_TABLE;
}

struct nlmsghdr *fare_rtnl_msg_route_dump(void *buf, uint32_t seq)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	rtm = fare_nlmsg_start(buf, RTM_GETROUTE, NLM_F_DUMP, seq, sizeof(*rtm),
			       &nlh);
	rtm->rtm_family = AF_UNSPEC;
	return nlh;
}

/*
 * The plane route: "PREFIX proto FARE_RTPROT table FARE_PLANE_TABLE
 * [src SRC] nhid G", G the kernel nexthop group of the planes that carry
 * the route (nexthop.c), and a rule "pref FARE_PLANE_RULE_PREF oif PLANE
 * lookup FARE_PLANE_TABLE" per plane device and family. Only a lookup
 * bound to a plane's device matches such a rule; in the table it takes the
 * group's next hop on that device (the group's other members, on fare0 or
 * on other planes, do not match its device). A plane that does not carry
 * the route has no next hop in the group, so the lookup goes on to the
 * next rule as if fare were not there.
 */
struct nlmsghdr *fare_rtnl_msg_plane_route(void *buf, size_t buflen,
					   uint32_t seq,
					   const struct fare_prefix *dst,
					   const union fare_addr *src,
					   const struct fare_nexthop *nh,
					   unsigned int n_nh,
					   const struct fare_plane_map *m)
{
	size_t alen = fare_addr_len(dst->family);
	struct nlmsghdr *nlh = buf;
	bool none = true;
	uint32_t group = 0;
	struct rtmsg *rtm;

	if (n_nh > FARE_NEXTHOP_MAX || !alen)
		return NULL;
	if (m && n_nh)
		group = fare_nh_group_find(m, dst->family, nh, n_nh, &none);
	if (!none && !group)
		return NULL;
	if (buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*rtm)) +
		     3 * MNL_ATTR_HDRLEN + 2 * MNL_ALIGN(alen) + 4)
		return NULL;
	rtm = route_msg_start(buf, none ? RTM_DELROUTE : RTM_NEWROUTE, seq,
			      dst);
	rtm->rtm_table = FARE_PLANE_TABLE;
	mnl_attr_put(nlh, RTA_DST, alen, &dst->addr);
	if (none) {
		/* Whatever next hops it has: only table and protocol. */
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
		rtm->rtm_type = RTN_UNSPEC;
		return nlh;
	}
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	if (src)
		mnl_attr_put(nlh, RTA_PREFSRC, alen, src);
	mnl_attr_put_u32(nlh, RTA_NH_ID, group);
	return nlh;
}

bool fare_rtnl_plane_tolerated(int ret)
{
	/*
	 * Gone: a removal finds nothing (IPv4 ESRCH, IPv6 ENOENT). ENETDOWN:
	 * a plane's device went down after the map was read; that plane does
	 * not carry the route, and the next change of the route settles it.
	 */
	return ret == -ESRCH || ret == -ENOENT || ret == -ENETDOWN;
}

struct nlmsghdr *fare_rtnl_msg_plane_rule(void *buf, size_t buflen,
					  uint32_t seq, uint8_t family,
					  const char *ifname)
{
	struct fib_rule_hdr *frh;
	struct nlmsghdr *nlh;
	size_t nlen = strlen(ifname) + 1;

	if (nlen > IFNAMSIZ ||
	    buflen < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*frh)) +
		     3 * MNL_ATTR_HDRLEN + 4 + 4 + MNL_ALIGN(nlen))
		return NULL;
	nlh = rule_msg_start(buf, seq, family, FARE_PLANE_TABLE,
			     FARE_PLANE_RULE_PREF);
	mnl_attr_put(nlh, FRA_OIFNAME, nlen, ifname);
	return nlh;
}

/* The rule of plane id's device for family, once per handle and device. */
static int plane_rule_ensure(struct fare *f, uint8_t family, uint32_t id,
			     uint32_t ifindex, const char *ifname,
			     struct fare_err *err)
{
	uint32_t *done = &f->plane_rule[family == AF_INET6][id];
	char what[96];
	int ret;

	if (*done == ifindex)
		return 0;
	snprintf(what, sizeof(what), "%s pref %d oif %s lookup %d",
		 family == AF_INET ? "-4" : "-6", FARE_PLANE_RULE_PREF, ifname,
		 FARE_PLANE_TABLE);
	ret = rule_add(f, fare_rtnl_msg_plane_rule(f->tx, sizeof(f->tx),
						   fare_next_seq(f), family,
						   ifname),
		       what, err);
	/*
	 * A kernel without IPv6 (ipv6.disable=1) has no IPv6 rules, and no
	 * IPv6 lookup for one to steer: a plane's IPv6 gateway carries
	 * nothing there, and the IPv4 side goes on.
	 */
	if (ret == -EAFNOSUPPORT && family == AF_INET6) {
		fare_err_clear(err);
		ret = 0;
	}
	if (ret)
		return ret;
	*done = ifindex;
	return 0;
}

struct map_load {
	struct fare_plane_map *m;
	int fd;
};

static int map_plane_cb(const struct fare_plane *plane, void *arg)
{
	struct map_load *l = arg;
	struct fare_plane_info *pi;
	struct ifreq ifr;

	if (plane->id < 1 || plane->id > FARE_PLANE_ID_MAX)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	if (!if_indextoname(plane->ifindex, ifr.ifr_name))
		return 0;
	pi = &l->m->p[plane->id];
	/*
	 * A device that is not up refuses a next hop through it, and the
	 * kernel deletes the next hops of one that loses its carrier: not
	 * before it has both again.
	 */
	pi->up = !ioctl(l->fd, SIOCGIFFLAGS, &ifr) &&
		 (ifr.ifr_flags & IFF_UP) &&
		 (ifr.ifr_flags & IFF_RUNNING);
	pi->ifindex = plane->ifindex;
	memcpy(pi->ifname, ifr.ifr_name, sizeof(pi->ifname));
	pi->has_gw4 = plane->has_gw4;
	pi->has_gw6 = plane->has_gw6;
	pi->gw4 = plane->gw4;
	pi->gw6 = plane->gw6;
	return 0;
}

void fare_plane_map_free(struct fare_plane_map *m)
{
	if (!m)
		return;
	free(m->groups);
	free(m);
}

int fare_plane_map_load(struct fare *f, struct fare_plane_map *m,
			uint32_t fare_ifindex, struct fare_err *err)
{
	struct map_load l = { .m = m };
	uint32_t id;
	int ret;

	memset(m, 0, sizeof(*m));
	m->fare_ifindex = fare_ifindex;
	l.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (l.fd < 0)
		l.fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (l.fd < 0)
		return fare_err_set(err, -errno,
				    "a socket to read the planes' devices: %s",
				    strerror(errno));
	ret = fare_plane_dump(f, map_plane_cb, &l, err);
	close(l.fd);
	for (id = 1; !ret && id <= FARE_PLANE_ID_MAX; id++) {
		const struct fare_plane_info *pi = &m->p[id];

		if (!pi->ifindex)
			continue;
		if (pi->has_gw4)
			ret = plane_rule_ensure(f, AF_INET, id, pi->ifindex,
						pi->ifname, err);
		if (!ret && pi->has_gw6)
			ret = plane_rule_ensure(f, AF_INET6, id, pi->ifindex,
						pi->ifname, err);
	}
	if (!ret)
		ret = fare_nh_sync(f, m, err);
	return ret;
}

int fare_route_hops(struct fare *f, const struct fare_route *route,
		    struct fare_group *buf, const struct fare_nexthop **nh,
		    unsigned int *n, struct fare_err *err)
{
	int ret;

	if (route->n_nexthops || !route->group_id) {
		*nh = route->nexthops;
		*n = route->n_nexthops;
		return 0;
	}
	ret = fare_group_get(f, route->group_id, buf, err);
	if (ret)
		return ret;
	*nh = buf->nexthops;
	*n = buf->n_nexthops;
	return 0;
}

int fare_rtnl_plane_route(struct fare *f, const struct fare_prefix *dst,
			  const union fare_addr *src,
			  const struct fare_nexthop *nh, unsigned int n_nh,
			  struct fare_plane_map *m, struct fare_err *err)
{
	char what[FARE_PREFIX_STRLEN];
	char reason[sizeof(err->msg)];
	struct nlmsghdr *nlh;
	int ret;

	if (m) {
		ret = fare_nh_group_ensure(f, m, dst->family, nh, n_nh, err);
		if (ret)
			return ret;
	}
	nlh = fare_rtnl_msg_plane_route(f->tx, sizeof(f->tx), fare_next_seq(f),
					dst, src, nh, n_nh, m);
	if (!nlh)
		return fare_err_set(err, -EMSGSIZE, "route request too long");
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, err);
	if (fare_rtnl_plane_tolerated(ret)) {
		fare_err_clear(err);
		return 0;
	}
	if (!ret || !err)
		return ret;
	snprintf(reason, sizeof(reason), "%s", err->msg);
	return fare_err_set(err, ret,
			    "%s the plane route \"%s proto %d table %d\": %s",
			    nlh->nlmsg_type == RTM_NEWROUTE ? "installing" :
			    "removing",
			    fare_prefix_format(dst, what, sizeof(what)),
			    FARE_RTPROT, FARE_PLANE_TABLE,
			    reason[0] ? reason : strerror(-ret));
}

struct lookup_reply {
	uint8_t family;
	bool seen;
	struct fare_lookup *out;
};

static int lookup_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct lookup_reply *r = arg;
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	size_t alen = fare_addr_len(r->family);
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_family != r->family)
		return 0;
	r->seen = true;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_PREFSRC:
			if (mnl_attr_get_payload_len(a) != alen)
				break;
			memcpy(&r->out->src, mnl_attr_get_payload(a), alen);
			r->out->has_src = true;
			break;
		case RTA_GATEWAY:
			if (mnl_attr_get_payload_len(a) != alen)
				break;
			memcpy(&r->out->gw, mnl_attr_get_payload(a), alen);
			r->out->has_gw = true;
			break;
		case RTA_OIF:
			if (mnl_attr_get_payload_len(a) == sizeof(uint32_t))
				r->out->oif = mnl_attr_get_u32(a);
			break;
		}
	}
	return 0;
}

int fare_route_lookup(struct fare *f, uint8_t family,
		      const union fare_addr *dst, uint32_t oif,
		      struct fare_lookup *out, struct fare_err *err)
{
	struct lookup_reply r = { .family = family, .out = out };
	size_t alen = fare_addr_len(family);
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int ret;

	memset(out, 0, sizeof(*out));
	fare_err_clear(err);
	if (!alen)
		return fare_err_set(err, -EAFNOSUPPORT, "not IPv4 or IPv6");
	rtm = fare_nlmsg_start(f->tx, RTM_GETROUTE, NLM_F_ACK, fare_next_seq(f),
			       sizeof(*rtm), &nlh);
	rtm->rtm_family = family;
	rtm->rtm_dst_len = alen * 8;
	mnl_attr_put(nlh, RTA_DST, alen, dst);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	ret = fare_talk(f, f->rtnl, nlh, lookup_cb, &r, err);
	if (!ret && !r.seen)
		ret = fare_err_set(err, -ENOMSG, "no answer to the route lookup");
	return ret;
}
