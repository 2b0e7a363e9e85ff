// SPDX-License-Identifier: GPL-2.0-only
/*
 * libfare against the running kernel, without fare.ko: the exchange reads a
 * real multi-part dump from the genetlink controller, and the kernel FIB
 * routes are installed and removed in a scratch network namespace (skipped
 * where one cannot be made), with "lo" standing in for fare0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>

#include "fare_int.h"
#include "harness.h"

#define SKIP_STATUS 77

static char why[512];

static const char *ip_cmd(void)
{
	if (!access("/usr/sbin/ip", X_OK))
		return "/usr/sbin/ip";
	if (!access("/sbin/ip", X_OK))
		return "/sbin/ip";
	return NULL;
}

/* "ip -o ROUTE show" in this namespace, or NULL without iproute2. */
static const char *routes(const char *args)
{
	static char out[4096];
	char cmd[256];
	size_t n;
	FILE *p;

	if (!ip_cmd())
		return NULL;
	snprintf(cmd, sizeof(cmd), "%s %s", ip_cmd(), args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = -1;

	if (fd < 0)
		return -1;
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(why, sizeof(why), __VA_ARGS__);	\
			return why;					\
		}							\
	} while (0)

#define BAD_SRC_MSG \
	"installing the kernel route 10.9.0.0/24 dev fare0 proto 249 src 192.0.2.99: "

/*
 * A pipeline without a reply callback asks for the ack of the last
 * request of each sendmsg only; the kernel still answers each failed
 * request, so every result lands at its own position.
 */
static const char *pipe_scenario(struct fare *f)
{
	static const char *const dst[] = {
		"10.7.0.0/24", "10.7.1.0/24", "10.7.2.0/24", "10.7.3.0/24",
	};
	union fare_addr bad_src;
	struct fare_prefix p;
	struct fare_pipe pp;
	struct fare_err err;
	struct nlmsghdr *nlh;
	const char *out;
	size_t i, off = 0;
	void *buf;
	int ret;

	inet_pton(AF_INET, "192.0.2.99", &bad_src.v4);
	f->ack_budget = 1 << 20;
	ret = fare_pipe_init(&pp, f, f->rtnl, 4, NULL, NULL, &err);
	EXPECT(!ret, "pipe: %s", err.msg);
	EXPECT(pp.ack_last, "a pipe without a callback acks every request");
	for (i = 0; i < 4; i++) {
		fare_prefix_parse(dst[i], &p, NULL);
		buf = fare_pipe_next(&pp, FARE_ACK_COST, &err);
		EXPECT(buf, "pipe_next: %s", err.msg);
		/* 1: a non-local source, refused; 2: a delete of nothing. */
		nlh = fare_rtnl_msg_route(buf, FARE_TX_SIZE,
					  i == 2 ? RTM_DELROUTE : RTM_NEWROUTE,
					  fare_pipe_seq(&pp, pp.n), &p,
					  i == 1 ? &bad_src : NULL, 1);
		fare_pipe_commit(&pp, nlh);
	}
	/* Nothing sent yet: none asks for an ack before the send. */
	for (i = 0; i < 4; i++) {
		nlh = (struct nlmsghdr *)(pp.buf + off);
		EXPECT(!(nlh->nlmsg_flags & NLM_F_ACK),
		       "request %zu asks for an ack before the send", i);
		off += MNL_ALIGN(nlh->nlmsg_len);
	}
	ret = fare_pipe_sync(&pp, &err);
	EXPECT(!ret, "sync: %s", err.msg);
	EXPECT(pp.acked == 4, "%zu of 4 answered", pp.acked);
	EXPECT(!pp.rets[0] && pp.rets[1] == -EINVAL && pp.rets[2] == -ESRCH &&
	       !pp.rets[3], "results %d %d %d %d", pp.rets[0], pp.rets[1],
	       pp.rets[2], pp.rets[3]);
	EXPECT(pp.first_fail == 1 && pp.fail_err.msg[0],
	       "first failure at %zu (%s)", pp.first_fail, pp.fail_err.msg);
	fare_pipe_free(&pp);
	out = routes("-o -4 route show table 249 proto 249");
	EXPECT(!out || (strstr(out, "10.7.0.0/24") &&
			strstr(out, "10.7.3.0/24") &&
			!strstr(out, "10.7.1.0/24")),
	       "the FIB after the pipe: %s", out);
	return NULL;
}

