// SPDX-License-Identifier: GPL-2.0-only
/* Plain text and JSON forms of farectl's objects. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "output.h"

void fc_out_init(struct fc_out *o, FILE *f, bool json, bool pretty)
{
	o->f = f;
	o->json = json;
	json_init(&o->j, f, pretty);
}

double fc_share(uint64_t part, uint64_t total)
{
	if (!total)
		return NAN;
	return (double)part / (double)total;
}

double fc_target_share(const struct fare_route *r, unsigned int i)
{
	uint64_t sum = 0;
	unsigned int k;

	for (k = 0; k < r->n_nexthops; k++)
		if (r->nexthops[k].tier == r->nexthops[i].tier)
			sum += r->nexthops[k].weight;
	return fc_share(r->nexthops[i].weight, sum);
}

/* "75.0%", or "-" when there is no share. */
static void print_share(FILE *f, double share)
{
	if (isnan(share))
		fputs("-", f);
	else
		fprintf(f, "%.1f%%", share * 100.0);
}

/* " gw4-failed", " gw6-failed": the gateways whose neighbour entry failed. */
static void print_gw_failed(FILE *f, uint32_t flags)
{
	if (flags & FARE_PLANE_F_GW4_FAILED)
		fputs(" gw4-failed", f);
	if (flags & FARE_PLANE_F_GW6_FAILED)
		fputs(" gw6-failed", f);
}

