// SPDX-License-Identifier: GPL-2.0-only
/*
 * UPDATE messages (RFC 4271 §4.3, RFC 4760, RFC 2545, RFC 6793, RFC 7911)
 * with the revised error handling of RFC 7606.
 *
 * The parser walks every attribute even after an error, because the action
 * to take is the strongest of all errors found (RFC 7606 §3h), and it keeps
 * the NLRI locatable whatever the attributes say (§4, §5).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgp.h"
#include "cursor.h"

/* ---------------------------------------------------------------------
 * Prefixes and NLRI.
 */

static unsigned int family_max_bits(int fam)
{
	return fam == BGP_FAM_IPV6_UNICAST ? 128 : 32;
}

/* Checks a run of NLRI for syntax (RFC 7606 §5.3). */
static bool nlri_valid(const uint8_t *p, size_t len, int fam, bool add_path)
{
	struct cursor c = cursor_make(p, len);
	const uint8_t *bytes;
	uint32_t path_id;
	uint8_t bits;

	while (c.left) {
		if (add_path && !cur_u32(&c, &path_id))
			return false;
		if (!cur_u8(&c, &bits) || bits > family_max_bits(fam) ||
		    !cur_take(&c, (bits + 7u) / 8, &bytes))
			return false;
	}
	return true;
}

bool bgp_nlri_next(const struct bgp_nlri *nlri, size_t *pos,
		   struct bgp_prefix *prefix)
{
	struct cursor c;
	const uint8_t *bytes;
	size_t n;
	uint8_t bits;

	if (!nlri->present || !nlri->known || *pos >= nlri->len)
		return false;
	c = cursor_make(nlri->data + *pos, nlri->len - *pos);
	memset(prefix, 0, sizeof(*prefix));
	prefix->family = nlri->family;
	if (nlri->add_path && !cur_u32(&c, &prefix->path_id))
		return false;
	if (!cur_u8(&c, &bits) || bits > family_max_bits(nlri->family))
		return false;
	n = (bits + 7u) / 8;
	if (!cur_take(&c, n, &bytes))
		return false;
	memcpy(prefix->addr, bytes, n);
	/* Trailing bits are irrelevant on the wire; make them zero. */
	if (bits % 8)
		prefix->addr[n - 1] &= (uint8_t)(0xff << (8 - bits % 8));
	prefix->len = bits;
	*pos = nlri->len - c.left;
	return true;
}

size_t bgp_nlri_count(const struct bgp_nlri *nlri)
{
	struct bgp_prefix prefix;
	size_t pos = 0, n = 0;

	while (bgp_nlri_next(nlri, &pos, &prefix))
		n++;
	return n;
}

int bgp_prefix_parse(const char *text, struct bgp_prefix *prefix)
{
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(text, '/');
	unsigned long bits;
	char *end;
	size_t n;
	int fam;

	memset(prefix, 0, sizeof(*prefix));
	if (!slash || (size_t)(slash - text) >= sizeof(addr))
		return -1;
	memcpy(addr, text, slash - text);
	addr[slash - text] = '\0';
	if (inet_pton(AF_INET, addr, prefix->addr) == 1)
		fam = BGP_FAM_IPV4_UNICAST;
	else if (inet_pton(AF_INET6, addr, prefix->addr) == 1)
		fam = BGP_FAM_IPV6_UNICAST;
	else
		return -1;
	if (slash[1] < '0' || slash[1] > '9')
		return -1;
	bits = strtoul(slash + 1, &end, 10);
	if (*end || bits > family_max_bits(fam))
		return -1;
	prefix->family = fam;
	prefix->len = (uint8_t)bits;
	/* Host bits must be zero: "10.0.0.1/8" is a typo, not a prefix. */
	for (n = 0; n < 16; n++) {
		unsigned int lo = n * 8;
		uint8_t keep = bits >= lo + 8 ? 0xff : bits <= lo ? 0 :
			       (uint8_t)(0xff << (8 - (bits - lo)));

		if (prefix->addr[n] & ~keep)
			return -1;
	}
	return 0;
}

char *bgp_prefix_str(const struct bgp_prefix *prefix, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(prefix->family == BGP_FAM_IPV6_UNICAST ? AF_INET6 : AF_INET,
		  prefix->addr, addr, sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, prefix->len);
	return buf;
}

/* ---------------------------------------------------------------------
 * AS paths.
 */

size_t bgp_as_path_length(const struct bgp_as_path *path)
{
	size_t i, n = 0;

	for (i = 0; i < path->n_segments; i++) {
		if (path->segments[i].type == BGP_AS_SEQUENCE)
			n += path->segments[i].count;
		else if (path->segments[i].type == BGP_AS_SET)
			n++;
	}
	return n;
}

void bgp_as_path_free(struct bgp_as_path *path)
{
	free(path->segments);
	free(path->asns);
	memset(path, 0, sizeof(*path));
}

char *bgp_as_path_str(const struct bgp_as_path *path, char *buf, size_t len)
{
	static const char *const open[] = { "", "{", "", "(", "[" };
	static const char *const close[] = { "", "}", "", ")", "]" };
	size_t i, k, at = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < path->n_segments; i++) {
		const struct bgp_as_segment *seg = &path->segments[i];
		uint8_t t = seg->type <= 4 ? seg->type : 0;

		for (k = 0; k < seg->count && at < len; k++)
			at += snprintf(buf + at, len - at, "%s%s%u%s",
				       at ? " " : "", k ? "" : open[t],
				       seg->asns[k],
				       k + 1 == seg->count ? close[t] : "");
	}
	return buf;
}

size_t bgp_as_path_packed_len(const struct bgp_as_path *path)
{
	return path->n_segments + path->n_asns;
}

void bgp_as_path_pack(const struct bgp_as_path *path, uint32_t *out)
{
	size_t i;

	for (i = 0; i < path->n_segments; i++) {
		const struct bgp_as_segment *seg = &path->segments[i];

		*out++ = BGP_AS_PACKED_HEAD(seg->type, seg->count);
		memcpy(out, seg->asns, seg->count * sizeof(*out));
		out += seg->count;
	}
}

