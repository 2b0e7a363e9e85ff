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
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/kernel.h>

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
static inline int fare_limit_set(u64 old, u64 new, bool may_raise,
				 const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	if (new <= old || may_raise)
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "raising a limit needs CAP_NET_ADMIN in the initial user namespace");
	return -EPERM;
}

/*
 * The namespace's memory budget (uapi fare.h, FARE_A_CONFIG_MEMORY_BUDGET):
 * the bytes of routes and groups counted against it as the allocators
 * hand them out, so that the sum is what the kernel holds for them.
 *
 * fare_kmalloc_bytes() is what kmalloc(@size) takes; fare_pcpu_bytes()
 * what a per-CPU allocation of @size bytes aligned to @align takes: a
 * copy for every possible CPU, which is what the CPU count multiplies.
 */
static inline size_t fare_kmalloc_bytes(size_t size)
{
	return kmalloc_size_roundup(size);
}

static inline size_t fare_pcpu_bytes(size_t size, size_t align)
{
	return ALIGN(size, max_t(size_t, align, PCPU_MIN_ALLOC_SIZE)) *
	       num_possible_cpus();
}

/*
 * The extack text of a refusal at @budget bytes, into @buf (at least
 * FARE_MEM_MSG_LEN bytes): in MiB when it is a whole number of them. At
 * most 69 characters, within NL_SET_ERR_MSG_FMT()'s 80.
 */
#define FARE_MEM_MSG_LEN	96

static inline void fare_mem_msg_format(char *buf, u64 budget)
{
	if (budget && !(budget & ((1ULL << 20) - 1)))
		snprintf(buf, FARE_MEM_MSG_LEN,
			 "fare: memory budget of %llu MiB for this namespace reached",
			 budget >> 20);
	else
		snprintf(buf, FARE_MEM_MSG_LEN,
			 "fare: memory budget of %llu bytes for this namespace reached",
			 budget);
}

/*
 * Charges @bytes to *@used, against @budget, when @credit bytes already
 * charged are about to be released (what the request replaces); refuses
 * with @msg (fare_mem_msg_format(), which must outlive the request's
 * ack) if that would pass the budget. The caller holds fare_net.lock.
 */
static inline int fare_mem_charge(u64 *used, u64 budget, size_t bytes,
				  size_t credit, const char *msg,
				  struct netlink_ext_ack *extack)
{
	u64 after = *used - min_t(u64, *used, credit) + bytes;

	if (after > budget) {
#ifdef NL_SET_ERR_MSG_FMT
		/* A copy in the extack: @msg may change under a CONFIG_SET. */
		NL_SET_ERR_MSG_FMT(extack, "%s", msg);
#else
		/*
		 * NL_SET_ERR_MSG() takes a literal only. A CONFIG_SET of the
		 * same namespace before the ack is sent (the family has
		 * parallel_ops) may change the text, never its last byte.
		 */
		if (extack)
			extack->_msg = msg;
#endif
		return -ENOSPC;
	}
	*used += bytes;
	return 0;
}

/* Releases @bytes charged by fare_mem_charge(); under fare_net.lock. */
static inline void fare_mem_uncharge(u64 *used, size_t bytes)
{
	if (WARN_ON_ONCE(bytes > *used))
		bytes = *used;
	*used -= bytes;
}

#endif /* _FARE_LIMITS_H */
