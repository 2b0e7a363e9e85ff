/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fare device (device.c): its link ops, its state's lifetime, the
 * namespace's default device made on first use, and how it follows its
 * planes.
 */
#ifndef _FARE_DEVICE_H
#define _FARE_DEVICE_H

#include "fare.h"

extern struct rtnl_link_ops fare_link_ops;
bool fare_dev_is_fare(const struct net_device *dev);
u64 fare_dev_budget_floor(void);
struct net_device *fare_dev_default(struct net *net,
				    struct netlink_ext_ack *extack);
void fare_dev_sync(struct fare_net *fn);

#endif /* _FARE_DEVICE_H */
