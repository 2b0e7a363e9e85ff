/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A plane's gateways as the neighbour tables see them (gateway.c): a
 * gateway whose entry failed carries nothing until it answers again.
 */
#ifndef _FARE_GATEWAY_H
#define _FARE_GATEWAY_H

#include "fare.h"

struct fare_plane;

/* How often a failed gateway is solicited again (gateway.c). */
#define FARE_GW_PROBE_INTERVAL	HZ

void fare_gw_net_init(struct fare_net *fn);
void fare_gw_net_exit(struct fare_net *fn);
void fare_gw_plane_init(struct fare_net *fn, struct fare_plane *plane);
void fare_gw_plane_reset(struct fare_net *fn, struct fare_plane *plane);
void fare_gw_set_use_neigh(struct fare_net *fn, bool on);
int fare_gw_notifier_register(void);
void fare_gw_notifier_unregister(void);

#endif /* _FARE_GATEWAY_H */
