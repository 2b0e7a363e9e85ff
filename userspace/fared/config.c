// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fared.conf parser. One statement per line, blocks opened by a line
 * ending in "{" and closed by a line holding "}", "#" to the end of a line
 * is a comment. See fared.conf.example for the whole language.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "linux/fare.h"

#define MAX_TOKENS	16

enum block {
	BLOCK_TOP,
	BLOCK_POLICY,
	BLOCK_PLANE,
	BLOCK_NEIGHBOR,
};

static const char *const block_names[] = {
	[BLOCK_TOP] = "top level",
	[BLOCK_POLICY] = "policy",
	[BLOCK_PLANE] = "plane",
	[BLOCK_NEIGHBOR] = "neighbor",
};

/* Names the neighbors refer to, resolved once the whole file is read. */
struct neighbor_refs {
	char import[FARED_NAME_MAX];
	char export[FARED_NAME_MAX];
	bool has_families;
	bool has_hold_time;
	bool has_connect_retry;
	int import_line, export_line, interface_line;
};

struct parser {
	const char *name;
	FILE *err;
	int errors;
	int line;
	struct fared_config *cfg;
	enum block block;
	int block_line;
	unsigned int plane;
	struct neighbor_refs *refs;
	int router_id_line, local_as_line;
	/* Which of the line's words were "quoted" (bit i: argv[i]). */
	uint32_t quoted;
	/* Route-table suppression statements, for suppress_finish(). */
	int upa_line, fs_tag_line, fs_honour_line;
};

static void problem(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(ps->err, "%s:%d: ", ps->name, line);
	va_start(ap, fmt);
	vfprintf(ps->err, fmt, ap);
	va_end(ap);
	fputc('\n', ps->err);
	ps->errors++;
}

static void warning(struct parser *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warning(struct parser *ps, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(ps->err, "%s:%d: warning: ", ps->name, line);
	va_start(ap, fmt);
	vfprintf(ps->err, fmt, ap);
	va_end(ap);
	fputc('\n', ps->err);
}

static bool parse_u32(const char *text, uint32_t min, uint32_t max,
		      uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*v = (uint32_t)n;
	return true;
}

int fared_parse_bandwidth(const char *text, uint64_t *bps)
{
	static const struct {
		char suffix;
		double scale;
	} units[] = {
		{ 'K', 1e3 }, { 'M', 1e6 }, { 'G', 1e9 }, { 'T', 1e12 },
	};
	double v, scale = 1;
	char *end;
	size_t i;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text)
		return -1;
	if (*end) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (*end == units[i].suffix)
				scale = units[i].scale;
		if (scale == 1 || end[1])
			return -1;
	}
	v *= scale;
	/* Below 1 bit/s or beyond 2^63 is a typo, not a link. */
	if (!isfinite(v) || v < 1 || v >= 9.2e18)
		return -1;
	*bps = (uint64_t)v;
	return 0;
}

static bool valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-_.", *s)))
			return false;
	return true;
}

/* Grows an array by one zeroed element; NULL when out of memory. */
static void *grow(void **array, size_t *n, size_t size)
{
	void *p = realloc(*array, (*n + 1) * size);

	if (!p)
		return NULL;
	*array = p;
	p = (char *)p + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}

static void expect_args(struct parser *ps, int argc, int want,
			const char *usage, bool *ok)
{
	*ok = argc == want;
	if (!*ok)
		problem(ps, ps->line, "expected \"%s\"", usage);
}

static void timer_arg(struct parser *ps, char **argv, int argc,
		      uint16_t *hold, uint16_t *retry)
{
	uint32_t v;
	bool ok;

	expect_args(ps, argc, 2, argv[0], &ok);
	if (!ok)
		return;
	if (!strcmp(argv[0], "hold-time")) {
		/* RFC 4271 §4.2: zero, or at least three seconds. */
		if (!parse_u32(argv[1], 0, 65535, &v) || v == 1 || v == 2)
			problem(ps, ps->line, "hold-time must be 0 or 3..65535 "
				"seconds, not \"%s\"", argv[1]);
		else
			*hold = (uint16_t)v;
	} else {
		if (!parse_u32(argv[1], 1, 65535, &v))
			problem(ps, ps->line, "connect-retry must be 1..65535 "
				"seconds, not \"%s\"", argv[1]);
		else
			*retry = (uint16_t)v;
	}
}

/* graceful-restart off | restart-time N [stale-time N] */
static void gr_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	uint32_t v;
	int i;

	if (argc == 2 && !strcmp(argv[1], "off")) {
		cfg->gr_restart_time = 0;
		return;
	}
	if (argc < 3 || argc % 2 == 0) {
		problem(ps, ps->line, "expected \"graceful-restart off\" or "
			"\"graceful-restart restart-time N [stale-time N]\"");
		return;
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "restart-time")) {
			/* RFC 4724 §3: a 12-bit field. */
			if (!parse_u32(argv[i + 1], 1, 4095, &v))
				problem(ps, ps->line, "restart-time must be "
					"1..4095 seconds, not \"%s\"",
					argv[i + 1]);
			else
				cfg->gr_restart_time = (uint16_t)v;
		} else if (!strcmp(argv[i], "stale-time")) {
			if (!parse_u32(argv[i + 1], 1, 65535, &v))
				problem(ps, ps->line, "stale-time must be "
					"1..65535 seconds, not \"%s\"",
					argv[i + 1]);
			else
				cfg->gr_stale_time = (uint16_t)v;
		} else {
			problem(ps, ps->line, "unknown graceful-restart "
				"option \"%s\"", argv[i]);
		}
	}
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* orf-prefix PREFIX; thousands of them, hence the doubling. */
static void orf_prefix_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_orf_prefix *o;
	size_t cap = 16;
	bool ok;

	expect_args(ps, argc, 2, "orf-prefix PREFIX", &ok);
	if (!ok)
		return;
	while (cap < cfg->n_orf_prefixes + 1)
		cap *= 2;
	if (!(cfg->n_orf_prefixes & (cfg->n_orf_prefixes - 1)) ||
	    cfg->n_orf_prefixes < 16) {
		o = realloc(cfg->orf_prefixes, cap * sizeof(*o));
		if (!o) {
			problem(ps, ps->line, "out of memory");
			return;
		}
		cfg->orf_prefixes = o;
	}
	o = &cfg->orf_prefixes[cfg->n_orf_prefixes];
	memset(o, 0, sizeof(*o));
	o->line = ps->line;
	if (bgp_prefix_parse(argv[1], &o->prefix)) {
		problem(ps, ps->line, "bad prefix \"%s\"", argv[1]);
		return;
	}
	cfg->n_orf_prefixes++;
}

static int orf_prefix_cmp(const void *a, const void *b)
{
	const struct fared_orf_prefix *x = *(const struct fared_orf_prefix **)a;
	const struct fared_orf_prefix *y = *(const struct fared_orf_prefix **)b;
	int r = memcmp(&x->prefix, &y->prefix, sizeof(x->prefix));

	return r ? r : x->line - y->line;
}

/* Duplicates by sorting: an O(n^2) scan is seconds under valgrind. */
static void orf_prefix_dups(struct parser *ps)
{
	struct fared_config *cfg = ps->cfg;
	const struct fared_orf_prefix **v;
	char text[64];
	size_t i;

	if (cfg->n_orf_prefixes < 2)
		return;
	v = malloc(cfg->n_orf_prefixes * sizeof(*v));
	if (!v) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	for (i = 0; i < cfg->n_orf_prefixes; i++)
		v[i] = &cfg->orf_prefixes[i];
	qsort(v, cfg->n_orf_prefixes, sizeof(*v), orf_prefix_cmp);
	for (i = 1; i < cfg->n_orf_prefixes; i++)
		if (!memcmp(&v[i]->prefix, &v[i - 1]->prefix,
			    sizeof(v[i]->prefix)))
			problem(ps, v[i]->line, "orf-prefix %s is already at "
				"line %d", bgp_prefix_str(&v[i]->prefix, text,
							  sizeof(text)),
				v[i - 1]->line);
	free(v);
}

