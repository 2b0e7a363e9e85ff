// SPDX-License-Identifier: GPL-2.0-only
/*
 * farectl's command line grammar, in the manner of ip(8): keywords may be
 * shortened to any prefix that is not ambiguous, and every error names the
 * argument at fault.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "parse.h"
#include "pick.h"

struct cur {
	int argc;
	char *const *argv;
	int i;			/* the word being looked at */
	char *err;
	size_t errlen;
	const char *ctx;	/* "route add", or NULL before the object */
};

struct kw {
	const char *name;
	int value;
	bool alias;		/* accepted, not listed */
	/*
	 * Added after shorter prefixes of an older keyword were in use: a
	 * prefix both share keeps meaning the older keyword.
	 */
	bool late;
};

#define KW(n, v)	{ .name = (n), .value = (v) }
#define KW_ALIAS(n, v)	{ .name = (n), .value = (v), .alias = true }
#define KW_LATE(n, v)	{ .name = (n), .value = (v), .late = true }
#define KW_END		{ .name = NULL }

static void vfail(struct cur *c, int argn, const char *fmt, va_list ap)
{
	size_t len = 0;

	if (c->ctx)
		len = snprintf(c->err, c->errlen, "%s: ", c->ctx);
	if (len < c->errlen)
		len += vsnprintf(c->err + len, c->errlen - len, fmt, ap);
	if (argn > 0 && len < c->errlen)
		snprintf(c->err + len, c->errlen - len, " at argument %d",
			 argn);
}

/* An error about the word at argn. */
__attribute__((format(printf, 3, 4)))
static int fail_at(struct cur *c, int argn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, argn, fmt, ap);
	va_end(ap);
	return FC_EXIT_USAGE;
}

/* An error about the command as a whole. */
__attribute__((format(printf, 2, 3)))
static int fail(struct cur *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(c, 0, fmt, ap);
	va_end(ap);
	return FC_EXIT_USAGE;
}

static bool more(const struct cur *c)
{
	return c->i < c->argc;
}

static const char *word(const struct cur *c)
{
	return c->argv[c->i];
}

/* "a, b, c": the listed names of t, only those starting with prefix. */
static void kw_list(const struct kw *t, const char *prefix, char *buf,
		    size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; t->name; t++) {
		if (t->alias || strncmp(t->name, prefix, strlen(prefix)))
			continue;
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", t->name);
	}
}

/*
 * The value of word w in t: an exact name, or a prefix of names that all
 * mean the same, looked for among the older names first (struct kw, late).
 * Returns 0, -ENOENT or -EEXIST (ambiguous).
 */
static int kw_match(const struct kw *t, const char *w, int *value)
{
	size_t len = strlen(w);
	const struct kw *k, *found = NULL;
	int late;

	if (!len)
		return -ENOENT;
	for (k = t; k->name; k++) {
		if (!strcmp(k->name, w)) {
			*value = k->value;
			return 0;
		}
	}
	for (late = 0; late < 2 && !found; late++) {
		for (k = t; k->name; k++) {
			if (k->late != late || strncmp(k->name, w, len))
				continue;
			if (found && found->value != k->value)
				return -EEXIST;
			found = k;
		}
	}
	if (!found)
		return -ENOENT;
	*value = found->value;
	return 0;
}

/* Consume the word at c->i as a keyword of t; what names it in errors. */
static int expect_kw(struct cur *c, const struct kw *t, const char *what,
		     int *value)
{
	char list[256];
	int ret;

	ret = kw_match(t, word(c), value);
	if (ret == -EEXIST) {
		kw_list(t, word(c), list, sizeof(list));
		return fail_at(c, c->i, "ambiguous %s \"%s\" (%s)", what,
			       word(c), list);
	}
	if (ret) {
		kw_list(t, "", list, sizeof(list));
		return fail_at(c, c->i, "unknown %s \"%s\" (%s)", what,
			       word(c), list);
	}
	c->i++;
	return 0;
}

static const char *kw_name(const struct kw *t, int value)
{
	for (; t->name; t++)
		if (t->value == value && !t->alias)
			return t->name;
	return "?";
}

/* Move to the value of keyword name, which must follow it. */
static int need_value(struct cur *c, const char *name)
{
	if (!more(c))
		return fail_at(c, c->i, "missing value for %s", name);
	return 0;
}

/* Consume a decimal (or, if hex_ok, 0x-prefixed) number in min..max. */
static int get_u64(struct cur *c, const char *name, uint64_t min,
		   uint64_t max, bool hex_ok, uint64_t *out)
{
	const char *w;
	unsigned long long v;
	int base = 10;
	char *end;

	if (!more(c))
		return fail_at(c, c->i, "missing %s", name);
	w = word(c);
	if (hex_ok && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
		base = 16;
		w += 2;
	}
	/* strtoull would take signs and spaces: digits only. */
	if (!((w[0] >= '0' && w[0] <= '9') ||
	      (base == 16 && ((w[0] >= 'a' && w[0] <= 'f') ||
			      (w[0] >= 'A' && w[0] <= 'F')))))
		return fail_at(c, c->i, "%s \"%s\" is not a number", name,
			       word(c));
	errno = 0;
	v = strtoull(w, &end, base);
	if (*end)
		return fail_at(c, c->i, "%s \"%s\" is not a number", name,
			       word(c));
	if (errno == ERANGE || v < min || v > max)
		return fail_at(c, c->i, "%s %s out of range (%llu..%llu)",
			       name, word(c), (unsigned long long)min,
			       (unsigned long long)max);
	*out = v;
	c->i++;
	return 0;
}

/*
 * Consume a size in bytes, in 0..max: digits, then optionally K, M, G or
 * T (powers of 1024, also written KiB, MiB, GiB, TiB).
 */
