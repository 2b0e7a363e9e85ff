// SPDX-License-Identifier: GPL-2.0
/* Since 6.12 lockless transmit is a netdevice bit, not NETIF_F_LLTX. */
#include <linux/netdevice.h>

void fare_probe(struct net_device *dev);
void fare_probe(struct net_device *dev)
{
	dev->lltx = true;
}
