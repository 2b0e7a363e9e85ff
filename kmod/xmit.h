/* SPDX-License-Identifier: GPL-2.0 */
/* The fare device's transmit (xmit.c). */
#ifndef _FARE_XMIT_H
#define _FARE_XMIT_H

#include <linux/netdevice.h>

netdev_tx_t fare_xmit(struct sk_buff *skb, struct net_device *dev);

#endif /* _FARE_XMIT_H */
