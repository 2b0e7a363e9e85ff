// SPDX-License-Identifier: GPL-2.0
/* From 6.12 to 6.14 it is the netns_local bit, not NETIF_F_NETNS_LOCAL. */
#include <linux/netdevice.h>

void fare_probe(struct net_device *dev);
void fare_probe(struct net_device *dev)
{
	dev->netns_local = true;
}
