// SPDX-License-Identifier: GPL-2.0-only
/*
 * plane_route_cost: what one kind of kernel route costs the FIB to add, in
 * the shapes a plane route (Documentation/datapath.md, "Lookups bound to a
 * plane") can take (bench/run-plane-route-cost).
 *
 *   plane_route_cost 4|6 N TABLE FORM ARG...
 *	adds N host routes (IPv4 10.128.0.0/9 /32s or IPv6 2001:db8:8000::/33
 *	/128s), proto 249, in table TABLE, pipelined as libfare sends them
 *	(a window of requests, each acked), and prints
 *	"routes N errors E wall S user S sys S". FORM and its ARGs:
 *	  dev IFINDEX			the route to fare0 (table 249's shape)
 *	  multipath IFINDEX GW ...	one onlink next hop per plane (today's
 *					plane route)
 *	  nhid ID			a kernel nexthop object or group
 *
 * The caller makes the devices and nexthop objects; this program only adds
 * routes, so that its times are the FIB's and netlink's, not libfare's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#define WINDOW		64
#define MAX_PLANES	16
#define RTPROT_FARE	249

struct plane_hop {
	unsigned int ifindex;
	unsigned char gw[16];
};

static int family;
static size_t alen;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static void route_dst(unsigned long i, unsigned char *addr)
{
	memset(addr, 0, 16);
	if (family == AF_INET) {
		uint32_t a = htonl(0x0a800000u + (uint32_t)i);

		memcpy(addr, &a, 4);
		return;
	}
	addr[0] = 0x20;
	addr[1] = 0x01;
	addr[2] = 0x0d;
	addr[3] = 0xb8;
	addr[4] = 0x80;
	addr[12] = (unsigned char)(i >> 24);
	addr[13] = (unsigned char)(i >> 16);
	addr[14] = (unsigned char)(i >> 8);
	addr[15] = (unsigned char)i;
}

static int usage(void)
{
	fprintf(stderr, "usage: plane_route_cost 4|6 N TABLE dev IFINDEX | multipath IFINDEX GW ... | nhid ID\n");
	return 2;
}

int main(int argc, char **argv)
{
	static char buf[65536] __attribute__((aligned(8)));
	struct plane_hop hops[MAX_PLANES];
	unsigned long n, sent = 0, acked = 0, errors = 0;
	unsigned int n_hops = 0, dev = 0, nhid = 0, table;
	const char *form;
	struct mnl_socket *nl;
	struct rusage ru0, ru1;
	double t0, t1;
	int a;

	if (argc < 6)
		return usage();
	family = !strcmp(argv[1], "6") ? AF_INET6 : AF_INET;
	alen = family == AF_INET ? 4 : 16;
	n = strtoul(argv[2], NULL, 0);
	table = (unsigned int)strtoul(argv[3], NULL, 0);
	form = argv[4];
	if (!strcmp(form, "dev")) {
		dev = (unsigned int)strtoul(argv[5], NULL, 0);
	} else if (!strcmp(form, "nhid")) {
		nhid = (unsigned int)strtoul(argv[5], NULL, 0);
	} else if (!strcmp(form, "multipath")) {
		for (a = 5; a + 1 < argc && n_hops < MAX_PLANES; a += 2) {
			hops[n_hops].ifindex =
				(unsigned int)strtoul(argv[a], NULL, 0);
			if (inet_pton(family, argv[a + 1], hops[n_hops].gw) != 1)
				return usage();
			n_hops++;
		}
		if (!n_hops)
			return usage();
	} else {
		return usage();
	}

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink");
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now();
	while (acked < n) {
		size_t len = 0;
		ssize_t got;

		/* Fill the window, as one sendmsg. */
		while (sent < n && sent - acked < WINDOW) {
			struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + len);
			unsigned char addr[16];
			struct rtmsg *rtm;

			nlh->nlmsg_type = RTM_NEWROUTE;
			nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
					   NLM_F_CREATE | NLM_F_REPLACE;
			nlh->nlmsg_seq = (uint32_t)sent + 1;
			rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
			rtm->rtm_family = (unsigned char)family;
			rtm->rtm_dst_len = family == AF_INET ? 32 : 128;
			rtm->rtm_table = table < 256 ? table : RT_TABLE_UNSPEC;
			rtm->rtm_protocol = RTPROT_FARE;
			rtm->rtm_type = RTN_UNICAST;
			rtm->rtm_scope = dev ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
			if (table >= 256)
				mnl_attr_put_u32(nlh, RTA_TABLE, table);
			route_dst(sent, addr);
			mnl_attr_put(nlh, RTA_DST, alen, addr);
			if (dev) {
				mnl_attr_put_u32(nlh, RTA_OIF, dev);
			} else if (nhid) {
				mnl_attr_put_u32(nlh, RTA_NH_ID, nhid);
			} else {
				struct nlattr *mp;
				unsigned int h;

				mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
				for (h = 0; h < n_hops; h++) {
					struct rtnexthop *rtnh;

					rtnh = (void *)((char *)nlh +
							nlh->nlmsg_len);
					nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
					memset(rtnh, 0, sizeof(*rtnh));
					rtnh->rtnh_ifindex = (int)hops[h].ifindex;
					rtnh->rtnh_flags = RTNH_F_ONLINK;
					mnl_attr_put(nlh, RTA_GATEWAY, alen,
						     hops[h].gw);
					rtnh->rtnh_len = (unsigned short)
						((char *)nlh + nlh->nlmsg_len -
						 (char *)rtnh);
				}
				mnl_attr_nest_end(nlh, mp);
			}
			len += nlh->nlmsg_len;
			sent++;
		}
		if (len && mnl_socket_sendto(nl, buf, len) < 0) {
			perror("send");
			return 1;
		}
		got = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (got < 0) {
			perror("recv");
			return 1;
		}
		for (struct nlmsghdr *h = (void *)buf; mnl_nlmsg_ok(h, (int)got);
		     h = mnl_nlmsg_next(h, (int *)&got)) {
			const struct nlmsgerr *e;

			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			e = mnl_nlmsg_get_payload(h);
			if (e->error) {
				if (!errors)
					fprintf(stderr, "route %u: %s\n",
						h->nlmsg_seq - 1,
						strerror(-e->error));
				errors++;
			}
			acked++;
		}
	}
	t1 = now();
	getrusage(RUSAGE_SELF, &ru1);
	printf("routes %lu errors %lu wall %.3f user %.3f sys %.3f\n", n, errors,
	       t1 - t0, tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime),
	       tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime));
	mnl_socket_close(nl);
	return errors ? 1 : 0;
}
