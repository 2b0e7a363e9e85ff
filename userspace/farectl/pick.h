// SPDX-License-Identifier: GPL-2.0-only
/*
 * "farectl route pick": a placement of N connections (RDMA QPs, TCP
 * streams) over a route's planes by their weights, and the RDMA device and
 * GID index that sit on each plane's device. The arithmetic is pure, so
 * tests/unit drives it directly.
 */
#ifndef FARECTL_PICK_H
#define FARECTL_PICK_H

#include <stdint.h>
#include "libfare.h"

/* Most connections one query places. */
#define FC_PICK_MAX	65536

struct fc_pick_plane {
	uint32_t plane_id;
	uint32_t weight;	/* 0 places nothing on it */
	unsigned int count;	/* out: connections placed on it */
};

/*
 * Largest remainder (Hamilton): plane i gets floor(n * w_i / W) and the
 * n - sum of those left over go one each to the planes with the largest
 * remainders. Ties (equal remainders, n below the number of planes with
 * equal weights) go to the earlier plane in p, which farectl fills in the
 * route's next-hop order: deterministic, and each count is within one of
 * its exact share. A plane of weight 0 gets nothing, not even a leftover.
 * Returns -EINVAL for no plane, every weight 0 or n above FC_PICK_MAX.
 */
int fc_pick_counts(struct fc_pick_plane *p, unsigned int np, unsigned int n);

/* Whether a next hop of a route can take connections, and if not, why. */
enum fc_pick_why {
	FC_PICK_USED,
	FC_PICK_WEIGHT_ZERO,	/* weight 0 */
	FC_PICK_ADMIN_DOWN,	/* FARE_PLANE_F_ADMIN_DOWN (fared's BFD) */
	FC_PICK_DOWN,		/* no FARE_PLANE_F_OPER_UP: device down */
	FC_PICK_NO_GATEWAY,	/* no gateway of the destination's family */
	FC_PICK_HIGHER_TIER,	/* a lower tier has a usable plane */
};

/* The word farectl prints for why ("down", "admin-down", ...). */
const char *fc_pick_why_name(enum fc_pick_why why);

/*
 * As fare.ko and libfare's plane route judge it: a weight above zero, the
 * plane up (FARE_PLANE_F_OPER_UP, which fare.ko clears for an
 * administratively down plane too) and a gateway of family.
 */
enum fc_pick_why fc_pick_usable(uint32_t weight, const struct fare_plane *pl,
				uint8_t family);

/*
 * Traffic uses the lowest tier that has a usable plane: marks the used
 * next hops of every higher tier FC_PICK_HIGHER_TIER. why[i] and tier[i]
 * describe next hop i. Returns the number left FC_PICK_USED.
 */
unsigned int fc_pick_tier(enum fc_pick_why *why, const uint8_t *tier,
			  unsigned int n);

/*
 * Whether prefix p holds address (or prefix) a: the same family and a's
 * first p->plen bits equal to p's.
 */
bool fc_prefix_holds(const struct fare_prefix *p, const struct fare_prefix *a);

/*
 * The order of the connections: out[k] is the index in p of connection
 * k's plane, spread by smooth weighted round robin over the counts, so
 * that every prefix of the list is close to the weights too.
 */
void fc_pick_order(const struct fc_pick_plane *p, unsigned int np,
		   unsigned int n, unsigned int *out);

/*
 * The first address of family on network device dev that is not on "lo"
 * too (the shared loopback address of mpson §3.2 that a host may also put
 * on every plane device for its GIDs) nor IPv6 link-local: the plane's
 * own address, which RDMA CM must be bound to for its RDMA device to be
 * the plane's (rdma.md). Returns 0, -ENOENT, or -errno.
 */
int fc_dev_addr(const char *dev, uint8_t family, union fare_addr *out);

/* An RDMA device port on a network device, and a GID index on it. */
struct fc_rdma {
	char dev[64];
	unsigned int port;
	int gid_index;		/* -1: no GID of the address */
	bool roce_v2;		/* the GID's type is "RoCE v2" */
};

/*
 * The RDMA port whose GID table has entries on netdev (under
 * SYSFS/class/infiniband/DEV/ports/PORT/gid_attrs/ndevs), and the index of
 * the GID of addr there (IPv4 as ::ffff:a.b.c.d), a RoCE v2 one first.
 * Returns 0, or -ENOENT when no RDMA device sits on netdev.
 */
int fc_rdma_find(const char *sysfs, const char *netdev, uint8_t family,
		 const union fare_addr *addr, struct fc_rdma *out);

#endif /* FARECTL_PICK_H */
