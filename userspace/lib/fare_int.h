// SPDX-License-Identifier: GPL-2.0-only
/*
 * libfare internals: the handle, the netlink exchange, and the pure message
 * builders and parsers (msg.c, rtnl.c) that the unit tests drive without a
 * kernel. Not installed; not for farectl or fared.
 */
#ifndef FARE_INT_H
#define FARE_INT_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <net/if.h>
#include <libmnl/libmnl.h>
#include "libfare.h"

/* Requests are small: a route with FARE_NEXTHOP_MAX hops needs under 2 KiB. */
#define FARE_TX_SIZE	8192
/* Dump replies come in skbs of up to 32 KiB; leave room to spare. */
#define FARE_RX_SIZE	65536

/*
 * Receive buffer asked for on every socket, so that the acks of a pipelined
 * batch queue up there instead of being dropped (the kernel acks while it
 * still reads our sendmsg, before we can read anything).
 */
#define FARE_RCVBUF	(8 << 20)
/* What a queued ack and a queued reply of a "get" cost of it (truesize). */
#define FARE_ACK_COST	1024
#define FARE_REPLY_COST	(6 * 1024)
/* Bytes of requests sent in one sendmsg (well under the default sndbuf). */
#define FARE_PIPE_SEND	(96 * 1024)

struct fare {
	struct mnl_socket *genl;
	struct mnl_socket *rtnl;
	/* Half the smaller receive buffer the kernel gave us, in bytes. */
	size_t ack_budget;
	uint16_t family_id;
	uint32_t family_version;
	uint32_t events_group;
	uint32_t seq;
	/* The rule consulting FARE_RT_TABLE is known to exist, per family. */
	bool rule4;
	bool rule6;
	/*
	 * The device whose FARE_PLANE_TABLE rule is known to exist, per
	 * family (IPv4, IPv6) and plane id; 0 for none.
	 */
	uint32_t plane_rule[2][FARE_PLANE_ID_MAX + 1];
	/* The fare device every request is for ("": the namespace's). */
	char dev[IFNAMSIZ];
	char tx[FARE_TX_SIZE] __attribute__((aligned(8)));
	char rx[FARE_RX_SIZE] __attribute__((aligned(8)));
};

/* Called for every data message of a reply; returns 0 or a negative errno. */
typedef int (*fare_msg_cb)(const struct nlmsghdr *nlh, void *arg);

#define FARE_STR_(x)	#x
#define FARE_STR(x)	FARE_STR_(x)

/* Octets of an address of family: 4, 16, or 0 for another family. */
static inline size_t fare_addr_len(uint8_t family)
{
	switch (family) {
	case AF_INET:
		return sizeof(struct in_addr);
	case AF_INET6:
		return sizeof(struct in6_addr);
	default:
		return 0;
	}
}

static inline uint32_t fare_next_seq(struct fare *f)
{
	if (++f->seq == 0)
		f->seq = 1;
	return f->seq;
}

/* libfare.c */
void fare_err_clear(struct fare_err *err);

/* One request's replies, fed datagram by datagram (testable without one). */
struct fare_exchange {
	uint32_t seq;
	uint32_t portid;
	bool dump;
	fare_msg_cb cb;
	void *arg;
	struct fare_err *err;
	int cb_ret;		/* first callback error; the rest is drained */
	bool interrupted;	/* NLM_F_DUMP_INTR seen */
	bool finished;
	int ret;		/* the result once finished */
};

void fare_exchange_init(struct fare_exchange *x, const struct nlmsghdr *req,
			uint32_t portid, fare_msg_cb cb, void *arg,
			struct fare_err *err);
/* Returns true once the ack, NLMSG_DONE or an error has been seen. */
bool fare_exchange_feed(struct fare_exchange *x, const void *buf, size_t len);
/* A netlink socket with extended acks, capped acks and a big rcvbuf. */
int fare_socket_open(int bus, struct mnl_socket **nlp, size_t *rcvbuf,
		     struct fare_err *err);
/* Send req on nl and read its replies until the ack, NLMSG_DONE or an error. */
int fare_talk(struct fare *f, struct mnl_socket *nl, struct nlmsghdr *req,
	      fare_msg_cb cb, void *arg, struct fare_err *err);

/*
 * A pipeline: requests sent back to back on one socket, each with its own
 * sequence number, the answers read in bulk (every request of a pipe with
 * a reply callback asks for an ack; see ack_last for one without). Before
 * the queued replies could overflow the receive buffer, the pipeline reads
 * them (fare_pipe_sync), so its length is bounded by memory only.
 */