/* originate PREFIX [ext-community 0xHHHHHHHHHHHHHHHH]... */
static void originate_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_originate *o;
	uint8_t *ec;
	size_t k;
	int i, j;

	if (argc < 2 || argc % 2) {
		problem(ps, ps->line, "expected \"originate PREFIX "
			"[ext-community 0xHEX16]...\"");
		return;
	}
	o = grow((void **)&cfg->originates, &cfg->n_originates, sizeof(*o));
	if (!o) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	o->line = ps->line;
	if (bgp_prefix_parse(argv[1], &o->prefix))
		problem(ps, ps->line, "bad prefix \"%s\"", argv[1]);
	for (k = 0; k + 1 < cfg->n_originates; k++)
		if (!memcmp(&cfg->originates[k].prefix, &o->prefix,
			    sizeof(o->prefix)))
			problem(ps, ps->line, "prefix %s is already "
				"originated at line %d", argv[1],
				cfg->originates[k].line);
	for (i = 2; i < argc; i += 2) {
		const char *h = argv[i + 1];

		if (strcmp(argv[i], "ext-community")) {
			problem(ps, ps->line, "unknown originate option "
				"\"%s\"", argv[i]);
			continue;
		}
		if (strncmp(h, "0x", 2) || strlen(h) != 18) {
			problem(ps, ps->line, "ext-community must be 0x and "
				"16 hex digits (8 octets), not \"%s\"", h);
			continue;
		}
		ec = realloc(o->ext_communities, o->ext_communities_len + 8);
		if (!ec) {
			problem(ps, ps->line, "out of memory");
			return;
		}
		o->ext_communities = ec;
		ec += o->ext_communities_len;
		for (j = 0; j < 8; j++) {
			int hi = hex_nibble(h[2 + 2 * j]);
			int lo = hex_nibble(h[3 + 2 * j]);

			if (hi < 0 || lo < 0) {
				problem(ps, ps->line, "ext-community \"%s\" "
					"is not hexadecimal", h);
				return;
			}
			ec[j] = (uint8_t)(hi << 4 | lo);
		}
		o->ext_communities_len += 8;
	}
}

/* rnic PREFIX interface NAME: a host route whose carrier is NAME's. */
static void rnic_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_rnic *r;
	size_t k;

	if (argc != 4 || strcmp(argv[2], "interface")) {
		problem(ps, ps->line, "expected \"rnic PREFIX interface "
			"NAME\"");
		return;
	}
	r = grow((void **)&cfg->rnics, &cfg->n_rnics, sizeof(*r));
	if (!r) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	r->line = ps->line;
	if (bgp_prefix_parse(argv[1], &r->prefix) ||
	    r->prefix.len != (r->prefix.family == BGP_FAM_IPV6_UNICAST ?
			      128 : 32))
		problem(ps, ps->line, "rnic needs a host route (/32 or "
			"/128), not \"%s\"", argv[1]);
	if (!valid_name(argv[3], IF_NAMESIZE))
		problem(ps, ps->line, "bad interface name \"%s\"", argv[3]);
	snprintf(r->interface, sizeof(r->interface), "%s", argv[3]);
	for (k = 0; k + 1 < cfg->n_rnics; k++)
		if (!memcmp(&cfg->rnics[k].prefix, &r->prefix,
			    sizeof(r->prefix)))
			problem(ps, ps->line, "rnic %s is already at line %d",
				argv[1], cfg->rnics[k].line);
}

/*
 * upa originate [drop]
 * rnic PREFIX interface NAME
 * fib-suppress tag|honour
 * fib-suppress sub-type N
 * (route-table suppression, see suppress.h; checked in suppress_finish())
 */
static void suppress_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	uint32_t v;

	if (!strcmp(argv[0], "upa")) {
		if ((argc != 2 && argc != 3) || strcmp(argv[1], "originate") ||
		    (argc == 3 && strcmp(argv[2], "drop"))) {
			problem(ps, ps->line, "expected \"upa originate "
				"[drop]\"");
			return;
		}
		cfg->upa_originate = true;
		cfg->upa_drop = argc == 3;
		ps->upa_line = ps->line;
	} else if (!strcmp(argv[0], "rnic")) {
		rnic_statement(ps, argv, argc);
	} else if (argc == 2 && !strcmp(argv[1], "tag")) {
		cfg->fs_tag = true;
		ps->fs_tag_line = ps->line;
	} else if (argc == 2 && !strcmp(argv[1], "honour")) {
		cfg->fs_honour = true;
		ps->fs_honour_line = ps->line;
	} else if (argc == 3 && !strcmp(argv[1], "sub-type") &&
		   parse_u32(argv[2], 0, 255, &v)) {
		cfg->ec.fs_subtype = (uint8_t)v;
	} else {
		problem(ps, ps->line, "expected \"fib-suppress tag\", "
			"\"fib-suppress honour\" or \"fib-suppress sub-type "
			"N\" (N 0..255)");
	}
}

/* Whether a is shorter than x and contains it. */
static bool originate_covers(const struct bgp_prefix *a,
			     const struct bgp_prefix *x)
{
	struct fared_rule r = { .permit = true, .prefix = *a };
	struct fared_policy pol = { .rules = &r, .n_rules = 1 };

	r.ge = (uint8_t)(a->len + 1);
	r.le = x->family == BGP_FAM_IPV6_UNICAST ? 128 : 32;
	return a->len < x->len && fared_policy_permits(&pol, x);
}

/* What route-table suppression needs of the rest of the file. */
static void suppress_finish(struct parser *ps)
{
	const struct fared_config *cfg = ps->cfg;
	bool leaf = cfg->fare && cfg->role == FARE_ROLE_LEAF;
	char text[BGP_PREFIX_STRLEN];
	size_t i, k;

	if (ps->upa_line && !leaf)
		problem(ps, ps->upa_line, "upa originate needs \"role "
			"leaf\"");
	if (ps->upa_line && !cfg->n_originates)
		problem(ps, ps->upa_line, "upa originate needs an "
			"\"originate\" aggregate covering the hosts");
	for (i = 0; i < cfg->n_rnics; i++) {
		const struct fared_rnic *r = &cfg->rnics[i];

		if (!ps->upa_line) {
			problem(ps, r->line, "rnic needs \"upa originate\"");
			continue;
		}
		for (k = 0; k < cfg->n_originates; k++)
			if (originate_covers(&cfg->originates[k].prefix,
					     &r->prefix))
				break;
		if (k == cfg->n_originates)
			problem(ps, r->line, "rnic %s is inside no originated "
				"prefix", bgp_prefix_str(&r->prefix, text,
							 sizeof(text)));
	}
	if (ps->fs_tag_line && !leaf)
		problem(ps, ps->fs_tag_line, "fib-suppress tag needs \"role "
			"leaf\"");
	if (ps->fs_honour_line && !cfg->fare)
		problem(ps, ps->fs_honour_line, "fib-suppress honour needs a "
			"role");
}

/* role host|leaf|spine|super-spine */
static void role_statement(struct parser *ps, char **argv, int argc)
{
	static const char *const roles[] = {
		[FARE_ROLE_HOST] = "host",
		[FARE_ROLE_LEAF] = "leaf",
		[FARE_ROLE_SPINE] = "spine",
		[FARE_ROLE_SUPER_SPINE] = "super-spine",
	};
	int i;

	for (i = 0; argc == 2 && i <= FARE_ROLE_SUPER_SPINE; i++)
		if (!strcmp(argv[1], roles[i])) {
			ps->cfg->fare = true;
			ps->cfg->role = (enum fare_role)i;
			return;
		}
	problem(ps, ps->line, "expected \"role host|leaf|spine|super-spine\"");
}

/*
 * path-bandwidth sub-type N | attach-non-transitive |
 * lower-to-next-next-hop | node-split link|even|off
 */
