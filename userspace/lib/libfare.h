// SPDX-License-Identifier: GPL-2.0-only
/*
 * libfare: the client of fare.ko's generic netlink family "fare".
 *
 * This is the only code that speaks the family; farectl and fared both go
 * through it. Every call returns 0 or a negative errno and, when the caller
 * passes a struct fare_err, fills it with the same code and a message: the
 * kernel's extended ack text when the kernel sent one, else strerror().
 *
 * A handle belongs to the network namespace the calling thread was in when
 * fare_open() ran: call fare_netns_enter() first to work in another one.
 * Handles are not thread safe; use one per thread.
 */
#ifndef LIBFARE_H
#define LIBFARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <linux/fare.h>

struct fare;

struct fare_err {
	int code;		/* negative errno; 0 on success */
	char msg[256];		/* kernel extack text, else strerror; "" if none */
};

union fare_addr {
	struct in_addr v4;
	struct in6_addr v6;
};

/* An IPv4 or IPv6 prefix; host bits beyond plen are zero. */
struct fare_prefix {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t plen;		/* 0..32 or 0..128 */
	union fare_addr addr;
};

struct fare_plane {
	uint32_t id;		/* 1..FARE_PLANE_ID_MAX */
	uint32_t ifindex;	/* egress device */
	bool has_gw4;
	bool has_gw6;
	struct in_addr gw4;
	struct in6_addr gw6;
	/*
	 * Added administratively down (FARE_A_PLANE_ADMIN_DOWN): carries
	 * nothing, as if its carrier were lost; get and dump fill it too.
	 */
	bool admin_down;
	/* filled by get and dump only */
	uint32_t flags;		/* FARE_PLANE_F_* */
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t gw_fails;	/* times a gateway was found unreachable */
};

struct fare_nexthop {
	uint32_t plane_id;
	uint32_t weight;	/* 1..UINT32_MAX */
	uint8_t tier;		/* 0 = preferred */
	uint64_t bandwidth;	/* bytes per second, 0 = none */
	/* filled by get and dump only */
	uint64_t tx_packets;
	uint64_t tx_bytes;
};

struct fare_route {
	struct fare_prefix dst;
	uint8_t mode;		/* enum fare_mode; FARE_MODE_DEFAULT is not sent */
	/* The mode of the route's TCP packets; FARE_MODE_DEFAULT: mode's. */
	uint8_t tcp_mode;
	/*
	 * Preferred source of the kernel route that fare_route_add() installs.
	 * fare.ko does not store it, so get and dump leave has_src false.
	 */
	bool has_src;
	union fare_addr src;
	/*
	 * A named group (1..FARE_GROUP_ID_MAX) instead of nexthops[]: sent
	 * when n_nexthops is 0. Get and dump fill it with the route's group,
	 * an anonymous one (above FARE_GROUP_ID_MAX) for inline next hops,
	 * and nexthops[] with that group's next hops as well.
	 */
	uint32_t group_id;
	/* Per-route counters: FARE_ROUTE_STATS_*; get and dump: ON or OFF. */
	uint8_t stats;
	/* filled by get and dump only, when stats is FARE_ROUTE_STATS_ON */
	uint64_t noplane_packets;
	uint64_t fallback_packets;
	unsigned int n_nexthops;
	struct fare_nexthop nexthops[FARE_NEXTHOP_MAX];
};

#define FARE_ROUTE_STATS_DEFAULT	0	/* the namespace's, not sent */
#define FARE_ROUTE_STATS_ON		1
#define FARE_ROUTE_STATS_OFF		2

/* A next-hop group that many routes may share (uapi fare.h). */
struct fare_group {
	uint32_t id;		/* 1..FARE_GROUP_ID_MAX; anonymous above */
	uint32_t refs;		/* get and dump: routes that use it */
	unsigned int n_nexthops;
	/* get and dump: tx_packets and tx_bytes are the group's counters */
	struct fare_nexthop nexthops[FARE_NEXTHOP_MAX];
};

/* Which fields fare_config_set() sends. */
#define FARE_CONFIG_MODE	(1U << 0)
#define FARE_CONFIG_FLOWLET_US	(1U << 1)
#define FARE_CONFIG_HASH_SEED	(1U << 2)
#define FARE_CONFIG_TIER_HOPS	(1U << 3)
#define FARE_CONFIG_SPILL_BIAS	(1U << 4)
#define FARE_CONFIG_MAX_ROUTES	(1U << 5)
#define FARE_CONFIG_MAX_PLANES	(1U << 6)
#define FARE_CONFIG_MAX_NEXTHOPS (1U << 7)
/* Read only: num_routes and num_planes were sent. */
#define FARE_CONFIG_COUNTS	(1U << 8)
#define FARE_CONFIG_ROUTE_STATS	(1U << 9)
#define FARE_CONFIG_MAX_GROUPS	(1U << 10)
/* Read only: num_groups was sent. */
#define FARE_CONFIG_NUM_GROUPS	(1U << 11)
#define FARE_CONFIG_FLOWLET_SLOTS (1U << 12)
#define FARE_CONFIG_USE_NEIGH	(1U << 13)
#define FARE_CONFIG_MEMORY_BUDGET (1U << 14)
/* Read only: memory_used was sent. */
#define FARE_CONFIG_MEMORY_USED	(1U << 15)

