// SPDX-License-Identifier: GPL-2.0-only
/* farectl's output: the exact text and JSON of planes, routes and stats. */
#include <math.h>
#include <arpa/inet.h>

#include "harness.h"
#include "output.h"

static struct fare_plane plane(void)
{
	struct fare_plane p = {
		.id = 1, .ifindex = 4, .has_gw4 = true,
		.flags = FARE_PLANE_F_OPER_UP,
		.tx_packets = 3000, .tx_bytes = 120000,
	};

	inet_pton(AF_INET, "10.1.0.1", &p.gw4);
	return p;
}

static struct fare_route route(void)
{
	struct fare_route r = { .mode = FARE_MODE_PACKET, .n_nexthops = 2 };

	fare_prefix_parse("10.0.0.0/24", &r.dst, NULL);
	r.nexthops[0] = (struct fare_nexthop){
		.plane_id = 1, .weight = 3, .tx_packets = 3000,
		.tx_bytes = 120000,
	};
	r.nexthops[1] = (struct fare_nexthop){
		.plane_id = 2, .weight = 1, .tx_packets = 1000,
		.tx_bytes = 40000,
	};
	return r;
}

TEST(plane_line_reads_like_ip)
{
	struct fare_plane p = plane();
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_plane(&o, &p, "eth-p1", false, 0);
	CHECK_STR(capture_text(&c),
		  "plane 1 dev eth-p1 via 10.1.0.1 up tx 3000 packets 120000 bytes\n");
	capture_end(&c);
}

TEST(plane_line_shows_both_gateways_down_state_and_share)
{
	struct fare_plane p = plane();
	struct fc_out o;
	struct capture c;

	p.has_gw6 = true;
	inet_pton(AF_INET6, "fe80::1", &p.gw6);
	p.flags = 0;
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_plane(&o, &p, NULL, true, 0.25);
	fc_out_plane(&o, &p, NULL, true, NAN);
	CHECK_STR(capture_text(&c),
		  "plane 1 dev if4 via 10.1.0.1 via fe80::1 down tx 3000 packets 120000 bytes share 25.0%\n"
		  "plane 1 dev if4 via 10.1.0.1 via fe80::1 down tx 3000 packets 120000 bytes share -\n");
	capture_end(&c);
}

TEST(plane_line_shows_a_failed_gateway_only_when_there_is_one)
{
	struct fare_plane p = plane();
	struct fc_out o;
	struct capture c;

	p.has_gw6 = true;
	inet_pton(AF_INET6, "fe80::1", &p.gw6);
	p.flags |= FARE_PLANE_F_GW4_FAILED;
	p.gw_fails = 3;
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_plane(&o, &p, NULL, false, 0);
	p.flags = FARE_PLANE_F_OPER_UP | FARE_PLANE_F_GW6_FAILED;
	fc_out_plane(&o, &p, NULL, false, 0);
	CHECK_STR(capture_text(&c),
		  "plane 1 dev if4 via 10.1.0.1 via fe80::1 up tx 3000 packets 120000 bytes gw4-failed gw-fails 3\n"
		  "plane 1 dev if4 via 10.1.0.1 via fe80::1 up tx 3000 packets 120000 bytes gw6-failed gw-fails 3\n");
	capture_end(&c);
}

TEST(plane_json_has_every_field)
{
	struct fare_plane p = plane();
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, true, false);
	fc_out_plane(&o, &p, "eth-p1", true, 0.75);
	CHECK_STR(capture_text(&c),
		  "{\"id\":1,\"dev\":\"eth-p1\",\"ifindex\":4,\"gw4\":\"10.1.0.1\","
		  "\"up\":true,\"admin_down\":false,\"flags\":1,\"tx_packets\":3000,\"tx_bytes\":120000,"
		  "\"gw4_failed\":false,\"gw6_failed\":false,\"gw_fails\":0,\"share\":0.75}");
	capture_end(&c);
}

TEST(route_text_shows_target_and_actual_share_per_hop)
{
	struct fare_route r = route();
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_route(&o, &r);
	CHECK_STR(capture_text(&c),
		  "10.0.0.0/24 mode packet\n"
		  "\tnexthop plane 1 weight 3 tier 0 share 75.0% actual 75.0% packets 3000 bytes 120000\n"
		  "\tnexthop plane 2 weight 1 tier 0 share 25.0% actual 25.0% packets 1000 bytes 40000\n");
	capture_end(&c);
}

