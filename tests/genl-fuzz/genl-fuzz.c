// SPDX-License-Identifier: GPL-2.0-only
/*
 * genl-fuzz: a stateful fuzzer of fare.ko's generic netlink family.
 *
 *   genl-fuzz [--seed N] [--seconds S] [--iterations N] [--slots N]
 *             [--trace]
 *   genl-fuzz churn --plane ID:IFNAME:GW4 [--plane ...] --keep PREFIX
 *             [--spare ID] [--seed N] [--seconds S] [--interval-us U]
 *
 * The fuzzer runs as root in the namespace it is started in (slot 0) and
 * in up to N-1 namespaces of its own (slots 1.., made with unshare(2), each
 * with a dummy and a veth pair to hang planes on). Every step is drawn from
 * one seeded generator, so a seed and an iteration count replay the same
 * sequence of requests (the kernel's answers aside). A step is one of:
 *
 *  - a request of the family, built from the contract in uapi/linux/fare.h
 *    (every command, do and dump), then mutated or not: attributes left
 *    out, doubled, retyped, resized, flat where a nest is due and nested
 *    where it is not, out-of-range values, thousands of next hops or
 *    tiers, random flags, a few flipped bytes;
 *  - datagrams sent through fare0 (the fuzzer points kernel routes of its
 *    prefix pool at fare0), whatever mode the routes are in;
 *  - fare0 deleted, created by rtnetlink, or moved to another slot;
 *  - a slot's namespace deleted (its last reference dropped) and re-made;
 *  - sysctls fare's paths look at (IPv6 on/off, forwarding), the MTU and
 *    state of plane devices and of fare0, a plane device deleted.
 *
 * Every refusal of a well-formed request must carry an extack message
 * (NLMSGERR_ATTR_MSG); one without is a failure and is printed with its
 * command and attributes. Refusals by the generic netlink core itself (an
 * unknown command, a dump of a command without one, a header too short)
 * are counted apart. The guest runner (tests/vm/run) fails the run on any
 * kernel report (KASAN, lockdep, kmemleak, UBSAN, WARN, lockup, hung task).
 *
 * "churn" is the stress scenario's writer: valid requests only, on the
 * given planes, every U microseconds: the route PREFIX (never deleted, so
 * traffic keeps flowing) replaced with random weights and modes, longer
 * prefixes inside it added and deleted, spare planes deleted and added.
 * It survives fare.ko being unloaded and reloaded under it.
 *
 * Exit status: 0 if nothing failed, 1 on a failure, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <linux/fare.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define MSG_MAX		(64 * 1024)
#define RX_MAX		(256 * 1024)
#define SLOTS_MAX	4
#define NEST_DEPTH	8

/* ---- the generator: splitmix64, one stream for every decision ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

static const uint32_t u32_edges[] = {
	0, 1, 2, 3, 7, 8, 63, 64, 65, 127, 128, 255, 256, 1000, 65535, 65536,
	10000000, 10000001, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};

static const uint8_t u8_edges[] = {
	0, 1, 2, 3, 4, 7, 8, 9, 24, 31, 32, 33, 48, 63, 64, 65, 127, 128, 129,
	200, 254, 255,
};

static uint32_t any_u32(void)
{
	return chance(60) ? u32_edges[below(sizeof(u32_edges) /
					    sizeof(u32_edges[0]))] :
			    (uint32_t)rnd();
}

static uint8_t any_u8(void)
{
	return chance(60) ? u8_edges[below(sizeof(u8_edges))] : (uint8_t)rnd();
}

static uint64_t any_u64(void)
{
	switch (below(4)) {
	case 0: return 0;
	case 1: return UINT64_MAX;
	case 2: return any_u32();
	default: return rnd();
	}
}

/* ---- building messages ---- */

struct msg {
	union {
		struct nlmsghdr nlh;
		unsigned char buf[MSG_MAX];
	};
	size_t len;
	size_t nest[NEST_DEPTH];
	int depth;
	unsigned int chaos;	/* percent: how often an attribute goes wrong */
	bool core;		/* the genl core, not fare, will refuse it */
	bool overflow;
	uint8_t cmd;
	char summary[512];
};

static void msg_init(struct msg *m, uint16_t type, uint16_t flags)
{
	m->len = NLMSG_HDRLEN;
	m->depth = 0;
	m->overflow = false;
	m->core = false;
	m->summary[0] = '\0';
	memset(&m->nlh, 0, sizeof(m->nlh));
	m->nlh.nlmsg_type = type;
	m->nlh.nlmsg_flags = flags;
}

static void *msg_reserve(struct msg *m, size_t len)
{
	size_t alen = NLMSG_ALIGN(len);
	void *p;

	if (m->len + alen > sizeof(m->buf)) {
		m->overflow = true;
		return NULL;
	}
	p = m->buf + m->len;
	memset(p, 0, alen);
	m->len += alen;
	return p;
}

static void note(struct msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct msg *m, const char *fmt, ...)
{
	size_t used = strlen(m->summary);
	va_list ap;

	if (used + 2 >= sizeof(m->summary))
		return;
	va_start(ap, fmt);
	vsnprintf(m->summary + used, sizeof(m->summary) - used, fmt, ap);
	va_end(ap);
}

/* Puts one attribute exactly as given. */
static void put_raw(struct msg *m, uint16_t type, const void *data,
		    size_t len)
{
	struct nlattr *a;

	if (len > 0xffff - NLA_HDRLEN)
		len = 0xffff - NLA_HDRLEN;
	a = msg_reserve(m, NLA_HDRLEN + len);
	if (!a)
		return;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
}

/*
 * Puts an attribute, or under chaos: leaves it out, doubles it, gives it
 * another type or another length, or sets a stray flag bit.
 */
static void put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	unsigned char junk[64];
	size_t i;

	if (m->chaos && chance(m->chaos)) {
		switch (below(6)) {
		case 0:
			note(m, " -%u", type);
			return;
		case 1:
			note(m, " %u*2", type);
			put_raw(m, type, data, len);
			break;
		case 2:
			type = below(FARE_A_MAX + 4);
			note(m, " retype:%u", type);
			break;
		case 3:
			for (i = 0; i < sizeof(junk); i++)
				junk[i] = rnd();
			if (len && len <= sizeof(junk))
				memcpy(junk, data, len);
			len = below(24);
			data = junk;
			note(m, " %u/len%zu", type, len);
			break;
		case 4:
			type |= chance(50) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
			note(m, " %u|flag", type & NLA_TYPE_MASK);
			break;
		default:
			break;
		}
	}
	note(m, " %u:%zu", type & NLA_TYPE_MASK, len);
	put_raw(m, type, data, len);
}

static void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put(m, type, &v, 1);
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put(m, type, &v, 4);
}

static void put_u64(struct msg *m, uint16_t type, uint64_t v)
{
	put(m, type, &v, 8);
}

static void put_flag(struct msg *m, uint16_t type)
{
	put(m, type, NULL, 0);
}

static void nest_start(struct msg *m, uint16_t type)
{
	struct nlattr *a;

	if (m->depth >= NEST_DEPTH) {
		m->overflow = true;
		return;
	}
	/* Under chaos, a nest may lose its NLA_F_NESTED bit or change type. */
	if (m->chaos && chance(m->chaos / 2 + 1))
		type = chance(50) ? below(FARE_A_MAX + 4) : type;
	else
		type |= NLA_F_NESTED;
	note(m, " %u{", type & NLA_TYPE_MASK);
	m->nest[m->depth++] = m->len;
	a = msg_reserve(m, NLA_HDRLEN);
	if (a)
		a->nla_type = type;
}