struct fare_pipe {
	struct fare *f;
	struct mnl_socket *nl;
	char *buf;		/* FARE_PIPE_SEND + FARE_TX_SIZE bytes */
	/* Where replies are read: the handle's, or one a thread owns. */
	char *rx;
	size_t rx_size;
	size_t len;		/* bytes built but not sent */
	uint32_t base_seq;	/* sequence number of request 0 */
	size_t n;		/* requests in the pipe */
	size_t cap;		/* room in rets */
	size_t acked;		/* requests 0..acked-1 are answered */
	size_t cost;		/* receive buffer the unanswered ones may use */
	size_t next_cost;	/* that of the request being built */
	int *rets;		/* result of each request: 0 or -errno */
	size_t first_fail;	/* lowest index that failed (n if none) */
	struct fare_err fail_err;	/* and its message */
	fare_msg_cb cb;		/* data messages of the replies */
	void *cb_arg;
	/* An error that is no failure (first_fail passes it by), or NULL. */
	bool (*tolerated)(const struct fare_pipe *p, size_t idx, int ret);
	void *tolerated_arg;
	/*
	 * Without cb: only the last request of each sendmsg asks for an ack.
	 * The kernel handles a sendmsg's requests in order and answers a
	 * failed one whether or not it asked, so that ack tells every earlier
	 * request of the pipe succeeded unless its own error came first;
	 * 100,000 route requests cost 100,000 fewer messages to build, queue
	 * and read.
	 */
	bool ack_last;
	size_t last_off;	/* in buf: the last request built */
};

int fare_pipe_init(struct fare_pipe *p, struct fare *f, struct mnl_socket *nl,
		   size_t cap, fare_msg_cb cb, void *cb_arg,
		   struct fare_err *err);
void fare_pipe_free(struct fare_pipe *p);
/*
 * Room for the next request (FARE_TX_SIZE bytes); its sequence number is
 * fare_pipe_seq(p, p->n). reply_cost is FARE_ACK_COST or FARE_REPLY_COST.
 * Returns NULL with err set if the pipe is full or the socket failed.
 */
void *fare_pipe_next(struct fare_pipe *p, size_t reply_cost,
		     struct fare_err *err);
void fare_pipe_commit(struct fare_pipe *p, struct nlmsghdr *nlh);
/* Send what is built and read every outstanding reply. */
int fare_pipe_sync(struct fare_pipe *p, struct fare_err *err);
static inline uint32_t fare_pipe_seq(const struct fare_pipe *p, size_t i)
{
	return p->base_seq + (uint32_t)i;
}
/* Feed one datagram of replies (testable without a socket). */
int fare_pipe_feed(struct fare_pipe *p, const void *buf, size_t len,
		   struct fare_err *err);

/* msg.c: generic netlink "fare" messages */
/*
 * A request's netlink header in buf (NLM_F_REQUEST | flags) as *nlh, and
 * the zeroed family header of hdr_len bytes after it, which it returns.
 */
void *fare_nlmsg_start(void *buf, uint16_t type, uint16_t flags, uint32_t seq,
		       size_t hdr_len, struct nlmsghdr **nlh);
struct nlmsghdr *fare_msg_start(void *buf, uint16_t family_id, uint8_t cmd,
				uint16_t flags, uint32_t seq);
struct nlmsghdr *fare_req_start(const struct fare *f, void *buf, uint8_t cmd,
				uint16_t flags, uint32_t seq);
struct nlmsghdr *fare_msg_getfamily(void *buf, uint32_t seq);
int fare_msg_put_plane(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_plane *plane, struct fare_err *err);
int fare_msg_put_prefix(struct nlmsghdr *nlh, size_t buflen,
			const struct fare_prefix *dst, struct fare_err *err);
int fare_msg_put_route(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_route *route, struct fare_err *err);
int fare_msg_put_group(struct nlmsghdr *nlh, size_t buflen,
		       const struct fare_group *group, struct fare_err *err);
int fare_msg_parse_group(const struct nlmsghdr *nlh, struct fare_group *out,
			 struct fare_err *err);
int fare_msg_put_config(struct nlmsghdr *nlh, size_t buflen,
			const struct fare_config *cfg, struct fare_err *err);

