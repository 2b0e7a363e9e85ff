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
	uint32_t weight;	/* 1..UINT32_MAX */
	unsigned int count;	/* out: connections placed on it */
};

/*
 * Largest remainder (Hamilton): plane i gets floor(n * w_i / W) and the
 * n - sum of those left over go one each to the planes with the largest
 * remainders, the earlier plane first on a tie. Deterministic; each count
 * is within one of its exact share. Returns -EINVAL for no plane, a zero
 * weight or n above FC_PICK_MAX.
 */
int fc_pick_counts(struct fc_pick_plane *p, unsigned int np, unsigned int n);

/*
 * The order of the connections: out[k] is the index in p of connection
 * k's plane, spread by smooth weighted round robin over the counts, so
 * that every prefix of the list is close to the weights too.
 */
void fc_pick_order(const struct fc_pick_plane *p, unsigned int np,
		   unsigned int n, unsigned int *out);

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