static void nest_end(struct msg *m)
{
	struct nlattr *a;
	size_t len;

	if (!m->depth)
		return;
	a = (struct nlattr *)(m->buf + m->nest[--m->depth]);
	len = m->len - m->nest[m->depth];
	if (len > 0xffff) {
		/* Too long for one attribute: keep it well formed, shorter. */
		m->len = m->nest[m->depth] + 0xfffc;
		len = 0xfffc;
		m->overflow = false;
	}
	a->nla_len = len;
	note(m, " }");
}

static void msg_end(struct msg *m)
{
	while (m->depth)
		nest_end(m);
	m->nlh.nlmsg_len = m->len;
}

/* ---- netlink sockets ---- */

struct answer {
	int error;		/* 0 = acked; <0 = refused */
	bool extack;		/* NLMSGERR_ATTR_MSG present */
	char text[256];
	unsigned int replies;	/* messages of a dump or an echo */
	bool timeout;
};

static uint32_t seq;

static int nl_open(int proto)
{
	struct timeval tv = { .tv_sec = 60 };
	int one = 1, fd, size = 4 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Reads the extack message of an error or done message into @a. */
static void read_extack(const struct nlmsghdr *nlh, size_t off,
			struct answer *a)
{
	const struct nlattr *at;
	size_t end = nlh->nlmsg_len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = NLMSG_ALIGN(off);
	while (off + NLA_HDRLEN <= end) {
		at = (const struct nlattr *)((const char *)nlh + off);
		if (at->nla_len < NLA_HDRLEN || off + at->nla_len > end)
			break;
		/*
		 * The kernel's own refusal of a missing attribute
		 * (GENL_REQ_ATTR_CHECK) names it in NLMSGERR_ATTR_MISS_TYPE
		 * instead of a text: userland (libfare, ynl) turns that into
		 * "missing attribute X", so it counts as a message too.
		 */
		if ((at->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MISS_TYPE &&
		    at->nla_len >= NLA_HDRLEN + 4 && !a->extack) {
			uint32_t t;

			memcpy(&t, (const char *)at + NLA_HDRLEN, 4);
			a->extack = true;
			snprintf(a->text, sizeof(a->text),
				 "missing attribute %u", t);
		}
		if ((at->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    at->nla_len > NLA_HDRLEN) {
			a->extack = true;
			snprintf(a->text, sizeof(a->text), "%.*s",
				 (int)(at->nla_len - NLA_HDRLEN),
				 (const char *)at + NLA_HDRLEN);
		}
		off += NLA_ALIGN(at->nla_len);
	}
}

/*
 * Sends @m with NLM_F_ACK and reads until its ack, error or end of dump.
 * Returns -1 if the socket failed (send or receive), 0 otherwise.
 */
static int nl_talk(int fd, struct msg *m, struct answer *a,
		   void (*each)(const struct nlmsghdr *, void *), void *arg)
{
	static unsigned char rx[RX_MAX];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t my_seq = ++seq;
	ssize_t n;

	memset(a, 0, sizeof(*a));
	m->nlh.nlmsg_seq = my_seq;
	m->nlh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (sendto(fd, m->buf, m->nlh.nlmsg_len, 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		a->error = -errno;
		snprintf(a->text, sizeof(a->text), "send: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		const struct nlmsghdr *nlh;
		size_t left;

		n = recv(fd, rx, sizeof(rx), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)	/* dropped notifications */
				continue;
			a->error = -errno;
			a->timeout = errno == EAGAIN;
			snprintf(a->text, sizeof(a->text), "recv: %s",
				 strerror(errno));
			return -1;
		}
		left = n;
		for (nlh = (const void *)rx; NLMSG_OK(nlh, left);
		     nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_seq != my_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				size_t off = NLMSG_HDRLEN + sizeof(*e);

				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				a->error = e->error;
				if (e->error)
					read_extack(nlh, off, a);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
				a->error = err;
				if (err)
					read_extack(nlh, NLMSG_HDRLEN + sizeof(int), a);
				return 0;
			}
			a->replies++;
			if (each)
				each(nlh, arg);
		}
	}
}

/* ---- generic netlink: the family id ---- */

static uint16_t family_id;

static void family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *at;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	(void)arg;
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		at = (const void *)((const char *)nlh + off);
		if (at->nla_len < NLA_HDRLEN)
			break;
		if (at->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(&family_id, (const char *)at + NLA_HDRLEN, 2);
		off += NLA_ALIGN(at->nla_len);
	}
}

/* 0 if the family is registered (family_id set), -1 if not. */
static int resolve_family(int fd)
{
	struct genlmsghdr *g;
	struct answer a;
	static struct msg m;

	family_id = 0;
	m.chaos = 0;
	msg_init(&m, GENL_ID_CTRL, 0);
	g = msg_reserve(&m, GENL_HDRLEN);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	put_raw(&m, CTRL_ATTR_FAMILY_NAME, FARE_GENL_NAME,
		sizeof(FARE_GENL_NAME));
	msg_end(&m);
	if (nl_talk(fd, &m, &a, family_cb, NULL) || a.error || !family_id)
		return -1;
	return 0;
}

/* ---- namespaces (slots) and their devices ---- */

struct slot {
	bool live;
	bool moved_in;		/* fare0 came from another namespace */
	int nsfd;
	int genl, rtnl, udp4, udp6;
};

static struct slot slots[SLOTS_MAX];
static unsigned int nslots = 3;
static int home_ns = -1;

static struct {
	unsigned long execs, acked, refused, core, no_extack, no_answer;
	unsigned long datagrams, netns_ops, dev_ops, sysctls, dumps;
} st;

static bool trace;

static void die(const char *what)
{
	fprintf(stderr, "genl-fuzz: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void enter(const struct slot *s)
{
	if (setns(s->nsfd, CLONE_NEWNET))
		die("setns");
}

static void leave(void)
{
	if (setns(home_ns, CLONE_NEWNET))
		die("setns home");
}

/* A request to the slot's rtnetlink; returns the kernel's error or 0. */
static int rtnl_do(struct slot *s, struct msg *m)
{
	struct answer a;

	msg_end(m);
	if (nl_talk(s->rtnl, m, &a, NULL, NULL))
		return a.error ? a.error : -EIO;
	return a.error;
}

static void rt_link_hdr(struct msg *m, uint16_t type, uint16_t flags,
			int ifindex, unsigned int change, unsigned int iff)
{
	struct ifinfomsg *ifi;

	m->chaos = 0;
	msg_init(m, type, flags);
	ifi = msg_reserve(m, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_change = change;
	ifi->ifi_flags = iff;
}

static void ifindex_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);

	if (nlh->nlmsg_type == RTM_NEWLINK &&
	    nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifi)))
		*(int *)arg = ifi->ifi_index;
}

/* The ifindex of @name in the slot's namespace, 0 if none (no setns). */
static int ifindex_in(struct slot *s, const char *name)
{
	static struct msg m;
	struct answer a;
	int idx = 0;

	rt_link_hdr(&m, RTM_GETLINK, 0, 0, 0, 0);
	put_raw(&m, IFLA_IFNAME, name, strlen(name) + 1);
	msg_end(&m);
	if (nl_talk(s->rtnl, &m, &a, ifindex_cb, &idx) || a.error)
		return 0;
	return idx;
}

static int link_add(struct slot *s, const char *name, const char *kind,
		    const char *peer)
{
	static struct msg m;

	rt_link_hdr(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, 0, 0);
	put_raw(&m, IFLA_IFNAME, name, strlen(name) + 1);
	nest_start(&m, IFLA_LINKINFO);
	put_raw(&m, IFLA_INFO_KIND, kind, strlen(kind));
	if (peer) {
		struct ifinfomsg *ifi;

		nest_start(&m, IFLA_INFO_DATA);
		nest_start(&m, VETH_INFO_PEER);
		ifi = msg_reserve(&m, sizeof(*ifi));
		(void)ifi;
		put_raw(&m, IFLA_IFNAME, peer, strlen(peer) + 1);
		nest_end(&m);
		nest_end(&m);
	}
	nest_end(&m);
	return rtnl_do(s, &m);
}

static int link_set(struct slot *s, int ifindex, int up, int mtu, int nsfd)
{
	static struct msg m;

	rt_link_hdr(&m, RTM_NEWLINK, 0, ifindex, up < 0 ? 0 : IFF_UP,
		    up > 0 ? IFF_UP : 0);
	if (mtu > 0)
		put_raw(&m, IFLA_MTU, &mtu, 4);
	if (nsfd >= 0)
		put_raw(&m, IFLA_NET_NS_FD, &nsfd, 4);
	return rtnl_do(s, &m);
}

static int link_del(struct slot *s, const char *name)
{
	static struct msg m;

	rt_link_hdr(&m, RTM_DELLINK, 0, 0, 0, 0);
	put_raw(&m, IFLA_IFNAME, name, strlen(name) + 1);
	return rtnl_do(s, &m);
}

static int addr_add(struct slot *s, int ifindex, int family, const void *addr,
		    int plen)
{
	static struct msg m;
	struct ifaddrmsg *ifa;

	m.chaos = 0;
	msg_init(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE);
	ifa = msg_reserve(&m, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_index = ifindex;
	ifa->ifa_flags = IFA_F_NODAD;
	put_raw(&m, IFA_LOCAL, addr, family == AF_INET ? 4 : 16);
	put_raw(&m, IFA_ADDRESS, addr, family == AF_INET ? 4 : 16);
	return rtnl_do(s, &m);
}

static int route_to_dev(struct slot *s, int family, const void *dst, int plen,
			int oif)
{
	static struct msg m;
	struct rtmsg *r;

	m.chaos = 0;
	msg_init(&m, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE);
	r = msg_reserve(&m, sizeof(*r));
	r->rtm_family = family;
	r->rtm_dst_len = plen;
	r->rtm_table = RT_TABLE_MAIN;
	r->rtm_protocol = RTPROT_STATIC;
	r->rtm_scope = RT_SCOPE_LINK;
	r->rtm_type = RTN_UNICAST;
	put_raw(&m, RTA_DST, dst, family == AF_INET ? 4 : 16);
	put_raw(&m, RTA_OIF, &oif, 4);
	return rtnl_do(s, &m);
}

static void write_sysctl(struct slot *s, const char *path, const char *val)
{
	int fd;

	enter(s);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		/* A refused value is fine: the write itself is the test. */
		(void)!write(fd, val, strlen(val));
		close(fd);
	}
	leave();
	st.sysctls++;
}

/* Plane devices of every slot: a dummy and a veth pair. */
static const char *const dev_names[] = { "fz-dummy", "fz-va", "fz-vb" };

static void make_devices(struct slot *s)
{
	uint32_t a4;
	struct in6_addr a6;
	int idx;

	if (link_add(s, "fz-dummy", "dummy", NULL) == 0) {
		idx = ifindex_in(s, "fz-dummy");
		inet_pton(AF_INET, "10.200.0.1", &a4);
		addr_add(s, idx, AF_INET, &a4, 24);
		inet_pton(AF_INET6, "2001:db8:200::1", &a6);
		addr_add(s, idx, AF_INET6, &a6, 64);
		link_set(s, idx, 1, 0, -1);
	}
	if (link_add(s, "fz-va", "veth", "fz-vb") == 0) {
		idx = ifindex_in(s, "fz-va");
		inet_pton(AF_INET, "10.201.0.1", &a4);
		addr_add(s, idx, AF_INET, &a4, 24);
		link_set(s, idx, 1, 0, -1);
		idx = ifindex_in(s, "fz-vb");
		inet_pton(AF_INET, "10.201.0.2", &a4);
		addr_add(s, idx, AF_INET, &a4, 24);
		link_set(s, idx, 1, 0, -1);
	}
	st.dev_ops++;
}

static void slot_close(struct slot *s)
{
	close(s->genl);
	close(s->rtnl);
	close(s->udp4);
	close(s->udp6);
	close(s->nsfd);
	s->live = false;
}

/* Opens the slot's sockets in the current namespace. */
static void slot_sockets(struct slot *s)
{
	s->nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	s->genl = nl_open(NETLINK_GENERIC);
	s->rtnl = nl_open(NETLINK_ROUTE);
	s->udp4 = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s->udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->nsfd < 0 || s->genl < 0 || s->rtnl < 0 || s->udp4 < 0)
		die("slot sockets");
	s->live = true;
	s->moved_in = false;
}

