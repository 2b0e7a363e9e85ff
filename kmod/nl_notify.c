// SPDX-License-Identifier: GPL-2.0
/*
 * The fare family's events: every change of a plane, a route, a group or
 * the config, to the "events" group and, for a request with NLM_F_ECHO,
 * to the requester. The plane code raises its own (fare_nl_notify_plane()):
 * this file calls only the message fillers, never back into what calls it.
 */
#include <net/genetlink.h>
#include <net/netlink.h>
#include "netlink.h"
#include "nhg.h"
#include "nl.h"
#include "dump.h"
#include "route.h"

/*
 * Whether to build the event a change makes: for the events group's
 * listeners, or for the requester of the change (@info; NULL for a change
 * the kernel made itself) if it asked for it with NLM_F_ECHO.
 */
static bool fare_want_event(struct fare_net *fn, const struct genl_info *info)
{
	return genl_has_listeners(&fare_family, fn->net,
				  FARE_MCGRP_EVENTS_IDX) ||
	       (info && nlmsg_report(info->nlhdr));
}

/*
 * The header of an event: the requester's port id and sequence number if
 * it gets the event as its echo, so that it can match it, else none.
 */
static u32 fare_event_portid(const struct genl_info *info)
{
	return info && nlmsg_report(info->nlhdr) ? info->snd_portid : 0;
}

static u32 fare_event_seq(const struct genl_info *info)
{
	return info && nlmsg_report(info->nlhdr) ? info->snd_seq : 0;
}

/*
 * Sends an event to the events group and, if the request (@info) had
 * NLM_F_ECHO, to the requester too (genl_notify()).
 */
static void fare_notify(struct fare_net *fn, struct sk_buff *skb,
			struct genl_info *info, gfp_t gfp)
{
	if (info)
		genl_notify(&fare_family, skb, info, FARE_MCGRP_EVENTS_IDX,
			    gfp);
	else
		genlmsg_multicast_netns(&fare_family, fn->net, skb, 0,
					FARE_MCGRP_EVENTS_IDX, gfp);
}

static void fare_plane_event(struct fare_net *fn, u8 cmd,
			     struct fare_plane *plane, struct genl_info *info,
			     gfp_t gfp)
{
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, gfp);
	if (!skb)
		return;
	if (fare_plane_fill(skb, fn, plane, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info, gfp);
}

/*
 * A plane event: by a request (@info) or by the kernel itself (@info NULL,
 * the netdevice notifier's).
 */
void fare_nl_notify_plane(struct fare_net *fn, u8 cmd,
			  struct fare_plane *plane, struct genl_info *info)
{
	fare_plane_event(fn, cmd, plane, info, GFP_KERNEL);
}

/*
 * A plane event the kernel raises itself where it cannot sleep: a
 * gateway's neighbour entry failed or answers again (gateway.c's work,
 * under RCU).
 */
void fare_nl_notify_plane_atomic(struct fare_net *fn,
				 struct fare_plane *plane)
{
	fare_plane_event(fn, FARE_CMD_PLANE_NEW, plane, NULL, GFP_ATOMIC);
}

void fare_nl_notify_route(struct fare_net *fn, u8 cmd, struct fare_route *rt,
			  struct genl_info *info)
{
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	skb = genlmsg_new(fare_route_payload(fare_route_num_nh(fn, rt)),
			  GFP_KERNEL);
	if (!skb)
		return;
	if (fare_route_fill(skb, rt, fn, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info, GFP_KERNEL);
}

void fare_nl_notify_group(struct fare_net *fn, u8 cmd, struct fare_nhg *nhg,
			  struct genl_info *info)
{
	struct sk_buff *skb;

	if (!fare_want_event(fn, info))
		return;
	skb = genlmsg_new(fare_group_payload(fare_nhg_num_nh(fn, nhg)),
			  GFP_KERNEL);
	if (!skb)
		return;
	if (fare_group_fill(skb, nhg, fn, fare_event_portid(info),
			    fare_event_seq(info), 0, cmd)) {
		nlmsg_free(skb);
		return;
	}
	fare_notify(fn, skb, info, GFP_KERNEL);
}

/*
 * A CONFIG_SET's event, under fare_net.lock. The group is CAP_NET_ADMIN's
 * only, and so is the command: listeners and the requester see the seed.
 */
void fare_nl_notify_config(struct fare_net *fn, struct genl_info *info)
{
	struct sk_buff *msg;

	if (!fare_want_event(fn, info))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (msg && !fare_config_fill(msg, fn, fare_event_portid(info),
				     fare_event_seq(info), FARE_CMD_CONFIG_SET,
				     true))
		fare_notify(fn, msg, info, GFP_KERNEL);
	else
		nlmsg_free(msg);
}