static void path_bandwidth_statement(struct parser *ps, char **argv,
				     int argc)
{
	struct fared_config *cfg = ps->cfg;
	uint32_t v;

	if (argc == 2 && !strcmp(argv[1], "attach-non-transitive")) {
		cfg->attach_nontransitive = true;
	} else if (argc == 2 && !strcmp(argv[1], "lower-to-next-next-hop")) {
		cfg->lower_to_next_next_hop = true;
	} else if (argc == 3 && !strcmp(argv[1], "node-split") &&
		   (!strcmp(argv[2], "link") || !strcmp(argv[2], "even") ||
		    !strcmp(argv[2], "off"))) {
		cfg->node_split = !strcmp(argv[2], "even") ? FARE_SPLIT_EVEN :
				  !strcmp(argv[2], "off") ? FARE_SPLIT_OFF :
							    FARE_SPLIT_LINK;
	} else if (argc != 3 || strcmp(argv[1], "sub-type") ||
		   !parse_u32(argv[2], 0, 255, &v)) {
		problem(ps, ps->line, "expected \"path-bandwidth "
			"sub-type N\" (N 0..255), \"path-bandwidth "
			"attach-non-transitive\", \"path-bandwidth "
			"lower-to-next-next-hop\" or \"path-bandwidth "
			"node-split link|even|off\"");
	} else {
		cfg->ec.pb_subtype = (uint8_t)v;
	}
}

/* multihomed N policy NAME [multiply-link] */
static void multihomed_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_multihome *mh;
	uint32_t v;

	if ((argc != 4 && argc != 5) || !parse_u32(argv[1], 2, 64, &v) ||
	    strcmp(argv[2], "policy") ||
	    (argc == 5 && strcmp(argv[4], "multiply-link"))) {
		problem(ps, ps->line, "expected \"multihomed N policy "
			"NAME [multiply-link]\" with N 2..64");
		return;
	}
	mh = grow((void **)&cfg->multihomes, &cfg->n_multihomes, sizeof(*mh));
	if (!mh) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	mh->leaves = v;
	mh->multiply_link = argc == 5;
	mh->line = ps->line;
	snprintf(mh->policy_name, sizeof(mh->policy_name), "%s", argv[3]);
}

static uint8_t mode_named(const char *name)
{
	static const char *const modes[] = {
		[FARE_MODE_PACKET] = "packet",
		[FARE_MODE_FLOW] = "flow",
		[FARE_MODE_FLOWLET] = "flowlet",
	};
	int i;

	for (i = FARE_MODE_PACKET; i <= FARE_MODE_FLOWLET; i++)
		if (!strcmp(name, modes[i]))
			return (uint8_t)i;
	return FARE_MODE_DEFAULT;
}

/* mode packet|flow|flowlet [tcp packet|flow|flowlet] [policy NAME] */
static void mode_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	uint8_t mode, tcp_mode = FARE_MODE_DEFAULT;
	struct fared_mode *m;
	int at = 2;

	mode = argc >= 2 ? mode_named(argv[1]) : FARE_MODE_DEFAULT;
	if (mode && argc >= 4 && !strcmp(argv[2], "tcp")) {
		tcp_mode = mode_named(argv[3]);
		at = tcp_mode ? 4 : argc + 1;
	}
	if (!mode || at > argc ||
	    (argc != at && (argc != at + 2 || strcmp(argv[at], "policy")))) {
		problem(ps, ps->line, "expected \"mode packet|flow|flowlet "
			"[tcp packet|flow|flowlet] [policy NAME]\"");
		return;
	}
	m = grow((void **)&cfg->modes, &cfg->n_modes, sizeof(*m));
	if (!m) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	m->mode = mode;
	m->tcp_mode = tcp_mode;
	m->policy = -1;
	m->line = ps->line;
	if (argc == at + 2)
		snprintf(m->policy_name, sizeof(m->policy_name), "%s",
			 argv[at + 1]);
}

/* The FARE statements: role, path-bandwidth, link-bandwidth, ... */
static void fare_statement(struct parser *ps, char **argv, int argc)
{
	if (!strcmp(argv[0], "role")) {
		role_statement(ps, argv, argc);
	} else if (!strcmp(argv[0], "path-bandwidth")) {
		path_bandwidth_statement(ps, argv, argc);
	} else if (!strcmp(argv[0], "multihomed")) {
		multihomed_statement(ps, argv, argc);
	} else if (!strcmp(argv[0], "link-bandwidth")) {
		if (argc != 2 || (strcmp(argv[1], "accept") &&
				  strcmp(argv[1], "ignore"))) {
			problem(ps, ps->line, "expected \"link-bandwidth "
				"accept\" or \"link-bandwidth ignore\"");
			return;
		}
		ps->cfg->ec.accept_link_bw = !strcmp(argv[1], "accept");
	} else {
		mode_statement(ps, argv, argc);
	}
}

const struct fared_multihome *
fared_multihome_of(const struct fared_config *cfg,
		   const struct bgp_prefix *prefix)
{
	size_t i;

	for (i = 0; i < cfg->n_multihomes; i++)
		if (cfg->multihomes[i].policy >= 0 &&
		    fared_policy_permits(
			    &cfg->policies[cfg->multihomes[i].policy], prefix))
			return &cfg->multihomes[i];
	return NULL;
}

uint8_t fared_mode_of(const struct fared_config *cfg,
		      const struct bgp_prefix *prefix, uint8_t *tcp_mode)
{
	size_t i;

	for (i = 0; i < cfg->n_modes; i++)
		if (cfg->modes[i].policy < 0 ||
		    fared_policy_permits(&cfg->policies[cfg->modes[i].policy],
					 prefix)) {
			if (tcp_mode)
				*tcp_mode = cfg->modes[i].tcp_mode;
			return cfg->modes[i].mode;
		}
	if (tcp_mode)
		*tcp_mode = FARE_MODE_DEFAULT;
	return FARE_MODE_DEFAULT;
}

/*
 * tier-community minimal|transit|reflect ASN:VALUE|GLOBAL:LOCAL1:LOCAL2
 * (Dragonfly+ C1, C2, C3; see tier.h).
 */
static void tier_statement(struct parser *ps, char **argv, int argc)
{
	struct fare_tier_cfg *t = &ps->cfg->tiers;
	struct fare_tier_community c;
	char text[40];
	int i, k;

	for (i = 0; argc == 3 && i < FARE_TIER_NCOMM; i++)
		if (!strcmp(argv[1], fare_tier_comm_name(i)))
			break;
	if (argc != 3 || i == FARE_TIER_NCOMM) {
		problem(ps, ps->line, "expected \"tier-community "
			"minimal|transit|reflect COMMUNITY\"");
		return;
	}
	if (fare_tier_community_parse(argv[2], &c)) {
		problem(ps, ps->line, "bad community \"%s\" (use ASN:VALUE, "
			"each 0..65535, or a large community "
			"GLOBAL:LOCAL1:LOCAL2)", argv[2]);
		return;
	}
	c.line = ps->line;
	if (t->c[i].set) {
		problem(ps, ps->line, "tier-community %s is already given at "
			"line %d", argv[1], t->c[i].line);
		return;
	}
	for (k = 0; k < FARE_TIER_NCOMM; k++)
		if (fare_tier_community_eq(&t->c[k], &c)) {
			problem(ps, ps->line, "%s is already the %s "
				"community (line %d)",
				fare_tier_community_str(&c, text,
							sizeof(text)),
				fare_tier_comm_name(k), t->c[k].line);
			return;
		}
	t->c[i] = c;
}

/*
 * A host originates its prefixes on every plane with PB = maximum (fare-04
 * §4.1, mpson-00 §3): the leaf clamps it to the access link. A PB already
 * written on the line is kept as it is.
 */
static void origin_pb(struct parser *ps, struct fared_originate *o)
{
	const struct fared_config *cfg = ps->cfg;
	struct fare_pb pb = {
		.transitive = true,
		.router_id = cfg->router_id,
		.value = fare_policy_origin_pb(),
	};
	struct fare_pb seen;
	uint8_t *ec;
	size_t k;

	for (k = 0; k + FARE_EC_LEN <= o->ext_communities_len; k += 8)
		if (fare_pb_decode(o->ext_communities + k, cfg->ec.pb_subtype,
				   &seen) && seen.transitive)
			return;
	ec = realloc(o->ext_communities, o->ext_communities_len + 8);
	if (!ec) {
		problem(ps, o->line, "out of memory");
		return;
	}
	o->ext_communities = ec;
	fare_pb_encode(ec + o->ext_communities_len, &pb, cfg->ec.pb_subtype);
	o->ext_communities_len += 8;
}