static int get_size(struct cur *c, const char *name, uint64_t max,
		    uint64_t *out)
{
	static const char *const units[] = { "K", "M", "G", "T" };
	const char *w;
	unsigned long long v;
	unsigned int shift = 0, i;
	char *end;

	if (!more(c))
		return fail_at(c, c->i, "missing %s", name);
	w = word(c);
	if (w[0] < '0' || w[0] > '9')
		return fail_at(c, c->i, "%s \"%s\" is not a size", name, w);
	errno = 0;
	v = strtoull(w, &end, 10);
	if (*end) {
		for (i = 0; i < 4; i++)
			if (end[0] == units[i][0] &&
			    (!end[1] || !strcmp(end + 1, "iB")))
				shift = 10 * (i + 1);
		if (!shift)
			return fail_at(c, c->i,
				       "%s \"%s\" is not a size (bytes, or with K, M, G, T)",
				       name, w);
	}
	if (errno == ERANGE || v > (max >> shift))
		return fail_at(c, c->i, "%s %s out of range (0..%llu bytes)",
			       name, w, (unsigned long long)max);
	*out = (uint64_t)v << shift;
	c->i++;
	return 0;
}

static int get_u32(struct cur *c, const char *name, uint32_t min,
		   uint32_t max, bool hex_ok, uint32_t *out)
{
	uint64_t v;
	int ret;

	ret = get_u64(c, name, min, max, hex_ok, &v);
	if (!ret)
		*out = v;
	return ret;
}

static int no_more(struct cur *c)
{
	if (more(c))
		return fail_at(c, c->i, "unexpected argument \"%s\"", word(c));
	return 0;
}

static int help(struct fc_request *req)
{
	req->verb = FC_VERB_HELP;
	return 0;
}

/* plane add|replace ID dev IFNAME via GW [via GW6] */
static int parse_plane_add(struct cur *c, struct fc_request *req)
{
	enum { K_DEV, K_VIA };
	static const struct kw keys[] = {
		KW("dev", K_DEV), KW("via", K_VIA), KW_END
	};
	struct fare_plane *p = &req->plane;
	bool has_dev = false;
	int key, at, ret;

	if (more(c) && !strcmp(word(c), "help"))
		return help(req);
	ret = get_u32(c, "plane id", 1, FARE_PLANE_ID_MAX, false, &p->id);
	if (ret)
		return ret;
	while (more(c)) {
		if (!strcmp(word(c), "help"))
			return help(req);
		at = c->i;
		ret = expect_kw(c, keys, "keyword", &key);
		if (ret)
			return ret;
		ret = need_value(c, kw_name(keys, key));
		if (ret)
			return ret;
		switch (key) {
		case K_DEV:
			if (has_dev)
				return fail_at(c, at, "dev given twice");
			if (!*word(c) || strlen(word(c)) >= IF_NAMESIZE)
				return fail_at(c, c->i,
					       "invalid device name \"%s\" (1..%d characters)",
					       word(c), IF_NAMESIZE - 1);
			memcpy(req->ifname, word(c), strlen(word(c)) + 1);
			has_dev = true;
			break;
		case K_VIA:
			if (inet_pton(AF_INET, word(c), &p->gw4) == 1) {
				if (p->has_gw4)
					return fail_at(c, c->i,
						       "second IPv4 gateway \"%s\"",
						       word(c));
				p->has_gw4 = true;
			} else if (inet_pton(AF_INET6, word(c), &p->gw6) == 1) {
				if (p->has_gw6)
					return fail_at(c, c->i,
						       "second IPv6 gateway \"%s\"",
						       word(c));
				p->has_gw6 = true;
			} else {
				return fail_at(c, c->i,
					       "invalid gateway \"%s\" (not an IPv4 or IPv6 address)",
					       word(c));
			}
			break;
		}
		c->i++;
	}
	if (!has_dev)
		return fail(c, "dev IFNAME is required");
	if (!p->has_gw4 && !p->has_gw6)
		return fail(c, "a gateway is required (via GW)");
	return 0;
}

static int parse_plane(struct cur *c, struct fc_request *req)
{
	int ret;

	switch (req->verb) {
	case FC_VERB_ADD:
	case FC_VERB_REPLACE:
		return parse_plane_add(c, req);
	case FC_VERB_DEL:
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		ret = get_u32(c, "plane id", 1, FARE_PLANE_ID_MAX, false,
			      &req->plane.id);
		return ret ? ret : no_more(c);
	case FC_VERB_SHOW:
		if (!more(c))
			return 0;
		if (!strcmp(word(c), "help"))
			return help(req);
		ret = get_u32(c, "plane id", 1, FARE_PLANE_ID_MAX, false,
			      &req->plane.id);
		if (ret)
			return ret;
		req->has_key = true;
		return no_more(c);
	case FC_VERB_SYNC:
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		return no_more(c);
	default:
		return 0;
	}
}

static const struct kw route_modes[] = {
	KW("default", FARE_MODE_DEFAULT),
	KW("packet", FARE_MODE_PACKET),
	KW("flow", FARE_MODE_FLOW),
	KW("flowlet", FARE_MODE_FLOWLET),
	KW_END
};

/* Without "default": the namespace default must be a real mode. */
static const struct kw config_modes[] = {
	KW("packet", FARE_MODE_PACKET),
	KW("flow", FARE_MODE_FLOW),
	KW("flowlet", FARE_MODE_FLOWLET),
	KW_END
};

static int get_prefix(struct cur *c, struct fare_prefix *dst)
{
	struct fare_err perr;

	if (!more(c))
		return fail_at(c, c->i, "missing prefix");
	if (fare_prefix_parse(word(c), dst, &perr))
		return fail_at(c, c->i, "invalid prefix \"%s\": %s", word(c),
			       perr.msg);
	c->i++;
	return 0;
}

struct nh_state {
	int at;			/* argument of its "nexthop" keyword */
	bool has_plane;
	bool has_weight;
	bool has_tier;
	bool has_bandwidth;
};

