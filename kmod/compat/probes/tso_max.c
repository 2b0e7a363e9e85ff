// SPDX-License-Identifier: GPL-2.0
/* Since 5.19/6.0 a device's TSO limits are set with netif_set_tso_max_*(). */
#include <linux/netdevice.h>

void fare_probe(struct net_device *dev);
void fare_probe(struct net_device *dev)
{
	netif_set_tso_max_size(dev, 65536);
	netif_set_tso_max_segs(dev, 64);
}