/* Whether s (which has one at least) has exactly one line. */
static bool one_line(const char *s)
{
	return !strchr(strchr(s, '\n') + 1, '\n');
}

/* The source address the kernel picks for a UDP socket connected to dst. */
static int source_for(const char *dst, char *src, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(9) };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = -1;

	if (fd < 0)
		return -1;
	inet_pton(AF_INET, dst, &sin.sin_addr);
	if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
	    !getsockname(fd, (struct sockaddr *)&sin, &sl) &&
	    inet_ntop(AF_INET, &sin.sin_addr, src, len))
		ret = 0;
	close(fd);
	return ret;
}

/*
 * IPv4 routes through the device's one nexthop object keep their own
 * preferred source (IPv6 ones would not: datapath.md, "The kernel routes").
 */
static const char *shared_hop_scenario(struct fare *f)
{
	static const char *const dst[] = { "10.9.5.0/24", "10.9.6.0/24" };
	/* .78 is not lo's first address: without its src, B would take .77. */
	static const char *const src[] = { "192.0.2.77", "192.0.2.78" };
	static const char *const to[] = { "10.9.5.9", "10.9.6.9" };
	struct fare_route r = { 0 };
	struct fare_err err;
	char cmd[256], got[INET_ADDRSTRLEN];
	unsigned int i, k;
	int ret;

	snprintf(cmd, sizeof(cmd),
		 "%s addr add 192.0.2.77/32 dev lo && %s addr add 192.0.2.78/32 dev lo",
		 ip_cmd(), ip_cmd());
	EXPECT(!system(cmd), "cannot add an address: %s", cmd);
	for (i = 0; i < 2; i++) {
		fare_prefix_parse(dst[i], &r.dst, NULL);
		inet_pton(AF_INET, src[i], &r.src.v4);
		r.has_src = true;
		ret = fare_rtnl_route_install(f, &r, 1, &err);
		EXPECT(!ret, "install %s: %s", dst[i], err.msg);
	}
	/* Twice each, so that the second finds the first's cached output. */
	for (k = 0; k < 4; k++) {
		i = k % 2;
		EXPECT(!source_for(to[i], got, sizeof(got)),
		       "no source for %s", to[i]);
		EXPECT(!strcmp(got, src[i]), "to %s from %s, not %s", to[i],
		       got, src[i]);
	}
	for (i = 0; i < 2; i++) {
		fare_prefix_parse(dst[i], &r.dst, NULL);
		ret = fare_rtnl_route_remove(f, &r.dst, 1, &err);
		EXPECT(!ret, "remove %s: %s", dst[i], err.msg);
	}
	return NULL;
}