TEST(route_without_traffic_has_no_actual_share)
{
	struct fare_route r = route();
	struct fc_out o;
	struct capture c;

	r.nexthops[0].tx_packets = r.nexthops[1].tx_packets = 0;
	r.nexthops[0].tx_bytes = r.nexthops[1].tx_bytes = 0;
	r.noplane_packets = 5;
	r.fallback_packets = 6;
	r.mode = FARE_MODE_DEFAULT;
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_route(&o, &r);
	CHECK_STR(capture_text(&c),
		  "10.0.0.0/24 mode default noplane 5 packets fallback 6 packets\n"
		  "\tnexthop plane 1 weight 3 tier 0 share 75.0% actual - packets 0 bytes 0\n"
		  "\tnexthop plane 2 weight 1 tier 0 share 25.0% actual - packets 0 bytes 0\n");
	capture_end(&c);
}

TEST(route_without_counters_shows_no_actual_share)
{
	struct fare_route r = route();
	struct fc_out o;
	struct capture c;

	r.stats = FARE_ROUTE_STATS_OFF;
	r.group_id = 7;
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_route(&o, &r);
	CHECK_STR(capture_text(&c),
		  "10.0.0.0/24 mode packet group 7 stats off\n"
		  "\tnexthop plane 1 weight 3 tier 0 share 75.0%\n"
		  "\tnexthop plane 2 weight 1 tier 0 share 25.0%\n");
	capture_end(&c);
}

TEST(group_text_and_json_show_routes_and_counters)
{
	struct fare_route r = route();
	struct fare_group g = { .id = 2147483648U, .refs = 3, .n_nexthops = 1 };
	struct fc_out o;
	struct capture c;

	g.nexthops[0] = r.nexthops[0];
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_group(&o, &g);
	CHECK_STR(capture_text(&c),
		  "group 2147483648 anonymous routes 3\n"
		  "\tnexthop plane 1 weight 3 tier 0 share 100.0% actual 100.0% packets 3000 bytes 120000\n");
	capture_end(&c);
	g.id = 5;
	capture_start(&c);
	fc_out_init(&o, c.f, true, false);
	fc_out_group(&o, &g);
	json_end(&o.j);
	CHECK_STR(capture_text(&c),
		  "{\"id\":5,\"anonymous\":false,\"routes\":3,\"nexthops\":[{\"plane\":1,\"weight\":3,"
		  "\"tier\":0,\"bandwidth\":0,\"share\":1,\"actual\":1,\"tx_packets\":3000,"
		  "\"tx_bytes\":120000}]}\n");
	capture_end(&c);
}

TEST(target_share_is_counted_within_the_tier)
{
	struct fare_route r = route();

	r.n_nexthops = 3;
	r.nexthops[2] = (struct fare_nexthop){
		.plane_id = 3, .weight = 5, .tier = 1,
	};
	CHECK(fabs(fc_target_share(&r, 0) - 0.75) < 1e-12);
	CHECK(fabs(fc_target_share(&r, 1) - 0.25) < 1e-12);
	CHECK(fabs(fc_target_share(&r, 2) - 1.0) < 1e-12);
}

TEST(shares_of_huge_weights_do_not_overflow)
{
	struct fare_route r = route();
	unsigned int i;

	r.n_nexthops = FARE_NEXTHOP_MAX;
	for (i = 0; i < FARE_NEXTHOP_MAX; i++)
		r.nexthops[i] = (struct fare_nexthop){
			.plane_id = i + 1, .weight = UINT32_MAX,
		};
	CHECK(fabs(fc_target_share(&r, 7) - 1.0 / 64) < 1e-12);
	CHECK(isnan(fc_share(1, 0)));
}

TEST(route_json_lists_hops_with_fractions_and_null_actual)
{
	struct fare_route r = route();
	struct fc_out o;
	struct capture c;

	r.n_nexthops = 1;
	r.nexthops[0].tx_packets = 0;
	capture_start(&c);
	fc_out_init(&o, c.f, true, false);
	fc_out_route(&o, &r);
	CHECK_STR(capture_text(&c),
		  "{\"dst\":\"10.0.0.0/24\",\"family\":\"inet\",\"mode\":\"packet\","
		  "\"tcp_mode\":\"default\",\"stats\":true,\"noplane_packets\":0,\"fallback_packets\":0,\"nexthops\":[{\"plane\":1,\"weight\":3,"
		  "\"tier\":0,\"bandwidth\":0,\"share\":1,\"actual\":null,\"tx_packets\":0,"
		  "\"tx_bytes\":120000}]}");
	capture_end(&c);
}

