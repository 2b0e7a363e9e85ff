/* SPDX-License-Identifier: GPL-2.0 */
/* A packet's next hop (decide.c). */
#ifndef _FARE_DECIDE_H
#define _FARE_DECIDE_H

#include "fare.h"

struct fare_group;
struct fare_plane;
struct fare_route;

int fare_group_select(struct fare_net *fn, struct fare_route *rt,
		      struct fare_group *grp, struct sk_buff *skb,
		      struct fare_plane **planep, u8 *gwp);

#endif /* _FARE_DECIDE_H */