static bool as_path_alloc(struct bgp_as_path *path, size_t n_segments,
			  size_t n_asns)
{
	path->n_segments = 0;
	path->n_asns = 0;
	path->segments = calloc(n_segments ? n_segments : 1,
				sizeof(*path->segments));
	path->asns = calloc(n_asns ? n_asns : 1, sizeof(*path->asns));
	if (!path->segments || !path->asns) {
		bgp_as_path_free(path);
		return false;
	}
	return true;
}

/* Appends a segment; the caller has allocated room for it. */
static void as_path_add(struct bgp_as_path *path, uint8_t type,
			const uint32_t *asns, size_t count)
{
	struct bgp_as_segment *seg = &path->segments[path->n_segments++];

	seg->type = type;
	seg->count = (uint8_t)count;
	seg->asns = path->asns + path->n_asns;
	memcpy(path->asns + path->n_asns, asns, count * sizeof(*asns));
	path->n_asns += count;
}

enum as_path_result {
	AS_PATH_OK,
	AS_PATH_MALFORMED,
	AS_PATH_NO_MEMORY,
};

/*
 * Decodes AS_PATH or AS4_PATH (asn_size 2 or 4). drop_confed drops
 * confederation segments, as RFC 6793 §6 wants of AS4_PATH.
 */
static enum as_path_result as_path_decode(const uint8_t *v, size_t len,
					  size_t asn_size, bool drop_confed,
					  struct bgp_as_path *path)
{
	struct cursor c = cursor_make(v, len);
	size_t n_segments = 0, n_asns = 0, i;
	uint32_t asns[255];

	memset(path, 0, sizeof(*path));
	/* Pass one: the checks of RFC 7606 §7.2, and the sizes. */
	while (c.left) {
		const uint8_t *bytes;
		uint8_t type, count;

		if (!cur_u8(&c, &type) || !cur_u8(&c, &count) || count == 0 ||
		    type < BGP_AS_SET || type > BGP_AS_CONFED_SET ||
		    !cur_take(&c, count * asn_size, &bytes))
			return AS_PATH_MALFORMED;
		n_segments++;
		n_asns += count;
	}
	if (!as_path_alloc(path, n_segments, n_asns))
		return AS_PATH_NO_MEMORY;
	/* Pass two cannot fail. */
	c = cursor_make(v, len);
	while (c.left) {
		uint8_t type = 0, count = 0;
		const uint8_t *bytes = NULL;

		cur_u8(&c, &type);
		cur_u8(&c, &count);
		cur_take(&c, count * asn_size, &bytes);
		if (drop_confed && (type == BGP_AS_CONFED_SEQUENCE ||
				    type == BGP_AS_CONFED_SET))
			continue;
		for (i = 0; i < count; i++)
			asns[i] = asn_size == 4 ? get_be32(bytes + 4 * i) :
						  get_be16(bytes + 2 * i);
		as_path_add(path, type, asns, count);
	}
	return AS_PATH_OK;
}

static bool is_confed(uint8_t type)
{
	return type == BGP_AS_CONFED_SEQUENCE || type == BGP_AS_CONFED_SET;
}

/*
 * RFC 6793 §4.2.3: keep as much of the leading AS_PATH as makes the
 * merged path as long as AS_PATH, then append AS4_PATH. Returns false on
 * allocation failure (path is then left as it was).
 */
static bool as_path_merge(struct bgp_as_path *path,
			  const struct bgp_as_path *as4)
{
	size_t n = bgp_as_path_length(path), m = bgp_as_path_length(as4);
	size_t need, i, take;
	struct bgp_as_path merged;
	bool prev_taken = false;

	if (n < m)
		return true;
	need = n - m;
	if (!as_path_alloc(&merged, path->n_segments + as4->n_segments,
			   path->n_asns + as4->n_asns))
		return false;
	for (i = 0; i < path->n_segments; i++) {
		const struct bgp_as_segment *seg = &path->segments[i];

		if (is_confed(seg->type)) {
			/* Kept when leading or next to a kept segment. */
			if (i != 0 && !prev_taken)
				break;
			as_path_add(&merged, seg->type, seg->asns, seg->count);
			prev_taken = true;
			continue;
		}
		if (need == 0)
			break;
		if (seg->type == BGP_AS_SET) {
			take = seg->count;
			need--;
		} else {
			take = seg->count < need ? seg->count : need;
			need -= take;
		}
		as_path_add(&merged, seg->type, seg->asns, take);
		prev_taken = true;
	}
	for (i = 0; i < as4->n_segments; i++)
		as_path_add(&merged, as4->segments[i].type,
			    as4->segments[i].asns, as4->segments[i].count);
	bgp_as_path_free(path);
	*path = merged;
	return true;
}

/* ---------------------------------------------------------------------
 * UPDATE parsing.
 */

/* The O and T flag bits each known attribute must carry. */
static int expected_flags(uint8_t type)
{
	switch (type) {
	case BGP_ATTR_ORIGIN:
	case BGP_ATTR_AS_PATH:
	case BGP_ATTR_NEXT_HOP:
	case BGP_ATTR_LOCAL_PREF:
	case BGP_ATTR_ATOMIC_AGGREGATE:
		return BGP_ATTR_FLAG_TRANSITIVE;
	case BGP_ATTR_MED:
	case BGP_ATTR_ORIGINATOR_ID:
	case BGP_ATTR_CLUSTER_LIST:
	case BGP_ATTR_MP_REACH:
	case BGP_ATTR_MP_UNREACH:
		return BGP_ATTR_FLAG_OPTIONAL;
	case BGP_ATTR_AGGREGATOR:
	case BGP_ATTR_COMMUNITIES:
	case BGP_ATTR_EXT_COMMUNITIES:
	case BGP_ATTR_AS4_PATH:
	case BGP_ATTR_AS4_AGGREGATOR:
	case BGP_ATTR_LARGE_COMMUNITIES:
		return BGP_ATTR_FLAG_OPTIONAL | BGP_ATTR_FLAG_TRANSITIVE;
	}
	return -1;
}

/*
 * What a malformed instance of a known attribute calls for (RFC 7606 §7,
 * RFC 6793 §6, RFC 8092 §6). Flag conflicts are malformations too (§3c),
 * so they take the same action.
 */