static const char *addr_str(int family, const void *addr, char *buf,
			    size_t len)
{
	if (!inet_ntop(family, addr, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

void fc_out_plane(struct fc_out *o, const struct fare_plane *p,
		  const char *ifname, bool with_share, double share)
{
	char addr[INET6_ADDRSTRLEN];
	char dev[IF_NAMESIZE + 16];
	bool up = p->flags & FARE_PLANE_F_OPER_UP;

	if (ifname)
		snprintf(dev, sizeof(dev), "%s", ifname);
	else
		snprintf(dev, sizeof(dev), "if%u", p->ifindex);

	if (o->json) {
		json_open_object(&o->j);
		json_kv_u64(&o->j, "id", p->id);
		json_kv_string(&o->j, "dev", dev);
		json_kv_u64(&o->j, "ifindex", p->ifindex);
		if (p->has_gw4)
			json_kv_string(&o->j, "gw4",
				       addr_str(AF_INET, &p->gw4, addr,
						sizeof(addr)));
		if (p->has_gw6)
			json_kv_string(&o->j, "gw6",
				       addr_str(AF_INET6, &p->gw6, addr,
						sizeof(addr)));
		json_kv_bool(&o->j, "up", up);
		json_kv_bool(&o->j, "admin_down", p->admin_down);
		json_kv_u64(&o->j, "flags", p->flags);
		json_kv_u64(&o->j, "tx_packets", p->tx_packets);
		json_kv_u64(&o->j, "tx_bytes", p->tx_bytes);
		json_kv_bool(&o->j, "gw4_failed",
			     p->flags & FARE_PLANE_F_GW4_FAILED);
		json_kv_bool(&o->j, "gw6_failed",
			     p->flags & FARE_PLANE_F_GW6_FAILED);
		json_kv_u64(&o->j, "gw_fails", p->gw_fails);
		if (with_share)
			json_kv_double(&o->j, "share", share);
		json_close_object(&o->j);
		return;
	}

	fprintf(o->f, "plane %u dev %s", p->id, dev);
	if (p->has_gw4)
		fprintf(o->f, " via %s",
			addr_str(AF_INET, &p->gw4, addr, sizeof(addr)));
	if (p->has_gw6)
		fprintf(o->f, " via %s",
			addr_str(AF_INET6, &p->gw6, addr, sizeof(addr)));
	fprintf(o->f, " %s tx %" PRIu64 " packets %" PRIu64 " bytes",
		up ? "up" : p->admin_down ? "admin-down" : "down",
		p->tx_packets, p->tx_bytes);
	/* Only once a gateway failed: what scripts read stays the same. */
	print_gw_failed(o->f, p->flags);
	if (p->gw_fails)
		fprintf(o->f, " gw-fails %" PRIu64, p->gw_fails);
	if (with_share) {
		fputs(" share ", o->f);
		print_share(o->f, share);
	}
	fputc('\n', o->f);
}

/* The next hops of a route or group; @counters: they have tx counters. */
static void nexthops_json(struct fc_out *o, const struct fare_route *r,
			  bool counters, uint64_t total)
{
	unsigned int i;

	json_key(&o->j, "nexthops");
	json_open_array(&o->j);
	for (i = 0; i < r->n_nexthops; i++) {
		const struct fare_nexthop *nh = &r->nexthops[i];

		json_open_object(&o->j);
		json_kv_u64(&o->j, "plane", nh->plane_id);
		json_kv_u64(&o->j, "weight", nh->weight);
		json_kv_u64(&o->j, "tier", nh->tier);
		json_kv_u64(&o->j, "bandwidth", nh->bandwidth);
		json_kv_double(&o->j, "share", fc_target_share(r, i));
		if (counters) {
			json_kv_double(&o->j, "actual",
				       fc_share(nh->tx_packets, total));
			json_kv_u64(&o->j, "tx_packets", nh->tx_packets);
			json_kv_u64(&o->j, "tx_bytes", nh->tx_bytes);
		}
		json_close_object(&o->j);
	}
	json_close_array(&o->j);
}

static void nexthops_text(struct fc_out *o, const struct fare_route *r,
			  bool counters, uint64_t total)
{
	unsigned int i;

	for (i = 0; i < r->n_nexthops; i++) {
		const struct fare_nexthop *nh = &r->nexthops[i];

		fprintf(o->f, "\tnexthop plane %u weight %u tier %u",
			nh->plane_id, nh->weight, nh->tier);
		if (nh->bandwidth)
			fprintf(o->f, " bandwidth %" PRIu64, nh->bandwidth);
		fputs(" share ", o->f);
		print_share(o->f, fc_target_share(r, i));
		if (counters) {
			fputs(" actual ", o->f);
			print_share(o->f, fc_share(nh->tx_packets, total));
			fprintf(o->f, " packets %" PRIu64 " bytes %" PRIu64,
				nh->tx_packets, nh->tx_bytes);
		}
		fputc('\n', o->f);
	}
}

void fc_out_route(struct fc_out *o, const struct fare_route *r)
{
	bool counters = r->stats != FARE_ROUTE_STATS_OFF;
	bool named = r->group_id && r->group_id <= FARE_GROUP_ID_MAX;
	char prefix[FARE_PREFIX_STRLEN];
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < r->n_nexthops; i++)
		total += r->nexthops[i].tx_packets;
	fare_prefix_format(&r->dst, prefix, sizeof(prefix));

	if (o->json) {
		json_open_object(&o->j);
		json_kv_string(&o->j, "dst", prefix);
		json_kv_string(&o->j, "family",
			       r->dst.family == AF_INET ? "inet" : "inet6");
		json_kv_string(&o->j, "mode", fare_mode_name(r->mode));
		json_kv_string(&o->j, "tcp_mode", fare_mode_name(r->tcp_mode));
		if (r->group_id) {
			json_kv_u64(&o->j, "group", r->group_id);
			json_kv_bool(&o->j, "anonymous", !named);
		}
		json_kv_bool(&o->j, "stats", counters);
		if (counters) {
			json_kv_u64(&o->j, "noplane_packets",
				    r->noplane_packets);
			json_kv_u64(&o->j, "fallback_packets",
				    r->fallback_packets);
		}
		nexthops_json(o, r, counters, total);
		json_close_object(&o->j);
		return;
	}

	fprintf(o->f, "%s mode %s", prefix, fare_mode_name(r->mode));
	if (r->tcp_mode != FARE_MODE_DEFAULT)
		fprintf(o->f, " tcp-mode %s", fare_mode_name(r->tcp_mode));
	if (named)
		fprintf(o->f, " group %u", r->group_id);
	if (!counters)
		fputs(" stats off", o->f);
	if (r->noplane_packets)
		fprintf(o->f, " noplane %" PRIu64 " packets",
			r->noplane_packets);
	if (r->fallback_packets)
		fprintf(o->f, " fallback %" PRIu64 " packets",
			r->fallback_packets);
	fputc('\n', o->f);
	nexthops_text(o, r, counters, total);
}

void fc_out_group(struct fc_out *o, const struct fare_group *g)
{
	struct fare_route *r = calloc(1, sizeof(*r));
	bool named = g->id <= FARE_GROUP_ID_MAX;
	uint64_t total = 0;
	unsigned int i;

	if (!r) {
		perror("farectl");
		return;
	}
	/* The share arithmetic is the route's. */
	r->n_nexthops = g->n_nexthops;
	memcpy(r->nexthops, g->nexthops,
	       g->n_nexthops * sizeof(g->nexthops[0]));
	for (i = 0; i < r->n_nexthops; i++)
		total += r->nexthops[i].tx_packets;
	if (o->json) {
		json_open_object(&o->j);
		json_kv_u64(&o->j, "id", g->id);
		json_kv_bool(&o->j, "anonymous", !named);
		json_kv_u64(&o->j, "routes", g->refs);
		nexthops_json(o, r, true, total);
		json_close_object(&o->j);
	} else {
		fprintf(o->f, "group %u%s routes %u\n", g->id,
			named ? "" : " anonymous", g->refs);
		nexthops_text(o, r, true, total);
	}
	free(r);
}

static void config_json(struct fc_out *o, const struct fare_config *cfg,
			const char *ifname)
{
	json_open_object(&o->j);
	json_kv_string(&o->j, "mode", fare_mode_name(cfg->mode));
	json_kv_u64(&o->j, "flowlet_timeout_us", cfg->flowlet_us);
	/* The kernel shows the seed to CAP_NET_ADMIN only. */
	if (cfg->set & FARE_CONFIG_HASH_SEED)
		json_kv_u64(&o->j, "hash_seed", cfg->hash_seed);
	else
		json_kv_null(&o->j, "hash_seed");
	json_kv_u64(&o->j, "ifindex", cfg->ifindex);
	if (cfg->ifindex && ifname)
		json_kv_string(&o->j, "dev", ifname);
	else
		json_kv_null(&o->j, "dev");
	if (cfg->set & FARE_CONFIG_TIER_HOPS) {
		unsigned int i;

		json_key(&o->j, "tier_hops");
		json_open_array(&o->j);
		for (i = 0; i < cfg->n_tier_hops; i++)
			json_u64(&o->j, cfg->tier_hops[i]);
		json_close_array(&o->j);
	}
	if (cfg->set & FARE_CONFIG_SPILL_BIAS)
		json_kv_u64(&o->j, "spill_bias", cfg->spill_bias);
	if (cfg->set & FARE_CONFIG_MAX_ROUTES)
		json_kv_u64(&o->j, "route_limit", cfg->max_routes);
	if (cfg->set & FARE_CONFIG_MAX_PLANES)
		json_kv_u64(&o->j, "plane_limit", cfg->max_planes);
	if (cfg->set & FARE_CONFIG_MAX_NEXTHOPS)
		json_kv_u64(&o->j, "nexthop_limit", cfg->max_nexthops);
	if (cfg->set & FARE_CONFIG_MAX_GROUPS)
		json_kv_u64(&o->j, "group_limit", cfg->max_groups);
	if (cfg->set & FARE_CONFIG_ROUTE_STATS)
		json_kv_bool(&o->j, "route_stats", cfg->route_stats);
	if (cfg->set & FARE_CONFIG_COUNTS) {
		json_kv_u64(&o->j, "routes", cfg->num_routes);
		json_kv_u64(&o->j, "planes", cfg->num_planes);
	}
	if (cfg->set & FARE_CONFIG_NUM_GROUPS)
		json_kv_u64(&o->j, "groups", cfg->num_groups);
	if (cfg->set & FARE_CONFIG_FLOWLET_SLOTS)
		json_kv_u64(&o->j, "flowlet_slots", cfg->flowlet_slots);
	if (cfg->set & FARE_CONFIG_USE_NEIGH)
		json_kv_bool(&o->j, "use_neigh", cfg->use_neigh);
	if (cfg->set & FARE_CONFIG_MEMORY_BUDGET)
		json_kv_u64(&o->j, "memory_budget", cfg->memory_budget);
	if (cfg->set & FARE_CONFIG_MEMORY_USED)
		json_kv_u64(&o->j, "memory_used", cfg->memory_used);
	json_close_object(&o->j);
}

/* " hash-seed 0x0000beef" if the kernel sent it (CAP_NET_ADMIN only). */
static void config_seed_text(FILE *f, const struct fare_config *cfg)
{
	if (cfg->set & FARE_CONFIG_HASH_SEED)
		fprintf(f, " hash-seed 0x%08x", cfg->hash_seed);
}

/*
 * " tier-hops 3,4,6 spill-bias 65536 use-neigh on", each if the kernel
 * sent it.
 */
static void config_spill_text(FILE *f, const struct fare_config *cfg)
{
	unsigned int i;

	if (cfg->set & FARE_CONFIG_TIER_HOPS) {
		fputs(" tier-hops ", f);
		for (i = 0; i < cfg->n_tier_hops; i++)
			fprintf(f, "%s%u", i ? "," : "", cfg->tier_hops[i]);
	}
	if (cfg->set & FARE_CONFIG_SPILL_BIAS)
		fprintf(f, " spill-bias %u", cfg->spill_bias);
	if (cfg->set & FARE_CONFIG_USE_NEIGH)
		fprintf(f, " use-neigh %s", cfg->use_neigh ? "on" : "off");
}

/*
 * " route-limit 262144 plane-limit 64 nexthop-limit 64 group-limit 262144
 * flowlet-slots 4096 memory-budget 64M", each if the kernel sent it; for config show only: a
 * monitor line replayed by -batch must not try to raise a limit (or grow
 * the flowlet table, or restart every flowlet).
 */
static void config_limits_text(FILE *f, const struct fare_config *cfg)
{
	if (cfg->set & FARE_CONFIG_MAX_ROUTES)
		fprintf(f, " route-limit %u", cfg->max_routes);
	if (cfg->set & FARE_CONFIG_MAX_PLANES)
		fprintf(f, " plane-limit %u", cfg->max_planes);
	if (cfg->set & FARE_CONFIG_MAX_NEXTHOPS)
		fprintf(f, " nexthop-limit %u", cfg->max_nexthops);
	if (cfg->set & FARE_CONFIG_MAX_GROUPS)
		fprintf(f, " group-limit %u", cfg->max_groups);
	/* Above the default it also needs the initial namespace's right. */
	if (cfg->set & FARE_CONFIG_FLOWLET_SLOTS)
		fprintf(f, " flowlet-slots %u", cfg->flowlet_slots);
	/* In MiB where whole, as config set takes it back. */
	if ((cfg->set & FARE_CONFIG_MEMORY_BUDGET) && cfg->memory_budget &&
	    !(cfg->memory_budget % (1024 * 1024)))
		fprintf(f, " memory-budget %" PRIu64 "M",
			cfg->memory_budget / (1024 * 1024));
	else if (cfg->set & FARE_CONFIG_MEMORY_BUDGET)
		fprintf(f, " memory-budget %" PRIu64, cfg->memory_budget);
}

void fc_out_config(struct fc_out *o, const struct fare_config *cfg,
		   const char *ifname)
{
	if (o->json) {
		config_json(o, cfg, ifname);
		json_end(&o->j);
		return;
	}
	fprintf(o->f, "mode %s flowlet-timeout %u",
		fare_mode_name(cfg->mode), cfg->flowlet_us);
	config_seed_text(o->f, cfg);
	config_spill_text(o->f, cfg);
	config_limits_text(o->f, cfg);
	if (!cfg->ifindex)
		fputs(" dev none\n", o->f);
	else if (ifname)
		fprintf(o->f, " dev %s\n", ifname);
	else
		fprintf(o->f, " dev if%u\n", cfg->ifindex);
}

void fc_out_drops(struct fc_out *o, const struct fare_stats *s)
{
	if (o->json) {
		json_open_object(&o->j);
		json_kv_u64(&o->j, "noroute_packets", s->noroute_packets);
		json_kv_u64(&o->j, "noplane_packets", s->noplane_packets);
		json_kv_u64(&o->j, "error_packets", s->error_packets);
		json_kv_u64(&o->j, "fallback_packets", s->fallback_packets);
		json_close_object(&o->j);
		return;
	}
	fprintf(o->f, "drops noroute %" PRIu64 " noplane %" PRIu64
		" error %" PRIu64 " packets\n", s->noroute_packets,
		s->noplane_packets, s->error_packets);
	fprintf(o->f, "fallback %" PRIu64 " packets\n", s->fallback_packets);
}

void fc_out_tiers(struct fc_out *o, const struct fare_stats *s)
{
	unsigned int t;

	if (o->json) {
		json_open_array(&o->j);
		for (t = 0; t <= FARE_TIER_MAX; t++) {
			json_open_object(&o->j);
			json_kv_u64(&o->j, "tier", t);
			json_kv_u64(&o->j, "packets", s->tiers[t].packets);
			json_kv_u64(&o->j, "bytes", s->tiers[t].bytes);
			json_kv_u64(&o->j, "spills", s->tiers[t].spills);
			json_close_object(&o->j);
		}
		json_close_array(&o->j);
		return;
	}
	/* Tier 0 always, the others once they carried or spilled. */
	for (t = 0; t <= FARE_TIER_MAX; t++) {
		if (t && !s->tiers[t].packets && !s->tiers[t].spills)
			continue;
		fprintf(o->f, "tier %u%s packets %" PRIu64 " bytes %" PRIu64
			" spills %" PRIu64 "\n", t,
			t == FARE_TIER_MAX ? "+" : "", s->tiers[t].packets,
			s->tiers[t].bytes, s->tiers[t].spills);
	}
}

/* "route replace PREFIX [mode M] nexthop plane ID weight W [tier T] ..." */
/* " nexthop plane P weight W [tier T] [bandwidth B]" for each next hop. */
static void nexthops_line(FILE *f, const struct fare_nexthop *nhs,
			  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fprintf(f, " nexthop plane %u weight %u", nhs[i].plane_id,
			nhs[i].weight);
		if (nhs[i].tier)
			fprintf(f, " tier %u", nhs[i].tier);
		if (nhs[i].bandwidth)
			fprintf(f, " bandwidth %" PRIu64, nhs[i].bandwidth);
	}
	fputc('\n', f);
}

static void route_line(FILE *f, const struct fare_route *r)
{
	char prefix[FARE_PREFIX_STRLEN];

	fprintf(f, "route replace %s",
		fare_prefix_format(&r->dst, prefix, sizeof(prefix)));
	if (r->mode != FARE_MODE_DEFAULT)
		fprintf(f, " mode %s", fare_mode_name(r->mode));
	if (r->tcp_mode != FARE_MODE_DEFAULT)
		fprintf(f, " tcp-mode %s", fare_mode_name(r->tcp_mode));
	if (r->stats == FARE_ROUTE_STATS_OFF)
		fputs(" stats off", f);
	if (r->group_id && r->group_id <= FARE_GROUP_ID_MAX) {
		fprintf(f, " group %u\n", r->group_id);
		return;
	}
	nexthops_line(f, r->nexthops, r->n_nexthops);
}

/*
 * An event as a line: in text the batch command that replays it (for the
 * device the monitor watches, which the line does not name), in JSON an
 * object that also names the fare device (@fare_dev, its ifindex in ev) when
 * fare.ko said which.
 */
void fc_out_event(struct fc_out *o, const struct fare_event *ev,
		  const char *ifname, const char *fare_dev)
{
	static const char *const names[] = {
		[FARE_EVENT_PLANE_NEW] = "plane_new",
		[FARE_EVENT_PLANE_DEL] = "plane_del",
		[FARE_EVENT_ROUTE_NEW] = "route_new",
		[FARE_EVENT_ROUTE_DEL] = "route_del",
		[FARE_EVENT_CONFIG] = "config",
		[FARE_EVENT_GROUP_NEW] = "group_new",
		[FARE_EVENT_GROUP_DEL] = "group_del",
	};
	char addr[INET6_ADDRSTRLEN], prefix[FARE_PREFIX_STRLEN];
	char dev[IF_NAMESIZE + 16];
	const struct fare_plane *p = &ev->plane;

	if (ev->type == FARE_EVENT_LOST || ev->type > FARE_EVENT_GROUP_DEL)
		return;
	if (o->json) {
		json_open_object(&o->j);
		json_kv_string(&o->j, "event", names[ev->type]);
		if (ev->ifindex) {
			json_kv_u64(&o->j, "ifindex", ev->ifindex);
			if (fare_dev)
				json_kv_string(&o->j, "dev", fare_dev);
			else
				json_kv_null(&o->j, "dev");
		}
		switch (ev->type) {
		case FARE_EVENT_PLANE_NEW:
		case FARE_EVENT_PLANE_DEL:
			json_key(&o->j, "plane");
			fc_out_plane(o, p, ifname, false, 0);
			break;
		case FARE_EVENT_ROUTE_NEW:
			json_key(&o->j, "route");
			fc_out_route(o, &ev->route);
			break;
		case FARE_EVENT_ROUTE_DEL:
			json_key(&o->j, "route");
			json_open_object(&o->j);
			json_kv_string(&o->j, "dst",
				       fare_prefix_format(&ev->route.dst, prefix,
							  sizeof(prefix)));
			json_kv_string(&o->j, "family",
				       ev->route.dst.family == AF_INET ?
				       "inet" : "inet6");
			json_close_object(&o->j);
			break;
		case FARE_EVENT_GROUP_NEW:
			json_key(&o->j, "group");
			fc_out_group(o, &ev->group);
			break;
		case FARE_EVENT_GROUP_DEL:
			json_key(&o->j, "group");
			json_open_object(&o->j);
			json_kv_u64(&o->j, "id", ev->group.id);
			json_close_object(&o->j);
			break;
		default:
			json_key(&o->j, "config");
			config_json(o, &ev->config, ifname);
			break;
		}
		json_close_object(&o->j);
		json_end(&o->j);
		return;
	}

	switch (ev->type) {
	case FARE_EVENT_PLANE_NEW:
		if (ifname)
			snprintf(dev, sizeof(dev), "%s", ifname);
		else
			snprintf(dev, sizeof(dev), "if%u", p->ifindex);
		fprintf(o->f, "plane replace %u dev %s", p->id, dev);
		if (p->has_gw4)
			fprintf(o->f, " via %s",
				addr_str(AF_INET, &p->gw4, addr, sizeof(addr)));
		if (p->has_gw6)
			fprintf(o->f, " via %s",
				addr_str(AF_INET6, &p->gw6, addr, sizeof(addr)));
		fprintf(o->f, " # %s",
			p->flags & FARE_PLANE_F_OPER_UP ? "up" :
			p->admin_down ? "admin-down" : "down");
		/* What the neighbour tables say of the gateways, as plane show. */
		print_gw_failed(o->f, p->flags);
		fputc('\n', o->f);
		break;
	case FARE_EVENT_PLANE_DEL:
		fprintf(o->f, "plane del %u\n", p->id);
		break;
	case FARE_EVENT_ROUTE_NEW:
		route_line(o->f, &ev->route);
		break;
	case FARE_EVENT_ROUTE_DEL:
		fprintf(o->f, "route del %s\n",
			fare_prefix_format(&ev->route.dst, prefix,
					   sizeof(prefix)));
		break;
	case FARE_EVENT_GROUP_NEW:
		fprintf(o->f, "group replace %u", ev->group.id);
		nexthops_line(o->f, ev->group.nexthops, ev->group.n_nexthops);
		break;
	case FARE_EVENT_GROUP_DEL:
		fprintf(o->f, "group del %u\n", ev->group.id);
		break;
	default:
		fprintf(o->f, "config set mode %s flowlet-timeout %u",
			fare_mode_name(ev->config.mode), ev->config.flowlet_us);
		config_seed_text(o->f, &ev->config);
		config_spill_text(o->f, &ev->config);
		fputc('\n', o->f);
		break;
	}
}