static const char *scenario(struct fare *f)
{
	struct fare_route r = { 0 };
	struct fare_prefix p6, other;
	struct fare_err err;
	struct nlmsghdr *nlh;
	unsigned int ifindex;
	const char *out;
	char cmd[256], want[128];
	int ret;

	fare_prefix_parse("10.9.0.0/24", &r.dst, NULL);
	inet_pton(AF_INET, "127.0.0.1", &r.src.v4);
	r.has_src = true;

	ret = fare_rtnl_route_install(f, &r, 1, &err);
	EXPECT(!ret, "install: %s", err.msg);
	/* Through the device's own next hop (plane 0's of device 1). */
	out = routes("-o -4 route show table 249 proto 249");
	EXPECT(!out ||
	       strstr(out, "10.9.0.0/24 nhid 4026532864 dev lo scope link src 127.0.0.1"),
	       "route not in the FIB: %s", out);
	out = routes("-o nexthop show id 4026532864");
	EXPECT(!out || strstr(out, "id 4026532864 dev lo scope host proto 249"),
	       "the device's next hop: %s", out);
	ret = fare_rtnl_route_install(f, &r, 1, &err);
	EXPECT(!ret, "second install (a replace): %s", err.msg);
	/* One rule, even after a new handle finds it in place. */
	f->rule4 = false;
	ret = fare_rtnl_route_install(f, &r, 1, &err);
	EXPECT(!ret, "install with the rule in place: %s", err.msg);
	out = routes("-4 rule show pref 32765");
	EXPECT(!out || !strcmp(out,
			       "32765:\tfrom all uidrange 0-4294967294 lookup 249\n"),
	       "rule: %s", out);

	inet_pton(AF_INET, "192.0.2.99", &r.src.v4);
	ret = fare_rtnl_route_install(f, &r, 1, &err);
	EXPECT(ret == -EINVAL, "non-local src gave %d", ret);
	/* The reason after the colon is the kernel's extack text. */
	EXPECT(!strncmp(err.msg, BAD_SRC_MSG, strlen(BAD_SRC_MSG)) &&
	       strlen(err.msg) > strlen(BAD_SRC_MSG), "message: %s", err.msg);

	ret = fare_rtnl_route_remove(f, &r.dst, 1, &err);
	EXPECT(!ret, "remove: %s", err.msg);
	out = routes("-o -4 route show table 249 proto 249");
	EXPECT(!out || !*out, "route still in the FIB: %s", out);
	ret = fare_rtnl_route_remove(f, &r.dst, 1, &err);
	EXPECT(!ret, "removing a route already gone: %s", err.msg);

	/*
	 * A route to the device itself (an older libfare's) goes too; our
	 * unreachable route to a prefix is not a route to the device.
	 */
	EXPECT(ip_cmd(), "no ip(8) to add routes with");
	snprintf(cmd, sizeof(cmd),
		 "%s route add 10.9.1.0/24 dev lo table 249 proto 249 && %s route add unreachable 10.9.2.0/24 table 249 proto 249",
		 ip_cmd(), ip_cmd());
	EXPECT(!system(cmd), "cannot add the routes: %s", cmd);
	fare_prefix_parse("10.9.1.0/24", &other, NULL);
	ret = fare_rtnl_route_remove(f, &other, 1, &err);
	EXPECT(!ret, "removing a route to the device: %s", err.msg);
	fare_prefix_parse("10.9.2.0/24", &other, NULL);
	ret = fare_rtnl_route_remove(f, &other, 1, &err);
	EXPECT(!ret, "removing a route that is only unreachable: %s", err.msg);
	out = routes("-o -4 route show table 249 proto 249");
	EXPECT(out && !strstr(out, "10.9.1.0/24") &&
	       strstr(out, "unreachable 10.9.2.0/24"),
	       "after the removals: %s", out);
	snprintf(cmd, sizeof(cmd),
		 "%s route del unreachable 10.9.2.0/24 table 249 proto 249",
		 ip_cmd());
	EXPECT(!system(cmd), "cannot remove the unreachable route: %s", cmd);

	/*
	 * An IPv6 route goes via a link-local gateway, which the kernel
	 * refuses on loopback: a veth stands in for fare0.
	 */
	EXPECT(ip_cmd(), "no ip(8) to make a veth with");
	snprintf(cmd, sizeof(cmd),
		 "%s link add fare-t6 type veth peer name fare-t6p && %s link set fare-t6p up && %s link set fare-t6 up",
		 ip_cmd(), ip_cmd(), ip_cmd());
	EXPECT(!system(cmd), "cannot make a veth: %s", cmd);
	ifindex = if_nametoindex("fare-t6");
	EXPECT(ifindex, "no fare-t6");
	fare_prefix_parse("2001:db8:9::/48", &p6, NULL);
	r.dst = p6;
	r.has_src = false;
	ret = fare_rtnl_route_install(f, &r, ifindex, &err);
	EXPECT(!ret, "install IPv6: %s", err.msg);
	/* Through the device's IPv6 next hop (plane 0's, IPv6). */
	snprintf(want, sizeof(want), "2001:db8:9::/48 nhid %u via fe80::1 dev fare-t6",
		 0xf0000000u + 1024 * ifindex + 1);
	out = routes("-o -6 route show table 249 proto 249");
	EXPECT(out && strstr(out, want) && one_line(out),
	       "IPv6 route not in the FIB as expected: %s", out);
	snprintf(cmd, sizeof(cmd), "-o nexthop show id %u",
		 0xf0000000u + 1024 * ifindex + 1);
	out = routes(cmd);
	EXPECT(out && strstr(out, "via fe80::1 dev fare-t6 scope link proto 249"),
	       "the device's IPv6 next hop: %s", out);
	ret = fare_rtnl_route_install(f, &r, ifindex, &err);
	EXPECT(!ret, "second IPv6 install (a replace): %s", err.msg);

	/* With a source, a next hop of its own, replacing the route. */
	snprintf(cmd, sizeof(cmd), "%s addr add 2001:db8:7::7/128 dev lo nodad",
		 ip_cmd());
	EXPECT(!system(cmd), "cannot add an address: %s", cmd);
	inet_pton(AF_INET6, "2001:db8:7::7", &r.src.v6);
	r.has_src = true;
	ret = fare_rtnl_route_install(f, &r, ifindex, &err);
	EXPECT(!ret, "IPv6 install with a source: %s", err.msg);
	out = routes("-o -6 route show table 249 proto 249");
	EXPECT(out && strstr(out, "2001:db8:9::/48 via fe80::1 dev fare-t6") &&
	       strstr(out, "src 2001:db8:7::7") && !strstr(out, "nhid") &&
	       one_line(out),
	       "IPv6 route with a source: %s", out);
	r.has_src = false;
	ret = fare_rtnl_route_install(f, &r, ifindex, &err);
	EXPECT(!ret, "IPv6 install without the source again: %s", err.msg);
	out = routes("-o -6 route show table 249 proto 249");
	EXPECT(out && strstr(out, want) && one_line(out),
	       "IPv6 route without the source again: %s", out);
	ret = fare_rtnl_route_remove(f, &p6, ifindex, &err);
	EXPECT(!ret, "remove IPv6: %s", err.msg);
	out = routes("-o -6 route show table 249 proto 249");
	EXPECT(!out || !*out, "IPv6 route still in the FIB: %s", out);
	ret = fare_rtnl_route_remove(f, &p6, ifindex, &err);
	EXPECT(!ret, "removing an IPv6 route already gone: %s", err.msg);

	/* Someone else's route to a prefix is not ours to remove. */
	fare_prefix_parse("10.8.0.0/24", &other, NULL);
	nlh = fare_rtnl_msg_route(f->tx, sizeof(f->tx), RTM_NEWROUTE, 99,
				  &other, NULL, 1);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_protocol =
		RTPROT_STATIC;
	ret = fare_talk(f, f->rtnl, nlh, NULL, NULL, &err);
	EXPECT(!ret, "adding a static route: %s", err.msg);
	ret = fare_rtnl_route_remove(f, &other, 1, &err);
	EXPECT(!ret, "remove of a foreign route: %s", err.msg);
	out = routes("-o -4 route show table 249 10.8.0.0/24");
	EXPECT(!out || strstr(out, "proto static"),
	       "the static route went: %s", out);
	out = shared_hop_scenario(f);
	if (out)
		return out;
	return pipe_scenario(f);
}