static int close_nexthop(struct cur *c, const struct nh_state *nh)
{
	if (!nh->at)
		return 0;
	if (!nh->has_plane)
		return fail_at(c, nh->at, "nexthop needs a plane");
	if (!nh->has_weight)
		return fail_at(c, nh->at, "nexthop needs a weight");
	return 0;
}

static const struct kw on_off[] = {
	KW("on", FARE_ROUTE_STATS_ON), KW("off", FARE_ROUTE_STATS_OFF),
	KW_END
};

/*
 * route add|replace PREFIX [mode M] [tcp-mode M] [src ADDR] [stats on|off]
 *	{ group ID | nexthop plane ID weight W [tier T] [bandwidth BPS]
 *	  [nexthop ...] }
 * group add|replace ID nexthop ... (@group: req->group gets the next hops)
 */
static int parse_route_add(struct cur *c, struct fc_request *req, bool group)
{
	enum {
		K_MODE, K_SRC, K_NEXTHOP, K_PLANE, K_WEIGHT, K_TIER,
		K_BANDWIDTH, K_GROUP, K_STATS, K_TCP_MODE,
	};
	static const struct kw route_keys[] = {
		KW("mode", K_MODE), KW("src", K_SRC), KW("nexthop", K_NEXTHOP),
		KW("group", K_GROUP), KW("stats", K_STATS),
		KW("tcp-mode", K_TCP_MODE),
		KW_END
	};
	static const struct kw group_keys[] = {
		KW("nexthop", K_NEXTHOP),
		KW_END
	};
	/* Not tcp-mode: "t" after a next hop has meant tier since the start. */
	static const struct kw nh_keys[] = {
		KW("plane", K_PLANE), KW("weight", K_WEIGHT),
		KW("tier", K_TIER), KW("bandwidth", K_BANDWIDTH),
		KW("nexthop", K_NEXTHOP), KW("mode", K_MODE), KW("src", K_SRC),
		KW("stats", K_STATS), KW("group", K_GROUP),
		KW_END
	};
	static const struct kw group_nh_keys[] = {
		KW("plane", K_PLANE), KW("weight", K_WEIGHT),
		KW("tier", K_TIER), KW("bandwidth", K_BANDWIDTH),
		KW("nexthop", K_NEXTHOP),
		KW_END
	};
	struct fare_route *r = &req->route;
	struct fare_nexthop *nh = NULL;
	struct nh_state st = { 0 };
	bool has_mode = false, has_tcp_mode = false;
	uint32_t v;
	unsigned int i;
	int key, mode, at, ret;

	if (more(c) && !strcmp(word(c), "help"))
		return help(req);
	if (group)
		ret = get_u32(c, "group id", 1, FARE_GROUP_ID_MAX, false,
			      &req->group.id);
	else
		ret = get_prefix(c, &r->dst);
	if (ret)
		return ret;
	while (more(c)) {
		if (!strcmp(word(c), "help"))
			return help(req);
		at = c->i;
		if (group)
			ret = expect_kw(c, nh ? group_nh_keys : group_keys,
					"keyword", &key);
		else
			ret = expect_kw(c, nh ? nh_keys : route_keys,
					"keyword", &key);
		if (ret)
			return ret;
		if (key != K_NEXTHOP) {
			ret = need_value(c, kw_name(nh_keys, key));
			if (ret)
				return ret;
		}
		switch (key) {
		case K_GROUP:
			if (r->group_id)
				return fail_at(c, at, "group given twice");
			if (r->n_nexthops)
				return fail_at(c, at,
					       "a route takes a group or next hops, not both");
			ret = get_u32(c, "group id", 1, FARE_GROUP_ID_MAX,
				      false, &r->group_id);
			if (ret)
				return ret;
			break;
		case K_STATS:
			if (r->stats)
				return fail_at(c, at, "stats given twice");
			ret = expect_kw(c, on_off, "stats", &mode);
			if (ret)
				return ret;
			r->stats = mode;
			break;
		case K_MODE:
			if (has_mode)
				return fail_at(c, at, "mode given twice");
			ret = expect_kw(c, route_modes, "mode", &mode);
			if (ret)
				return ret;
			r->mode = mode;
			has_mode = true;
			break;
		case K_TCP_MODE:
			if (has_tcp_mode)
				return fail_at(c, at, "tcp-mode given twice");
			ret = expect_kw(c, route_modes, "tcp-mode", &mode);
			if (ret)
				return ret;
			r->tcp_mode = mode;
			has_tcp_mode = true;
			break;
		case K_SRC:
			if (r->has_src)
				return fail_at(c, at, "src given twice");
			if (inet_pton(r->dst.family, word(c), &r->src) != 1)
				return fail_at(c, c->i,
					       "src \"%s\" is not an %s address",
					       word(c),
					       r->dst.family == AF_INET ?
					       "IPv4" : "IPv6");
			r->has_src = true;
			c->i++;
			break;
		case K_NEXTHOP:
			if (r->group_id)
				return fail_at(c, at,
					       "a route takes a group or next hops, not both");
			ret = close_nexthop(c, &st);
			if (ret)
				return ret;
			if (r->n_nexthops == FARE_NEXTHOP_MAX)
				return fail_at(c, at,
					       "more than %d next hops",
					       FARE_NEXTHOP_MAX);
			nh = &r->nexthops[r->n_nexthops++];
			memset(&st, 0, sizeof(st));
			st.at = at;
			break;
		case K_PLANE:
			if (st.has_plane)
				return fail_at(c, at,
					       "plane given twice in one nexthop");
			at = c->i;
			ret = get_u32(c, "plane id", 1, FARE_PLANE_ID_MAX,
				      false, &v);
			if (ret)
				return ret;
			for (i = 0; i + 1 < r->n_nexthops; i++)
				if (r->nexthops[i].plane_id == v)
					return fail_at(c, at,
						       "plane %u is already a next hop",
						       v);
			nh->plane_id = v;
			st.has_plane = true;
			break;
		case K_WEIGHT:
			if (st.has_weight)
				return fail_at(c, at,
					       "weight given twice in one nexthop");
			ret = get_u32(c, "weight", 1, UINT32_MAX, false,
				      &nh->weight);
			if (ret)
				return ret;
			st.has_weight = true;
			break;
		case K_TIER:
			if (st.has_tier)
				return fail_at(c, at,
					       "tier given twice in one nexthop");
			ret = get_u32(c, "tier", 0, FARE_TIER_MAX, false, &v);
			if (ret)
				return ret;
			nh->tier = v;
			st.has_tier = true;
			break;
		case K_BANDWIDTH:
			if (st.has_bandwidth)
				return fail_at(c, at,
					       "bandwidth given twice in one nexthop");
			ret = get_u64(c, "bandwidth", 0, UINT64_MAX, false,
				      &nh->bandwidth);
			if (ret)
				return ret;
			st.has_bandwidth = true;
			break;
		}
	}
	ret = close_nexthop(c, &st);
	if (ret)
		return ret;
	if (!r->n_nexthops && !r->group_id)
		return fail(c, "at least one nexthop is required");
	if (group) {
		req->group.n_nexthops = r->n_nexthops;
		memcpy(req->group.nexthops, r->nexthops,
		       r->n_nexthops * sizeof(r->nexthops[0]));
		memset(r, 0, sizeof(*r));
	}
	return 0;
}

