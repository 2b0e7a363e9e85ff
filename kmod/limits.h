/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The namespace limits (uapi fare.h, FARE_A_CONFIG_MAX_*) as refusals with
 * their extack text, in a header of their own so that the KUnit suite
 * checks the very checks netlink.c makes.
 */
#ifndef _FARE_LIMITS_H
#define _FARE_LIMITS_H

#include <linux/errno.h>
#include <linux/types.h>
#include <linux/netlink.h>

/* A new route when @num exist; the caller holds fare_net.lock. */
static inline int fare_limit_routes(unsigned int num, u32 max,
				    struct netlink_ext_ack *extack)
{
	if (num < max)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "route limit of the namespace reached (config route-limit)");
	return -ENOSPC;
}

/* A new plane when @num exist; the caller holds RTNL. */
static inline int fare_limit_planes(unsigned int num, u32 max,
				    struct netlink_ext_ack *extack)
{
	if (num < max)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "plane limit of the namespace reached (config plane-limit)");
	return -ENOSPC;
}

/*
 * A new group (named or anonymous) when @num exist; the caller holds
 * fare_net.lock.
 */
static inline int fare_limit_groups(unsigned int num, u32 max,
				    struct netlink_ext_ack *extack)
{
	if (num < max)
		return 0;
	NL_SET_ERR_MSG(extack,
		       "group limit of the namespace reached (config group-limit)");
	return -ENOSPC;
}

/* A route of @num next hops. */
static inline int fare_limit_nexthops(unsigned int num, u32 max,
				      const struct nlattr *nhs,
				      struct netlink_ext_ack *extack)
{
	if (num <= max)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, nhs,
			    "more next hops than the namespace allows (config nexthop-limit)");
	return -E2BIG;
}

/*
 * A CONFIG_SET of a limit from @old to @new: lowering is the namespace
 * admin's to do; raising, @may_raise, needs CAP_NET_ADMIN in the initial
 * user namespace, as a namespace's limits are there to bound what its own
 * admin can make the kernel allocate.
 */
static inline int fare_limit_set(u32 old, u32 new, bool may_raise,
				 const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	if (new <= old || may_raise)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "raising a limit needs CAP_NET_ADMIN in the initial user namespace");
	return -EPERM;
}

#endif /* _FARE_LIMITS_H */