struct fare_config {
	unsigned int set;	/* FARE_CONFIG_* mask, for fare_config_set() */
	uint8_t mode;		/* enum fare_mode, never FARE_MODE_DEFAULT */
	uint32_t flowlet_us;
	uint32_t hash_seed;	/* sent to CAP_NET_ADMIN only */
	uint32_t ifindex;	/* read only: fare0's ifindex, 0 if none yet */
	/* Tier spill-over: hop count H of tiers 0..n_tier_hops - 1, bias T. */
	unsigned int n_tier_hops;	/* 1..FARE_TIER_MAX + 1 */
	uint8_t tier_hops[FARE_TIER_MAX + 1];
	uint32_t spill_bias;	/* bytes */
	/* The namespace's limits (uapi fare.h FARE_MAX_*) and counts. */
	uint32_t max_routes;
	uint32_t max_planes;
	uint32_t max_nexthops;
	uint32_t num_routes;	/* read only */
	uint32_t num_planes;	/* read only */
	/* Default of a new route's per-route counters (fare_route.stats). */
	bool route_stats;
	uint32_t max_groups;
	uint32_t num_groups;	/* read only, named and anonymous */
	/* Flowlet table size: a power of two, FARE_FLOWLET_SLOTS_MIN..MAX. */
	uint32_t flowlet_slots;
	/* Skip a plane's gateway whose neighbour entry failed (default). */
	bool use_neigh;
	/*
	 * The namespace's memory budget and what its routes and groups hold
	 * against it, bytes (uapi fare.h FARE_MEMORY_BUDGET_*).
	 */
	uint64_t memory_budget;
	uint64_t memory_used;	/* read only */
};

/* Counters of one tier; a tier above FARE_TIER_MAX counts in the last. */
struct fare_tier_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t spills;	/* decisions that spilled to this tier */
};

struct fare_stats {
	uint64_t noroute_packets;
	uint64_t noplane_packets;
	uint64_t error_packets;
	uint64_t fallback_packets;
	/* Zero when the kernel sends no tier counters. */
	struct fare_tier_stats tiers[FARE_TIER_MAX + 1];
};

/*
 * Dump callbacks: return 0 to go on, a negative errno to stop. The dump is
 * then drained and its error returned by the dump call.
 */
typedef int (*fare_plane_cb)(const struct fare_plane *plane, void *arg);
typedef int (*fare_route_cb)(const struct fare_route *route, void *arg);
typedef int (*fare_group_cb)(const struct fare_group *group, void *arg);

/*
 * Open the generic netlink and rtnetlink sockets of the current namespace
 * and resolve the family and its "events" group. -ENOENT means the module is
 * not loaded.
 */
int fare_open(struct fare **fp, struct fare_err *err);
void fare_close(struct fare *f);
/* The "events" multicast group id (0 if the kernel has none). */
uint32_t fare_events_group(const struct fare *f);
/*
 * Every later request is for the fare device NAME (FARE_A_IFNAME), which
 * the kernel refuses if it is not one; NULL or "" for the namespace's own
 * (FARE_DEV_NAME), as without this call. -EINVAL if NAME is too long.
 */
int fare_set_dev(struct fare *f, const char *name, struct fare_err *err);

int fare_plane_add(struct fare *f, const struct fare_plane *plane,
		   bool replace, struct fare_err *err);
int fare_plane_del(struct fare *f, uint32_t id, struct fare_err *err);
int fare_plane_get(struct fare *f, uint32_t id, struct fare_plane *out,
		   struct fare_err *err);
int fare_plane_dump(struct fare *f, fare_plane_cb cb, void *arg,
		    struct fare_err *err);
/*
 * Bring the kernel nexthop objects of the plane routes up to date: the
 * next hop of each plane whose device is up (re-made after the device
 * went down, lost its carrier or changed gateway) and, in every group of
 * plane routes, the next hops of the planes it is for. Each route change
 * does this too; a daemon calls it when a plane's device comes back, and
 * a host without one after it (farectl plane sync).
 */
int fare_plane_sync(struct fare *f, struct fare_err *err);