static enum bgp_action malformed_action(uint8_t type, bool ibgp)
{
	switch (type) {
	case BGP_ATTR_ATOMIC_AGGREGATE:
	case BGP_ATTR_AGGREGATOR:
	case BGP_ATTR_AS4_PATH:
	case BGP_ATTR_AS4_AGGREGATOR:
		return BGP_ACTION_ATTR_DISCARD;
	case BGP_ATTR_LOCAL_PREF:
	case BGP_ATTR_ORIGINATOR_ID:
	case BGP_ATTR_CLUSTER_LIST:
		return ibgp ? BGP_ACTION_TREAT_AS_WITHDRAW :
			      BGP_ACTION_ATTR_DISCARD;
	case BGP_ATTR_MP_REACH:
	case BGP_ATTR_MP_UNREACH:
		return BGP_ACTION_SESSION_RESET;
	}
	return BGP_ACTION_TREAT_AS_WITHDRAW;
}

struct update_parser {
	const struct bgp_codec_opts *opts;
	struct bgp_update *up;
	uint64_t seen[4];		/* every attribute type met */
	bool other_than_unreach;	/* RFC 7606 §5.2 */
	unsigned int n_attrs;
	struct bgp_as_path as4_path;
	bool has_as4_path;
	uint32_t as4_aggregator_as;
	uint8_t as4_aggregator_id[4];
	bool has_as4_aggregator;
};

/* Records an error; the strongest action wins, the first among equals. */
static void note(struct update_parser *ps, enum bgp_action action,
		 uint8_t subcode, const uint8_t *data, size_t data_len,
		 const char *reason)
{
	struct bgp_error *err = &ps->up->error;

	if (action == BGP_ACTION_ATTR_DISCARD)
		ps->up->n_discarded++;
	if (action <= err->action)
		return;
	*err = (struct bgp_error){
		.action = action,
		.code = BGP_ERR_UPDATE,
		.subcode = subcode,
		.data = data,
		.data_len = data_len,
		.reason = reason,
	};
}

static void keep(struct bgp_attrs *attrs, uint8_t type)
{
	attrs->present |= 1ull << type;
}

static bool parse_mp_reach(struct update_parser *ps, const uint8_t *v,
			   size_t len)
{
	struct bgp_attrs *attrs = &ps->up->attrs;
	struct bgp_nlri *nlri = &ps->up->mp_reach;
	struct cursor c = cursor_make(v, len);
	const uint8_t *nh;
	uint8_t nh_len, reserved;
	int fam;

	if (len < 5)
		return false;
	cur_u16(&c, &nlri->afi);
	cur_u8(&c, &nlri->safi);
	cur_u8(&c, &nh_len);
	if (!cur_take(&c, nh_len, &nh) || !cur_u8(&c, &reserved))
		return false;
	fam = bgp_family_of(nlri->afi, nlri->safi);
	nlri->present = true;
	nlri->data = c.p;
	nlri->len = c.left;
	if (fam < 0)
		return true;	/* not ours to check; ignored by the caller */
	if (fam == BGP_FAM_IPV4_UNICAST && nh_len != 4)
		return false;
	if (fam == BGP_FAM_IPV6_UNICAST && nh_len != 16 && nh_len != 32)
		return false;
	nlri->known = true;
	nlri->family = fam;
	nlri->add_path = ps->opts->add_path_rx & BGP_FAM_BIT(fam);
	if (!nlri_valid(nlri->data, nlri->len, fam, nlri->add_path))
		return false;
	attrs->mp_next_hop_len = nh_len;
	memcpy(attrs->mp_next_hop, nh, nh_len > 16 ? 16 : nh_len);
	if (nh_len == 32) {
		attrs->mp_has_ll = true;
		memcpy(attrs->mp_next_hop_ll, nh + 16, 16);
	}
	return true;
}

static bool parse_mp_unreach(struct update_parser *ps, const uint8_t *v,
			     size_t len)
{
	struct bgp_nlri *nlri = &ps->up->mp_unreach;
	int fam;

	if (len < 3)
		return false;
	nlri->afi = get_be16(v);
	nlri->safi = v[2];
	nlri->present = true;
	nlri->data = v + 3;
	nlri->len = len - 3;
	fam = bgp_family_of(nlri->afi, nlri->safi);
	if (fam < 0)
		return true;
	nlri->known = true;
	nlri->family = fam;
	nlri->add_path = ps->opts->add_path_rx & BGP_FAM_BIT(fam);
	return nlri_valid(nlri->data, nlri->len, fam, nlri->add_path);
}

/* The one length each fixed-size attribute has (asn_size: 2 or 4). */
static size_t fixed_len(uint8_t type, size_t asn_size)
{
	switch (type) {
	case BGP_ATTR_ORIGIN:
		return 1;
	case BGP_ATTR_ATOMIC_AGGREGATE:
		return 0;
	case BGP_ATTR_AGGREGATOR:
		return asn_size + 4;
	default:	/* NEXT_HOP, MED, LOCAL_PREF, ORIGINATOR_ID */
		return 4;
	}
}

/* A fixed-size attribute (see fixed_len()): 0 or the error subcode. */
static uint8_t parse_fixed(struct bgp_attrs *attrs, uint8_t type,
			   const uint8_t *v, size_t len, size_t asn_size)
{
	if (len != fixed_len(type, asn_size))
		return BGP_UPDATE_ATTR_LENGTH;
	switch (type) {
	case BGP_ATTR_ORIGIN:
		if (v[0] > BGP_ORIGIN_INCOMPLETE)
			return BGP_UPDATE_INVALID_ORIGIN;
		attrs->origin = v[0];
		break;
	case BGP_ATTR_NEXT_HOP:
		memcpy(attrs->next_hop, v, 4);
		break;
	case BGP_ATTR_MED:
		attrs->med = get_be32(v);
		break;
	case BGP_ATTR_LOCAL_PREF:
		attrs->local_pref = get_be32(v);
		break;
	case BGP_ATTR_AGGREGATOR:
		attrs->aggregator_as = asn_size == 4 ? get_be32(v) :
						       get_be16(v);
		memcpy(attrs->aggregator_id, v + asn_size, 4);
		break;
	case BGP_ATTR_ORIGINATOR_ID:
		memcpy(attrs->originator_id, v, 4);
		break;
	}
	return 0;
}

