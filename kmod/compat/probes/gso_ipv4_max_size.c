// SPDX-License-Identifier: GPL-2.0
/* Since 6.3 IPv4 has a GSO size limit of its own, gso_ipv4_max_size. */
#include <linux/netdevice.h>

void fare_probe(struct net_device *dev);
void fare_probe(struct net_device *dev)
{
	WRITE_ONCE(dev->gso_ipv4_max_size, GSO_LEGACY_MAX_SIZE);
}