/*
 * Add (or replace) a fare route, then point the kernel FIB at fare0 for it:
 * "PREFIX dev fare0 proto FARE_RTPROT scope link [src SRC]" in table
 * FARE_RT_TABLE, adding first (once per handle and family) the rule that
 * consults that table before table main (see uapi/linux/fare.h).
 * Then the plane route: in table FARE_PLANE_TABLE, the prefix to the
 * kernel nexthop group of the planes that carry it (a gateway of the
 * family; each plane's next hop and its mark on fare0: nexthop.c),
 * behind a rule "oif PLANE lookup FARE_PLANE_TABLE" per plane device, so
 * that a lookup bound to a plane goes via that plane (none carrying it:
 * the plane route is removed).
 * If the kernel route cannot be installed, the fare route is rolled back
 * (deleted if this call created it, restored if it replaced one) and the
 * rtnetlink error is returned.
 */
int fare_route_add(struct fare *f, const struct fare_route *route,
		   bool replace, struct fare_err *err);
/* Remove the plane and kernel routes (if any), then the fare route. */
int fare_route_del(struct fare *f, const struct fare_prefix *dst,
		   struct fare_err *err);
/*
 * A prefix that no plane can deliver to (fare.ko has no unreachable route
 * type). on: "unreachable PREFIX proto FARE_RTPROT" in table FARE_RT_TABLE
 * (behind the same rule), replacing a "PREFIX dev fare0" route there; the
 * kernel drops the prefix's packets, answers ICMP unreachable and counts
 * them (OutNoRoutes in /proc/net/snmp, Ip6OutNoRoutes). The caller deletes
 * the fare route itself. off: removes that route only (none is success);
 * fare_route_add() of the prefix replaces it as well.
 */
int fare_route_unreachable(struct fare *f, const struct fare_prefix *dst,
			   bool on, struct fare_err *err);
/*
 * Calls cb for each unreachable route fare_route_unreachable() left in
 * FARE_RT_TABLE (by its table, protocol and type): what a restarting
 * daemon finds of its predecessor's. cb returns 0 to go on, a negative
 * errno to stop (returned).
 */
typedef int (*fare_prefix_cb)(const struct fare_prefix *dst, void *arg);
int fare_route_unreachable_dump(struct fare *f, fare_prefix_cb cb, void *arg,
				struct fare_err *err);
int fare_route_get(struct fare *f, const struct fare_prefix *dst,
		   struct fare_route *out, struct fare_err *err);
int fare_route_dump(struct fare *f, fare_route_cb cb, void *arg,
		    struct fare_err *err);

/*
 * The kernel's answer to a route lookup toward dst, bound to device oif if
 * not 0 ("ip route get DST [oif DEV]"): the source address, gateway and
 * device it chose (has_* false for what it did not say).
 */
struct fare_lookup {
	bool has_src;
	bool has_gw;
	union fare_addr src;
	union fare_addr gw;
	uint32_t oif;
};

int fare_route_lookup(struct fare *f, uint8_t family,
		      const union fare_addr *dst, uint32_t oif,
		      struct fare_lookup *out, struct fare_err *err);

/*
 * Named next-hop groups: add (or, with replace, change the next hops of
 * every route that uses it at once), delete (refused with -EBUSY while a
 * route uses it), get and dump (anonymous groups as well).
 */
int fare_group_add(struct fare *f, const struct fare_group *group,
		   bool replace, struct fare_err *err);
int fare_group_del(struct fare *f, uint32_t id, struct fare_err *err);
int fare_group_get(struct fare *f, uint32_t id, struct fare_group *out,
		   struct fare_err *err);
int fare_group_dump(struct fare *f, fare_group_cb cb, void *arg,
		    struct fare_err *err);

int fare_config_get(struct fare *f, struct fare_config *out,
		    struct fare_err *err);
int fare_config_set(struct fare *f, const struct fare_config *cfg,
		    struct fare_err *err);
int fare_stats_get(struct fare *f, struct fare_stats *out,
		   struct fare_err *err);

/*
 * Bulk route programming. fare_routes_apply() carries out ops[0..n-1] in
 * order, as if one by one, but sends the requests back to back (fare.ko's
 * and then the kernel FIB's) and reads the acks in bulk, so that hundreds of
 * thousands of routes take seconds, not minutes. It stops at the first op
 * that fails: the ops before it are applied, and neither it nor any later
 * op is (libfare undoes what the kernel had already done of them). Returns
 * 0, or that op's error with *failed set to its index.
 *
 * The kernel FIB is sent each step of 128 ops as soon as fare.ko has taken
 * it; from 129 ops on, by a second thread (every signal blocked, ended
 * before the call returns), so that fare.ko's requests (under genl's
 * mutex) and the FIB's (under RTNL) are handled on two CPUs at once.
 *
 * One rough edge: if the kernel FIB refuses op i, a later "del" in the same
 * call whose kernel route was already removed gets it back without src.
 */
