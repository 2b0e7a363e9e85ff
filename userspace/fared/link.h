// SPDX-License-Identifier: GPL-2.0-only
/*
 * What fared asks the kernel about a network device: its ethtool speed
 * (a plane's link bandwidth with "bandwidth auto") and whether it is up
 * with a carrier (an "rnic PREFIX interface NAME" line's link). Plain
 * ioctls; nothing here knows about BGP or FARE.
 */
#ifndef FARED_LINK_H
#define FARED_LINK_H

#include <stdint.h>

/* The device's ethtool speed in bits/s; 0 when it reports none. */
uint64_t link_speed_bps(const char *ifname);
/* 1 when NAME is up with a carrier (IFF_UP and IFF_RUNNING), else 0. */
int link_running(const char *name);

#endif /* FARED_LINK_H */
