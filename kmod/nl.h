/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the fare family: the family (netlink.c), its parsers
 * (nl_parse.c), its message fillers (nl_fill.c) and its events
 * (nl_notify.c). The handlers in netlink.c call these and the objects'
 * own code; none of these calls a handler.
 */
#ifndef _FARE_NL_H
#define _FARE_NL_H

#include <net/genetlink.h>
#include "fare.h"

struct fare_group;
struct fare_nhg;
struct fare_plane;
struct fare_route;

extern struct genl_family fare_family;

enum { FARE_MCGRP_EVENTS_IDX };

/* A ROUTE_NEW, parsed (fare_nl_parse_route()). */
struct fare_route_req {
	struct fare_prefix key;
	u8 mode;
	u8 tcp_mode;
	int stats;			/* 0, 1, or -1: the namespace's default */
	struct fare_group *grp;		/* inline next hops, or NULL */
};

/* nl_parse.c */
struct net_device *fare_nl_dev(struct net *net, struct nlattr **attrs,
			       bool create, struct netlink_ext_ack *extack);
struct fare_plane *fare_nl_parse_plane(struct genl_info *info);
int fare_nl_parse_route(struct genl_info *info, struct fare_route_req *req);
int fare_nl_parse_prefix(struct genl_info *info, struct fare_prefix *key);
int fare_nl_parse_nexthops(struct genl_info *info, struct fare_group **grpp);

/* nl_fill.c */
void *fare_msg_start(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd);
unsigned int fare_nhg_num_nh(struct fare_net *fn, struct fare_nhg *nhg);
unsigned int fare_route_num_nh(struct fare_net *fn, struct fare_route *rt);
int fare_plane_fill(struct sk_buff *skb, struct fare_net *fn,
		    struct fare_plane *plane,
		    u32 portid, u32 seq, int flags, u8 cmd);
int fare_route_fill(struct sk_buff *skb, struct fare_route *rt,
		    struct fare_net *fn, u32 portid, u32 seq, int flags,
		    u8 cmd);
int fare_group_fill(struct sk_buff *skb, struct fare_nhg *nhg,
		    struct fare_net *fn, u32 portid, u32 seq, int flags,
		    u8 cmd);
int fare_config_fill(struct sk_buff *skb, struct fare_net *fn, u32 portid,
		     u32 seq, u8 cmd, bool with_seed);
int fare_stats_fill(struct sk_buff *msg, struct fare_net *fn, u32 portid,
		    u32 seq);

/* nl_notify.c; fare_nl_notify_plane() is in netlink.h */
void fare_nl_notify_route(struct fare_net *fn, u8 cmd, struct fare_route *rt,
			  struct genl_info *info);
void fare_nl_notify_group(struct fare_net *fn, u8 cmd, struct fare_nhg *nhg,
			  struct genl_info *info);
void fare_nl_notify_config(struct fare_net *fn, struct genl_info *info);

#endif /* _FARE_NL_H */