static void slot_new(unsigned int i)
{
	struct slot *s = &slots[i];

	if (i == 0) {
		slot_sockets(s);
	} else {
		if (unshare(CLONE_NEWNET))
			die("unshare");
		slot_sockets(s);
		leave();
		link_set(s, 1, 1, 0, -1);	/* lo */
	}
	make_devices(s);
	st.netns_ops++;
}

/* ---- the request generator ---- */

/* Prefixes the fuzzer's requests and datagrams share. */
struct prefix {
	int family;
	const char *addr;
	int plen;
};

static const struct prefix pool[] = {
	{ AF_INET, "198.51.100.0", 24 },
	{ AF_INET, "198.51.100.0", 26 },
	{ AF_INET, "198.51.100.64", 26 },
	{ AF_INET, "198.51.100.128", 26 },
	{ AF_INET, "203.0.113.0", 24 },
	{ AF_INET, "203.0.113.8", 29 },
	{ AF_INET, "203.0.113.9", 32 },
	{ AF_INET, "0.0.0.0", 0 },
	{ AF_INET6, "2001:db8:100::", 48 },
	{ AF_INET6, "2001:db8:300::", 64 },
	{ AF_INET6, "2001:db8:300::9", 128 },
	{ AF_INET6, "::", 0 },
};

#define POOL_N (sizeof(pool) / sizeof(pool[0]))

static void genl_hdr(struct msg *m, uint8_t cmd)
{
	struct genlmsghdr *g = msg_reserve(m, GENL_HDRLEN);

	g->cmd = cmd;
	g->version = FARE_GENL_VERSION;
	m->cmd = cmd;
	if (m->chaos && chance(3)) {
		g->version = rnd();
		g->reserved = rnd();
		note(m, " hdr:%u/%u", g->version, g->reserved);
	}
}

static uint32_t plane_id(void)
{
	return chance(85) ? 1 + below(6) : any_u32();
}

static int plane_ifindex(struct slot *s)
{
	switch (below(8)) {
	case 0: return any_u32();
	case 1: return 1;
	case 2: return ifindex_in(s, FARE_DEV_NAME);
	case 3: return ifindex_in(s, "fz-vb");
	case 4: return ifindex_in(s, "fz-dummy");
	case 5: return ifindex_in(s, "eth-p1");
	case 6: return ifindex_in(s, "eth-p2");
	default: return ifindex_in(s, "fz-va");
	}
}