/*
 * In a user namespace of its own that maps only root (unshare -Ur), the
 * uids of the initial namespace's rule do not exist: the rule must name
 * the ones that do.
 */
static const char *userns_scenario(struct fare *f)
{
	struct fare_route r = { 0 };
	struct fare_err err;
	const char *out;
	int ret;

	fare_prefix_parse("10.9.0.0/24", &r.dst, NULL);
	ret = fare_rtnl_route_install(f, &r, 1, &err);
	EXPECT(!ret, "install in a user namespace: %s", err.msg);
	out = routes("-4 rule show pref 32765");
	EXPECT(!out || !strcmp(out, "32765:\tfrom all uidrange 0-0 lookup 249\n"),
	       "rule in a user namespace: %s", out);
	return NULL;
}

/* "ip ARGS" in this namespace; 0 when it succeeded. */
static int ip_run(const char *args)
{
	char cmd[512];

	if (!ip_cmd())
		return -1;
	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", ip_cmd(), args);
	return system(cmd) ? -1 : 0;
}

/*
 * Plane i of nexthop_scenario: veth pi, gateway 10.i.0.1; plane 3 shares
 * p1 (and its gateway) with plane 1.
 */
static void nh_plane(struct fare_plane_map *m, uint32_t i)
{
	char name[IF_NAMESIZE];

	snprintf(name, sizeof(name), "p%u", i == 3 ? 1 : i);
	m->p[i].ifindex = if_nametoindex(name);
	snprintf(m->p[i].ifname, sizeof(m->p[i].ifname), "%s", name);
	m->p[i].up = true;
	m->p[i].has_gw4 = true;
	m->p[i].gw4.s_addr = htonl(0x0a000001u | (i == 3 ? 1 : i) << 16);
}