enum fare_op_type {
	FARE_OP_ROUTE_ADD,	/* as fare_route_add(f, route, false, ...) */
	FARE_OP_ROUTE_REPLACE,	/* as fare_route_add(f, route, true, ...) */
	FARE_OP_ROUTE_DEL,	/* as fare_route_del(f, &route.dst, ...) */
};

struct fare_op {
	enum fare_op_type type;
	struct fare_route route;	/* del: route.dst only */
};

int fare_routes_apply(struct fare *f, const struct fare_op *ops, size_t n,
		      size_t *failed, struct fare_err *err);
/*
 * The same, for ops given by pointers: each op need only hold its route up
 * to route.nexthops[route.n_nexthops - 1] (a del, up to route.nexthops),
 * which libfare never reads past, so that a caller may allocate each op
 * at that size (FARE_OP_SIZE) rather than with FARE_NEXTHOP_MAX next hops.
 */
int fare_routes_apply_ptrs(struct fare *f, const struct fare_op *const *ops,
			   size_t n, size_t *failed, struct fare_err *err);
/* The bytes an op with n next hops needs for fare_routes_apply_ptrs(). */
#define FARE_OP_SIZE(n) \
	(offsetof(struct fare_op, route.nexthops) + \
	 (n) * sizeof(struct fare_nexthop))

/*
 * Delete every fare route of the namespace and its kernel route, in bulk,
 * and every unreachable route fare_route_unreachable() left in
 * FARE_RT_TABLE. *deleted (if not NULL) counts the routes removed.
 */
int fare_route_flush(struct fare *f, size_t *deleted, struct fare_err *err);

/*
 * Change events from the "events" multicast group (Documentation/uapi.md,
 * "Events"). FARE_EVENT_LOST reports that the receive buffer overflowed and
 * some events were dropped: a listener that mirrors the state should dump
 * it again.
 */
enum fare_event_type {
	FARE_EVENT_LOST,
	FARE_EVENT_PLANE_NEW,	/* add, replace, oper state change */
	FARE_EVENT_PLANE_DEL,
	FARE_EVENT_ROUTE_NEW,	/* add or replace */
	FARE_EVENT_ROUTE_DEL,	/* route.dst only */
	FARE_EVENT_CONFIG,	/* the whole config after a change */
	FARE_EVENT_GROUP_NEW,	/* a named group added or replaced */
	FARE_EVENT_GROUP_DEL,	/* group.id only */
};

struct fare_event {
	enum fare_event_type type;
	/*
	 * The fare device the event is for: fare_monitor() passes on only
	 * those of the device fare_set_dev() named (fare0 without it). 0
	 * from a fare.ko too old to say, whose events are all passed on.
	 */
	uint32_t ifindex;
	union {
		struct fare_plane plane;
		struct fare_route route;
		struct fare_config config;
		struct fare_group group;
	};
};

/* Return 0 to go on, anything else to stop fare_monitor() with it. */
typedef int (*fare_event_cb)(const struct fare_event *ev, void *arg);

/*
 * Join the "events" group (needs CAP_NET_ADMIN) on a socket of its own and
 * call cb for every event until cb returns non-zero (that value is
 * returned) or a signal interrupts the wait (0 is returned). ready, if not
 * NULL, is called once joined, before the first event can be lost.
 */
int fare_monitor(struct fare *f, fare_event_cb cb, void *arg,
		 void (*ready)(void *arg), struct fare_err *err);

/*
 * Move the calling thread into the network namespace /run/netns/NAME (as
 * made by "ip netns add NAME"). Call before fare_open().
 */
int fare_netns_enter(const char *name, struct fare_err *err);

/* Helpers that need no kernel. */

/*
 * Parse "ADDR/PLEN" or a bare address (a host prefix). Refuses host bits
 * beyond PLEN. Returns 0, or -EINVAL with a reason in err.
 */
int fare_prefix_parse(const char *s, struct fare_prefix *out,
		      struct fare_err *err);
/* "10.0.0.0/24"; buf should hold FARE_PREFIX_STRLEN bytes. */
#define FARE_PREFIX_STRLEN	(INET6_ADDRSTRLEN + 4)
const char *fare_prefix_format(const struct fare_prefix *p, char *buf,
			       size_t len);
/* "default", "packet", "flow", "flowlet"; "unknown" otherwise. */
const char *fare_mode_name(unsigned int mode);
/* Set err (if not NULL) to code and a printf-style message; returns code. */
int fare_err_set(struct fare_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* LIBFARE_H */