static void put_gw(struct msg *m)
{
	static const char *const gw4[] = {
		"10.200.0.2", "10.201.0.2", "10.201.0.1", "10.1.0.1",
		"10.2.0.1", "0.0.0.0", "255.255.255.255", "127.0.0.1",
		"224.0.0.1",
	};
	static const char *const gw6[] = {
		"2001:db8:200::2", "fe80::1", "::", "::1", "ff02::1",
		"2001:db8:1::1", "::ffff:10.200.0.2",
	};
	unsigned char a[16];

	if (chance(80)) {
		inet_pton(AF_INET, gw4[below(sizeof(gw4) / sizeof(gw4[0]))], a);
		put(m, FARE_A_PLANE_GW4, a, 4);
	}
	if (chance(40)) {
		inet_pton(AF_INET6, gw6[below(sizeof(gw6) / sizeof(gw6[0]))], a);
		put(m, FARE_A_PLANE_GW6, a, 16);
	}
}

static void put_prefix(struct msg *m)
{
	const struct prefix *p = &pool[below(POOL_N)];
	unsigned char a[16];
	int fam = p->family, plen = p->plen;

	inet_pton(p->family, p->addr, a);
	if (chance(10))
		fam = any_u8();
	if (chance(10))
		plen = any_u8();
	if (chance(10))
		a[below(16)] = rnd();
	put_u8(m, FARE_A_ROUTE_FAMILY, fam);
	put(m, FARE_A_ROUTE_DST, a,
	    chance(95) ? (p->family == AF_INET ? 4 : 16) : below(20));
	put_u8(m, FARE_A_ROUTE_PLEN, plen);
}

/* Mostly the few named ids, sometimes an anonymous one or any. */
static uint32_t group_id(void)
{
	switch (below(10)) {
	case 0: return any_u32();
	case 1: return (uint32_t)FARE_GROUP_ID_MAX + 1 + below(8);
	default: return 1 + below(4);
	}
}

static void put_nexthops(struct msg *m)
{
	unsigned int n, i, tiers;

	/* Mostly a few; sometimes past the limit, or thousands. */
	switch (below(40)) {
	case 0: case 1: case 2: n = FARE_NEXTHOP_MAX - 1 + below(3); break;
	case 3: n = 100 + below(1500); break;
	case 4: case 5: n = 0; break;
	default: n = 1 + below(4); break;
	}
	tiers = chance(10) ? 256 : 1 + below(3);
	nest_start(m, FARE_A_ROUTE_NEXTHOPS);
	for (i = 0; i < n && !m->overflow; i++) {
		unsigned int chaos_before = m->chaos;

		if (n > 8)	/* keep the summary of huge groups short */
			m->chaos = 0;
		nest_start(m, chance(98) ? FARE_A_NEXTHOPS_ENTRY : any_u8());
		put_u32(m, FARE_A_NH_PLANE_ID,
			n > 8 ? 1 + (i % 255) : plane_id());
		if (chance(90))
			put_u32(m, FARE_A_NH_WEIGHT,
				chance(80) ? 1 + below(100) : any_u32());
		if (chance(50))
			put_u8(m, FARE_A_NH_TIER,
			       tiers == 256 ? i % 256 : below(tiers));
		if (chance(20))
			put_u64(m, FARE_A_NH_BANDWIDTH, any_u64());
		if (chance(5))	/* read-only counters in a request */
			put_u64(m, FARE_A_NH_TX_PACKETS, any_u64());
		nest_end(m);
		m->chaos = chaos_before;
	}
	if (n > 8)
		note(m, " [%u hops, %u tiers]", n, tiers);
	nest_end(m);
}

/* Builds one request of the family for slot @s into @m. */
static void gen_request(struct slot *s, struct msg *m)
{
	static const unsigned int chaos_levels[] = { 0, 0, 0, 2, 10, 30 };
	uint16_t flags = 0;
	uint8_t cmd;
	unsigned char tier_hops[12];
	unsigned int i, n;

	m->chaos = chaos_levels[below(6)];
	cmd = chance(97) ? 1 + below(FARE_CMD_MAX) : any_u8();
	if (chance(15))
		flags |= NLM_F_DUMP;
	if (m->chaos && chance(10))
		flags |= (uint16_t)rnd() & ~(NLM_F_DUMP | NLM_F_ACK_TLVS);
	msg_init(m, family_id, flags);
	if (m->chaos && chance(1)) {
		/* A header too short for genl: the core refuses it. */
		note(m, "short");
		m->cmd = cmd;
		m->core = true;
		msg_end(m);
		return;
	}
	genl_hdr(m, cmd);
	if (cmd < 1 || cmd > FARE_CMD_MAX)
		m->core = true;
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP &&
	    cmd != FARE_CMD_PLANE_GET && cmd != FARE_CMD_ROUTE_GET &&
	    cmd != FARE_CMD_GROUP_GET)
		m->core = true;

	switch (cmd) {
	case FARE_CMD_PLANE_NEW:
		put_u32(m, FARE_A_PLANE_ID, plane_id());
		put_u32(m, FARE_A_PLANE_IFINDEX, plane_ifindex(s));
		put_gw(m);
		if (chance(40))
			put_flag(m, FARE_A_REPLACE);
		break;
	case FARE_CMD_PLANE_DEL:
	case FARE_CMD_PLANE_GET:
		if (chance(90))
			put_u32(m, FARE_A_PLANE_ID, plane_id());
		break;
	case FARE_CMD_ROUTE_NEW:
		put_prefix(m);
		if (chance(70))
			put_u8(m, FARE_A_ROUTE_MODE,
			       chance(85) ? below(4) : any_u8());
		if (chance(30))
			put_u8(m, FARE_A_ROUTE_TCP_MODE,
			       chance(85) ? below(4) : any_u8());
		/* Inline next hops, a named group, both or neither. */
		i = below(10);
		if (i < 6 || i == 9)
			put_nexthops(m);
		if (i >= 6)
			put_u32(m, FARE_A_ROUTE_GROUP_ID, group_id());
		if (chance(30))
			put_u8(m, FARE_A_ROUTE_STATS,
			       chance(90) ? below(2) : any_u8());
		if (chance(50))
			put_flag(m, FARE_A_REPLACE);
		break;
	case FARE_CMD_GROUP_NEW:
		if (chance(95))
			put_u32(m, FARE_A_GROUP_ID, group_id());
		if (chance(95))
			put_nexthops(m);
		if (chance(50))
			put_flag(m, FARE_A_REPLACE);
		break;
	case FARE_CMD_GROUP_DEL:
	case FARE_CMD_GROUP_GET:
		if (chance(90))
			put_u32(m, FARE_A_GROUP_ID, group_id());
		break;
	case FARE_CMD_ROUTE_DEL:
	case FARE_CMD_ROUTE_GET:
		put_prefix(m);
		break;
	case FARE_CMD_CONFIG_SET:
		if (chance(50))
			put_u8(m, FARE_A_CONFIG_MODE,
			       chance(70) ? 1 + below(3) : any_u8());
		if (chance(40))
			put_u32(m, FARE_A_CONFIG_FLOWLET_US,
				chance(60) ? 1 + below(2000) : any_u32());
		if (chance(30))
			put_u32(m, FARE_A_CONFIG_HASH_SEED, rnd());
		if (chance(30)) {
			n = below(sizeof(tier_hops) + 1);
			for (i = 0; i < n; i++)
				tier_hops[i] = chance(80) ? 1 + below(8) : any_u8();
			put(m, FARE_A_CONFIG_TIER_HOPS, tier_hops, n);
		}
		if (chance(30))
			put_u32(m, FARE_A_CONFIG_SPILL_BIAS, any_u32());
		if (chance(10))
			put_u8(m, FARE_A_CONFIG_ROUTE_STATS,
			       chance(90) ? below(2) : any_u8());
		/*
		 * Never below what session() needs (one group per pool
		 * prefix): past the policy's bound or at least 64.
		 */
		if (chance(5))
			put_u32(m, FARE_A_CONFIG_MAX_GROUPS,
				chance(80) ? 64 + below(1 << 20) :
				FARE_MAX_GROUPS_LIMIT + 1 + below(1000));
		/*
		 * A resize under the traffic the fuzzer sends: mostly small
		 * powers of two (a guest of 1 GiB and many resizes in
		 * flight), sometimes any size, refused unless a power of
		 * two in range.
		 */
		if (chance(5))
			put_u32(m, FARE_A_CONFIG_FLOWLET_SLOTS, chance(80) ?
				(uint32_t)FARE_FLOWLET_SLOTS_MIN << below(7) :
				any_u32());
		/* Gateway skipping on and off: the probe work armed, idle. */
		if (chance(10))
			put_u8(m, FARE_A_CONFIG_USE_NEIGH,
			       chance(90) ? below(2) : any_u8());
		/*
		 * The memory budget: mostly a few MiB (so that routes and
		 * groups meet it), sometimes anything, refused past the limit.
		 */
		if (chance(5))
			put_u64(m, FARE_A_CONFIG_MEMORY_BUDGET, chance(80) ?
				(uint64_t)(1 + below(64)) << 20 : any_u64());
		break;
	default:
		break;
	}
	/* Read-only or foreign attributes, random ones, huge ones. */
	if (m->chaos) {
		n = chance(50) ? below(4) : 0;
		for (i = 0; i < n; i++) {
			unsigned char junk[32];
			size_t k, len = below(sizeof(junk));

			for (k = 0; k < len; k++)
				junk[k] = rnd();
			put(m, below(FARE_A_MAX + 8), junk, len);
		}
		if (chance(2)) {
			static unsigned char big[16000];

			memset(big, (int)below(256), sizeof(big));
			put(m, below(FARE_A_MAX + 1), big, sizeof(big));
		}
	}
	msg_end(m);
	/* A few flipped bytes past the genl header. */
	if (m->chaos >= 10 && chance(20) && m->len > NLMSG_HDRLEN + GENL_HDRLEN) {
		n = 1 + below(4);
		for (i = 0; i < n; i++) {
			size_t at = NLMSG_HDRLEN + GENL_HDRLEN +
				    below(m->len - NLMSG_HDRLEN - GENL_HDRLEN);

			m->buf[at] ^= 1 << below(8);
		}
		note(m, " flipped:%u", n);
	}
}