/*
 * A list of fixed-size items, kept by reference: COMMUNITIES and
 * CLUSTER_LIST (4 octets each), EXTENDED COMMUNITIES (8), LARGE
 * COMMUNITIES (12). Not empty, whole items only.
 */
static uint8_t parse_list(struct bgp_attrs *attrs, uint8_t type,
			  const uint8_t *v, size_t len)
{
	size_t item = type == BGP_ATTR_EXT_COMMUNITIES ? 8 :
		      type == BGP_ATTR_LARGE_COMMUNITIES ? 12 : 4;

	if (len == 0 || len % item)
		return BGP_UPDATE_ATTR_LENGTH;
	switch (type) {
	case BGP_ATTR_COMMUNITIES:
		attrs->communities = v;
		attrs->communities_len = len;
		break;
	case BGP_ATTR_CLUSTER_LIST:
		attrs->cluster_list = v;
		attrs->cluster_list_len = len;
		break;
	case BGP_ATTR_EXT_COMMUNITIES:
		attrs->ext_communities = v;
		attrs->ext_communities_len = len;
		break;
	case BGP_ATTR_LARGE_COMMUNITIES:
		attrs->large_communities = v;
		attrs->large_communities_len = len;
		break;
	}
	return 0;
}

/* as_path_decode()'s result as parse_attr() returns it. */
static uint8_t as_path_subcode(int res, uint8_t malformed)
{
	switch (res) {
	case AS_PATH_OK:
		return 0;
	case AS_PATH_MALFORMED:
		return malformed;
	default:	/* AS_PATH_NO_MEMORY */
		return 0xff;
	}
}

/* AS4_PATH and AS4_AGGREGATOR: merged later, not kept as such. */
static uint8_t parse_as4(struct update_parser *ps, uint8_t type,
			 const uint8_t *v, size_t len)
{
	uint8_t r;

	if (type == BGP_ATTR_AS4_AGGREGATOR) {
		if (len != 8)
			return BGP_UPDATE_OPTIONAL_ATTR;
		ps->as4_aggregator_as = get_be32(v);
		memcpy(ps->as4_aggregator_id, v + 4, 4);
		ps->has_as4_aggregator = true;
		return 0;
	}
	/* At least one AS, and an even length (RFC 6793 §6). */
	if (len < 6 || len % 2)
		return BGP_UPDATE_OPTIONAL_ATTR;
	r = as_path_subcode(as_path_decode(v, len, 4, true, &ps->as4_path),
			    BGP_UPDATE_OPTIONAL_ATTR);
	if (!r)
		ps->has_as4_path = true;
	return r;
}

/*
 * Parses one attribute value. Returns 0 when it is well formed (and kept
 * unless said otherwise), else the NOTIFICATION subcode of its error
 * (0xff: out of memory).
 */
static uint8_t parse_attr(struct update_parser *ps, uint8_t flags,
			  uint8_t type, const uint8_t *v, size_t len)
{
	struct bgp_attrs *attrs = &ps->up->attrs;
	size_t asn_size = ps->opts->as4 ? 4 : 2;
	uint8_t r;

	switch (type) {
	case BGP_ATTR_ORIGIN:
	case BGP_ATTR_NEXT_HOP:
	case BGP_ATTR_MED:
	case BGP_ATTR_LOCAL_PREF:
	case BGP_ATTR_ATOMIC_AGGREGATE:
	case BGP_ATTR_AGGREGATOR:
	case BGP_ATTR_ORIGINATOR_ID:
		r = parse_fixed(attrs, type, v, len, asn_size);
		break;
	case BGP_ATTR_COMMUNITIES:
	case BGP_ATTR_CLUSTER_LIST:
	case BGP_ATTR_EXT_COMMUNITIES:
	case BGP_ATTR_LARGE_COMMUNITIES:
		r = parse_list(attrs, type, v, len);
		break;
	case BGP_ATTR_AS_PATH:
		r = as_path_subcode(as_path_decode(v, len, asn_size, false,
						   &attrs->as_path),
				    BGP_UPDATE_MALFORMED_AS_PATH);
		break;
	case BGP_ATTR_MP_REACH:
		r = parse_mp_reach(ps, v, len) ? 0 : BGP_UPDATE_OPTIONAL_ATTR;
		break;
	case BGP_ATTR_MP_UNREACH:
		r = parse_mp_unreach(ps, v, len) ? 0 :
		    BGP_UPDATE_OPTIONAL_ATTR;
		break;
	case BGP_ATTR_AS4_PATH:
	case BGP_ATTR_AS4_AGGREGATOR:
		return parse_as4(ps, type, v, len);
	default:
		/* Unknown and optional: pass on if transitive, else drop. */
		if ((flags & BGP_ATTR_FLAG_TRANSITIVE) &&
		    attrs->n_kept < BGP_MAX_KEPT_ATTRS)
			attrs->kept[attrs->n_kept++] = (struct bgp_raw_attr){
				.flags = flags, .type = type,
				.value = v, .len = len,
			};
		return 0;
	}
	if (r)
		return r;
	keep(attrs, type);
	return 0;
}