TEST(config_text_can_be_fed_back_to_config_set)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_HASH_SEED,
		.mode = FARE_MODE_FLOWLET, .flowlet_us = 100,
		.hash_seed = 0xbeef, .ifindex = 9,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_config(&o, &cfg, "fare0");
	cfg.ifindex = 0;
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "mode flowlet flowlet-timeout 100 hash-seed 0x0000beef dev fare0\n"
		  "mode flowlet flowlet-timeout 100 hash-seed 0x0000beef dev none\n");
	capture_end(&c);
}

TEST(config_shows_tier_hops_and_spill_bias_when_the_kernel_sends_them)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_TIER_HOPS | FARE_CONFIG_SPILL_BIAS |
		       FARE_CONFIG_HASH_SEED,
		.mode = FARE_MODE_FLOWLET, .flowlet_us = 100,
		.n_tier_hops = 3, .tier_hops = { 3, 4, 6 },
		.spill_bias = 65536,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_config(&o, &cfg, NULL);
	fc_out_init(&o, c.f, true, false);
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "mode flowlet flowlet-timeout 100 hash-seed 0x00000000 tier-hops 3,4,6 spill-bias 65536 dev none\n"
		  "{\"mode\":\"flowlet\",\"flowlet_timeout_us\":100,\"hash_seed\":0,"
		  "\"ifindex\":0,\"dev\":null,\"tier_hops\":[3,4,6],\"spill_bias\":65536}\n");
	capture_end(&c);
}

TEST(tier_counters_show_tier_0_and_active_tiers)
{
	struct fare_stats s = { 0 };
	struct fc_out o;
	struct capture c;

	s.tiers[1].packets = 5;
	s.tiers[1].bytes = 500;
	s.tiers[1].spills = 2;
	s.tiers[FARE_TIER_MAX].spills = 1;
	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_tiers(&o, &s);
	CHECK_STR(capture_text(&c),
		  "tier 0 packets 0 bytes 0 spills 0\n"
		  "tier 1 packets 5 bytes 500 spills 2\n"
		  "tier 7+ packets 0 bytes 0 spills 1\n");
	capture_end(&c);

	capture_start(&c);
	fc_out_init(&o, c.f, true, false);
	fc_out_tiers(&o, &s);
	json_end(&o.j);
	CHECK(strstr(capture_text(&c),
		     "{\"tier\":1,\"packets\":5,\"bytes\":500,\"spills\":2}"));
	CHECK(strstr(capture_text(&c), "{\"tier\":7,"));
	capture_end(&c);
}

TEST(config_json_has_null_dev_without_fare0)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_HASH_SEED, .mode = FARE_MODE_FLOW,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, true, false);
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "{\"mode\":\"flow\",\"flowlet_timeout_us\":0,\"hash_seed\":0,"
		  "\"ifindex\":0,\"dev\":null}\n");
	capture_end(&c);
}

/*
 * The kernel sends the hash seed to CAP_NET_ADMIN only: without it the
 * text has no hash-seed and the JSON a null one; the limits and counts
 * show when sent.
 */
TEST(config_without_seed_shows_limits_and_counts)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_MAX_ROUTES | FARE_CONFIG_MAX_PLANES |
		       FARE_CONFIG_MAX_NEXTHOPS | FARE_CONFIG_COUNTS,
		.mode = FARE_MODE_PACKET, .flowlet_us = 100,
		.hash_seed = 0x1234, .max_routes = 1000, .max_planes = 8,
		.max_nexthops = 4, .num_routes = 3, .num_planes = 2,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_config(&o, &cfg, NULL);
	fc_out_init(&o, c.f, true, false);
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "mode packet flowlet-timeout 100 route-limit 1000 plane-limit 8 nexthop-limit 4 dev none\n"
		  "{\"mode\":\"packet\",\"flowlet_timeout_us\":100,\"hash_seed\":null,"
		  "\"ifindex\":0,\"dev\":null,\"route_limit\":1000,\"plane_limit\":8,"
		  "\"nexthop_limit\":4,\"routes\":3,\"planes\":2}\n");
	capture_end(&c);
}

TEST(config_shows_flowlet_slots)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_FLOWLET_SLOTS | FARE_CONFIG_MAX_GROUPS,
		.mode = FARE_MODE_FLOWLET, .flowlet_us = 100,
		.max_groups = 16, .flowlet_slots = 65536,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_config(&o, &cfg, NULL);
	fc_out_init(&o, c.f, true, false);
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "mode flowlet flowlet-timeout 100 group-limit 16 flowlet-slots 65536 dev none\n"
		  "{\"mode\":\"flowlet\",\"flowlet_timeout_us\":100,\"hash_seed\":null,"
		  "\"ifindex\":0,\"dev\":null,\"group_limit\":16,"
		  "\"flowlet_slots\":65536}\n");
	capture_end(&c);
}