/* group add|replace|set ID NEXTHOP..., group del ID, group show [ID] */
static int parse_group(struct cur *c, struct fc_request *req)
{
	bool show = req->verb == FC_VERB_SHOW;
	int ret;

	if (req->verb == FC_VERB_ADD || req->verb == FC_VERB_REPLACE)
		return parse_route_add(c, req, true);
	if (show && !more(c))
		return 0;
	if (more(c) && !strcmp(word(c), "help"))
		return help(req);
	/* show takes the anonymous groups' ids as well */
	ret = get_u32(c, "group id", 1, show ? UINT32_MAX : FARE_GROUP_ID_MAX,
		      false, &req->group.id);
	if (ret)
		return ret;
	req->has_key = true;
	return no_more(c);
}

static int parse_route(struct cur *c, struct fc_request *req)
{
	int ret;

	switch (req->verb) {
	case FC_VERB_ADD:
	case FC_VERB_REPLACE:
		return parse_route_add(c, req, false);
	case FC_VERB_DEL:
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		ret = get_prefix(c, &req->route.dst);
		return ret ? ret : no_more(c);
	case FC_VERB_PICK:
		/* route pick ADDR N: a destination address, not a prefix */
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		ret = get_prefix(c, &req->route.dst);
		if (ret)
			return ret;
		if (req->route.dst.plen != 8 * (req->route.dst.family ==
						 AF_INET ? 4 : 16))
			return fail_at(c, c->i - 1,
				       "pick needs a destination address, not a prefix");
		ret = get_u32(c, "connections", 1, FC_PICK_MAX, false,
			      &req->pick_n);
		return ret ? ret : no_more(c);
	case FC_VERB_SHOW:
		if (!more(c))
			return 0;
		if (!strcmp(word(c), "help"))
			return help(req);
		ret = get_prefix(c, &req->route.dst);
		if (ret)
			return ret;
		req->has_key = true;
		return no_more(c);
	default:
		return 0;
	}
}


/* "3,4,6": 1..FARE_TIER_MAX + 1 hop counts, each 1..255. */
static int get_tier_hops(struct cur *c, struct fare_config *cfg)
{
	const char *p = word(c);
	unsigned long v;
	char *end;

	cfg->n_tier_hops = 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return fail_at(c, c->i,
				       "tier-hops \"%s\" is not a list of numbers",
				       word(c));
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno == ERANGE || v < 1 || v > UINT8_MAX)
			return fail_at(c, c->i,
				       "tier-hops: hop count %.*s out of range (1..255)",
				       (int)(end - p), p);
		if (cfg->n_tier_hops == FARE_TIER_MAX + 1)
			return fail_at(c, c->i,
				       "tier-hops: more than %d hop counts",
				       FARE_TIER_MAX + 1);
		cfg->tier_hops[cfg->n_tier_hops++] = v;
		if (!*end)
			break;
		if (*end != ',')
			return fail_at(c, c->i,
				       "tier-hops \"%s\" is not a list of numbers",
				       word(c));
		p = end + 1;
	}
	c->i++;
	return 0;
}

/* flowlet-slots N: a power of two, FARE_FLOWLET_SLOTS_MIN..MAX. */
static int get_flowlet_slots(struct cur *c, uint32_t *out)
{
	int at = c->i, ret;

	ret = get_u32(c, "flowlet-slots", FARE_FLOWLET_SLOTS_MIN,
		      FARE_FLOWLET_SLOTS_MAX, false, out);
	if (!ret && (*out & (*out - 1)))
		return fail_at(c, at, "flowlet-slots %u is not a power of two",
			       *out);
	return ret;
}

/*
 * config set [mode M] [flowlet-timeout USEC] [hash-seed N]
 *	[tier-hops H[,H...]] [spill-bias BYTES] [route-limit N]
 *	[plane-limit N] [nexthop-limit N] [group-limit N]
 *	[route-stats on|off] [flowlet-slots N] [use-neigh on|off]
 *	[memory-budget SIZE]
 */