static void handle_attr(struct update_parser *ps, uint8_t flags,
			uint8_t type, const uint8_t *v, size_t len,
			const uint8_t *whole, size_t whole_len)
{
	int want = expected_flags(type);
	enum bgp_action bad;
	uint8_t subcode;
	bool dup;

	if (type != BGP_ATTR_MP_UNREACH)
		ps->other_than_unreach = true;
	dup = ps->seen[type / 64] & (1ull << (type % 64));
	ps->seen[type / 64] |= 1ull << (type % 64);
	if (dup) {
		if (type == BGP_ATTR_MP_REACH || type == BGP_ATTR_MP_UNREACH)
			note(ps, BGP_ACTION_SESSION_RESET,
			     BGP_UPDATE_MALFORMED_ATTR_LIST, NULL, 0,
			     "MP_REACH_NLRI or MP_UNREACH_NLRI twice");
		else
			note(ps, BGP_ACTION_ATTR_DISCARD,
			     BGP_UPDATE_MALFORMED_ATTR_LIST, whole, whole_len,
			     "attribute repeated; later copy discarded");
		return;
	}
	if (want < 0 && !(flags & BGP_ATTR_FLAG_OPTIONAL)) {
		note(ps, BGP_ACTION_SESSION_RESET,
		     BGP_UPDATE_UNRECOGNIZED_WELLKNOWN, whole, whole_len,
		     "unrecognized well-known attribute");
		return;
	}
	/* From an external peer these are dropped, whatever their shape. */
	if (!ps->opts->ibgp && (type == BGP_ATTR_LOCAL_PREF ||
				type == BGP_ATTR_ORIGINATOR_ID ||
				type == BGP_ATTR_CLUSTER_LIST)) {
		note(ps, BGP_ACTION_ATTR_DISCARD, BGP_UPDATE_ATTR_LENGTH,
		     whole, whole_len, "iBGP-only attribute from an eBGP peer");
		return;
	}
	/* A NEW speaker drops AS4_* from another NEW one (RFC 6793 §6). */
	if (ps->opts->as4 && (type == BGP_ATTR_AS4_PATH ||
			      type == BGP_ATTR_AS4_AGGREGATOR)) {
		note(ps, BGP_ACTION_ATTR_DISCARD, BGP_UPDATE_OPTIONAL_ATTR,
		     whole, whole_len, "AS4_PATH/AS4_AGGREGATOR from a 4-octet "
		     "AS speaker");
		return;
	}
	if (want >= 0 && (flags & 0xc0) != want) {
		bad = malformed_action(type, ps->opts->ibgp);
		note(ps, bad, BGP_UPDATE_ATTR_FLAGS, whole, whole_len,
		     "attribute flags conflict with its type");
		return;
	}
	subcode = parse_attr(ps, flags, type, v, len);
	if (subcode == 0xff) {
		ps->up->error = (struct bgp_error){
			.action = BGP_ACTION_SESSION_RESET,
			.code = BGP_ERR_CEASE,
			.subcode = BGP_CEASE_OUT_OF_RESOURCES,
			.reason = "out of memory",
		};
	} else if (subcode) {
		bad = malformed_action(type, ps->opts->ibgp);
		note(ps, bad, subcode, whole, whole_len,
		     bad == BGP_ACTION_SESSION_RESET ?
		     "malformed MP_REACH_NLRI or MP_UNREACH_NLRI" :
		     "malformed attribute");
	}
}

/* Walks the path attributes (RFC 7606 §4 for the length errors). */
static void walk_attrs(struct update_parser *ps, const uint8_t *p, size_t len)
{
	struct cursor c = cursor_make(p, len);

	while (c.left) {
		const uint8_t *start = c.p, *v;
		uint8_t flags, type, len8;
		uint16_t alen;

		if (c.left < 3 ||
		    (c.left < 4 && (c.p[0] & BGP_ATTR_FLAG_EXT_LEN))) {
			ps->other_than_unreach = true;
			note(ps, BGP_ACTION_TREAT_AS_WITHDRAW,
			     BGP_UPDATE_MALFORMED_ATTR_LIST, NULL, 0,
			     "path attributes end inside an attribute header");
			return;
		}
		cur_u8(&c, &flags);
		cur_u8(&c, &type);
		if (flags & BGP_ATTR_FLAG_EXT_LEN) {
			cur_u16(&c, &alen);
		} else {
			cur_u8(&c, &len8);
			alen = len8;
		}
		if (!cur_take(&c, alen, &v)) {
			ps->other_than_unreach = true;
			note(ps, BGP_ACTION_TREAT_AS_WITHDRAW,
			     BGP_UPDATE_MALFORMED_ATTR_LIST, NULL, 0,
			     "attribute overruns the path attributes");
			return;
		}
		ps->n_attrs++;
		handle_attr(ps, flags, type, v, alen, start,
			    (size_t)(c.p - start));
	}
}

static void finish_as4(struct update_parser *ps)
{
	struct bgp_attrs *attrs = &ps->up->attrs;
	bool use_as4 = true;

	if (ps->opts->as4)
		return;
	/* RFC 6793 §4.2.3: a real AGGREGATOR AS voids the AS4_ info. */
	if (bgp_attr_has(attrs, BGP_ATTR_AGGREGATOR) &&
	    attrs->aggregator_as != BGP_AS_TRANS) {
		use_as4 = false;
	} else if (ps->has_as4_aggregator) {
		attrs->aggregator_as = ps->as4_aggregator_as;
		memcpy(attrs->aggregator_id, ps->as4_aggregator_id, 4);
		keep(attrs, BGP_ATTR_AGGREGATOR);
	}
	if (use_as4 && ps->has_as4_path &&
	    bgp_attr_has(attrs, BGP_ATTR_AS_PATH) &&
	    !as_path_merge(&attrs->as_path, &ps->as4_path))
		ps->up->error = (struct bgp_error){
			.action = BGP_ACTION_SESSION_RESET,
			.code = BGP_ERR_CEASE,
			.subcode = BGP_CEASE_OUT_OF_RESOURCES,
			.reason = "out of memory",
		};
}

/* The type code of a missing attribute is the error's data (§6.3). */
static const uint8_t attr_codes[] = {
	[BGP_ATTR_ORIGIN] = BGP_ATTR_ORIGIN,
	[BGP_ATTR_AS_PATH] = BGP_ATTR_AS_PATH,
	[BGP_ATTR_NEXT_HOP] = BGP_ATTR_NEXT_HOP,
	[BGP_ATTR_MED] = BGP_ATTR_MED,
	[BGP_ATTR_LOCAL_PREF] = BGP_ATTR_LOCAL_PREF,
};

