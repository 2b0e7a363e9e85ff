// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl's output: the plain text (in the manner of ip(8)) and JSON forms
 * of planes, routes, config and stats. Pure formatting: device names are
 * resolved by the caller, so the unit tests can check the exact text.
 */
#ifndef FARECTL_OUTPUT_H
#define FARECTL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "libfare.h"

struct fc_out {
	FILE *f;
	bool json;
	struct json j;
};

void fc_out_init(struct fc_out *o, FILE *f, bool json, bool pretty);

/* part / total, or NaN when total is 0 (no share to speak of). */
double fc_share(uint64_t part, uint64_t total);
/*
 * The share next hop i should get: its weight over the sum of the weights
 * of the next hops in its tier (a higher tier only carries traffic when
 * every lower one is unusable, and then shares by the same rule).
 */
double fc_target_share(const struct fare_route *r, unsigned int i);

/* ifname may be NULL when the device has no name (then "if<index>"). */
void fc_out_plane(struct fc_out *o, const struct fare_plane *p,
		  const char *ifname, bool with_share, double share);
/*
 * A route: its group if named, and without its own counters ("stats off")
 * no actual share. A group: its routes, next hops and the group's counters.
 */
void fc_out_route(struct fc_out *o, const struct fare_route *r);
void fc_out_group(struct fc_out *o, const struct fare_group *g);
void fc_out_config(struct fc_out *o, const struct fare_config *cfg,
		   const char *ifname);
/*
 * An event of "farectl monitor": in text, a line "farectl -batch" takes
 * (a plane's oper state follows as a comment); with JSON, one object
 * {"event": "plane_new", "plane": {...}} and a newline. ifname names the
 * plane's device (plane events) or fare0 (config events).
 */
void fc_out_event(struct fc_out *o, const struct fare_event *ev,
		  const char *ifname, const char *fare_dev);
void fc_out_drops(struct fc_out *o, const struct fare_stats *s);
/*
 * Per-tier counters: text, a line per tier that carried or spilled (tier
 * 0 always; "7+" counts the higher tiers too); JSON, an array of all.
 */
void fc_out_tiers(struct fc_out *o, const struct fare_stats *s);

#endif /* FARECTL_OUTPUT_H */