TEST(config_shows_memory_budget_and_use)
{
	struct fare_config cfg = {
		.set = FARE_CONFIG_MEMORY_BUDGET | FARE_CONFIG_MEMORY_USED,
		.mode = FARE_MODE_PACKET, .flowlet_us = 100,
		.memory_budget = 64ULL << 20, .memory_used = 4096,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_config(&o, &cfg, NULL);
	cfg.memory_budget = 1000;
	fc_out_config(&o, &cfg, NULL);
	fc_out_init(&o, c.f, true, false);
	fc_out_config(&o, &cfg, NULL);
	CHECK_STR(capture_text(&c),
		  "mode packet flowlet-timeout 100 memory-budget 64M dev none\n"
		  "mode packet flowlet-timeout 100 memory-budget 1000 dev none\n"
		  "{\"mode\":\"packet\",\"flowlet_timeout_us\":100,\"hash_seed\":null,"
		  "\"ifindex\":0,\"dev\":null,\"memory_budget\":1000,"
		  "\"memory_used\":4096}\n");
	capture_end(&c);
}

TEST(drops_line_names_each_counter)
{
	struct fare_stats s = {
		.noroute_packets = 1, .noplane_packets = 2, .error_packets = 3,
		.fallback_packets = 4,
	};
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, false, false);
	fc_out_drops(&o, &s);
	CHECK_STR(capture_text(&c),
		  "drops noroute 1 noplane 2 error 3 packets\n"
		  "fallback 4 packets\n");
	capture_end(&c);
}

static const char *event_dev_text(const struct fare_event *ev, bool json,
				  const char *ifname, const char *dev)
{
	static char text[2048];
	struct fc_out o;
	struct capture c;

	capture_start(&c);
	fc_out_init(&o, c.f, json, false);
	fc_out_event(&o, ev, ifname, dev);
	snprintf(text, sizeof(text), "%s", capture_text(&c));
	capture_end(&c);
	return text;
}

static const char *event_text(const struct fare_event *ev, bool json,
			      const char *ifname)
{
	return event_dev_text(ev, json, ifname, NULL);
}

TEST(monitor_text_lines_are_batch_commands)
{
	static struct fare_event ev;

	ev.type = FARE_EVENT_PLANE_NEW;
	ev.plane = plane();
	inet_pton(AF_INET6, "fe80::1", &ev.plane.gw6);
	ev.plane.has_gw6 = true;
	CHECK_STR(event_text(&ev, false, "eth-p1"),
		  "plane replace 1 dev eth-p1 via 10.1.0.1 via fe80::1 # up\n");
	ev.plane.flags = 0;
	CHECK_STR(event_text(&ev, false, NULL),
		  "plane replace 1 dev if4 via 10.1.0.1 via fe80::1 # down\n");
	ev.plane.flags = FARE_PLANE_F_OPER_UP | FARE_PLANE_F_GW4_FAILED |
			 FARE_PLANE_F_GW6_FAILED;
	CHECK_STR(event_text(&ev, false, NULL),
		  "plane replace 1 dev if4 via 10.1.0.1 via fe80::1 "
		  "# up gw4-failed gw6-failed\n");
	ev.plane.flags = FARE_PLANE_F_OPER_UP | FARE_PLANE_F_GW6_FAILED;
	CHECK_STR(event_text(&ev, false, NULL),
		  "plane replace 1 dev if4 via 10.1.0.1 via fe80::1 "
		  "# up gw6-failed\n");
	ev.plane.admin_down = true;
	ev.plane.flags = FARE_PLANE_F_ADMIN_DOWN;
	CHECK_STR(event_text(&ev, false, NULL),
		  "plane replace 1 dev if4 via 10.1.0.1 via fe80::1 "
		  "# admin-down\n");
	ev.type = FARE_EVENT_PLANE_DEL;
	CHECK_STR(event_text(&ev, false, "eth-p1"), "plane del 1\n");

	ev.type = FARE_EVENT_ROUTE_NEW;
	ev.route = route();
	ev.route.nexthops[1].tier = 2;
	CHECK_STR(event_text(&ev, false, NULL),
		  "route replace 10.0.0.0/24 mode packet nexthop plane 1 weight 3 "
		  "nexthop plane 2 weight 1 tier 2\n");
	ev.route.mode = FARE_MODE_DEFAULT;
	ev.route.n_nexthops = 1;
	CHECK_STR(event_text(&ev, false, NULL),
		  "route replace 10.0.0.0/24 nexthop plane 1 weight 3\n");
	ev.route.group_id = 7;
	ev.route.stats = FARE_ROUTE_STATS_OFF;
	CHECK_STR(event_text(&ev, false, NULL),
		  "route replace 10.0.0.0/24 stats off group 7\n");
	ev.type = FARE_EVENT_ROUTE_DEL;
	CHECK_STR(event_text(&ev, false, NULL), "route del 10.0.0.0/24\n");

	ev.type = FARE_EVENT_GROUP_NEW;
	ev.group = (struct fare_group){ .id = 7, .refs = 2, .n_nexthops = 2 };
	ev.group.nexthops[0] = route().nexthops[0];
	ev.group.nexthops[1] = route().nexthops[1];
	ev.group.nexthops[1].bandwidth = 5;
	CHECK_STR(event_text(&ev, false, NULL),
		  "group replace 7 nexthop plane 1 weight 3 nexthop plane 2 weight 1 bandwidth 5\n");
	ev.type = FARE_EVENT_GROUP_DEL;
	CHECK_STR(event_text(&ev, false, NULL), "group del 7\n");

	ev.type = FARE_EVENT_CONFIG;
	ev.config = (struct fare_config){
		.set = FARE_CONFIG_HASH_SEED,
		.mode = FARE_MODE_FLOW, .flowlet_us = 250, .hash_seed = 0xabc,
	};
	CHECK_STR(event_text(&ev, false, "fare0"),
		  "config set mode flow flowlet-timeout 250 hash-seed 0x00000abc\n");
	ev.type = FARE_EVENT_LOST;
	CHECK_STR(event_text(&ev, false, NULL), "");
}

