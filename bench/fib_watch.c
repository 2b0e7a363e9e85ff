// SPDX-License-Identifier: GPL-2.0-only
/*
 * fib_watch: when did the kernel's FIB reach a state, to a fraction of a
 * second, without asking the daemon that programs it (bench/run-bgp-100k).
 *
 *   fib_watch TABLE COUNT NEXTHOPS
 *	follows the kernel's IPv4 route notifications (RTNLGRP_IPV4_ROUTE)
 *	until table TABLE (a number: 254 is main) has COUNT /32 routes with
 *	NEXTHOPS next hops each. A dump cannot time this (one of 400,000
 *	next hops takes seconds under TCG), nor /proc/net/fib_triestat
 *	(a count of prefixes, not of next hops; each read walks the trie).
 *
 * Prints "ready" once it listens, then "LO1 HI1 LO HI EVENTS", times in
 * seconds since the epoch (as date +%s.%N): COUNT routes existed (with
 * any number of next hops) after LO1 and by HI1, and all had NEXTHOPS
 * after LO and by HI. The kernel queues a notification as it changes the
 * route; the queue is read to empty every 20 ms, so the one that completed
 * the state was queued after the last moment this process found the queue
 * empty (LO) and read by HI. Exits 2 if notifications were lost.
 *
 * The watcher shares the guest's CPUs with the daemon it times, so it
 * costs as little as it can: a socket filter drops other tables'
 * notifications in the kernel (fared's plane routes in table 248 are half
 * of what it makes), and each system call takes up to BATCH of them, with
 * one clock read per batch (the guest's clock is an emulated HPET, a
 * system call of its own for each read).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>

/* How long the queue of notifications fills between two reads of it. */
#define DRAIN_US	20000
/* Notifications per recvmmsg(), and room for each (one route, 4 hops). */
#define BATCH		64
#define SLOT_SIZE	8192
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Next hops per /32, by address: open addressing, a power of two long. */
struct slot {
	uint32_t addr;		/* network order; 0: free */
	uint8_t nh;
};

struct watched {
	struct slot *slots;
	size_t mask;
	uint32_t table;
	long want, nexthops;
	long present, full;	/* routes with any next hop, with nexthops */
	long events;
	size_t used;		/* slots taken */
};

/*
 * The slot to probe first: every bit of the address mixed into the low
 * ones (murmur3's finalizer). A multiplicative hash masked to its low
 * bits saw only the address's low bits, in network order the constant
 * first octets of the bench's 10.128.0.0/9: all 100,000 routes probed
 * from 16 slots of 524,288, and the watcher's scans took 5.7 % of the
 * guest's CPU samples beside the daemon it timed.
 */
static size_t slot_hash(uint32_t addr)
{
	uint32_t x = ntohl(addr);

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static struct slot *lookup(struct watched *e, uint32_t addr)
{
	size_t h = slot_hash(addr) & e->mask;

	while (e->slots[h].addr && e->slots[h].addr != addr)
		h = (h + 1) & e->mask;
	if (!e->slots[h].addr) {
		/* Kept at most half full, so that a probe ends. */
		if (++e->used > e->mask / 2) {
			fprintf(stderr, "fib_watch: over %zu /32s in table "
				"%u\n", e->mask / 2, e->table);
			exit(1);
		}
		e->slots[h].addr = addr;
	}
	return &e->slots[h];
}

static int route_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	uint32_t table = rtm->rtm_table, addr = 0;
	struct watched *e = arg;
	const struct nlattr *a;
	struct slot *s;
	int nh = 0;

	if ((nlh->nlmsg_type != RTM_NEWROUTE &&
	     nlh->nlmsg_type != RTM_DELROUTE) ||
	    rtm->rtm_family != AF_INET || rtm->rtm_dst_len != 32)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_TABLE:
			table = mnl_attr_get_u32(a);
			break;
		case RTA_DST:
			addr = mnl_attr_get_u32(a);
			break;
		case RTA_OIF:
		case RTA_GATEWAY:
			nh = nh ? nh : 1;
			break;
		case RTA_MULTIPATH: {
			const struct rtnexthop *rtnh = mnl_attr_get_payload(a);
			int left = mnl_attr_get_payload_len(a);

			nh = 0;
			while (left >= (int)sizeof(*rtnh) &&
			       rtnh->rtnh_len >= sizeof(*rtnh) &&
			       rtnh->rtnh_len <= left) {
				nh++;
				left -= RTNH_ALIGN(rtnh->rtnh_len);
				rtnh = RTNH_NEXT(rtnh);
			}
			break;
		}
		}
	}
	if (table != e->table || !addr)
		return MNL_CB_OK;
	if (nlh->nlmsg_type == RTM_DELROUTE)
		nh = 0;
	e->events++;
	s = lookup(e, addr);
	e->present += (nh > 0) - (s->nh > 0);
	e->full += (nh == e->nexthops) - (s->nh == e->nexthops);
	s->nh = nh;
	return MNL_CB_OK;
}