bool fared_policy_permits(const struct fared_policy *pol,
			  const struct bgp_prefix *prefix)
{
	const struct fared_rule *r;
	unsigned int full, rem;
	size_t i;

	for (i = 0; i < pol->n_rules; i++) {
		r = &pol->rules[i];
		if (r->any)
			return r->permit;
		if (r->prefix.family != prefix->family ||
		    prefix->len < r->ge || prefix->len > r->le)
			continue;
		full = r->prefix.len / 8;
		rem = r->prefix.len % 8;
		if (memcmp(r->prefix.addr, prefix->addr, full))
			continue;
		if (rem && (r->prefix.addr[full] ^ prefix->addr[full]) &
		    (uint8_t)(0xff00 >> rem))
			continue;
		return r->permit;
	}
	return false;
}

/* "policy NAME {" and "plane N {": the block that opens. */
static void block_statement(struct parser *ps, char **argv, int argc,
			    bool opens)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_policy *pol;
	uint32_t v;
	size_t i;

	if (argc != 2 || !opens) {
		problem(ps, ps->line, "expected \"%s NAME {\"", argv[0]);
		return;
	}
	ps->block_line = ps->line;
	if (argv[0][1] == 'l') {
		ps->block = BLOCK_PLANE;
		if (!parse_u32(argv[1], 1, 255, &v)) {
			problem(ps, ps->line, "plane must be a number "
				"1..255, not \"%s\"", argv[1]);
			v = 0;
		}
		ps->plane = v;
		return;
	}
	ps->block = BLOCK_POLICY;
	if (!valid_name(argv[1], FARED_NAME_MAX))
		problem(ps, ps->line, "bad policy name \"%s\"", argv[1]);
	for (i = 0; i < cfg->n_policies; i++)
		if (!strcmp(cfg->policies[i].name, argv[1]))
			problem(ps, ps->line,
				"policy \"%s\" is already defined "
				"at line %d", argv[1], cfg->policies[i].line);
	pol = grow((void **)&cfg->policies, &cfg->n_policies, sizeof(*pol));
	if (!pol) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	snprintf(pol->name, sizeof(pol->name), "%s", argv[1]);
	pol->line = ps->line;
}

/*
 * "NAME VALUE" with VALUE in min..max (unit: " seconds", " bytes" or ""
 * in the message): -1 when the words are wrong, 0 when the value is
 * (both reported), 1 with *v set.
 */
static int u32_statement(struct parser *ps, char **argv, int argc,
			 const char *usage, uint32_t min, uint32_t max,
			 const char *unit, uint32_t *v)
{
	bool ok;

	expect_args(ps, argc, 2, usage, &ok);
	if (!ok)
		return -1;
	if (!parse_u32(argv[1], min, max, v)) {
		problem(ps, ps->line, "%s must be %u..%u%s, not \"%s\"",
			argv[0], min, max, unit, argv[1]);
		return 0;
	}
	return 1;
}

static void router_id_statement(struct parser *ps, char **argv, int argc)
{
	struct in_addr a;
	bool ok;

	expect_args(ps, argc, 2, "router-id A.B.C.D", &ok);
	if (!ok)
		return;
	if (inet_pton(AF_INET, argv[1], &a) != 1 || a.s_addr == 0)
		problem(ps, ps->line, "router-id must be a non-zero "
			"IPv4 address, not \"%s\"", argv[1]);
	else
		ps->cfg->router_id = ntohl(a.s_addr);
	ps->router_id_line = ps->line;
}

static void route_stats_statement(struct parser *ps, char **argv, int argc)
{
	bool ok;

	expect_args(ps, argc, 2, "route-stats on|off", &ok);
	if (!ok)
		return;
	if (!strcmp(argv[1], "on"))
		ps->cfg->route_stats = true;
	else if (!strcmp(argv[1], "off"))
		ps->cfg->route_stats = false;
	else
		problem(ps, ps->line, "route-stats must be on or off, "
			"not \"%s\"", argv[1]);
}

/* interface NAME bandwidth BW|auto */
static void interface_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_interface *ifc;
	uint64_t bw;
	size_t i;

	if (argc != 4 || strcmp(argv[2], "bandwidth")) {
		problem(ps, ps->line, "expected \"interface NAME "
			"bandwidth BW\"");
		return;
	}
	if (!valid_name(argv[1], IF_NAMESIZE))
		problem(ps, ps->line, "bad interface name \"%s\"", argv[1]);
	/* auto (0): the device's ethtool speed, read at start. */
	bw = 0;
	if (strcmp(argv[3], "auto") && fared_parse_bandwidth(argv[3], &bw))
		problem(ps, ps->line, "bad bandwidth \"%s\" (use e.g. "
			"100G, 25G, 400M or auto)", argv[3]);
	for (i = 0; i < cfg->n_interfaces; i++)
		if (!strcmp(cfg->interfaces[i].name, argv[1]))
			problem(ps, ps->line, "interface \"%s\" is "
				"already defined at line %d", argv[1],
				cfg->interfaces[i].line);
	ifc = grow((void **)&cfg->interfaces, &cfg->n_interfaces,
		   sizeof(*ifc));
	if (!ifc) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	snprintf(ifc->name, sizeof(ifc->name), "%s", argv[1]);
	ifc->bandwidth = bw;
	ifc->line = ps->line;
}

/* control-socket PATH, state-file PATH */
static void path_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	bool sock = argv[0][0] == 'c';
	char *dst = sock ? cfg->control_socket : cfg->state_file;
	size_t cap = sock ? sizeof(cfg->control_socket) :
		     sizeof(cfg->state_file);
	bool ok;

	expect_args(ps, argc, 2, sock ? "control-socket PATH" :
		    "state-file PATH", &ok);
	if (!ok)
		return;
	if (argv[1][0] != '/' || strlen(argv[1]) >= cap)
		problem(ps, ps->line, "%s must be an absolute path "
			"shorter than %zu bytes", argv[0], cap);
	else
		snprintf(dst, cap, "%s", argv[1]);
}

/* control-group GROUP: the control socket's group (ctl.h). */
static void control_group_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	struct group *gr;
	bool ok;

	expect_args(ps, argc, 2, "control-group GROUP", &ok);
	if (!ok)
		return;
	errno = 0;
	gr = getgrnam(argv[1]);
	if (!gr || strlen(argv[1]) >= sizeof(cfg->control_group)) {
		problem(ps, ps->line, "control-group: %s: %s", argv[1],
			errno ? strerror(errno) : "no such group");
		return;
	}
	snprintf(cfg->control_group, sizeof(cfg->control_group), "%s",
		 argv[1]);
	cfg->control_gid = (long)gr->gr_gid;
}

/* The statements made of one number. */
static bool number_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_config *cfg = ps->cfg;
	uint32_t v;
	int r;

	if (!strcmp(argv[0], "local-as")) {
		r = u32_statement(ps, argv, argc, "local-as ASN", 1,
				  UINT32_MAX, "", &v);
		if (r > 0)
			cfg->local_as = v;
		if (r >= 0)
			ps->local_as_line = ps->line;
	} else if (!strcmp(argv[0], "update-delay")) {
		if (u32_statement(ps, argv, argc, "update-delay SECONDS", 0,
				  3600, " seconds", &v) > 0)
			cfg->update_delay = (uint16_t)v;
	} else if (!strcmp(argv[0], "send-buffer-limit")) {
		if (u32_statement(ps, argv, argc, "send-buffer-limit BYTES",
				  FARED_MIN_SEND_BUFFER, UINT32_MAX, " bytes",
				  &v) > 0)
			cfg->send_buffer_limit = v;
	} else if (!strcmp(argv[0], "test-send-hold-time")) {
		if (u32_statement(ps, argv, argc,
				  "test-send-hold-time SECONDS", 1, 65535,
				  " seconds", &v) > 0)
			cfg->test_send_hold_time = (uint16_t)v;
	} else {
		return false;
	}
	return true;
}

static bool is_any(const char *word, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(word, *names))
			return true;
	return false;
}