static void check_mandatory(struct update_parser *ps)
{
	struct bgp_update *up = ps->up;
	const struct bgp_attrs *attrs = &up->attrs;
	static const uint8_t need[] = { BGP_ATTR_ORIGIN, BGP_ATTR_AS_PATH,
					BGP_ATTR_NEXT_HOP,
					BGP_ATTR_LOCAL_PREF };
	size_t i;

	for (i = 0; i < sizeof(need); i++) {
		uint8_t t = need[i];

		/* RFC 4760 made NEXT_HOP needed only by IPv4 NLRI. */
		if (t == BGP_ATTR_NEXT_HOP && !up->nlri.len)
			continue;
		if (t == BGP_ATTR_LOCAL_PREF && !ps->opts->ibgp)
			continue;
		/* A malformed one is already an error of its own. */
		if (!bgp_attr_has(attrs, t) &&
		    !(ps->seen[0] & (1ull << t)))
			note(ps, BGP_ACTION_TREAT_AS_WITHDRAW,
			     BGP_UPDATE_MISSING_WELLKNOWN, &attr_codes[t], 1,
			     "well-known mandatory attribute missing");
	}
}

enum bgp_parse_status bgp_update_parse(const uint8_t *msg, size_t len,
				       const struct bgp_codec_opts *opts,
				       struct bgp_update *up)
{
	struct update_parser ps = { .opts = opts, .up = up };
	struct cursor c;
	const uint8_t *withdrawn, *attrs;
	uint16_t wlen, alen;
	bool reach;

	memset(up, 0, sizeof(*up));
	if (len < BGP_UPDATE_MIN_LEN) {
		note(&ps, BGP_ACTION_SESSION_RESET,
		     BGP_UPDATE_MALFORMED_ATTR_LIST, NULL, 0,
		     "UPDATE too short");
		return BGP_PARSE_ERROR;
	}
	c = cursor_make(msg + BGP_HEADER_LEN, len - BGP_HEADER_LEN);
	cur_u16(&c, &wlen);
	if (!cur_take(&c, wlen, &withdrawn) || !cur_u16(&c, &alen) ||
	    !cur_take(&c, alen, &attrs)) {
		note(&ps, BGP_ACTION_SESSION_RESET,
		     BGP_UPDATE_MALFORMED_ATTR_LIST, NULL, 0,
		     "withdrawn or attribute length exceeds the message");
		return BGP_PARSE_ERROR;
	}

	up->withdrawn = (struct bgp_nlri){
		.present = wlen > 0, .known = true,
		.afi = BGP_AFI_IPV4, .safi = BGP_SAFI_UNICAST,
		.family = BGP_FAM_IPV4_UNICAST,
		.add_path = opts->add_path_rx &
			    BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST),
		.data = withdrawn, .len = wlen,
	};
	up->nlri = up->withdrawn;
	up->nlri.present = c.left > 0;
	up->nlri.data = c.p;
	up->nlri.len = c.left;
	/* Unparseable prefixes make treat-as-withdraw impossible (§3j). */
	if (!nlri_valid(withdrawn, wlen, BGP_FAM_IPV4_UNICAST,
			up->withdrawn.add_path) ||
	    !nlri_valid(up->nlri.data, up->nlri.len, BGP_FAM_IPV4_UNICAST,
			up->nlri.add_path)) {
		note(&ps, BGP_ACTION_SESSION_RESET, BGP_UPDATE_INVALID_NETWORK,
		     NULL, 0, "malformed prefix in withdrawn routes or NLRI");
		return BGP_PARSE_ERROR;
	}

	walk_attrs(&ps, attrs, alen);
	if (up->error.action < BGP_ACTION_SESSION_RESET)
		finish_as4(&ps);
	bgp_as_path_free(&ps.as4_path);

	reach = up->nlri.len || up->mp_reach.present;
	if (reach)
		check_mandatory(&ps);
	/*
	 * §5.2: attributes with nothing to advertise leave no NLRI to treat
	 * as withdrawn, so any error beyond a discard resets the session.
	 */
	if (!reach && ps.other_than_unreach &&
	    up->error.action == BGP_ACTION_TREAT_AS_WITHDRAW)
		up->error.action = BGP_ACTION_SESSION_RESET;

	if (up->error.action == BGP_ACTION_NONE && !reach && !wlen &&
	    (alen == 0 || (ps.n_attrs == 1 && up->mp_unreach.present &&
			   up->mp_unreach.len == 0))) {
		up->end_of_rib = true;
		if (alen == 0) {
			up->eor_afi = BGP_AFI_IPV4;
			up->eor_safi = BGP_SAFI_UNICAST;
		} else {
			up->eor_afi = up->mp_unreach.afi;
			up->eor_safi = up->mp_unreach.safi;
		}
		up->eor_family = (uint8_t)bgp_family_of(up->eor_afi,
							up->eor_safi);
	}
	return up->error.action == BGP_ACTION_SESSION_RESET ?
	       BGP_PARSE_ERROR : BGP_PARSE_OK;
}

void bgp_update_free(struct bgp_update *up)
{
	bgp_as_path_free(&up->attrs.as_path);
}

/* ---------------------------------------------------------------------
 * UPDATE building.
 */

static size_t prefix_wire_len(const struct bgp_prefix *p, bool add_path)
{
	return (add_path ? 4 : 0) + 1 + (p->len + 7u) / 8;
}

static size_t prefixes_wire_len(const struct bgp_prefix *p, size_t n,
				bool add_path)
{
	size_t i, len = 0;

	for (i = 0; i < n; i++)
		len += prefix_wire_len(&p[i], add_path);
	return len;
}

static void w_prefixes(struct writer *w, const struct bgp_prefix *p, size_t n,
		       bool add_path)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (add_path)
			w_u32(w, p[i].path_id);
		w_u8(w, p[i].len);
		w_bytes(w, p[i].addr, (p[i].len + 7u) / 8);
	}
}

static void w_attr_head(struct writer *w, uint8_t flags, uint8_t type,
			size_t len)
{
	if (len > 255) {
		w_u8(w, flags | BGP_ATTR_FLAG_EXT_LEN);
		w_u8(w, type);
		if (len > 0xffff) {
			w->overflow = true;
			return;
		}
		w_u16(w, (uint16_t)len);
	} else {
		w_u8(w, flags);
		w_u8(w, type);
		w_u8(w, (uint8_t)len);
	}
}