static void nh_map(struct fare_plane_map *m, uint32_t fare_ifindex)
{
	free(m->groups);
	memset(m, 0, sizeof(*m));
	m->fare_ifindex = fare_ifindex;
	nh_plane(m, 1);
	nh_plane(m, 2);
	nh_plane(m, 3);
}

/*
 * The plane routes' nexthop objects against the kernel (veths for two
 * planes and for fare0): a route's group keeps it when both planes go
 * down, a sync after they come back puts their next hops back, and once
 * the routes are gone their fare device's groups (only) can be removed.
 */
static const char *nexthop_scenario(struct fare *f)
{
	static struct fare_plane_map m, other;
	struct fare_nexthop nh[2] = {
		{ .plane_id = 1, .weight = 3 }, { .plane_id = 2, .weight = 1 },
	};
	struct fare_nexthop shared[2] = {
		{ .plane_id = 1, .weight = 1 }, { .plane_id = 3, .weight = 1 },
	};
	struct fare_prefix dst;
	struct fare_err err;
	char args[128];
	const char *out;
	uint32_t group, other_group, fare_ifindex;
	size_t removed = 0;
	bool none;
	int ret;

	if (ip_run("link add p1 type veth peer name q1") ||
	    ip_run("link add p2 type veth peer name q2") ||
	    ip_run("link add fz type veth peer name fzp"))
		_exit(SKIP_STATUS);	/* no veth here: nothing to check */
	EXPECT(!ip_run("link set q1 up") && !ip_run("link set q2 up") &&
	       !ip_run("link set fzp up") && !ip_run("link set p1 up") &&
	       !ip_run("link set p2 up") && !ip_run("link set fz up") &&
	       !ip_run("rule add pref 32764 oif p1 lookup 248"),
	       "setting up the veths");
	fare_ifindex = if_nametoindex("fz");
	nh_map(&m, fare_ifindex);
	ret = fare_nh_sync(f, &m, &err);
	EXPECT(!ret, "first sync: %s", err.msg);
	EXPECT(m.p[1].live[0] && m.p[2].live[0] && !m.p[1].live[1],
	       "after the first sync: next hops %d %d %d", m.p[1].live[0],
	       m.p[2].live[0], m.p[1].live[1]);
	ret = fare_nh_group_ensure(f, &m, AF_INET, nh, 2, &err);
	EXPECT(!ret, "group: %s", err.msg);
	group = fare_nh_group_find(&m, AF_INET, nh, 2, &none);
	EXPECT(group >= FARE_NH_GROUP_MIN && !none, "group id %u", group);
	snprintf(args, sizeof(args), "nexthop show id %u", group);
	out = routes(args);
	EXPECT(!out || strstr(out, "proto 249"), "the group: %s", out);
	/* Two planes on one device: objects of their own, one group. */
	ret = fare_nh_group_ensure(f, &m, AF_INET, shared, 2, &err);
	EXPECT(!ret, "group of two planes on one device: %s", err.msg);
	EXPECT(fare_nh_group_find(&m, AF_INET, shared, 2, &none) &&
	       fare_nh_group_find(&m, AF_INET, shared, 2, &none) != group,
	       "a group of its own for planes 1 and 3");
	fare_prefix_parse("203.0.113.0/24", &dst, NULL);
	ret = fare_rtnl_plane_route(f, &dst, NULL, nh, 2, &m, &err);
	EXPECT(!ret, "plane route: %s", err.msg);
	out = routes("-4 route get 203.0.113.1 oif p1");
	EXPECT(!out || strstr(out, "via 10.1.0.1 dev p1"), "bound to p1: %s",
	       out);

	/* Both planes down and up: the kernel takes their next hops. */
	EXPECT(!ip_run("link set p1 down") && !ip_run("link set p2 down") &&
	       !ip_run("link set p1 up") && !ip_run("link set p2 up"),
	       "flapping the planes");
	out = routes("-4 route show table 248");
	EXPECT(!out || strstr(out, "203.0.113.0/24"),
	       "the plane route after both planes went down: '%s'", out);
	out = routes("-4 route get 203.0.113.1 oif p1");
	EXPECT(!out || !strstr(out, "via 10.1.0.1"),
	       "bound to p1 before the sync: %s", out);

	/* A later call reads everything again, as fare_plane_sync() does. */
	nh_map(&m, fare_ifindex);
	ret = fare_nh_sync(f, &m, &err);
	EXPECT(!ret, "sync after the flap: %s", err.msg);
	EXPECT(fare_nh_group_find(&m, AF_INET, nh, 2, &none) == group,
	       "the group is found again by its marks");
	out = routes("-4 route get 203.0.113.1 oif p1");
	EXPECT(!out || strstr(out, "via 10.1.0.1 dev p1"),
	       "bound to p1 after the sync: %s", out);
	out = routes(args);
	EXPECT(!out || strstr(out, "group"), "the group after the sync: %s",
	       out);

	/*
	 * After its routes (a flush): its groups go, another fare device's
	 * (fzp here) and every plane's objects stay.
	 */
	nh_map(&other, if_nametoindex("fzp"));
	ret = fare_nh_sync(f, &other, &err);
	EXPECT(!ret, "another fare device: %s", err.msg);
	ret = fare_nh_group_ensure(f, &other, AF_INET, nh, 2, &err);
	EXPECT(!ret, "another fare device's group: %s", err.msg);
	other_group = fare_nh_group_find(&other, AF_INET, nh, 2, &none);
	EXPECT(other_group && other_group != group, "its group %u",
	       other_group);
	ret = fare_rtnl_plane_route(f, &dst, NULL, NULL, 0, &m, &err);
	EXPECT(!ret, "removing the plane route: %s", err.msg);
	ret = fare_nh_groups_remove(f, fare_ifindex, &removed, &err);
	EXPECT(!ret && removed == 2, "removing the groups: %zu, %s", removed,
	       ret ? err.msg : "");
	out = routes("nexthop show protocol 249");
	snprintf(args, sizeof(args), "id %u group", group);
	EXPECT(!out || !strstr(out, args), "a group left: %s", out);
	snprintf(args, sizeof(args), "id %u group", other_group);
	EXPECT(!out || strstr(out, args), "the other device's group: %s",
	       out);
	snprintf(args, sizeof(args), "id %u via 10.1.0.1 dev p1",
		 FARE_NH_ID_BASE + 4 * (256 * fare_ifindex + 1));
	EXPECT(!out || strstr(out, args), "plane 1's next hop: %s", out);
	free(m.groups);
	m.groups = NULL;
	free(other.groups);
	other.groups = NULL;
	return NULL;
}