int fare_msg_parse_family(const struct nlmsghdr *nlh, uint16_t *id,
			  uint32_t *version, uint32_t *events_group,
			  struct fare_err *err);
int fare_msg_parse_plane(const struct nlmsghdr *nlh, struct fare_plane *out,
			 struct fare_err *err);
int fare_msg_parse_route(const struct nlmsghdr *nlh, struct fare_route *out,
			 struct fare_err *err);
int fare_msg_parse_config(const struct nlmsghdr *nlh, struct fare_config *out,
			  struct fare_err *err);
/* A message of the "events" group; -ENOMSG if it is none of ours. */
int fare_msg_parse_event(const struct nlmsghdr *nlh, uint16_t family_id,
			 struct fare_event *ev, struct fare_err *err);
int fare_msg_parse_stats(const struct nlmsghdr *nlh, struct fare_stats *out,
			 struct fare_err *err);
/*
 * NLMSG_ERROR and NLMSG_DONE: return the error (<= 0) they carry and put
 * the extack message, if any, in err (with code 0 it is a warning).
 */
int fare_msg_parse_error(const struct nlmsghdr *nlh, struct fare_err *err);
int fare_msg_parse_done(const struct nlmsghdr *nlh, struct fare_err *err);

/*
 * rtnl.c: the kernel FIB route that points a fare prefix at the fare
 * device oif: through fare_nh_dev_id(oif, family), which must exist,
 * unless it is an IPv6 route with a source (see nexthop.c).
 */
struct nlmsghdr *fare_rtnl_msg_route(void *buf, size_t buflen, uint16_t type,
				     uint32_t seq,
				     const struct fare_prefix *dst,
				     const union fare_addr *src, uint32_t oif);
struct nlmsghdr *fare_rtnl_msg_unreachable(void *buf, size_t buflen,
					   uint16_t type, uint32_t seq,
					   const struct fare_prefix *dst);
struct nlmsghdr *fare_rtnl_msg_rule(void *buf, size_t buflen, uint32_t seq,
				    uint8_t family, uint32_t uid_lo,
				    uint32_t uid_hi);
/*
 * The uids a user namespace maps, as /proc/self/uid_map (MAP) lists them:
 * the lowest and the highest, at most FARE_RULE_UID_MAX. -EINVAL when MAP
 * maps none.
 */
int fare_uid_span(const char *map, uint32_t *lo, uint32_t *hi);
/* Whether nlh is one of fare's unreachable routes; if so, its prefix. */
bool fare_rtnl_parse_unreachable(const struct nlmsghdr *nlh,
				 struct fare_prefix *out);
/* A dump of every route of both families. */
struct nlmsghdr *fare_rtnl_msg_route_dump(void *buf, uint32_t seq);
int fare_rtnl_rule_ensure(struct fare *f, uint8_t family,
			  struct fare_err *err);
int fare_rtnl_route_install(struct fare *f, const struct fare_route *route,
			    uint32_t oif, struct fare_err *err);
int fare_rtnl_route_remove(struct fare *f, const struct fare_prefix *dst,
			   uint32_t oif, struct fare_err *err);

/*
 * The plane route of a fare route, in FARE_PLANE_TABLE: what it needs of
 * each plane, read once per call (fare_plane_map_load(), which also adds
 * the rule of each plane's device that is missing and brings the kernel
 * nexthop objects up to date: nexthop.c).
 */
struct fare_plane_info {
	uint32_t ifindex;	/* 0: no such plane */
	char ifname[IF_NAMESIZE];
	bool up;		/* its device is up, with its carrier */
	bool has_gw4;
	bool has_gw6;
	/* Its next hop object exists, per family (IPv4, IPv6). */
	bool live[2];
	struct in_addr gw4;
	struct in6_addr gw6;
};

/* The nexthop objects' ids (nexthop.c). */
#define FARE_NH_ID_BASE		0xf0000000u
#define FARE_NH_IFINDEX_MAX	((0xffffffffu - FARE_NH_ID_BASE) / 4 / 256)
#define FARE_NH_GROUP_MIN	0xe0000000u

/* A group of plane route next hops: the planes it is for, by plane id. */
struct fare_nh_group {
	uint32_t id;
	uint8_t family;
	uint64_t planes[(FARE_PLANE_ID_MAX + 1 + 63) / 64];
};