static void top_statement(struct parser *ps, char **argv, int argc,
			  bool opens)
{
	static const char *const timers[] = {
		"hold-time", "connect-retry", NULL };
	static const char *const paths[] = {
		"control-socket", "state-file", NULL };
	static const char *const suppress[] = {
		"upa", "fib-suppress", "rnic", NULL };
	static const char *const fare[] = {
		"role", "path-bandwidth", "link-bandwidth", "multihomed",
		"mode", NULL };
	const char *w = argv[0];

	if (!strcmp(w, "policy") || !strcmp(w, "plane")) {
		block_statement(ps, argv, argc, opens);
		return;
	}
	if (opens) {
		problem(ps, ps->line, "\"%s\" does not open a block", w);
		return;
	}
	if (number_statement(ps, argv, argc))
		return;
	if (!strcmp(w, "router-id"))
		router_id_statement(ps, argv, argc);
	else if (is_any(w, timers))
		timer_arg(ps, argv, argc, &ps->cfg->hold_time,
			  &ps->cfg->connect_retry);
	else if (!strcmp(w, "route-stats"))
		route_stats_statement(ps, argv, argc);
	else if (!strcmp(w, "interface"))
		interface_statement(ps, argv, argc);
	else if (is_any(w, paths))
		path_statement(ps, argv, argc);
	else if (!strcmp(w, "control-group"))
		control_group_statement(ps, argv, argc);
	else if (!strcmp(w, "graceful-restart"))
		gr_statement(ps, argv, argc);
	else if (!strcmp(w, "originate"))
		originate_statement(ps, argv, argc);
	else if (!strcmp(w, "orf-prefix"))
		orf_prefix_statement(ps, argv, argc);
	else if (is_any(w, suppress))
		suppress_statement(ps, argv, argc);
	else if (!strcmp(w, "tier-community"))
		tier_statement(ps, argv, argc);
	else if (is_any(w, fare))
		fare_statement(ps, argv, argc);
	else
		problem(ps, ps->line, "unknown statement \"%s\"", w);
}

static void policy_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_policy *pol = &ps->cfg->policies[ps->cfg->n_policies - 1];
	struct fared_rule rule = { 0 }, *r;
	unsigned int max;
	uint32_t v;
	bool has_ge = false, has_le = false;
	int i;

	if (strcmp(argv[0], "permit") && strcmp(argv[0], "deny")) {
		problem(ps, ps->line, "expected \"permit\" or \"deny\", not "
			"\"%s\"", argv[0]);
		return;
	}
	rule.permit = argv[0][0] == 'p';
	if (argc < 2) {
		problem(ps, ps->line, "expected \"%s PREFIX [ge N] [le N]\" "
			"or \"%s any\"", argv[0], argv[0]);
		return;
	}
	if (!strcmp(argv[1], "any")) {
		rule.any = true;
		if (argc != 2)
			problem(ps, ps->line, "nothing may follow \"any\"");
		goto add;
	}
	if (bgp_prefix_parse(argv[1], &rule.prefix)) {
		problem(ps, ps->line, "bad prefix \"%s\"", argv[1]);
		return;
	}
	max = rule.prefix.family == BGP_FAM_IPV6_UNICAST ? 128 : 32;
	rule.ge = rule.prefix.len;
	rule.le = rule.prefix.len;
	for (i = 2; i < argc; i += 2) {
		bool ge = !strcmp(argv[i], "ge");

		if ((!ge && strcmp(argv[i], "le")) || i + 1 >= argc) {
			problem(ps, ps->line, "expected \"ge N\" or \"le N\" "
				"after the prefix");
			return;
		}
		if (!parse_u32(argv[i + 1], rule.prefix.len, max, &v)) {
			problem(ps, ps->line, "%s must be %u..%u, not \"%s\"",
				argv[i], rule.prefix.len, max, argv[i + 1]);
			return;
		}
		if (ge) {
			rule.ge = (uint8_t)v;
			has_ge = true;
		} else {
			rule.le = (uint8_t)v;
			has_le = true;
		}
	}
	if (has_ge && !has_le)
		rule.le = (uint8_t)max;
	if (rule.ge > rule.le) {
		problem(ps, ps->line, "ge %u is greater than le %u", rule.ge,
			rule.le);
		return;
	}
add:
	r = grow((void **)&pol->rules, &pol->n_rules, sizeof(*r));
	if (!r) {
		problem(ps, ps->line, "out of memory");
		return;
	}
	*r = rule;
}

static void plane_statement(struct parser *ps, char **argv, int argc,
			    bool opens)
{
	struct fared_config *cfg = ps->cfg;
	struct fared_neighbor *nb;
	struct neighbor_refs *refs;
	size_t n = cfg->n_neighbors, i;

	if (strcmp(argv[0], "neighbor") || argc != 2 || !opens) {
		problem(ps, ps->line, "expected \"neighbor ADDRESS {\" in a "
			"plane");
		return;
	}
	nb = grow((void **)&cfg->neighbors, &cfg->n_neighbors, sizeof(*nb));
	refs = nb ? grow((void **)&ps->refs, &n, sizeof(*refs)) : NULL;
	if (!refs) {
		/* Keep neighbors and refs the same length. */
		if (nb)
			cfg->n_neighbors--;
		problem(ps, ps->line, "out of memory");
		return;
	}
	ps->block = BLOCK_NEIGHBOR;
	nb->line = ps->line;
	nb->plane = ps->plane;
	nb->import_policy = -1;
	nb->export_policy = -1;
	snprintf(nb->addr_text, sizeof(nb->addr_text), "%s", argv[1]);
	if (inet_pton(AF_INET, argv[1], nb->addr) == 1) {
		nb->family = BGP_FAM_IPV4_UNICAST;
	} else if (inet_pton(AF_INET6, argv[1], nb->addr) == 1) {
		nb->family = BGP_FAM_IPV6_UNICAST;
	} else {
		problem(ps, ps->line, "bad neighbor address \"%s\"", argv[1]);
		return;
	}
	for (i = 0; i + 1 < cfg->n_neighbors; i++)
		if (cfg->neighbors[i].family == nb->family &&
		    !memcmp(cfg->neighbors[i].addr, nb->addr, 16))
			problem(ps, ps->line, "neighbor %s is already defined "
				"at line %d", argv[1], cfg->neighbors[i].line);
}

/* max-prefix N [warning-only] [restart SECONDS] */
/* "add-path receive [max-paths N]" */
static void add_path_statement(struct parser *ps, struct fared_neighbor *nb,
			       char **argv, int argc)
{
	uint32_t v;

	if ((argc != 2 && argc != 4) || strcmp(argv[1], "receive") ||
	    (argc == 4 && strcmp(argv[2], "max-paths"))) {
		problem(ps, ps->line, "add-path: fared only receives path ids: "
			"expected \"add-path receive [max-paths N]\"");
		return;
	}
	if (argc == 4 && !parse_u32(argv[3], 1, FARED_ADD_PATH_MAX_PATHS_MAX,
				    &v)) {
		problem(ps, ps->line, "add-path max-paths must be 1..%u, not "
			"\"%s\"", FARED_ADD_PATH_MAX_PATHS_MAX, argv[3]);
		return;
	}
	nb->add_path_rx = true;
	nb->add_path_max_paths = argc == 4 ? v :
				 FARED_ADD_PATH_MAX_PATHS_DEFAULT;
}

static void max_prefix_statement(struct parser *ps, struct fared_neighbor *nb,
				 char **argv, int argc)
{
	uint32_t v;
	int i;

	if (argc < 2) {
		problem(ps, ps->line, "expected \"max-prefix N [warning-only] "
			"[restart SECONDS]\"");
		return;
	}
	if (!parse_u32(argv[1], 1, UINT32_MAX, &v))
		problem(ps, ps->line, "max-prefix must be 1..4294967295, not "
			"\"%s\"", argv[1]);
	else
		nb->max_prefix = v;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "warning-only")) {
			nb->max_prefix_warning_only = true;
		} else if (!strcmp(argv[i], "restart") && i + 1 < argc) {
			if (!parse_u32(argv[++i], 1, 65535, &v))
				problem(ps, ps->line, "max-prefix restart must "
					"be 1..65535 seconds, not \"%s\"",
					argv[i]);
			else
				nb->max_prefix_restart = (uint16_t)v;
		} else {
			problem(ps, ps->line, "max-prefix: unexpected \"%s\" "
				"(warning-only, restart SECONDS)", argv[i]);
			return;
		}
	}
	if (nb->max_prefix_warning_only && nb->max_prefix_restart)
		problem(ps, ps->line, "max-prefix: warning-only never closes "
			"the session, so restart has nothing to restart");
}