static int parse_config_set(struct cur *c, struct fc_request *req)
{
	/* The values are the FARE_CONFIG_* bits they set. */
	enum {
		K_MODE = FARE_CONFIG_MODE,
		K_FLOWLET = FARE_CONFIG_FLOWLET_US,
		K_SEED = FARE_CONFIG_HASH_SEED,
		K_HOPS = FARE_CONFIG_TIER_HOPS,
		K_BIAS = FARE_CONFIG_SPILL_BIAS,
		K_ROUTES = FARE_CONFIG_MAX_ROUTES,
		K_PLANES = FARE_CONFIG_MAX_PLANES,
		K_NEXTHOPS = FARE_CONFIG_MAX_NEXTHOPS,
		K_RSTATS = FARE_CONFIG_ROUTE_STATS,
		K_GROUPS = FARE_CONFIG_MAX_GROUPS,
		K_SLOTS = FARE_CONFIG_FLOWLET_SLOTS,
		K_NEIGH = FARE_CONFIG_USE_NEIGH,
		K_BUDGET = FARE_CONFIG_MEMORY_BUDGET,
	};
	static const struct kw keys[] = {
		KW("mode", K_MODE), KW("flowlet-timeout", K_FLOWLET),
		KW("hash-seed", K_SEED), KW("tier-hops", K_HOPS),
		KW("spill-bias", K_BIAS), KW("route-limit", K_ROUTES),
		KW("plane-limit", K_PLANES), KW("nexthop-limit", K_NEXTHOPS),
		KW("route-stats", K_RSTATS), KW("group-limit", K_GROUPS),
		/* "f" and "flowlet" still mean flowlet-timeout. */
		KW_LATE("flowlet-slots", K_SLOTS),
		KW("use-neigh", K_NEIGH),
		/* "m" still means mode. */
		KW_LATE("memory-budget", K_BUDGET),
		KW_END
	};
	struct fare_config *cfg = &req->config;
	int key, at, mode, ret;

	while (more(c)) {
		if (!strcmp(word(c), "help"))
			return help(req);
		at = c->i;
		ret = expect_kw(c, keys, "keyword", &key);
		if (ret)
			return ret;
		ret = need_value(c, kw_name(keys, key));
		if (ret)
			return ret;
		if (cfg->set & key)
			return fail_at(c, at, "%s given twice",
				       kw_name(keys, key));
		switch (key) {
		case K_MODE:
			ret = expect_kw(c, config_modes, "mode", &mode);
			cfg->mode = mode;
			break;
		case K_FLOWLET:
			ret = get_u32(c, "flowlet-timeout",
				      FARE_FLOWLET_US_MIN, FARE_FLOWLET_US_MAX,
				      false, &cfg->flowlet_us);
			break;
		case K_SEED:
			ret = get_u32(c, "hash-seed", 0, UINT32_MAX, true,
				      &cfg->hash_seed);
			break;
		case K_HOPS:
			ret = get_tier_hops(c, cfg);
			break;
		case K_BIAS:
			ret = get_u32(c, "spill-bias", 0, UINT32_MAX, false,
				      &cfg->spill_bias);
			break;
		case K_ROUTES:
			ret = get_u32(c, "route-limit", 0, FARE_MAX_ROUTES_LIMIT,
				      false, &cfg->max_routes);
			break;
		case K_PLANES:
			ret = get_u32(c, "plane-limit", 0, FARE_PLANE_ID_MAX,
				      false, &cfg->max_planes);
			break;
		case K_NEXTHOPS:
			ret = get_u32(c, "nexthop-limit", 1, FARE_NEXTHOP_MAX,
				      false, &cfg->max_nexthops);
			break;
		case K_RSTATS:
			ret = expect_kw(c, on_off, "route-stats", &mode);
			cfg->route_stats = mode == FARE_ROUTE_STATS_ON;
			break;
		case K_GROUPS:
			ret = get_u32(c, "group-limit", 0, FARE_MAX_GROUPS_LIMIT,
				      false, &cfg->max_groups);
			break;
		case K_SLOTS:
			ret = get_flowlet_slots(c, &cfg->flowlet_slots);
			break;
		case K_NEIGH:
			ret = expect_kw(c, on_off, "use-neigh", &mode);
			cfg->use_neigh = mode == FARE_ROUTE_STATS_ON;
			break;
		case K_BUDGET:
			ret = get_size(c, "memory-budget",
				       FARE_MEMORY_BUDGET_LIMIT,
				       &cfg->memory_budget);
			break;
		}
		if (ret)
			return ret;
		cfg->set |= key;
	}
	if (!cfg->set)
		return fail(c, "nothing to set (mode, flowlet-timeout, hash-seed, tier-hops, spill-bias, route-limit, plane-limit, nexthop-limit, route-stats, group-limit, flowlet-slots, use-neigh, memory-budget)");
	return 0;
}

/* Where the value of short option -n, -b or -d goes. */
static const char **short_value(struct fc_request *req, char opt)
{
	switch (opt) {
	case 'n':
		return &req->netns;
	case 'b':
		return &req->batch;
	default:
		return &req->dev;
	}
}

/* A cluster of short options at c->i: -j, -p, -h, -jp, -jn NAME, -nNAME. */
static int parse_short_options(struct cur *c, struct fc_request *req,
			       bool *help)
{
	const char *p;

	for (p = word(c) + 1; *p; p++) {
		switch (*p) {
		case 'j':
			req->json = true;
			break;
		case 'p':
			req->json = req->pretty = true;
			break;
		case 'h':
			*help = true;
			return 0;
		case 'n':
		case 'b':
		case 'd':
			if (p[1]) {
				*short_value(req, *p) = p + 1;
				return 0;
			}
			c->i++;
			if (!more(c))
				return fail_at(c, c->i, "missing value for -%c",
					       *p);
			if (!*word(c))
				return fail_at(c, c->i, "empty value for -%c",
					       *p);
			*short_value(req, *p) = word(c);
			return 0;
		default:
			return fail_at(c, c->i, "unknown option \"-%c\"", *p);
		}
	}
	return 0;
}

enum { O_JSON, O_PRETTY, O_NETNS, O_BATCH, O_HELP, O_DEV };