struct fare_plane_map {
	struct fare_plane_info p[FARE_PLANE_ID_MAX + 1];	/* by plane id */
	uint32_t fare_ifindex;	/* the fare device; 0: none */
	/* fare's groups for this device, sorted by family and planes */
	struct fare_nh_group *groups;
	size_t n_groups;
	size_t cap_groups;
	uint32_t next_group;	/* where a new group's id is looked for */
};

/*
 * Reads the planes into m (zeroed first; release it with
 * fare_plane_map_free()), adds their rules, and for the fare device
 * fare_ifindex (0: none, and no nexthop object is touched) brings the
 * kernel nexthop objects up to date (fare_nh_sync()).
 */
int fare_plane_map_load(struct fare *f, struct fare_plane_map *m,
			uint32_t fare_ifindex, struct fare_err *err);
void fare_plane_map_free(struct fare_plane_map *m);
/*
 * Each plane's mark and (device up) next hop exist as m says; every
 * group of fare's holds the marks it had and the next hops of those
 * planes that exist; m lists the groups.
 */
int fare_nh_sync(struct fare *f, struct fare_plane_map *m,
		 struct fare_err *err);
/*
 * The fare device's own next hop of a family ("dev FARE", IPv6 "via
 * fe80::1 dev FARE"), which its table FARE_RT_TABLE routes point at: its
 * id, and adding it if it is not there (fare_nh_sync() makes it too, and
 * mends it).
 */
uint32_t fare_nh_dev_id(uint32_t fare_ifindex, uint8_t family);
int fare_nh_dev_ensure(struct fare *f, uint32_t fare_ifindex, uint8_t family,
		       struct fare_err *err);
/* The IPv6 gateway of every route to the fare device (rtnl.c). */
extern const struct in6_addr fare_dev_gw6;
/*
 * Removes fare's plane route groups for the fare device fare_ifindex
 * (each plane's mark and next hop, and the device's own next hop, stay).
 * A route still pointing at one would go with it: for after its routes
 * are gone (fare_route_flush()).
 */
int fare_nh_groups_remove(struct fare *f, uint32_t fare_ifindex,
			  size_t *removed, struct fare_err *err);
/* The group of the planes of nh that carry family (adding it if new). */
int fare_nh_group_ensure(struct fare *f, struct fare_plane_map *m,
			 uint8_t family, const struct fare_nexthop *nh,
			 unsigned int n_nh, struct fare_err *err);
/*
 * Its id: 0 when none of nh carries family (*none) or the group is not
 * known to m.
 */
uint32_t fare_nh_group_find(const struct fare_plane_map *m, uint8_t family,
			    const struct fare_nexthop *nh, unsigned int n_nh,
			    bool *none);
struct nlmsghdr *fare_rtnl_msg_nexthop(void *buf, size_t buflen, uint32_t seq,
				       uint32_t id, uint8_t family,
				       uint32_t oif, const union fare_addr *gw);
struct nlmsghdr *fare_rtnl_msg_nh_group(void *buf, size_t buflen,
					uint32_t seq, uint32_t id,
					const uint32_t *members, unsigned int n,
					bool create);
/*
 * The plane route of dst: "nhid G", G the group of the next hops nh that
 * m says can carry it (a plane with a gateway of dst's family), which
 * fare_nh_group_ensure() made; with none (or m NULL), its removal. NULL
 * if buflen is too small or the group is not in m.
 */
struct nlmsghdr *fare_rtnl_msg_plane_route(void *buf, size_t buflen,
					   uint32_t seq,
					   const struct fare_prefix *dst,
					   const union fare_addr *src,
					   const struct fare_nexthop *nh,
					   unsigned int n_nh,
					   const struct fare_plane_map *m);
struct nlmsghdr *fare_rtnl_msg_plane_rule(void *buf, size_t buflen,
					  uint32_t seq, uint8_t family,
					  const char *ifname);
/* An error of a plane route request that is no failure. */
bool fare_rtnl_plane_tolerated(int ret);
int fare_rtnl_plane_route(struct fare *f, const struct fare_prefix *dst,
			  const union fare_addr *src,
			  const struct fare_nexthop *nh, unsigned int n_nh,
			  struct fare_plane_map *m, struct fare_err *err);
/* The next hops of route: its own, or its named group's (read into buf). */
int fare_route_hops(struct fare *f, const struct fare_route *route,
		    struct fare_group *buf, const struct fare_nexthop **nh,
		    unsigned int *n, struct fare_err *err);

#endif /* FARE_INT_H */