static const char *cmd_name(uint8_t cmd);
static unsigned long iter;
static uint64_t seed;

/* Sends a request built without chaos; counts it like any other. */
static bool send_valid(struct slot *s, struct msg *m)
{
	struct answer a;

	msg_end(m);
	st.execs++;
	if (trace)
		fprintf(stderr, "%lu:   valid %s:%s\n", iter, cmd_name(m->cmd),
			m->summary);
	if (nl_talk(s->genl, m, &a, NULL, NULL)) {
		if (a.error == -EMSGSIZE || a.error == -ENOBUFS)
			return true;
		fprintf(stderr, "genl-fuzz: FAIL: no answer (%s) at iteration %lu to %s\n",
			a.text, iter, cmd_name(m->cmd));
		st.no_answer++;
		return false;
	}
	if (!a.error) {
		st.acked++;
		return true;
	}
	if (a.extack) {
		st.refused++;
		if (trace)
			fprintf(stderr, "%lu:   %d %s\n", iter, a.error, a.text);
		return true;
	}
	st.no_extack++;
	fprintf(stderr, "genl-fuzz: FAIL: refusal without extack: error %d (%s) at iteration %lu (seed %" PRIu64 "), command %u %s (well formed), attributes:%s\n",
		a.error, strerror(-a.error), iter, seed, m->cmd,
		cmd_name(m->cmd), m->summary);
	return false;
}

static void send_traffic(struct slot *s, unsigned int slot_i,
			 const struct prefix *p);

/*
 * A session of well-formed requests that a user would send: up to 70
 * planes on one of the slot's devices, then a route of the pool with up to
 * FARE_NEXTHOP_MAX next hops over them (one tier, a few, or one tier per
 * hop) in a random mode, then traffic into it.
 */
static bool session(struct slot *s, unsigned int slot_i)
{
	static const char *const gws[] = { "10.201.0.2", "10.200.0.2" };
	static struct msg m;
	unsigned int planes = 1 + below(chance(30) ? 70 : 4), i, n, tiers;
	unsigned int which = below(2);
	int ifindex = ifindex_in(s, which ? "fz-dummy" : "fz-va");
	const struct prefix *p = &pool[below(POOL_N)];
	unsigned char a[16];
	uint32_t gw;
	bool ok = true;

	if (trace)
		fprintf(stderr, "%lu: slot %u session: %u planes\n", iter,
			slot_i, planes);
	inet_pton(AF_INET, gws[which], &gw);
	for (i = 1; i <= planes && ok; i++) {
		m.chaos = 0;
		msg_init(&m, family_id, 0);
		genl_hdr(&m, FARE_CMD_PLANE_NEW);
		put_u32(&m, FARE_A_PLANE_ID, i);
		put_u32(&m, FARE_A_PLANE_IFINDEX, ifindex);
		put_u32(&m, FARE_A_PLANE_GW4, gw);
		if (chance(30)) {
			inet_pton(AF_INET6, "2001:db8:200::2", a);
			put(&m, FARE_A_PLANE_GW6, a, 16);
		}
		put_flag(&m, FARE_A_REPLACE);
		ok = send_valid(s, &m);
	}
	n = planes < FARE_NEXTHOP_MAX ? planes : FARE_NEXTHOP_MAX;
	tiers = chance(40) ? n : 1 + below(3);
	m.chaos = 0;
	msg_init(&m, family_id, 0);
	genl_hdr(&m, FARE_CMD_ROUTE_NEW);
	inet_pton(p->family, p->addr, a);
	put_u8(&m, FARE_A_ROUTE_FAMILY, p->family);
	put(&m, FARE_A_ROUTE_DST, a, p->family == AF_INET ? 4 : 16);
	put_u8(&m, FARE_A_ROUTE_PLEN, p->plen);
	put_u8(&m, FARE_A_ROUTE_MODE, chance(40) ? FARE_MODE_FLOWLET : below(4));
	nest_start(&m, FARE_A_ROUTE_NEXTHOPS);
	for (i = 0; i < n; i++) {
		nest_start(&m, FARE_A_NEXTHOPS_ENTRY);
		put_u32(&m, FARE_A_NH_PLANE_ID, i + 1);
		put_u32(&m, FARE_A_NH_WEIGHT, 1 + below(10));
		put_u8(&m, FARE_A_NH_TIER, tiers == n ? i : below(tiers));
		if (chance(30))
			put_u64(&m, FARE_A_NH_BANDWIDTH, 1000000 + below(1000000));
		nest_end(&m);
	}
	nest_end(&m);
	put_flag(&m, FARE_A_REPLACE);
	if (ok)
		ok = send_valid(s, &m);
	send_traffic(s, slot_i, p);
	return ok;
}

