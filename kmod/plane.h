/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A plane: an independent network a fare device sends through, by one of
 * its devices and gateways (plane.c). Published under RTNL in
 * fare_net.planes[], read by the packet path under RCU; the netdevice
 * notifier follows its device's state and unlinks it when the device goes.
 */
#ifndef _FARE_PLANE_H
#define _FARE_PLANE_H

#include "fare.h"

struct genl_info;
struct fare_pcpu_tx;

struct fare_plane {
	struct rcu_head rcu;
	u32 id;
	struct net_device *dev;		/* held until the plane is freed */
	netdevice_tracker dev_tracker;
	bool has_gw4;
	bool has_gw6;
	__be32 gw4;
	struct in6_addr gw6;
	/*
	 * FARE_A_PLANE_ADMIN_DOWN (a daemon's failure detection, BFD): the
	 * plane is never oper up. Fixed for the object's life: a change is a
	 * new plane (PLANE_NEW with FARE_A_REPLACE).
	 */
	bool admin_down;
	bool oper_up;			/* READ_ONCE: set by the notifier */
	/*
	 * FARE_PLANE_C_*: which gateways the plane can send to now (none
	 * while it is down); READ_ONCE, written with oper_up.
	 */
	u8 carries;
	/*
	 * FARE_PLANE_C_*: the gateways whose neighbour entry failed (no
	 * ARP/ND answer), and how often one did: under fare_net.gw_lock,
	 * READ_ONCE by readers (neigh.c). Honoured by fare_plane_carries()
	 * while fare_net.use_neigh is on.
	 */
	u8 gw_failed;
	u64 gw_fails;
	struct fare_pcpu_tx __percpu *tx;
	/*
	 * The device's qdisc backlog in bytes as last sampled (READ_ONCE),
	 * and when (ktime_get_mono_fast_ns(), 0 never): plane.c,
	 * fare_plane_backlog(). Rewritten every FARE_BACKLOG_SAMPLE_NS while
	 * new flowlets are decided, so in a line of their own, away from
	 * what every packet reads above.
	 */
	u64 backlog ____cacheline_aligned_in_smp;
	atomic64_t backlog_at;
};

/* How old a plane's backlog sample may be before a decision takes anew. */
#define FARE_BACKLOG_SAMPLE_NS	(20 * NSEC_PER_USEC)

#define FARE_PLANE_C_GW4	BIT(0)
#define FARE_PLANE_C_GW6	BIT(1)

/*
 * The FARE_PLANE_C_* gateways @plane can send to now: it is up, and with
 * fare_net.use_neigh the gateway's neighbour entry has not failed.
 */
static inline u8 fare_plane_carries(const struct fare_net *fn,
				    const struct fare_plane *plane)
{
	u8 c = READ_ONCE(plane->carries);

	if (READ_ONCE(fn->use_neigh))
		c &= ~READ_ONCE(plane->gw_failed);
	return c;
}

struct fare_plane *fare_plane_get_rcu(struct fare_net *fn, u32 id);
struct fare_plane *fare_plane_alloc(u32 id, const __be32 *gw4,
				    const struct in6_addr *gw6);
void fare_plane_discard(struct fare_plane *plane);
void fare_plane_publish(struct fare_net *fn, struct fare_plane *plane,
			struct net_device *dev, struct genl_info *info);
void fare_plane_unlink(struct fare_net *fn, struct fare_plane *plane,
		       struct genl_info *info);
void fare_planes_flush(struct fare_net *fn);
u64 fare_plane_backlog(struct fare_plane *plane, u64 now);
int fare_notifier_register(void);
void fare_notifier_unregister(void);

#endif /* _FARE_PLANE_H */