/* family ipv4|ipv6 ... */
static void family_statement(struct parser *ps, struct fared_neighbor *nb,
			     char **argv, int argc)
{
	int i;

	if (argc < 2)
		problem(ps, ps->line, "expected \"family ipv4|ipv6 ...\"");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "ipv4"))
			nb->families |= BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
		else if (!strcmp(argv[i], "ipv6"))
			nb->families |= BGP_FAM_BIT(BGP_FAM_IPV6_UNICAST);
		else
			problem(ps, ps->line, "unknown family \"%s\" "
				"(ipv4 or ipv6)", argv[i]);
	}
}

/* orf send|receive|both */
static void orf_statement(struct parser *ps, struct fared_neighbor *nb,
			  char **argv, int argc)
{
	bool ok;

	expect_args(ps, argc, 2, "orf send|receive|both", &ok);
	if (!ok)
		return;
	if (!strcmp(argv[1], "send"))
		nb->orf = BGP_ORF_SEND;
	else if (!strcmp(argv[1], "receive"))
		nb->orf = BGP_ORF_RECEIVE;
	else if (!strcmp(argv[1], "both"))
		nb->orf = BGP_ORF_SEND | BGP_ORF_RECEIVE;
	else
		problem(ps, ps->line, "orf must be send, receive or both, "
			"not \"%s\"", argv[1]);
}

/* import POLICY, export POLICY: resolved in finish(). */
static void policy_ref_statement(struct parser *ps,
				 struct neighbor_refs *refs, char **argv,
				 int argc)
{
	bool import = argv[0][0] == 'i';
	bool ok;

	expect_args(ps, argc, 2, import ? "import POLICY" : "export POLICY",
		    &ok);
	if (ok)
		snprintf(import ? refs->import : refs->export,
			 FARED_NAME_MAX, "%s", argv[1]);
	if (import)
		refs->import_line = ps->line;
	else
		refs->export_line = ps->line;
}

/* argv[i] for a message, unless it was quoted: it may be a secret. */
static const char *shown(const struct parser *ps, char **argv, int i)
{
	return ps->quoted & (1u << i) ? "(a quoted word)" : argv[i];
}

/* A TCP-MD5 or TCP-AO secret: 1 to 80 bytes, never echoed. */
static bool secret_arg(struct parser *ps, const char *what, const char *text,
		       uint8_t *key, uint8_t *len)
{
	size_t n = strlen(text);

	if (!n || n > FARED_TCP_KEY_MAX) {
		problem(ps, ps->line, "%s: the secret must be 1 to %d "
			"characters (it has %zu)", what, FARED_TCP_KEY_MAX, n);
		return false;
	}
	memcpy(key, text, n);
	*len = (uint8_t)n;
	return true;
}

/* "password SECRET": TCP-MD5 (RFC 2385). */
static void password_statement(struct parser *ps, struct fared_auth *a,
			       char **argv, int argc)
{
	bool ok;

	expect_args(ps, argc, 2, "password \"SECRET\"", &ok);
	if (ok && a->md5_line)
		problem(ps, ps->line, "password: already set at line %d",
			a->md5_line);
	else if (ok && secret_arg(ps, "password", argv[1], a->md5_key,
				  &a->md5_len))
		a->md5_line = ps->line;
}

static const char *const ao_alg_names[] = {
	[FARED_AO_HMAC_SHA1] = "hmac-sha1",
	[FARED_AO_CMAC_AES_128] = "cmac-aes-128",
};

#define TCP_AO_USAGE "tcp-ao send-id ID recv-id ID [algorithm " \
		     "hmac-sha1|cmac-aes-128] secret \"SECRET\""

/* TCP_AO_USAGE: one master key tuple (RFC 5925 §3.1). */
static void tcp_ao_statement(struct parser *ps, struct fared_auth *a,
			     char **argv, int argc)
{
	bool send = false, recv = false, secret = false;
	uint32_t id;
	size_t k;
	int i;

	if (a->ao_line) {
		problem(ps, ps->line, "tcp-ao: already set at line %d",
			a->ao_line);
		return;
	}
	if (argc % 2 == 0) {
		problem(ps, ps->line, "expected \"" TCP_AO_USAGE "\"");
		return;
	}
	for (i = 1; i < argc; i += 2) {
		const char *v = argv[i + 1];

		if (!strcmp(argv[i], "send-id") || !strcmp(argv[i], "recv-id")) {
			if (!parse_u32(v, 0, 255, &id)) {
				problem(ps, ps->line, "tcp-ao: %s must be 0..255, "
					"not \"%s\"", argv[i],
					shown(ps, argv, i + 1));
				return;
			}
			if (argv[i][0] == 's')
				a->ao_send_id = (uint8_t)id;
			else
				a->ao_recv_id = (uint8_t)id;
			*(argv[i][0] == 's' ? &send : &recv) = true;
		} else if (!strcmp(argv[i], "algorithm")) {
			for (k = 0; k < sizeof(ao_alg_names) /
					sizeof(ao_alg_names[0]); k++)
				if (!strcmp(v, ao_alg_names[k]))
					break;
			if (k == sizeof(ao_alg_names) / sizeof(ao_alg_names[0])) {
				problem(ps, ps->line, "tcp-ao: algorithm must be "
					"hmac-sha1 or cmac-aes-128 (RFC 5926), "
					"not \"%s\"", shown(ps, argv, i + 1));
				return;
			}
			a->ao_alg = (uint8_t)k;
		} else if (!strcmp(argv[i], "secret")) {
			if (!secret_arg(ps, "tcp-ao", v, a->ao_key, &a->ao_len))
				return;
			secret = true;
		} else {
			problem(ps, ps->line, "tcp-ao: unknown word \"%s\": "
				"expected \"" TCP_AO_USAGE "\"",
				shown(ps, argv, i));
			return;
		}
	}
	if (!send || !recv || !secret) {
		problem(ps, ps->line, "tcp-ao: send-id, recv-id and secret are "
			"all needed: expected \"" TCP_AO_USAGE "\"");
		return;
	}
	a->ao = true;
	a->ao_line = ps->line;
}

/* "ttl-security yes|no": GTSM (RFC 5082). */
static void ttl_security_statement(struct parser *ps, struct fared_auth *a,
				   char **argv, int argc)
{
	bool ok;

	expect_args(ps, argc, 2, "ttl-security yes|no", &ok);
	if (ok && strcmp(argv[1], "yes") && strcmp(argv[1], "no"))
		problem(ps, ps->line, "ttl-security: expected \"yes\" or "
			"\"no\", not \"%s\"", argv[1]);
	else if (ok)
		a->ttl_security = !strcmp(argv[1], "yes");
	a->ttl_line = ps->line;
}

/*
 * bfd | bfd off | bfd [interval MS] [multiplier N]: the neighbor's BFD
 * session (bfd.h), 100 ms x 3 unless said otherwise.
 */
static void bfd_statement(struct parser *ps, struct fared_neighbor *nb,
			  char **argv, int argc)
{
	uint32_t v;
	int i;

	nb->bfd = true;
	nb->bfd_interval_ms = FARED_BFD_INTERVAL_MS;
	nb->bfd_multiplier = FARED_BFD_MULTIPLIER;
	if (argc == 2 && !strcmp(argv[1], "off")) {
		nb->bfd = false;
		return;
	}
	if (argc == 2 && !strcmp(argv[1], "on"))
		return;
	if (argc % 2 == 0) {
		problem(ps, ps->line, "expected \"bfd\", \"bfd off\" or "
			"\"bfd [interval MS] [multiplier N]\"");
		return;
	}
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "interval")) {
			if (!parse_u32(argv[i + 1], FARED_BFD_INTERVAL_MIN_MS,
				       FARED_BFD_INTERVAL_MAX_MS, &v))
				problem(ps, ps->line, "bfd interval must be "
					"%u..%u ms, not \"%s\"",
					FARED_BFD_INTERVAL_MIN_MS,
					FARED_BFD_INTERVAL_MAX_MS, argv[i + 1]);
			else
				nb->bfd_interval_ms = v;
		} else if (!strcmp(argv[i], "multiplier")) {
			/* RFC 5880 §4.1: Detect Mult is one octet, not 0. */
			if (!parse_u32(argv[i + 1], 1, 255, &v))
				problem(ps, ps->line, "bfd multiplier must be "
					"1..255, not \"%s\"", argv[i + 1]);
			else
				nb->bfd_multiplier = (uint8_t)v;
		} else {
			problem(ps, ps->line, "unknown bfd option \"%s\" "
				"(interval, multiplier)", argv[i]);
		}
	}
}