/*
 * Keep only notifications whose header names the table (or
 * RT_TABLE_COMPAT, which says the table is in RTA_TABLE): the others are
 * dropped before they are queued, woken for or copied.
 */
static int filter_table(int fd, uint32_t table)
{
	const uint32_t at = NLMSG_HDRLEN + offsetof(struct rtmsg, rtm_table);
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, at),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, table, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RT_TABLE_COMPAT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = ARRAY_LEN(code), .filter = code };

	if (table >= 256)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			  sizeof(prog));
}

static int watch(uint32_t table, long want, long nexthops)
{
	struct watched e = { .table = table, .want = want, .nexthops = nexthops };
	double drained, lo1 = 0, hi1 = 0, t;
	int rcvbuf = 256 << 20;
	static char buf[BATCH][SLOT_SIZE];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct mnl_socket *nl;
	size_t size = 16;
	int fd, n, i;

	while (size < 4 * (size_t)want)
		size *= 2;
	e.slots = calloc(size, sizeof(*e.slots));
	e.mask = size - 1;
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK);
	if (!e.slots || !nl ||
	    mnl_socket_bind(nl, 1 << (RTNLGRP_IPV4_ROUTE - 1),
			    MNL_SOCKET_AUTOPID) < 0) {
		perror("fib_watch: rtnetlink");
		return 1;
	}
	fd = mnl_socket_get_fd(nl);
	if (filter_table(fd, table) < 0) {
		perror("fib_watch: SO_ATTACH_FILTER");
		return 1;
	}
	/* Root may pass rmem_max: a burst must queue, not be dropped. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = SLOT_SIZE;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	say("ready\n");
	drained = now();
	for (;;) {
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno == EAGAIN) {
			/*
			 * Not poll(): a sleeper on the socket would be woken
			 * (another CPU interrupted) for each of 400,000
			 * notifications, which slowed BIRD down.
			 */
			drained = now();
			usleep(DRAIN_US);
			continue;
		}
		if (n < 0) {
			say("lost: %s\n", strerror(errno));
			return 2;
		}
		t = now();
		for (i = 0; i < n; i++) {
			if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
				say("lost: a notification over %d bytes\n",
				    SLOT_SIZE);
				return 2;
			}
			mnl_cb_run(buf[i], msgs[i].msg_len, 0, 0, route_cb,
				   &e);
		}
		if (!hi1 && e.present >= want) {
			lo1 = drained;
			hi1 = t;
		}
		if (e.full >= want)
			break;
	}
	say("%.3f %.3f %.3f %.3f %ld\n", lo1, hi1, drained, t, e.events);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && atol(argv[1]) > 0 && atol(argv[2]) > 0 &&
	    atol(argv[3]) > 0 && atol(argv[3]) < 256)
		return watch(atol(argv[1]), atol(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: fib_watch TABLE COUNT NEXTHOPS\n");
	return 2;
}