static void w_attr(struct writer *w, uint8_t flags, uint8_t type,
		   const void *v, size_t len)
{
	w_attr_head(w, flags, type, len);
	w_bytes(w, v, len);
}

/* One or more AS_SEQUENCE segments of at most 255 ASes each. */
static void w_as_path(struct writer *w, uint8_t flags, uint8_t type,
		      const uint32_t *asns, size_t n, size_t asn_size)
{
	size_t segs = (n + 254) / 255, i, len;

	len = 2 * segs + n * asn_size;
	w_attr_head(w, flags, type, len);
	for (i = 0; i < n; i++) {
		if (i % 255 == 0) {
			w_u8(w, BGP_AS_SEQUENCE);
			w_u8(w, (uint8_t)(n - i < 255 ? n - i : 255));
		}
		if (asn_size == 4)
			w_u32(w, asns[i]);
		else
			w_u16(w, asns[i] > 0xffff ? BGP_AS_TRANS :
			      (uint16_t)asns[i]);
	}
}

static void w_asn(struct writer *w, uint32_t as, size_t asn_size)
{
	if (asn_size == 4)
		w_u32(w, as);
	else
		w_u16(w, as > 0xffff ? BGP_AS_TRANS : (uint16_t)as);
}

/*
 * Writes (w non-NULL) or measures (w NULL) the segments of a packed path
 * with prepend first; returns the octets, or -1 for a malformed path.
 * *big tells whether any AS needs 4 octets.
 */
static long w_packed(struct writer *w, const uint32_t *p, size_t n,
		     uint32_t prepend, size_t asn_size, bool drop_confed,
		     bool *big)
{
	size_t i = 0, k, count;
	long len = 0;
	bool first = true, join;
	uint8_t type;

	*big = prepend > 0xffff;
	while (i < n) {
		type = (uint8_t)(p[i] >> 8);
		count = p[i] & 255;
		if (!count || count > n - i - 1 || type < BGP_AS_SET ||
		    type > BGP_AS_CONFED_SET)
			return -1;
		i++;
		if (drop_confed && is_confed(type)) {
			i += count;
			continue;
		}
		join = first && prepend && type == BGP_AS_SEQUENCE &&
		       count < 255;
		if (first && prepend && !join) {
			len += 2 + asn_size;
			if (w) {
				w_u8(w, BGP_AS_SEQUENCE);
				w_u8(w, 1);
				w_asn(w, prepend, asn_size);
			}
		}
		len += 2 + (count + join) * asn_size;
		if (w) {
			w_u8(w, type);
			w_u8(w, (uint8_t)(count + join));
			if (join)
				w_asn(w, prepend, asn_size);
		}
		for (k = 0; k < count; k++, i++) {
			*big |= p[i] > 0xffff;
			if (w)
				w_asn(w, p[i], asn_size);
		}
		first = false;
	}
	if (first && prepend) {
		len += 2 + asn_size;
		if (w) {
			w_u8(w, BGP_AS_SEQUENCE);
			w_u8(w, 1);
			w_asn(w, prepend, asn_size);
		}
	}
	return len;
}

static void w_packed_attr(struct writer *w, uint8_t flags, uint8_t type,
			  const struct bgp_update_out *out, size_t asn_size,
			  bool drop_confed, bool *big)
{
	long len = w_packed(NULL, out->packed_path, out->packed_path_len,
			    out->prepend_as, asn_size, drop_confed, big);

	if (len < 0) {
		w->overflow = true;
		return;
	}
	w_attr_head(w, flags, type, (size_t)len);
	w_packed(w, out->packed_path, out->packed_path_len, out->prepend_as,
		 asn_size, drop_confed, big);
}

/* MP_UNREACH_NLRI with out's mp_withdrawn (RFC 4760 §4). */
static void w_mp_unreach(struct writer *w, const struct bgp_update_out *out,
			 uint32_t add_path_tx)
{
	int fam = out->mp_unreach_family;
	bool ap = add_path_tx & BGP_FAM_BIT(fam);

	w_attr_head(w, BGP_ATTR_FLAG_OPTIONAL, BGP_ATTR_MP_UNREACH,
		    3 + prefixes_wire_len(out->mp_withdrawn,
					  out->n_mp_withdrawn, ap));
	w_u16(w, bgp_family_afi(fam));
	w_u8(w, bgp_family_safi(fam));
	w_prefixes(w, out->mp_withdrawn, out->n_mp_withdrawn, ap);
}

/* MP_REACH_NLRI with out's next hop and mp_nlri (RFC 4760 §3). */
static void w_mp_reach(struct writer *w, const struct bgp_update_out *out,
		       uint32_t add_path_tx)
{
	int fam = out->mp_family;
	bool ap = add_path_tx & BGP_FAM_BIT(fam);
	size_t nh_len = fam == BGP_FAM_IPV6_UNICAST ?
			(out->mp_has_ll ? 32 : 16) : 4;

	w_attr_head(w, BGP_ATTR_FLAG_OPTIONAL, BGP_ATTR_MP_REACH,
		    5 + nh_len + prefixes_wire_len(out->mp_nlri,
						   out->n_mp_nlri, ap));
	w_u16(w, bgp_family_afi(fam));
	w_u8(w, bgp_family_safi(fam));
	w_u8(w, (uint8_t)nh_len);
	w_bytes(w, out->mp_next_hop, nh_len > 16 ? 16 : nh_len);
	if (nh_len == 32)
		w_bytes(w, out->mp_next_hop_ll, 16);
	w_u8(w, 0);
	w_prefixes(w, out->mp_nlri, out->n_mp_nlri, ap);
}

/*
 * The path attributes of an announcement, in type order: ORIGIN, AS_PATH,
 * NEXT_HOP, MED, LOCAL_PREF, ATOMIC_AGGREGATE, AGGREGATOR, COMMUNITIES,
 * EXTENDED COMMUNITIES, AS4_PATH and AS4_AGGREGATOR (to an old speaker,
 * when an AS does not fit in two octets), LARGE COMMUNITIES, then the raw
 * ones passed on.
 */
