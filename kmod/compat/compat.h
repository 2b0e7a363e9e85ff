/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, decided by compile probes (compat/probes/) whose
 * results the build writes to compat-generated.h, never by version numbers:
 * Debian backports make those wrong.
 */
#ifndef _FARE_COMPAT_H
#define _FARE_COMPAT_H

#include <linux/netdevice.h>
#include "compat-generated.h"

static inline void fare_dev_set_lltx(struct net_device *dev)
{
#ifdef FARE_HAVE_DEV_LLTX
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}

#endif /* _FARE_COMPAT_H */