TEST(monitor_json_is_one_object_per_line)
{
	static struct fare_event ev;

	ev.type = FARE_EVENT_PLANE_DEL;
	ev.plane = plane();
	CHECK_STR(event_text(&ev, true, "eth-p1"),
		  "{\"event\":\"plane_del\",\"plane\":{\"id\":1,\"dev\":\"eth-p1\","
		  "\"ifindex\":4,\"gw4\":\"10.1.0.1\",\"up\":true,\"admin_down\":false,\"flags\":1,"
		  "\"tx_packets\":3000,\"tx_bytes\":120000,\"gw4_failed\":false,\"gw6_failed\":false,"
		  "\"gw_fails\":0}}\n");
	ev.type = FARE_EVENT_ROUTE_DEL;
	fare_prefix_parse("2001:db8::/32", &ev.route.dst, NULL);
	CHECK_STR(event_text(&ev, true, NULL),
		  "{\"event\":\"route_del\",\"route\":{\"dst\":\"2001:db8::/32\","
		  "\"family\":\"inet6\"}}\n");
	ev.type = FARE_EVENT_CONFIG;
	ev.config = (struct fare_config){
		.set = FARE_CONFIG_HASH_SEED,
		.mode = FARE_MODE_PACKET, .flowlet_us = 100, .hash_seed = 7,
		.ifindex = 5,
	};
	CHECK_STR(event_text(&ev, true, "fare0"),
		  "{\"event\":\"config\",\"config\":{\"mode\":\"packet\","
		  "\"flowlet_timeout_us\":100,\"hash_seed\":7,\"ifindex\":5,"
		  "\"dev\":\"fare0\"}}\n");
	ev.type = FARE_EVENT_ROUTE_NEW;
	ev.route = route();
	CHECK(!strncmp(event_text(&ev, true, NULL),
		       "{\"event\":\"route_new\",\"route\":{\"dst\":\"10.0.0.0/24\",", 50));
}

TEST(monitor_json_names_the_fare_device_text_does_not)
{
	static struct fare_event ev;

	ev.type = FARE_EVENT_ROUTE_DEL;
	ev.ifindex = 9;
	fare_prefix_parse("10.0.0.0/24", &ev.route.dst, NULL);
	CHECK_STR(event_dev_text(&ev, true, NULL, "fa"),
		  "{\"event\":\"route_del\",\"ifindex\":9,\"dev\":\"fa\","
		  "\"route\":{\"dst\":\"10.0.0.0/24\",\"family\":\"inet\"}}\n");
	/* A device gone by the time the event is printed: its index only. */
	CHECK_STR(event_dev_text(&ev, true, NULL, NULL),
		  "{\"event\":\"route_del\",\"ifindex\":9,\"dev\":null,"
		  "\"route\":{\"dst\":\"10.0.0.0/24\",\"family\":\"inet\"}}\n");
	/* The text line stays the batch command that replays it. */
	CHECK_STR(event_dev_text(&ev, false, NULL, "fa"),
		  "route del 10.0.0.0/24\n");
}