static int write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	int ret;

	if (!fp)
		return -1;
	ret = fputs(text, fp) < 0;
	return fclose(fp) || ret ? -1 : 0;
}

/* Become root of a user namespace that maps only the caller's ids. */
static int enter_userns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)uid);
	if (write_file("/proc/self/uid_map", map))
		return -1;
	if (write_file("/proc/self/setgroups", "deny") && errno != ENOENT)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned int)gid);
	return write_file("/proc/self/gid_map", map);
}

static const char *(*child_scenario)(struct fare *f) = scenario;
static bool child_userns;

static void child(int fd)
{
	const char *res;
	struct fare *f;
	int one = 1;

	if ((child_userns && enter_userns()) || unshare(CLONE_NEWNET) ||
	    lo_up())
		_exit(SKIP_STATUS);
	f = calloc(1, sizeof(*f));
	if (!f)
		_exit(1);
	f->rtnl = mnl_socket_open(NETLINK_ROUTE);
	if (!f->rtnl || mnl_socket_bind(f->rtnl, 0, MNL_SOCKET_AUTOPID)) {
		res = "cannot open rtnetlink";
	} else {
		setsockopt(mnl_socket_get_fd(f->rtnl), SOL_NETLINK,
			   NETLINK_EXT_ACK, &one, sizeof(one));
		res = child_scenario(f);
	}
	if (f->rtnl)
		mnl_socket_close(f->rtnl);
	free(f);
	if (res && write(fd, res, strlen(res)) < 0)
		_exit(1);
	close(fd);
	_exit(res ? 1 : 0);
}