/* passive, upstream, rnic: the neighbor's flag, or NULL. */
static bool *neighbor_flag(struct fared_neighbor *nb, const char *word)
{
	if (!strcmp(word, "passive"))
		return &nb->passive;
	if (!strcmp(word, "upstream"))
		return &nb->upstream;
	if (!strcmp(word, "rnic"))
		return &nb->rnic;
	return NULL;
}

static void neighbor_statement(struct parser *ps, char **argv, int argc)
{
	struct fared_neighbor *nb =
		&ps->cfg->neighbors[ps->cfg->n_neighbors - 1];
	struct neighbor_refs *refs = &ps->refs[ps->cfg->n_neighbors - 1];
	bool *flag = neighbor_flag(nb, argv[0]);
	uint32_t v;
	bool ok;

	if (flag) {
		expect_args(ps, argc, 1, argv[0], &ok);
		*flag = true;
	} else if (!strcmp(argv[0], "remote-as")) {
		if (u32_statement(ps, argv, argc, "remote-as ASN", 1,
				  UINT32_MAX, "", &v) > 0)
			nb->remote_as = v;
	} else if (!strcmp(argv[0], "interface")) {
		expect_args(ps, argc, 2, "interface NAME", &ok);
		if (ok)
			snprintf(nb->interface, sizeof(nb->interface), "%s",
				 argv[1]);
		refs->interface_line = ps->line;
	} else if (!strcmp(argv[0], "family")) {
		refs->has_families = true;
		family_statement(ps, nb, argv, argc);
	} else if (!strcmp(argv[0], "hold-time") ||
		   !strcmp(argv[0], "connect-retry")) {
		if (argv[0][0] == 'h')
			refs->has_hold_time = true;
		else
			refs->has_connect_retry = true;
		timer_arg(ps, argv, argc, &nb->hold_time, &nb->connect_retry);
	} else if (!strcmp(argv[0], "orf")) {
		orf_statement(ps, nb, argv, argc);
	} else if (!strcmp(argv[0], "add-path")) {
		add_path_statement(ps, nb, argv, argc);
	} else if (!strcmp(argv[0], "max-prefix")) {
		max_prefix_statement(ps, nb, argv, argc);
	} else if (!strcmp(argv[0], "bfd")) {
		bfd_statement(ps, nb, argv, argc);
	} else if (!strcmp(argv[0], "enforce-neighbor-as")) {
		expect_args(ps, argc, 2, "enforce-neighbor-as yes|no", &ok);
		if (ok && strcmp(argv[1], "yes") && strcmp(argv[1], "no"))
			problem(ps, ps->line, "enforce-neighbor-as: expected "
				"\"yes\" or \"no\", not \"%s\"", argv[1]);
		else if (ok)
			nb->neighbor_as_unchecked = !strcmp(argv[1], "no");
	} else if (!strcmp(argv[0], "import") || !strcmp(argv[0], "export")) {
		policy_ref_statement(ps, refs, argv, argc);
	} else if (!strcmp(argv[0], "password")) {
		password_statement(ps, &nb->auth, argv, argc);
	} else if (!strcmp(argv[0], "tcp-ao")) {
		tcp_ao_statement(ps, &nb->auth, argv, argc);
	} else if (!strcmp(argv[0], "ttl-security")) {
		ttl_security_statement(ps, &nb->auth, argv, argc);
	} else {
		problem(ps, ps->line, "unknown neighbor statement \"%s\"",
			argv[0]);
	}
}

static int find_policy(const struct fared_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->n_policies; i++)
		if (!strcmp(cfg->policies[i].name, name))
			return (int)i;
	return -1;
}

/* Dragonfly+ tiers: a host's, and C1 and C2 both, or none at all. */
static void tier_finish(struct parser *ps)
{
	struct fare_tier_cfg *t = &ps->cfg->tiers;
	int i, line = 0;

	for (i = 0; i < FARE_TIER_NCOMM; i++)
		if (t->c[i].set && (!line || t->c[i].line < line))
			line = t->c[i].line;
	if (!line)
		return;
	if (!ps->cfg->fare || ps->cfg->role != FARE_ROLE_HOST)
		problem(ps, line, "tier-community needs \"role host\"");
	for (i = FARE_TIER_C1; i <= FARE_TIER_C2; i++)
		if (!t->c[i].set)
			problem(ps, line, "tier-community %s is missing: "
				"Dragonfly+ tiers need the minimal (C1) and "
				"transit (C2) communities",
				fare_tier_comm_name(i));
	t->enabled = t->c[FARE_TIER_C1].set && t->c[FARE_TIER_C2].set;
}

/* What cannot go together: both keys; GTSM beyond one eBGP hop. */
static void auth_finish(struct parser *ps, const struct fared_neighbor *nb)
{
	const struct fared_auth *a = &nb->auth;

	if (a->md5_len && a->ao)
		problem(ps, a->ao_line, "neighbor %s has both a password "
			"(TCP-MD5, line %d) and tcp-ao: a connection uses one "
			"or the other (RFC 5925 §7.6)", nb->addr_text,
			a->md5_line);
	if (a->ttl_security && nb->remote_as == ps->cfg->local_as)
		problem(ps, a->ttl_line, "neighbor %s: ttl-security (GTSM, "
			"RFC 5082) is for directly connected eBGP neighbors; "
			"this one is iBGP (remote-as is local-as)",
			nb->addr_text);
}

/* One neighbor's defaults and references, once the file is read. */
static void neighbor_finish(struct parser *ps, struct fared_neighbor *nb,
			    const struct neighbor_refs *refs)
{
	const struct fared_config *cfg = ps->cfg;
	size_t k;

	if (!nb->remote_as)
		problem(ps, nb->line, "neighbor %s has no remote-as",
			nb->addr_text);
	if (!refs->has_families)
		nb->families = BGP_FAM_BIT(nb->family);
	if (!refs->has_hold_time)
		nb->hold_time = cfg->hold_time;
	if (!refs->has_connect_retry)
		nb->connect_retry = cfg->connect_retry;
	if (nb->interface[0]) {
		for (k = 0; k < cfg->n_interfaces; k++)
			if (!strcmp(cfg->interfaces[k].name, nb->interface))
				break;
		if (k == cfg->n_interfaces)
			problem(ps, refs->interface_line, "neighbor %s uses "
				"interface \"%s\", which has no "
				"\"interface ... bandwidth\" line",
				nb->addr_text, nb->interface);
	}
	if (refs->import[0]) {
		nb->import_policy = find_policy(cfg, refs->import);
		if (nb->import_policy < 0)
			problem(ps, refs->import_line, "neighbor %s imports "
				"with undefined policy \"%s\"",
				nb->addr_text, refs->import);
	} else {
		warning(ps, nb->line, "neighbor %s has no import "
			"policy: it accepts no route (RFC 8212)",
			nb->addr_text);
	}
	if (refs->export[0]) {
		nb->export_policy = find_policy(cfg, refs->export);
		if (nb->export_policy < 0)
			problem(ps, refs->export_line, "neighbor %s exports "
				"with undefined policy \"%s\"",
				nb->addr_text, refs->export);
	} else {
		warning(ps, nb->line, "neighbor %s has no export "
			"policy: it is sent no route (RFC 8212)",
			nb->addr_text);
	}
	if (cfg->fare && !nb->interface[0])
		problem(ps, nb->line, "neighbor %s needs an interface: "
			"it is plane %u's device for fare.ko",
			nb->addr_text, nb->plane);
	auth_finish(ps, nb);
}

