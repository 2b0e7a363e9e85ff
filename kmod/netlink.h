/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family (netlink.c) and the one event the rest of
 * fare.ko raises through it (nl_notify.c): a plane's change, by the plane
 * and gateway code, which netlink calls and which never calls netlink
 * back.
 */
#ifndef _FARE_NETLINK_H
#define _FARE_NETLINK_H

#include "fare.h"

struct fare_plane;
struct genl_info;

int fare_genl_register(void);
void fare_genl_unregister(void);
void fare_nl_notify_plane(struct fare_net *fn, u8 cmd,
			  struct fare_plane *plane, struct genl_info *info);
void fare_nl_notify_plane_atomic(struct fare_net *fn,
				 struct fare_plane *plane);

#endif /* _FARE_NETLINK_H */