static void run_child(const char *(*fn)(struct fare *f), bool userns);

TEST(kernel_route_is_installed_replaced_and_removed_in_a_scratch_netns)
{
	run_child(scenario, false);
}

TEST(kernel_rule_names_the_uids_of_a_user_namespace)
{
	run_child(userns_scenario, true);
}

TEST(plane_route_group_survives_its_planes_and_a_sync_restores_them)
{
	run_child(nexthop_scenario, false);
}

static void run_child(const char *(*fn)(struct fare *f), bool userns)
{
	char msg[sizeof(why)] = "";
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	child_scenario = fn;
	child_userns = userns;
	CHECK(!pipe(fds));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		close(fds[0]);
		child(fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	CHECK(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
		t_skip(userns ? "no user and network namespace can be made here" :
		       "no network namespace can be made here");
		return;
	}
	if (n > 0) {
		msg[n] = '\0';
		t_fail(__FILE__, __LINE__, "%s", msg);
		return;
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

struct families {
	int n;
	bool nlctrl;
	uint32_t nlctrl_notify;
};

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct families *fs = arg;
	uint32_t version, group;
	uint16_t id;

	if (fare_msg_parse_family(nlh, &id, &version, &group, NULL))
		return -EPROTO;
	fs->n++;
	if (id == GENL_ID_CTRL)
		fs->nlctrl = true;
	return 0;
}

TEST(exchange_reads_a_real_multipart_dump_from_the_genl_controller)
{
	struct families fs = { 0 };
	struct fare_err err;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct fare *f;
	int ret;

	f = calloc(1, sizeof(*f));
	CHECK(f);
	f->genl = mnl_socket_open(NETLINK_GENERIC);
	if (!f->genl || mnl_socket_bind(f->genl, 0, MNL_SOCKET_AUTOPID)) {
		if (f->genl)
			mnl_socket_close(f->genl);
		free(f);
		t_skip("no generic netlink socket here");
		return;
	}
	g = fare_nlmsg_start(f->tx, GENL_ID_CTRL, NLM_F_DUMP, fare_next_seq(f),
			     sizeof(*g), &nlh);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	ret = fare_talk(f, f->genl, nlh, family_cb, &fs, &err);
	mnl_socket_close(f->genl);
	free(f);
	CHECK_INT(ret, 0);
	CHECK(fs.nlctrl);
	CHECK(fs.n >= 1);
}