/* The FARE lines' policies resolved; they need a role. */
static void fare_finish(struct parser *ps)
{
	struct fared_config *cfg = ps->cfg;
	size_t i;

	for (i = 0; i < cfg->n_modes; i++) {
		struct fared_mode *m = &cfg->modes[i];

		if (!m->policy_name[0])
			continue;
		m->policy = find_policy(cfg, m->policy_name);
		if (m->policy < 0)
			problem(ps, m->line, "mode with undefined policy "
				"\"%s\"", m->policy_name);
	}
	for (i = 0; i < cfg->n_multihomes; i++) {
		struct fared_multihome *m = &cfg->multihomes[i];

		m->policy = find_policy(cfg, m->policy_name);
		if (m->policy < 0)
			problem(ps, m->line, "multihomed with undefined policy "
				"\"%s\"", m->policy_name);
	}
	if (cfg->n_modes && !cfg->fare)
		problem(ps, cfg->modes[0].line, "mode needs a role");
	if (cfg->n_multihomes && !cfg->fare)
		problem(ps, cfg->multihomes[0].line, "multihomed needs a "
			"role");
	for (i = 0; cfg->fare && i < cfg->n_originates; i++)
		origin_pb(ps, &cfg->originates[i]);
}

static void finish(struct parser *ps)
{
	struct fared_config *cfg = ps->cfg;
	size_t i;

	if (ps->block != BLOCK_TOP)
		problem(ps, ps->block_line, "%s block is never closed",
			block_names[ps->block]);
	orf_prefix_dups(ps);
	if (!ps->router_id_line)
		problem(ps, ps->line, "router-id is missing");
	if (!ps->local_as_line)
		problem(ps, ps->line, "local-as is missing");
	for (i = 0; i < cfg->n_neighbors; i++)
		neighbor_finish(ps, &cfg->neighbors[i], &ps->refs[i]);
	fare_finish(ps);
	suppress_finish(ps);
	tier_finish(ps);
}

/*
 * A "quoted" word (a password) runs to the next quote and may hold
 * spaces, "#" and braces; it has no escapes, so it cannot hold a quote.
 * Its text is never echoed: it may be a secret.
 */
static char *quoted_word(struct parser *ps, char *p)
{
	char *end = strchr(p + 1, '"');

	if (!end) {
		problem(ps, ps->line, "a quoted word has no closing quote");
		return NULL;
	}
	*end++ = '\0';
	if (*end && *end != ' ' && *end != '\t' && *end != '\r' &&
	    *end != '#') {
		problem(ps, ps->line, "put a space after a quoted word");
		return NULL;
	}
	if (*end == '#')
		*end = '\0';
	return end;
}

/* Splits a line into tokens in place; "{" and "}" stand alone. */
static int tokenize(struct parser *ps, char *line, char **argv)
{
	int argc = 0;
	char *p = line;

	ps->quoted = 0;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p || *p == '#')
			break;
		if (argc == MAX_TOKENS) {
			problem(ps, ps->line, "more than %d words on a line",
				MAX_TOKENS);
			return -1;
		}
		if (*p == '"') {
			ps->quoted |= 1u << argc;
			argv[argc++] = p + 1;
			p = quoted_word(ps, p);
			if (!p)
				return -1;
			continue;
		}
		argv[argc++] = p;
		if (*p == '{' || *p == '}') {
			p++;
			if (*p && *p != ' ' && *p != '\t' && *p != '\r') {
				problem(ps, ps->line, "put a space after "
					"\"%c\"", p[-1]);
				return -1;
			}
			continue;
		}
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' &&
		       *p != '#' && *p != '{' && *p != '}')
			p++;
		if (*p == '{' || *p == '}') {
			problem(ps, ps->line, "put a space before \"%c\"", *p);
			return -1;
		}
		if (*p == '#')
			*p = '\0';
	}
	return argc;
}

static void statement(struct parser *ps, char **argv, int argc)
{
	bool opens = !strcmp(argv[argc - 1], "{") &&
		     !(ps->quoted & (1u << (argc - 1)));
	int i;

	if (!strcmp(argv[0], "}") && !(ps->quoted & 1)) {
		if (argc != 1)
			problem(ps, ps->line,
				"\"}\" must be alone on its line");
		if (ps->block == BLOCK_TOP)
			problem(ps, ps->line, "\"}\" closes no block");
		else
			ps->block = ps->block == BLOCK_NEIGHBOR ? BLOCK_PLANE :
				    BLOCK_TOP;
		return;
	}
	for (i = 0; i < argc - opens; i++) {
		if ((!strcmp(argv[i], "{") || !strcmp(argv[i], "}")) &&
		    !(ps->quoted & (1u << i))) {
			problem(ps, ps->line, "braces go at the end of a line "
				"(\"{\") or alone on one (\"}\")");
			return;
		}
	}
	if (opens)
		argc--;
	if (argc == 0) {
		problem(ps, ps->line, "\"{\" opens nothing");
		return;
	}
	switch (ps->block) {
	case BLOCK_TOP:
		top_statement(ps, argv, argc, opens);
		return;
	case BLOCK_PLANE:
		plane_statement(ps, argv, argc, opens);
		return;
	default:
		break;
	}
	if (opens) {
		problem(ps, ps->line, "no block may open inside a %s",
			block_names[ps->block]);
		return;
	}
	if (ps->block == BLOCK_POLICY)
		policy_statement(ps, argv, argc);
	else
		neighbor_statement(ps, argv, argc);
}

int fared_config_parse(const char *name, const char *text,
		       struct fared_config *cfg, FILE *err)
{
	struct parser ps = { .name = name, .err = err, .cfg = cfg };
	char *copy, *line, *next, *argv[MAX_TOKENS];
	int argc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->hold_time = 90;		/* RFC 4271 §10 */
	cfg->connect_retry = 120;
	cfg->send_buffer_limit = FARED_DEFAULT_SEND_BUFFER;
	cfg->gr_stale_time = 360;
	cfg->update_delay = 10;
	cfg->ec.pb_subtype = FARE_PB_SUBTYPE_DEFAULT;
	cfg->ec.fs_subtype = FARE_FS_SUBTYPE_DEFAULT;
	snprintf(cfg->control_socket, sizeof(cfg->control_socket), "%s",
		 FARED_DEFAULT_CONTROL);
	snprintf(cfg->state_file, sizeof(cfg->state_file), "%s",
		 FARED_DEFAULT_STATE);
	cfg->control_gid = -1;
	copy = strdup(text);
	if (!copy) {
		problem(&ps, 0, "out of memory");
		return ps.errors;
	}
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ps.line++;
		argc = tokenize(&ps, line, argv);
		if (argc > 0)
			statement(&ps, argv, argc);
	}
	finish(&ps);
	free(ps.refs);
	/* The text may hold passwords. */
	explicit_bzero(copy, strlen(text));
	free(copy);
	return ps.errors;
}

int fared_config_load(const char *path, struct fared_config *cfg, FILE *err)
{
	char *text = NULL;
	size_t len = 0, got;
	FILE *f;
	int errors;

	memset(cfg, 0, sizeof(*cfg));
	f = fopen(path, "r");
	if (!f) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		char *p = realloc(text, len + 4097);

		if (!p) {
			free(text);
			fclose(f);
			fprintf(err, "%s: out of memory\n", path);
			return 1;
		}
		text = p;
		got = fread(text + len, 1, 4096, f);
		len += got;
		if (got < 4096)
			break;
	}
	text[len] = '\0';
	if (ferror(f) || memchr(text, '\0', len)) {
		fprintf(err, "%s: %s\n", path, ferror(f) ?
			"read error" : "not a text file (NUL byte)");
		free(text);
		fclose(f);
		return 1;
	}
	fclose(f);
	errors = fared_config_parse(path, text, cfg, err);
	explicit_bzero(text, len);
	free(text);
	return errors;
}

void fared_config_free(struct fared_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->n_policies; i++)
		free(cfg->policies[i].rules);
	free(cfg->policies);
	free(cfg->interfaces);
	if (cfg->neighbors)
		explicit_bzero(cfg->neighbors,
			       cfg->n_neighbors * sizeof(*cfg->neighbors));
	free(cfg->neighbors);
	for (i = 0; i < cfg->n_originates; i++)
		free(cfg->originates[i].ext_communities);
	free(cfg->originates);
	free(cfg->orf_prefixes);
	free(cfg->rnics);
	free(cfg->modes);
	free(cfg->multihomes);
	memset(cfg, 0, sizeof(*cfg));
}