static const char *cmd_name(uint8_t cmd)
{
	static const char *const names[] = {
		"unspec", "plane-new", "plane-del", "plane-get", "route-new",
		"route-del", "route-get", "config-set", "config-get",
		"stats-get", "group-new", "group-del", "group-get",
	};

	return cmd < sizeof(names) / sizeof(names[0]) ? names[cmd] : "unknown";
}

/* Sends a request and checks its answer; false on a failure. */
static bool fuzz_request(struct slot *s, unsigned int slot_i)
{
	static struct msg m;
	struct answer a;

	gen_request(s, &m);
	st.execs++;
	if (m.nlh.nlmsg_flags & NLM_F_DUMP)
		st.dumps++;
	if (trace)
		fprintf(stderr, "%lu: slot %u genl %s flags %#x:%s\n", iter,
			slot_i, cmd_name(m.cmd), m.nlh.nlmsg_flags, m.summary);
	if (nl_talk(s->genl, &m, &a, NULL, NULL)) {
		if (a.error == -EMSGSIZE || a.error == -ENOBUFS ||
		    a.error == -ENOMEM)
			return true;	/* too big to send: not the kernel's fault */
		fprintf(stderr, "genl-fuzz: FAIL: no answer (%s) at iteration %lu to %s:%s\n",
			a.text, iter, cmd_name(m.cmd), m.summary);
		st.no_answer++;
		return false;
	}
	if (!a.error) {
		st.acked++;
		return true;
	}
	if (a.extack) {
		st.refused++;
		if (trace)
			fprintf(stderr, "%lu:   %d %s\n", iter, a.error, a.text);
		return true;
	}
	if (m.core) {
		st.core++;
		return true;
	}
	st.no_extack++;
	fprintf(stderr, "genl-fuzz: FAIL: refusal without extack: error %d (%s) at iteration %lu (seed %" PRIu64 "), command %u %s flags %#x, attributes:%s\n",
		a.error, strerror(-a.error), iter, seed, m.cmd,
		cmd_name(m.cmd), m.nlh.nlmsg_flags, m.summary);
	return false;
}

/* Points the pool's prefixes at fare0 and sends a few datagrams into them. */
static void send_traffic(struct slot *s, unsigned int slot_i,
			 const struct prefix *p)
{
	unsigned char a[16];
	unsigned int n = 1 + below(20), i;
	int fare0 = ifindex_in(s, FARE_DEV_NAME);
	char payload[64] = "genl-fuzz";

	if (trace)
		fprintf(stderr, "%lu: slot %u traffic %u to %s/%d (fare0 %d)\n",
			iter, slot_i, n, p->addr, p->plen, fare0);
	inet_pton(p->family, p->addr, a);
	/* A route replace waits for RTNL: only now and then. */
	if (fare0 > 0 && p->plen > 0 && (chance(25) || s->moved_in))
		route_to_dev(s, p->family, a, p->plen, fare0);
	for (i = 0; i < n; i++) {
		if (p->family == AF_INET) {
			struct sockaddr_in sin = {
				.sin_family = AF_INET,
				.sin_port = htons(9000 + below(64)),
			};

			memcpy(&sin.sin_addr, a, 4);
			if (p->plen < 32)
				((unsigned char *)&sin.sin_addr)[3] |= 1 + below(7);
			sendto(s->udp4, payload, 1 + below(sizeof(payload)), 0,
			       (struct sockaddr *)&sin, sizeof(sin));
		} else if (s->udp6 >= 0) {
			struct sockaddr_in6 sin6 = {
				.sin6_family = AF_INET6,
				.sin6_port = htons(9000 + below(64)),
			};

			memcpy(&sin6.sin6_addr, a, 16);
			if (p->plen < 128)
				sin6.sin6_addr.s6_addr[15] |= 1 + below(7);
			sendto(s->udp6, payload, 1 + below(sizeof(payload)), 0,
			       (struct sockaddr *)&sin6, sizeof(sin6));
		}
		st.datagrams++;
	}
}

static void sysctl_op(struct slot *s, unsigned int slot_i)
{
	static const char *const paths[] = {
		"/proc/sys/net/ipv6/conf/all/disable_ipv6",
		"/proc/sys/net/ipv6/conf/default/disable_ipv6",
		"/proc/sys/net/ipv6/conf/fare0/disable_ipv6",
		"/proc/sys/net/ipv6/conf/fz-dummy/disable_ipv6",
		"/proc/sys/net/ipv6/conf/all/forwarding",
		"/proc/sys/net/ipv4/ip_forward",
		"/proc/sys/net/ipv4/conf/all/rp_filter",
		"/proc/sys/net/ipv6/conf/fare0/mtu",
		"/proc/sys/net/ipv4/neigh/default/gc_thresh3",
	};
	const char *path = paths[below(sizeof(paths) / sizeof(paths[0]))];
	char val[16];

	if (strstr(path, "mtu"))
		snprintf(val, sizeof(val), "%u", 1200 + below(8000));
	else if (strstr(path, "gc_thresh"))
		snprintf(val, sizeof(val), "%u", 4 + below(2048));
	else
		snprintf(val, sizeof(val), "%u", below(2));
	if (trace)
		fprintf(stderr, "%lu: slot %u sysctl %s=%s\n", iter, slot_i,
			path, val);
	write_sysctl(s, path, val);
}

static void device_op(struct slot *s, unsigned int slot_i)
{
	const char *name = chance(30) ? FARE_DEV_NAME :
			   dev_names[below(sizeof(dev_names) /
					   sizeof(dev_names[0]))];
	int idx = ifindex_in(s, name), what = below(4), err = 0;

	if (what == 3 && strcmp(name, FARE_DEV_NAME)) {
		err = link_del(s, name);
		make_devices(s);
	} else if (idx > 0) {
		if (what == 0)
			err = link_set(s, idx, 0, 0, -1);
		else if (what == 1)
			err = link_set(s, idx, 1, 0, -1);
		else
			err = link_set(s, idx, -1, chance(80) ? 1280 + below(8000) :
					   any_u32() & 0xffff, -1);
	}
	st.dev_ops++;
	if (trace)
		fprintf(stderr, "%lu: slot %u device %s op %d: %d\n", iter,
			slot_i, name, what, err);
}

/* After a move, the next steps go to the namespace fare0 moved into. */
static unsigned int hot_slot, hot_left;

static void fare0_op(unsigned int from, unsigned int to)
{
	struct slot *s = &slots[from];
	int idx = ifindex_in(s, FARE_DEV_NAME), err = 0, what = below(3);
	static struct msg m;

	if (what == 0 && idx > 0) {
		err = link_del(s, FARE_DEV_NAME);
		if (!err)
			s->moved_in = false;
	} else if (what == 1) {
		rt_link_hdr(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, 0, 0);
		put_raw(&m, IFLA_IFNAME, FARE_DEV_NAME, sizeof(FARE_DEV_NAME));
		nest_start(&m, IFLA_LINKINFO);
		put_raw(&m, IFLA_INFO_KIND, "fare", 4);
		nest_end(&m);
		err = rtnl_do(s, &m);
		if (!err)
			link_set(s, ifindex_in(s, FARE_DEV_NAME), 1, 0, -1);
	} else if (idx > 0 && slots[to].live) {
		err = link_set(s, idx, -1, 0, slots[to].nsfd);
		if (!err) {
			s->moved_in = false;
			slots[to].moved_in = true;
			hot_slot = to;
			hot_left = 10;
		}
	}
	st.dev_ops++;
	if (trace)
		fprintf(stderr, "%lu: fare0 %s slot %u -> %u: %d\n", iter,
			what == 0 ? "delete" : what == 1 ? "create" : "move",
			from, to, err);
}

