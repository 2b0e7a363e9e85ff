/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Message sizes and dump ends of the fare family, in a header of their own
 * so that the KUnit suite checks them.
 */
#ifndef _FARE_DUMP_H
#define _FARE_DUMP_H

#include <linux/skbuff.h>
#include <net/netlink.h>
#include <linux/fare.h>

/* The attributes of one route of @num_nh next hops (fare_route_fill()). */
static inline size_t fare_route_payload(unsigned int num_nh)
{
	size_t nh = nla_total_size(0) +			/* entry */
		    2 * nla_total_size(sizeof(u32)) +	/* plane, weight */
		    nla_total_size(sizeof(u8)) +	/* tier */
		    3 * nla_total_size_64bit(sizeof(u64)); /* bw, tx */

	return nla_total_size(sizeof(u32)) +		/* device */
	       nla_total_size(sizeof(u8)) +		/* family */
	       nla_total_size(sizeof(struct in6_addr)) +	/* dst */
	       nla_total_size(sizeof(u8)) +		/* plen */
	       2 * nla_total_size(sizeof(u8)) +		/* mode, tcp mode */
	       nla_total_size(sizeof(u32)) +		/* group id */
	       nla_total_size(sizeof(u8)) +		/* stats */
	       2 * nla_total_size_64bit(sizeof(u64)) +	/* noplane, fallback */
	       nla_total_size(0) +			/* next hops */
	       num_nh * nh;
}

/* The attributes of one group of @num_nh next hops (fare_group_fill()). */
static inline size_t fare_group_payload(unsigned int num_nh)
{
	return 2 * nla_total_size(sizeof(u32)) +	/* id, refs */
	       fare_route_payload(num_nh);		/* and more */
}

/*
 * What a dump round returns after filling @skb, its last fill having
 * returned @err. A full message asks for another round and an empty one
 * ends the dump, so an entry too large for an empty message must fail the
 * dump with -EMSGSIZE, not end it as if it were complete.
 */
static inline int fare_dump_result(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

#endif /* _FARE_DUMP_H */
