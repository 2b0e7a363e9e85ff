/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, decided by compile probes (compat/probes/) whose
 * results the build writes to compat-generated.h, never by version numbers:
 * Debian backports make those wrong.
 */
#ifndef _FARE_COMPAT_H
#define _FARE_COMPAT_H

#include <linux/netdevice.h>
#include <net/genetlink.h>
/* In tree the probes' results are compiler flags (kmod/Makefile). */
#ifndef FARE_COMPAT_PROBED
#include "compat-generated.h"
#endif

static inline void fare_dev_set_lltx(struct net_device *dev)
{
#ifdef FARE_HAVE_DEV_LLTX
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}

/* Refuses to move @dev to another namespace (dev_change_net_namespace()). */
static inline void fare_dev_set_netns_local(struct net_device *dev)
{
#if defined(FARE_HAVE_NETNS_IMMUTABLE)
	dev->netns_immutable = true;
#elif defined(FARE_HAVE_NETNS_LOCAL)
	dev->netns_local = true;
#else
	dev->features |= NETIF_F_NETNS_LOCAL;
#endif
}

/* The most a device's hardware segments (TSO), where kernels say it. */
static inline unsigned int fare_tso_max_size(const struct net_device *dev)
{
#ifdef FARE_HAVE_TSO_MAX
	return dev->tso_max_size;
#else
	return READ_ONCE(dev->gso_max_size);
#endif
}

static inline unsigned int fare_tso_max_segs(const struct net_device *dev)
{
#ifdef FARE_HAVE_TSO_MAX
	return dev->tso_max_segs;
#else
	return READ_ONCE(dev->gso_max_segs);
#endif
}

static inline void fare_set_tso_max(struct net_device *dev, unsigned int size,
				    unsigned int segs)
{
#ifdef FARE_HAVE_TSO_MAX
	netif_set_tso_max_size(dev, size);
	netif_set_tso_max_segs(dev, segs);
#endif
}

/* IPv4's own GSO limit since 6.3; before, IPv4 used gso_max_size. */
static inline unsigned int fare_gso_ipv4_max_size(const struct net_device *dev)
{
#ifdef FARE_HAVE_GSO_IPV4_MAX_SIZE
	return READ_ONCE(dev->gso_ipv4_max_size);
#else
	return READ_ONCE(dev->gso_max_size);
#endif
}

static inline void fare_set_gso_ipv4_max_size(struct net_device *dev,
					      unsigned int size)
{
#ifdef FARE_HAVE_GSO_IPV4_MAX_SIZE
	WRITE_ONCE(dev->gso_ipv4_max_size, size);
#endif
}

/*
 * The drop reason of a packet no plane can carry: "no target found for
 * xmit" where the kernel has it (6.11 on), else "device not ready".
 */
#ifdef FARE_HAVE_DROP_NO_TX_TARGET
#define FARE_DROP_REASON_NOPLANE	SKB_DROP_REASON_NO_TX_TARGET
#else
#define FARE_DROP_REASON_NOPLANE	SKB_DROP_REASON_DEV_READY
#endif

/* What a family's pre_doit is given of the command. */
#ifdef FARE_HAVE_GENL_SPLIT_OPS
#define fare_genl_doit_ops	genl_split_ops
#else
#define fare_genl_doit_ops	genl_ops
#endif

/* A dump request's attributes, parsed and validated by the family policy. */
static inline struct nlattr **fare_dump_attrs(struct netlink_callback *cb)
{
#ifdef FARE_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

#endif /* _FARE_COMPAT_H */