static void dump_all(struct slot *s)
{
	static struct msg m;
	struct answer a;

	m.chaos = 0;
	msg_init(&m, family_id, NLM_F_DUMP);
	genl_hdr(&m, chance(50) ? FARE_CMD_ROUTE_GET : FARE_CMD_PLANE_GET);
	msg_end(&m);
	st.execs++;
	st.dumps++;
	if (nl_talk(s->genl, &m, &a, NULL, NULL) == 0 && !a.error)
		st.acked++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void kmsg(const char *text)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		(void)!write(fd, text, strlen(text));
		close(fd);
	}
}

enum op_kind {
	OP_REQUEST, OP_TRAFFIC, OP_DUMP, OP_FARE0, OP_SYSCTL, OP_DEVICE,
	OP_NETNS, OP_SESSION, OP_KINDS
};

static const char *const op_names[OP_KINDS] = {
	"request", "traffic", "dump", "fare0", "sysctl", "device", "netns",
	"session",
};

static int fuzz(double seconds, unsigned long iterations)
{
	double start = now(), elapsed, t0, op_time[OP_KINDS] = { 0 };
	unsigned long op_count[OP_KINDS] = { 0 };
	enum op_kind kind;
	unsigned int i, failures = 0;
	char line[128];

	for (i = 0; i < nslots; i++)
		slot_new(i);
	if (resolve_family(slots[0].genl)) {
		fprintf(stderr, "genl-fuzz: the family \"%s\" is not registered (fare.ko loaded?)\n",
			FARE_GENL_NAME);
		return 1;
	}
	for (iter = 0; (!iterations || iter < iterations) &&
	     (!seconds || now() - start < seconds); iter++) {
		unsigned int k = chance(50) ? 0 : below(nslots), r = below(100);

		if (hot_left) {
			hot_left--;
			k = hot_slot;
		}

		/* Mostly requests; a namespace goes in one step of 200. */
		if (r == 99 && chance(50))
			r = 0;
		struct slot *s = &slots[k];

		if (iter % 1000 == 0) {
			snprintf(line, sizeof(line),
				 "genl-fuzz: seed %" PRIu64 " iteration %lu\n",
				 seed, iter);
			kmsg(line);
		}
		if (!s->live) {
			if (trace)
				fprintf(stderr, "%lu: slot %u new netns\n", iter, k);
			t0 = now();
			slot_new(k);
			op_time[OP_NETNS] += now() - t0;
			op_count[OP_NETNS]++;
			continue;
		}
		t0 = now();
		if (r < 3 || (hot_left && r < 40)) {
			kind = OP_SESSION;
			if (!session(s, k))
				failures++;
		} else if (r < 85) {
			kind = OP_REQUEST;
			if (!fuzz_request(s, k))
				failures++;
		} else if (r < 91) {
			kind = OP_TRAFFIC;
			send_traffic(s, k, &pool[below(POOL_N)]);
		} else if (r < 93) {
			kind = OP_DUMP;
			dump_all(s);
		} else if (r < 95) {
			unsigned int to = below(nslots), j;

			kind = OP_FARE0;
			/* A move goes to a namespace without fare0 if any. */
			for (j = 0; j < nslots; j++) {
				unsigned int c = (to + j) % nslots;

				if (c != k && slots[c].live &&
				    ifindex_in(&slots[c], FARE_DEV_NAME) == 0) {
					to = c;
					break;
				}
			}
			fare0_op(k, to);
		} else if (r < 97) {
			kind = OP_SYSCTL;
			sysctl_op(s, k);
		} else if (r < 99) {
			kind = OP_DEVICE;
			device_op(s, k);
		} else {
			kind = OP_NETNS;
			if (k != 0) {
				if (trace)
					fprintf(stderr, "%lu: slot %u netns delete\n",
						iter, k);
				slot_close(s);
				st.netns_ops++;
			}
		}
		op_time[kind] += now() - t0;
		op_count[kind]++;
		if (failures > 20)
			break;
	}
	elapsed = now() - start;
	for (i = 1; i < nslots; i++)
		if (slots[i].live)
			slot_close(&slots[i]);
	printf("genl-fuzz: seed %" PRIu64 ": %lu iterations, %lu requests in %.1f s (%.1f/s): %lu acked, %lu refused with extack, %lu refused by the genl core, %lu refused without extack, %lu unanswered; %lu dumps, %lu datagrams, %lu device ops, %lu netns ops, %lu sysctl writes\n",
	       seed, iter, st.execs, elapsed, st.execs / (elapsed > 0 ? elapsed : 1),
	       st.acked, st.refused, st.core, st.no_extack, st.no_answer,
	       st.dumps, st.datagrams, st.dev_ops, st.netns_ops, st.sysctls);
	printf("genl-fuzz: time per kind of step:");
	for (kind = 0; kind < OP_KINDS; kind++)
		printf(" %s %lu x %.1f ms", op_names[kind], op_count[kind],
		       op_count[kind] ? op_time[kind] * 1000 / op_count[kind] : 0);
	printf("\n");
	if (failures || st.no_extack || st.no_answer) {
		printf("genl-fuzz: FAILED (replay: --seed %" PRIu64 " --iterations %lu --trace)\n",
		       seed, iter);
		return 1;
	}
	printf("genl-fuzz: passed\n");
	return 0;
}

/* ---- churn: the stress scenario's writer ---- */

struct churn_plane {
	uint32_t id;
	char ifname[IFNAMSIZ];
	uint32_t gw4;
	bool spare;
};

static struct churn_plane cplanes[16];
static unsigned int ncplanes;

static bool churn_send(struct slot *s, struct msg *m, unsigned long *acked,
		       unsigned long *refused)
{
	struct answer a;

	msg_end(m);
	st.execs++;
	if (nl_talk(s->genl, m, &a, NULL, NULL)) {
		fprintf(stderr, "genl-fuzz: churn: no answer: %s\n", a.text);
		st.no_answer++;
		return false;
	}
	if (!a.error) {
		(*acked)++;
		return true;
	}
	if (!a.extack && (a.error == -ENOENT ||
			  (a.error == -EPROTONOSUPPORT &&
			   (m->nlh.nlmsg_flags & NLM_F_DUMP)))) {
		/*
		 * The family went away with the module (-ENOENT), or the
		 * module is on its way out: the netlink core refuses a dump
		 * whose module it cannot pin (__netlink_dump_start()) while
		 * the family is still registered. Look it up again.
		 */
		st.core++;
		family_id = 0;
		return true;
	}
	if (!a.extack) {
		st.no_extack++;
		fprintf(stderr, "genl-fuzz: churn: FAIL: %s refused without extack: %d\n",
			cmd_name(m->cmd), a.error);
		return false;
	}
	(*refused)++;
	return true;
}

