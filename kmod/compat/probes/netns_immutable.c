// SPDX-License-Identifier: GPL-2.0
/* Since 6.15 a device pinned to its namespace says so in netns_immutable. */
#include <linux/netdevice.h>

void fare_probe(struct net_device *dev);
void fare_probe(struct net_device *dev)
{
	dev->netns_immutable = true;
}