static void w_path_attrs(struct writer *w, const struct bgp_codec_opts *opts,
			 const struct bgp_update_out *out)
{
	const uint8_t opt_trans = BGP_ATTR_FLAG_OPTIONAL |
				  BGP_ATTR_FLAG_TRANSITIVE;
	bool big_as = false;
	size_t i;

	w_attr(w, BGP_ATTR_FLAG_TRANSITIVE, BGP_ATTR_ORIGIN, &out->origin, 1);
	if (out->path_packed) {
		w_packed_attr(w, BGP_ATTR_FLAG_TRANSITIVE, BGP_ATTR_AS_PATH,
			      out, opts->as4 ? 4 : 2, !opts->ibgp, &big_as);
	} else {
		w_as_path(w, BGP_ATTR_FLAG_TRANSITIVE, BGP_ATTR_AS_PATH,
			  out->as_path, out->as_path_len, opts->as4 ? 4 : 2);
		for (i = 0; i < out->as_path_len; i++)
			big_as |= out->as_path[i] > 0xffff;
	}
	if (out->has_next_hop)
		w_attr(w, BGP_ATTR_FLAG_TRANSITIVE, BGP_ATTR_NEXT_HOP,
		       out->next_hop, 4);
	if (out->has_med) {
		w_attr_head(w, BGP_ATTR_FLAG_OPTIONAL, BGP_ATTR_MED, 4);
		w_u32(w, out->med);
	}
	if (out->has_local_pref) {
		w_attr_head(w, BGP_ATTR_FLAG_TRANSITIVE, BGP_ATTR_LOCAL_PREF,
			    4);
		w_u32(w, out->local_pref);
	}
	if (out->atomic_aggregate)
		w_attr_head(w, BGP_ATTR_FLAG_TRANSITIVE,
			    BGP_ATTR_ATOMIC_AGGREGATE, 0);
	if (out->has_aggregator) {
		w_attr_head(w, opt_trans, BGP_ATTR_AGGREGATOR,
			    (opts->as4 ? 4 : 2) + 4);
		w_asn(w, out->aggregator_as, opts->as4 ? 4 : 2);
		w_bytes(w, out->aggregator_id, 4);
	}
	if (out->communities_len)
		w_attr(w, opt_trans, BGP_ATTR_COMMUNITIES, out->communities,
		       out->communities_len);
	if (out->ext_communities_len)
		w_attr(w, opt_trans, BGP_ATTR_EXT_COMMUNITIES,
		       out->ext_communities, out->ext_communities_len);
	/* Old speakers get the true path beside AS_TRANS. */
	if (!opts->as4 && big_as && out->path_packed)
		w_packed_attr(w, opt_trans, BGP_ATTR_AS4_PATH, out, 4, true,
			      &big_as);
	else if (!opts->as4 && big_as)
		w_as_path(w, opt_trans, BGP_ATTR_AS4_PATH, out->as_path,
			  out->as_path_len, 4);
	if (!opts->as4 && out->has_aggregator &&
	    out->aggregator_as > 0xffff) {
		w_attr_head(w, opt_trans, BGP_ATTR_AS4_AGGREGATOR, 8);
		w_u32(w, out->aggregator_as);
		w_bytes(w, out->aggregator_id, 4);
	}
	if (out->large_communities_len)
		w_attr(w, opt_trans, BGP_ATTR_LARGE_COMMUNITIES,
		       out->large_communities, out->large_communities_len);
	if (out->raw_attrs_len)
		w_bytes(w, out->raw_attrs, out->raw_attrs_len);
}

int bgp_update_build(uint8_t *buf, size_t cap,
		     const struct bgp_codec_opts *opts, uint32_t add_path_tx,
		     const struct bgp_update_out *out)
{
	bool v4_ap = add_path_tx & BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
	struct writer w = writer_make(buf, cap);
	size_t at;

	w_header(&w, BGP_MSG_UPDATE);
	at = w.len;
	w_u16(&w, 0);
	w_prefixes(&w, out->withdrawn, out->n_withdrawn, v4_ap);
	w_patch_u16(&w, at, (uint16_t)(w.len - at - 2));

	at = w.len;
	w_u16(&w, 0);
	if (out->mp_unreach_family >= 0)
		w_mp_unreach(&w, out, add_path_tx);
	if (out->mp_family >= 0)
		w_mp_reach(&w, out, add_path_tx);
	if (out->n_nlri || out->mp_family >= 0)
		w_path_attrs(&w, opts, out);
	w_patch_u16(&w, at, (uint16_t)(w.len - at - 2));
	w_prefixes(&w, out->nlri, out->n_nlri, v4_ap);
	return w_finish(&w, opts->max_len ? opts->max_len : BGP_MAX_LEN);
}

size_t bgp_raw_attr_encode(uint8_t *buf, const struct bgp_raw_attr *a,
			   bool partial)
{
	uint8_t flags = a->flags & ~BGP_ATTR_FLAG_EXT_LEN;
	size_t head = a->len > 255 ? 4 : 3;

	if (partial)
		flags |= BGP_ATTR_FLAG_PARTIAL;
	if (!buf)
		return head + a->len;
	if (a->len > 255)
		flags |= BGP_ATTR_FLAG_EXT_LEN;
	buf[0] = flags;
	buf[1] = a->type;
	if (a->len > 255) {
		buf[2] = (uint8_t)(a->len >> 8);
		buf[3] = (uint8_t)a->len;
	} else {
		buf[2] = (uint8_t)a->len;
	}
	if (a->len)
		memcpy(buf + head, a->value, a->len);
	return head + a->len;
}

int bgp_eor_build(uint8_t *buf, size_t cap, enum bgp_family fam)
{
	struct writer w = writer_make(buf, cap);

	w_header(&w, BGP_MSG_UPDATE);
	w_u16(&w, 0);
	if (fam == BGP_FAM_IPV4_UNICAST) {
		w_u16(&w, 0);
	} else {
		w_u16(&w, 6);
		w_u8(&w, BGP_ATTR_FLAG_OPTIONAL);
		w_u8(&w, BGP_ATTR_MP_UNREACH);
		w_u8(&w, 3);
		w_u16(&w, bgp_family_afi(fam));
		w_u8(&w, bgp_family_safi(fam));
	}
	return w_finish(&w, BGP_MAX_LEN);
}