static int churn(double seconds, unsigned int interval_us, uint32_t keep_dst,
		 int keep_plen)
{
	struct slot *s = &slots[0];
	unsigned long acked = 0, refused = 0, ops = 0;
	double start = now(), elapsed;
	static struct msg m;
	bool ok = true;

	slot_sockets(s);
	while (now() - start < seconds) {
		unsigned int r = below(100), i, n;
		struct churn_plane *p = &cplanes[below(ncplanes)];

		if (!family_id && resolve_family(s->genl)) {
			usleep(20000);
			continue;
		}
		if (!family_id)
			continue;
		m.chaos = 0;
		msg_init(&m, family_id, 0);
		ops++;
		if (r < 15 && !p->spare) {
			/* Planes in use come back after a reload. */
			genl_hdr(&m, FARE_CMD_PLANE_NEW);
			put_u32(&m, FARE_A_PLANE_ID, p->id);
			put_u32(&m, FARE_A_PLANE_IFINDEX, if_nametoindex(p->ifname));
			put_u32(&m, FARE_A_PLANE_GW4, p->gw4);
			put_flag(&m, FARE_A_REPLACE);
		} else if (r < 25 && p->spare) {
			genl_hdr(&m, chance(50) ? FARE_CMD_PLANE_DEL :
				 FARE_CMD_PLANE_NEW);
			put_u32(&m, FARE_A_PLANE_ID, p->id);
			if (m.cmd == FARE_CMD_PLANE_NEW) {
				put_u32(&m, FARE_A_PLANE_IFINDEX,
					if_nametoindex(p->ifname));
				put_u32(&m, FARE_A_PLANE_GW4, p->gw4);
				put_flag(&m, FARE_A_REPLACE);
			}
		} else if (r < 70) {
			/* The kept route or a longer one inside it. */
			uint32_t dst = ntohl(keep_dst);
			int plen = keep_plen;

			if (r >= 40) {
				plen = keep_plen + 1 + below(32 - keep_plen);
				dst |= below(1u << (32 - keep_plen));
				dst &= plen ? ~0u << (32 - plen) : 0;
				if (chance(50))	/* the traffic's destination */
					dst = (ntohl(keep_dst) + 1) &
					      (~0u << (32 - plen));
			}
			dst = htonl(dst);
			genl_hdr(&m, r >= 55 ? FARE_CMD_ROUTE_DEL :
				 FARE_CMD_ROUTE_NEW);
			put_u8(&m, FARE_A_ROUTE_FAMILY, AF_INET);
			put_u32(&m, FARE_A_ROUTE_DST, dst);
			put_u8(&m, FARE_A_ROUTE_PLEN, plen);
			if (m.cmd == FARE_CMD_ROUTE_NEW) {
				put_u8(&m, FARE_A_ROUTE_MODE, 1 + below(3));
				nest_start(&m, FARE_A_ROUTE_NEXTHOPS);
				n = 1 + below(ncplanes);
				for (i = 0; i < n; i++) {
					struct churn_plane *q = &cplanes[(i + r) % ncplanes];

					/* The kept route uses planes in use only. */
					if (r < 40 && q->spare)
						continue;
					nest_start(&m, FARE_A_NEXTHOPS_ENTRY);
					put_u32(&m, FARE_A_NH_PLANE_ID, q->id);
					put_u32(&m, FARE_A_NH_WEIGHT, 1 + below(1000));
					put_u8(&m, FARE_A_NH_TIER, below(3));
					nest_end(&m);
				}
				nest_end(&m);
				put_flag(&m, FARE_A_REPLACE);
			}
		} else if (r < 80) {
			genl_hdr(&m, FARE_CMD_CONFIG_SET);
			put_u8(&m, FARE_A_CONFIG_MODE, 1 + below(3));
			put_u32(&m, FARE_A_CONFIG_FLOWLET_US, 50 + below(500));
		} else if (r < 90) {
			m.nlh.nlmsg_flags = NLM_F_DUMP;
			genl_hdr(&m, chance(50) ? FARE_CMD_ROUTE_GET :
				 FARE_CMD_PLANE_GET);
		} else {
			genl_hdr(&m, FARE_CMD_STATS_GET);
		}
		if (!churn_send(s, &m, &acked, &refused)) {
			ok = false;
			if (st.no_answer + st.no_extack > 20)
				break;
		}
		if (interval_us)
			usleep(interval_us);
	}
	elapsed = now() - start;
	printf("genl-fuzz churn: seed %" PRIu64 ": %lu requests in %.1f s (%.1f/s): %lu acked, %lu refused with extack, %lu without family (module away), %lu refused without extack, %lu unanswered\n",
	       seed, ops, elapsed, ops / (elapsed > 0 ? elapsed : 1), acked,
	       refused, st.core, st.no_extack, st.no_answer);
	return ok ? 0 : 1;
}

/* ---- options ---- */

static int usage(void)
{
	fprintf(stderr,
		"usage: genl-fuzz [--seed N] [--seconds S] [--iterations N] [--slots N] [--trace]\n"
		"       genl-fuzz churn --plane ID:IFNAME:GW4 [--plane ...] [--spare ID]...\n"
		"                 --keep PREFIX [--seed N] [--seconds S] [--interval-us U]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double seconds = 0;
	unsigned long iterations = 0;
	unsigned int interval_us = 2000;
	bool do_churn = false, have_seed = false;
	uint32_t keep_dst = 0;
	int keep_plen = -1, i;

	if (argc > 1 && !strcmp(argv[1], "churn")) {
		do_churn = true;
		argv++;
		argc--;
	}
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--trace")) {
			trace = true;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(o, "--seed")) {
			seed = strtoull(v, NULL, 0);
			have_seed = true;
		} else if (!strcmp(o, "--seconds")) {
			seconds = atof(v);
		} else if (!strcmp(o, "--iterations")) {
			iterations = strtoul(v, NULL, 0);
		} else if (!strcmp(o, "--slots")) {
			nslots = atoi(v);
			if (nslots < 1 || nslots > SLOTS_MAX)
				return usage();
		} else if (!strcmp(o, "--interval-us")) {
			interval_us = strtoul(v, NULL, 0);
		} else if (!strcmp(o, "--plane") || !strcmp(o, "--spare")) {
			struct churn_plane *p;
			char gw[64];

			if (!strcmp(o, "--spare")) {
				unsigned int id = strtoul(v, NULL, 0), k;

				for (k = 0; k < ncplanes; k++)
					if (cplanes[k].id == id)
						cplanes[k].spare = true;
				continue;
			}
			if (ncplanes == sizeof(cplanes) / sizeof(cplanes[0]))
				return usage();
			p = &cplanes[ncplanes++];
			if (sscanf(v, "%u:%15[^:]:%63s", &p->id, p->ifname, gw) != 3 ||
			    inet_pton(AF_INET, gw, &p->gw4) != 1)
				return usage();
		} else if (!strcmp(o, "--keep")) {
			char addr[64];

			if (sscanf(v, "%63[^/]/%d", addr, &keep_plen) != 2 ||
			    inet_pton(AF_INET, addr, &keep_dst) != 1 ||
			    keep_plen < 1 || keep_plen > 31)
				return usage();
		} else {
			return usage();
		}
	}
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u ^ ts.tv_nsec ^ getpid();
	}
	rng_state = seed;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home_ns < 0)
		die("/proc/self/ns/net");
	if (do_churn) {
		if (!ncplanes || keep_plen < 0 || !seconds)
			return usage();
		printf("genl-fuzz churn: seed %" PRIu64 "\n", seed);
		return churn(seconds, interval_us, keep_dst, keep_plen);
	}
	if (!seconds && !iterations)
		seconds = 60;
	printf("genl-fuzz: seed %" PRIu64 " (replay with --seed %" PRIu64 ")\n",
	       seed, seed);
	return fuzz(seconds, iterations);
}