/*
 * Options spelled out, as ip(8) takes them: "-json", "--json", or any
 * prefix of the name ("-js"). A single dash followed by something that is
 * no such prefix is a cluster of short options ("-jn NAME").
 */
static const struct kw long_options[] = {
	KW("json", O_JSON), KW("pretty", O_PRETTY), KW("netns", O_NETNS),
	KW("batch", O_BATCH), KW("help", O_HELP), KW("dev", O_DEV), KW_END
};

/* Consume the value of option w, "--name=VALUE" or the next word. */
static int option_value(struct cur *c, const char *w, const char *eq,
			const char **out)
{
	char name[32];

	snprintf(name, sizeof(name), "%.*s",
		 (int)(eq ? (size_t)(eq - w) : strlen(w)), w);
	if (eq) {
		*out = eq + 1;
	} else {
		c->i++;
		if (!more(c))
			return fail_at(c, c->i, "missing value for %s", name);
		*out = word(c);
	}
	if (!**out)
		return fail_at(c, c->i, "empty value for %s", name);
	return 0;
}

/* Options before the object; *help is set by -h. */
static int parse_options(struct cur *c, struct fc_request *req, bool *help)
{
	const char *w, *name, *eq;
	char opt[16];
	size_t len;
	int o, ret;

	*help = false;
	while (more(c) && word(c)[0] == '-' && !*help) {
		w = word(c);
		if (!strcmp(w, "--")) {
			c->i++;
			break;
		}
		if (!w[1])
			return fail_at(c, c->i, "unknown option \"%s\"", w);
		name = w + (w[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		if (len && len < sizeof(opt)) {
			memcpy(opt, name, len);
			opt[len] = '\0';
		} else {
			opt[0] = '\0';
		}
		if (!opt[0] || kw_match(long_options, opt, &o)) {
			if (w[1] == '-')
				return fail_at(c, c->i,
					       "unknown option \"%s\"", w);
			ret = parse_short_options(c, req, help);
			if (ret)
				return ret;
			c->i++;
			continue;
		}
		if (eq && o != O_NETNS && o != O_BATCH && o != O_DEV)
			return fail_at(c, c->i, "option \"%.*s\" takes no value",
				       (int)(eq - w), w);
		switch (o) {
		case O_JSON:
			req->json = true;
			break;
		case O_PRETTY:
			req->json = req->pretty = true;
			break;
		case O_HELP:
			*help = true;
			break;
		case O_NETNS:
			ret = option_value(c, w, eq, &req->netns);
			if (ret)
				return ret;
			break;
		case O_BATCH:
			ret = option_value(c, w, eq, &req->batch);
			if (ret)
				return ret;
			break;
		case O_DEV:
			ret = option_value(c, w, eq, &req->dev);
			if (ret)
				return ret;
			break;
		}
		c->i++;
	}
	return 0;
}

static const struct kw objects[] = {
	KW("plane", FC_OBJ_PLANE),
	KW("route", FC_OBJ_ROUTE),
	KW("config", FC_OBJ_CONFIG),
	KW("stats", FC_OBJ_STATS),
	KW("monitor", FC_OBJ_MONITOR),
	KW("group", FC_OBJ_GROUP),
	KW("help", FC_OBJ_NONE),
	KW_END
};

static const char *const object_names[] = {
	[FC_OBJ_NONE] = "help",
	[FC_OBJ_PLANE] = "plane",
	[FC_OBJ_ROUTE] = "route",
	[FC_OBJ_CONFIG] = "config",
	[FC_OBJ_STATS] = "stats",
	[FC_OBJ_MONITOR] = "monitor",
	[FC_OBJ_GROUP] = "group",
};

static const char *const verb_names[] = {
	[FC_VERB_HELP] = "help",
	[FC_VERB_ADD] = "add",
	[FC_VERB_REPLACE] = "replace",
	[FC_VERB_DEL] = "del",
	[FC_VERB_SHOW] = "show",
	[FC_VERB_SET] = "set",
	[FC_VERB_FLUSH] = "flush",
	[FC_VERB_PICK] = "pick",
	[FC_VERB_SYNC] = "sync",
};

static const struct kw plane_verbs[] = {
	KW("add", FC_VERB_ADD),
	KW("replace", FC_VERB_REPLACE),
	KW("del", FC_VERB_DEL),
	KW_ALIAS("delete", FC_VERB_DEL),
	KW("show", FC_VERB_SHOW),
	KW_ALIAS("list", FC_VERB_SHOW),
	KW("sync", FC_VERB_SYNC),
	KW("help", FC_VERB_HELP),
	KW_END
};

static const struct kw route_verbs[] = {
	KW("add", FC_VERB_ADD),
	KW("replace", FC_VERB_REPLACE),
	KW("del", FC_VERB_DEL),
	KW_ALIAS("delete", FC_VERB_DEL),
	KW("show", FC_VERB_SHOW),
	KW_ALIAS("list", FC_VERB_SHOW),
	KW("flush", FC_VERB_FLUSH),
	KW("pick", FC_VERB_PICK),
	KW("help", FC_VERB_HELP),
	KW_END
};

static const struct kw group_verbs[] = {
	KW("add", FC_VERB_ADD),
	KW("replace", FC_VERB_REPLACE),
	KW_ALIAS("set", FC_VERB_REPLACE),
	KW("del", FC_VERB_DEL),
	KW_ALIAS("delete", FC_VERB_DEL),
	KW("show", FC_VERB_SHOW),
	KW_ALIAS("list", FC_VERB_SHOW),
	KW("help", FC_VERB_HELP),
	KW_END
};

static const struct kw config_verbs[] = {
	KW("show", FC_VERB_SHOW),
	KW("set", FC_VERB_SET),
	KW("help", FC_VERB_HELP),
	KW_END
};

static const struct kw stats_verbs[] = {
	KW("show", FC_VERB_SHOW),
	KW("help", FC_VERB_HELP),
	KW_END
};

/* monitor [all | { plane | route | config | group } ...] */
static int parse_monitor(struct cur *c, struct fc_request *req)
{
	static const struct kw what[] = {
		KW("all", FC_MON_ALL), KW("plane", FC_MON_PLANE),
		KW("route", FC_MON_ROUTE), KW("config", FC_MON_CONFIG),
		KW("group", FC_MON_GROUP), KW("help", 0), KW_END
	};
	int m, ret;

	req->verb = FC_VERB_SHOW;
	while (more(c)) {
		ret = expect_kw(c, what, "event kind", &m);
		if (ret)
			return ret;
		if (!m)
			return help(req);
		req->monitor |= m;
	}
	if (!req->monitor)
		req->monitor = FC_MON_ALL;
	return 0;
}

/* OBJECT [COMMAND [ARGS]], from c->i on. */
static int parse_command(struct cur *c, struct fc_request *req)
{
	const struct kw *verbs;
	int obj, verb, ret;

	if (!more(c))
		return fail(c, "missing object (plane, route, group, config, stats, monitor, help)");
	ret = expect_kw(c, objects, "object", &obj);
	if (ret)
		return ret;
	req->obj = obj;
	if (obj == FC_OBJ_NONE) {
		/* "help OBJECT" is the help of that object. */
		if (more(c) && !kw_match(objects, word(c), &obj)) {
			req->obj = obj;
			c->i++;
		}
		return no_more(c);
	}

	c->ctx = object_names[obj];
	if (obj == FC_OBJ_MONITOR) {
		snprintf(req->ctx, sizeof(req->ctx), "monitor");
		return parse_monitor(c, req);
	}
	verbs = obj == FC_OBJ_CONFIG ? config_verbs :
		obj == FC_OBJ_STATS ? stats_verbs :
		obj == FC_OBJ_ROUTE ? route_verbs :
		obj == FC_OBJ_GROUP ? group_verbs : plane_verbs;
	if (!more(c)) {
		verb = FC_VERB_SHOW;
	} else {
		ret = expect_kw(c, verbs, "command", &verb);
		if (ret)
			return ret;
	}
	req->verb = verb;
	if (verb == FC_VERB_HELP)
		return no_more(c);
	snprintf(req->ctx, sizeof(req->ctx), "%s %s", object_names[obj],
		 verb_names[verb]);
	c->ctx = req->ctx;

	switch (obj) {
	case FC_OBJ_PLANE:
		return parse_plane(c, req);
	case FC_OBJ_ROUTE:
		if (verb == FC_VERB_FLUSH) {
			if (more(c) && !strcmp(word(c), "help"))
				return help(req);
			return no_more(c);
		}
		return parse_route(c, req);
	case FC_OBJ_GROUP:
		return parse_group(c, req);
	case FC_OBJ_CONFIG:
		if (verb == FC_VERB_SET)
			return parse_config_set(c, req);
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		return no_more(c);
	default:
		if (more(c) && !strcmp(word(c), "help"))
			return help(req);
		return no_more(c);
	}
}

int fc_parse(int argc, char *const argv[], struct fc_request *req,
	     char *err, size_t errlen)
{
	struct cur c = {
		.argc = argc, .argv = argv, .i = 1, .err = err,
		.errlen = errlen,
	};
	bool opt_help;
	int ret;

	memset(req, 0, sizeof(*req));
	err[0] = '\0';
	ret = parse_options(&c, req, &opt_help);
	if (ret || opt_help)
		return ret;
	if (req->batch) {
		/* The commands come from the file. */
		if (more(&c))
			return fail_at(&c, c.i,
				       "unexpected argument \"%s\" after -batch FILE",
				       word(&c));
		return 0;
	}
	return parse_command(&c, req);
}

int fc_parse_command(int argc, char *const argv[], struct fc_request *req,
		     char *err, size_t errlen)
{
	/* Word i of the line is argument i + 1 of the message. */
	struct cur c = {
		.argc = argc + 1, .argv = argv - 1, .i = 1, .err = err,
		.errlen = errlen,
	};
	bool json = req->json, pretty = req->pretty;
	const char *netns = req->netns, *dev = req->dev;

	memset(req, 0, sizeof(*req));
	req->json = json;
	req->pretty = pretty;
	req->netns = netns;
	req->dev = dev;
	err[0] = '\0';
	if (argc > 0 && argv[0][0] == '-')
		return fail_at(&c, 1,
			       "options go on the command line, not in the batch (\"%s\")",
			       argv[0]);
	return parse_command(&c, req);
}

int fc_split_line(char *line, char **argv, int max, char *err, size_t errlen)
{
	char *r = line, *w = line;
	char quote;
	int argc = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			break;
		if (argc == max) {
			snprintf(err, errlen, "more than %d words", max);
			return -1;
		}
		argv[argc++] = w;
		quote = 0;
		for (; *r; r++) {
			if (quote) {
				if (*r == quote)
					quote = 0;
				else
					*w++ = *r;
				continue;
			}
			if (*r == '"' || *r == '\'') {
				quote = *r;
				continue;
			}
			if (*r == '\\') {
				if (!r[1])
					break;
				*w++ = *++r;
				continue;
			}
			if (*r == ' ' || *r == '\t' || *r == '\n' ||
			    *r == '\r')
				break;
			*w++ = *r;
		}
		if (quote) {
			snprintf(err, errlen, "unterminated %c quote", quote);
			return -1;
		}
		/* Terminate the word; r may sit on the blank we overwrite. */
		if (*r)
			r++;
		*w++ = '\0';
	}
	return argc;
}

static const char help_overview[] =
	"Usage: farectl [OPTIONS] OBJECT COMMAND [ARGS]\n"
	"       farectl [OPTIONS] -batch FILE\n"
	"       farectl help [OBJECT]\n"
	"OBJECT := { plane | route | group | config | stats | monitor }\n"
	"OPTIONS := { -j[son] | -p[retty] | -n[etns] NAME | -d[ev] NAME | -h[elp] }\n"
	"  -j, --json          print JSON\n"
	"  -p, --pretty        print indented JSON (implies -j)\n"
	"  -n, --netns NAME    work in network namespace /run/netns/NAME\n"
	"  -d, --dev NAME      work on fare device NAME (default: the namespace's,\n"
	"                      fare0)\n"
	"  -b, --batch FILE    run the commands of FILE (- for stdin), one a line,\n"
	"                      stopping at the first that fails\n"
	"Keywords may be shortened to any unambiguous prefix.\n"
	"Exit status: 0 success, 1 refused by the kernel or system (or a batch\n"
	"line failed), 2 usage error.\n";

static const char help_plane[] =
	"Usage: farectl plane { add | replace } ID dev IFNAME via GW [via GW6]\n"
	"       farectl plane del ID\n"
	"       farectl plane show [ID]\n"
	"       farectl plane sync\n"
	"ID := 1..255\n"
	"GW := an IPv4 or IPv6 next-hop address on IFNAME (one of each at most)\n";

static const char help_group[] =
	"Usage: farectl group { add | replace | set } ID NEXTHOP [NEXTHOP ...]\n"
	"       farectl group del ID\n"
	"       farectl group show [ID]\n"
	"ID := 1..2147483647 (show also lists the anonymous groups, above)\n"
	"NEXTHOP := nexthop plane ID weight W [tier T] [bandwidth BPS]\n"
	"A group's next hops are shared by every route on it (route add PREFIX\n"
	"group ID): one replace changes them all. A group in use cannot be\n"
	"deleted.\n";

static const char help_route[] =
	"Usage: farectl route { add | replace } PREFIX [mode MODE] [tcp-mode MODE]\n"
	"               [src ADDR] [stats { on | off }]\n"
	"               { group ID | NEXTHOP [NEXTHOP ...] }\n"
	"       farectl route del PREFIX\n"
	"       farectl route show [PREFIX]\n"
	"       farectl route flush\n"
	"       farectl route pick ADDR N\n"
	"PREFIX := ADDR[/LEN]  (IPv4 or IPv6, no host bits set)\n"
	"MODE := { default | packet | flow | flowlet }\n"
	"NEXTHOP := nexthop plane ID weight W [tier T] [bandwidth BPS]\n"
	"ID := 1..255   W := 1..4294967295   T := 0..7 (0 preferred)\n"
	"BPS := path bandwidth in bytes per second (0: none), for tier spill-over\n"
	"src ADDR is the preferred source of the kernel route to fare0.\n"
	"Routes with the same next hops share one anonymous group.\n"
	"stats: the route's own counters (default: config route-stats).\n"
	"pick: N (1..65536) connections to ADDR placed over its route's planes\n"
	"by their weights (the usable ones, lowest tier), with each plane's device,\n"
	"source, RDMA device and GID index, and the planes left out and why.\n";

static const char help_config[] =
	"Usage: farectl config show\n"
	"       farectl config set [mode MODE] [flowlet-timeout USEC] [hash-seed N]\n"
	"                          [tier-hops H[,H...]] [spill-bias BYTES]\n"
	"                          [route-limit R] [plane-limit P] [nexthop-limit K]\n"
	"                          [group-limit G] [route-stats { on | off }]\n"
	"                          [flowlet-slots S] [use-neigh { on | off }]\n"
	"                          [memory-budget SIZE]\n"
	"MODE := { packet | flow | flowlet }\n"
	"USEC := 1..10000000 microseconds   N := 0..4294967295 (or 0x...)\n"
	"H := 1..255, the hop count of tiers 0, 1, ... (at most 8)\n"
	"BYTES := 0..4294967295, the bias a tier's queue must exceed to spill\n"
	"R := 0..16777216   P := 0..255   K := 1..64: most routes, planes and\n"
	"     next hops per route of the namespace (raising one needs\n"
	"     CAP_NET_ADMIN in the initial user namespace)\n"
	"G := 0..16777216 next-hop groups, named and anonymous\n"
	"route-stats: whether new routes get their own counters (default off)\n"
	"S := 256..4194304, a power of two: flowlet table slots, 16 bytes each\n"
	"     (default 4096; above it needs CAP_NET_ADMIN in the initial user\n"
	"     namespace; a resize starts every flowlet anew)\n"
	"SIZE := bytes, or with K, M, G, T (KiB...): what the namespace's routes,\n"
	"     their counters and groups may hold, per-CPU state counted for every\n"
	"     possible CPU (default 64M in a namespace of an unprivileged user\n"
	"     namespace, 4G in the host's; raising it needs CAP_NET_ADMIN in the\n"
	"     initial user namespace)\n";

static const char help_stats[] =
	"Usage: farectl stats [show]\n"
	"Prints the namespace drop counters, each plane's packets and share,\n"
	"and each route's next hops with their target and actual shares.\n";

static const char help_monitor[] =
	"Usage: farectl monitor [all | { plane | route | config | group } ...]\n"
	"Prints every change as it happens, as a line farectl -batch takes\n"
	"(or one JSON object a line with -j), until interrupted.\n"
	"Needs CAP_NET_ADMIN.\n";

void fc_help(FILE *out, enum fc_object obj)
{
	switch (obj) {
	case FC_OBJ_MONITOR:
		fputs(help_monitor, out);
		break;
	case FC_OBJ_PLANE:
		fputs(help_plane, out);
		break;
	case FC_OBJ_ROUTE:
		fputs(help_route, out);
		break;
	case FC_OBJ_CONFIG:
		fputs(help_config, out);
		break;
	case FC_OBJ_STATS:
		fputs(help_stats, out);
		break;
	case FC_OBJ_GROUP:
		fputs(help_group, out);
		break;
	default:
		fputs(help_overview, out);
		break;
	}
}
