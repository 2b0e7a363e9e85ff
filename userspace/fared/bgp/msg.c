// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BGP message header, OPEN with its capabilities, KEEPALIVE,
 * NOTIFICATION and ROUTE-REFRESH. UPDATE lives in update.c.
 */
#include <string.h>

#include "bgp.h"
#include "cursor.h"

int bgp_family_of(uint16_t afi, uint8_t safi)
{
	if (safi != BGP_SAFI_UNICAST)
		return -1;
	if (afi == BGP_AFI_IPV4)
		return BGP_FAM_IPV4_UNICAST;
	if (afi == BGP_AFI_IPV6)
		return BGP_FAM_IPV6_UNICAST;
	return -1;
}

uint16_t bgp_family_afi(enum bgp_family fam)
{
	return fam == BGP_FAM_IPV6_UNICAST ? BGP_AFI_IPV6 : BGP_AFI_IPV4;
}

uint8_t bgp_family_safi(enum bgp_family fam)
{
	(void)fam;
	return BGP_SAFI_UNICAST;
}

const char *bgp_action_name(enum bgp_action action)
{
	switch (action) {
	case BGP_ACTION_NONE:
		return "none";
	case BGP_ACTION_ATTR_DISCARD:
		return "attribute-discard";
	case BGP_ACTION_TREAT_AS_WITHDRAW:
		return "treat-as-withdraw";
	case BGP_ACTION_SESSION_RESET:
		return "session-reset";
	}
	return "?";
}

static enum bgp_parse_status reset(struct bgp_error *err, uint8_t code,
				   uint8_t subcode, const uint8_t *data,
				   size_t data_len, const char *reason)
{
	*err = (struct bgp_error){
		.action = BGP_ACTION_SESSION_RESET,
		.code = code,
		.subcode = subcode,
		.data = data,
		.data_len = data_len,
		.reason = reason,
	};
	return BGP_PARSE_ERROR;
}

/* ---------------------------------------------------------------------
 * Header (RFC 4271 §4.1, §6.1).
 */

static size_t min_len_of(uint8_t type)
{
	switch (type) {
	case BGP_MSG_OPEN:
		return BGP_OPEN_MIN_LEN;
	case BGP_MSG_UPDATE:
		return BGP_UPDATE_MIN_LEN;
	case BGP_MSG_NOTIFICATION:
		return BGP_NOTIFICATION_MIN_LEN;
	case BGP_MSG_KEEPALIVE:
		return BGP_HEADER_LEN;
	case BGP_MSG_ROUTE_REFRESH:
		return BGP_ROUTE_REFRESH_LEN;
	}
	return 0;
}

enum bgp_parse_status bgp_header_parse(const uint8_t *buf, size_t len,
				       size_t max_len, struct bgp_header *hdr,
				       struct bgp_error *err)
{
	size_t i, min;

	memset(err, 0, sizeof(*err));
	if (len < BGP_HEADER_LEN)
		return BGP_PARSE_NEED_MORE;
	for (i = 0; i < BGP_MARKER_LEN; i++)
		if (buf[i] != 0xff)
			return reset(err, BGP_ERR_HEADER, BGP_HEADER_NOT_SYNC,
				     NULL, 0, "marker is not all ones");
	hdr->length = get_be16(buf + 16);
	hdr->type = buf[18];
	if (hdr->length < BGP_HEADER_LEN || hdr->length > max_len)
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_LENGTH,
			     buf + 16, 2, "message length out of range");
	min = min_len_of(hdr->type);
	if (!min)
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_TYPE,
			     buf + 18, 1, "unknown message type");
	/* OPEN is never extended (RFC 8654 §3), KEEPALIVE is fixed. */
	if (hdr->length < min ||
	    (hdr->type == BGP_MSG_KEEPALIVE && hdr->length != min) ||
	    (hdr->type == BGP_MSG_OPEN && hdr->length > BGP_MAX_LEN))
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_LENGTH,
			     buf + 16, 2, "length wrong for the message type");
	if (len < hdr->length)
		return BGP_PARSE_NEED_MORE;
	return BGP_PARSE_OK;
}

int bgp_keepalive_build(uint8_t *buf, size_t cap)
{
	struct writer w = writer_make(buf, cap);

	w_header(&w, BGP_MSG_KEEPALIVE);
	return w_finish(&w, BGP_HEADER_LEN);
}

/* ---------------------------------------------------------------------
 * OPEN (RFC 4271 §4.2, §6.2; RFC 5492; RFC 9072 extended parameters).
 */

#define OPT_PARAM_CAPABILITIES	2
#define OPT_PARAM_EXTENDED	255	/* RFC 9072 */

/* Largest version supported, the data of an Unsupported Version error. */
static const uint8_t supported_version[2] = { 0, BGP_VERSION };

uint32_t bgp_open_peer_as(const struct bgp_open *open)
{
	return open->caps.as4 ? open->caps.as4_number : open->my_as;
}

static void note_unknown_cap(struct bgp_caps *caps, uint8_t code)
{
	if (caps->n_unknown < BGP_MAX_UNKNOWN_CAPS)
		caps->unknown[caps->n_unknown] = code;
	caps->n_unknown++;
}

/* ORF: {AFI(2) Res(1) SAFI(1) N(1) {Type(1) Send/Receive(1)}*N}* */
static bool parse_orf_cap(struct bgp_caps *caps, const uint8_t *v, size_t len)
{
	struct cursor c = cursor_make(v, len);

	while (c.left) {
		const uint8_t *entries;
		uint16_t afi;
		uint8_t res, safi, n, i;
		int fam;

		if (!cur_u16(&c, &afi) || !cur_u8(&c, &res) ||
		    !cur_u8(&c, &safi) || !cur_u8(&c, &n) ||
		    !cur_take(&c, 2 * (size_t)n, &entries))
			return false;
		fam = bgp_family_of(afi, safi);
		for (i = 0; fam >= 0 && i < n; i++)
			if (entries[2 * i] == BGP_ORF_TYPE_ADDRESS_PREFIX)
				caps->orf_prefix[fam] = entries[2 * i + 1] & 3;
	}
	return true;
}

/* Returns false when the value is malformed for the code. */
static bool parse_cap(struct bgp_caps *caps, uint8_t code,
		      const uint8_t *v, size_t len)
{
	size_t i;
	int fam;

	switch (code) {
	case BGP_CAP_MP:
		if (len != 4)
			return false;
		caps->mp = true;
		fam = bgp_family_of(get_be16(v), v[3]);
		if (fam >= 0)
			caps->families |= BGP_FAM_BIT(fam);
		return true;
	case BGP_CAP_ROUTE_REFRESH:
		caps->route_refresh = true;
		return len == 0;
	case BGP_CAP_ORF:
		return parse_orf_cap(caps, v, len);
	case BGP_CAP_ENHANCED_ROUTE_REFRESH:
		caps->enhanced_route_refresh = true;
		return len == 0;
	case BGP_CAP_EXT_MESSAGE:
		caps->extended_message = true;
		return len == 0;
	case BGP_CAP_AS4:
		if (len != 4)
			return false;
		caps->as4 = true;
		caps->as4_number = get_be32(v);
		return true;
	case BGP_CAP_GRACEFUL_RESTART:
		if (len < 2 || (len - 2) % 4)
			return false;
		/* Only one instance counts: the last (RFC 4724 §3). */
		caps->graceful_restart = true;
		caps->gr_flags = v[0] >> 4;
		caps->gr_restart_time = get_be16(v) & 0x0fff;
		caps->gr_families = 0;
		memset(caps->gr_af_flags, 0, sizeof(caps->gr_af_flags));
		for (i = 2; i < len; i += 4) {
			fam = bgp_family_of(get_be16(v + i), v[i + 2]);
			if (fam < 0)
				continue;
			caps->gr_families |= BGP_FAM_BIT(fam);
			caps->gr_af_flags[fam] = v[i + 3];
		}
		return true;
	case BGP_CAP_ADD_PATH:
		if (len == 0 || len % 4)
			return false;
		/* A bad Send/Receive value voids the capability (§4). */
		for (i = 0; i < len; i += 4)
			if (v[i + 3] < 1 || v[i + 3] > 3)
				return true;
		for (i = 0; i < len; i += 4) {
			fam = bgp_family_of(get_be16(v + i), v[i + 2]);
			if (fam >= 0)
				caps->add_path[fam] = v[i + 3];
		}
		return true;
	}
	note_unknown_cap(caps, code);
	return true;
}

static enum bgp_parse_status parse_caps(const uint8_t *v, size_t len,
					struct bgp_caps *caps,
					struct bgp_error *err)
{
	struct cursor c = cursor_make(v, len);

	while (c.left) {
		const uint8_t *start = c.p, *value;
		uint8_t code, cap_len;

		if (!cur_u8(&c, &code) || !cur_u8(&c, &cap_len) ||
		    !cur_take(&c, cap_len, &value))
			return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC,
				     NULL, 0, "capability overruns parameter");
		if (!parse_cap(caps, code, value, cap_len))
			return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC,
				     start, (size_t)(c.p - start),
				     "malformed capability");
	}
	return BGP_PARSE_OK;
}

static enum bgp_parse_status parse_params(struct cursor *c, bool extended,
					  struct bgp_caps *caps,
					  struct bgp_error *err)
{
	while (c->left) {
		const uint8_t *value;
		uint8_t type, len8;
		uint16_t len;

		if (!cur_u8(c, &type))
			break;
		if (extended) {
			if (!cur_u16(c, &len))
				goto overrun;
		} else {
			if (!cur_u8(c, &len8))
				goto overrun;
			len = len8;
		}
		if (!cur_take(c, len, &value))
			goto overrun;
		if (type != OPT_PARAM_CAPABILITIES)
			return reset(err, BGP_ERR_OPEN,
				     BGP_OPEN_UNSUPPORTED_PARAM, NULL, 0,
				     "unsupported optional parameter");
		if (parse_caps(value, len, caps, err))
			return BGP_PARSE_ERROR;
	}
	return BGP_PARSE_OK;
overrun:
	return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0,
		     "optional parameter overruns the message");
}

enum bgp_parse_status bgp_open_parse(const uint8_t *msg, size_t len,
				     struct bgp_open *open,
				     struct bgp_error *err)
{
	struct cursor c;
	uint8_t opt_len, ext_type;
	uint16_t ext_len;
	bool extended = false;

	memset(open, 0, sizeof(*open));
	memset(err, 0, sizeof(*err));
	if (len < BGP_OPEN_MIN_LEN)
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_LENGTH,
			     NULL, 0, "OPEN too short");
	c = cursor_make(msg + BGP_HEADER_LEN, len - BGP_HEADER_LEN);
	cur_u8(&c, &open->version);
	cur_u16(&c, &open->my_as);
	cur_u16(&c, &open->hold_time);
	cur_u32(&c, &open->bgp_id);
	cur_u8(&c, &opt_len);

	if (open->version != BGP_VERSION)
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_BAD_VERSION,
			     supported_version, sizeof(supported_version),
			     "unsupported version");
	/* AS 0 is never a peer's AS (RFC 7607). */
	if (open->my_as == 0)
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_BAD_PEER_AS, NULL, 0,
			     "peer AS is 0");
	if (open->hold_time == 1 || open->hold_time == 2)
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_BAD_HOLD_TIME, NULL, 0,
			     "hold time of 1 or 2 seconds");
	if (open->bgp_id == 0)
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID, NULL, 0,
			     "BGP identifier is 0");

	/* RFC 9072: a first parameter of type 255 means 2-octet lengths. */
	if (opt_len && c.left && c.p[0] == OPT_PARAM_EXTENDED) {
		cur_u8(&c, &ext_type);
		if (!cur_u16(&c, &ext_len))
			return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC,
				     NULL, 0, "truncated extended parameters");
		if (opt_len != 255 || ext_len != c.left)
			return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC,
				     NULL, 0,
				     "parameters length does not match "
				     "message");
		extended = true;
	} else if (opt_len != c.left) {
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0,
			     "parameters length does not match message");
	}
	if (parse_params(&c, extended, &open->caps, err))
		return BGP_PARSE_ERROR;
	if (open->caps.as4 && open->caps.as4_number == 0)
		return reset(err, BGP_ERR_OPEN, BGP_OPEN_BAD_PEER_AS, NULL, 0,
			     "4-octet AS is 0");
	return BGP_PARSE_OK;
}

static void w_cap_family(struct writer *w, enum bgp_family fam)
{
	w_u16(w, bgp_family_afi(fam));
	w_u8(w, bgp_family_safi(fam));
}

/* A capability with no value (route refresh, extended message, ...). */
static void w_cap_flag(struct writer *w, uint8_t code)
{
	w_u8(w, code);
	w_u8(w, 0);
}

/* Multiprotocol (RFC 4760), one capability per family. */
static void w_caps_mp(struct writer *w, const struct bgp_caps *caps)
{
	int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		if (!(caps->families & BGP_FAM_BIT(fam)))
			continue;
		w_u8(w, BGP_CAP_MP);
		w_u8(w, 4);
		w_u16(w, bgp_family_afi(fam));
		w_u8(w, 0);
		w_u8(w, bgp_family_safi(fam));
	}
}

/* Address Prefix ORF (RFC 5291 §4), when a family has it. */
static void w_cap_orf(struct writer *w, const struct bgp_caps *caps)
{
	size_t n = 0;
	int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		n += !!caps->orf_prefix[fam];
	if (!n)
		return;
	w_u8(w, BGP_CAP_ORF);
	w_u8(w, 7 * n);
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		if (!caps->orf_prefix[fam])
			continue;
		w_u16(w, bgp_family_afi(fam));
		w_u8(w, 0);
		w_u8(w, bgp_family_safi(fam));
		w_u8(w, 1);
		w_u8(w, BGP_ORF_TYPE_ADDRESS_PREFIX);
		w_u8(w, caps->orf_prefix[fam]);
	}
}

/* Graceful restart (RFC 4724 §3). */
static void w_cap_gr(struct writer *w, const struct bgp_caps *caps)
{
	size_t n = 0;
	int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		n += !!(caps->gr_families & BGP_FAM_BIT(fam));
	w_u8(w, BGP_CAP_GRACEFUL_RESTART);
	w_u8(w, 2 + 4 * n);
	w_u16(w, (uint16_t)((caps->gr_flags & 0xf) << 12 |
			    (caps->gr_restart_time & 0x0fff)));
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		if (!(caps->gr_families & BGP_FAM_BIT(fam)))
			continue;
		w_cap_family(w, fam);
		w_u8(w, caps->gr_af_flags[fam]);
	}
}

/* ADD-PATH (RFC 7911 §4), when a family has it. */
static void w_cap_add_path(struct writer *w, const struct bgp_caps *caps)
{
	size_t n = 0;
	int fam;

	for (fam = 0; fam < BGP_FAM_COUNT; fam++)
		n += !!caps->add_path[fam];
	if (!n)
		return;
	w_u8(w, BGP_CAP_ADD_PATH);
	w_u8(w, 4 * n);
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		if (!caps->add_path[fam])
			continue;
		w_cap_family(w, fam);
		w_u8(w, caps->add_path[fam]);
	}
}

int bgp_open_build(uint8_t *buf, size_t cap, const struct bgp_open *open)
{
	const struct bgp_caps *caps = &open->caps;
	struct writer w = writer_make(buf, cap);
	size_t opt_len_at, param_len_at, n;

	w_header(&w, BGP_MSG_OPEN);
	w_u8(&w, open->version);
	w_u16(&w, open->my_as);
	w_u16(&w, open->hold_time);
	w_u32(&w, open->bgp_id);
	opt_len_at = w.len;
	w_u8(&w, 0);
	/* All capabilities in one parameter, in code order. */
	w_u8(&w, OPT_PARAM_CAPABILITIES);
	param_len_at = w.len;
	w_u8(&w, 0);
	w_caps_mp(&w, caps);
	if (caps->route_refresh)
		w_cap_flag(&w, BGP_CAP_ROUTE_REFRESH);
	w_cap_orf(&w, caps);
	if (caps->extended_message)
		w_cap_flag(&w, BGP_CAP_EXT_MESSAGE);
	if (caps->graceful_restart)
		w_cap_gr(&w, caps);
	if (caps->as4) {
		w_u8(&w, BGP_CAP_AS4);
		w_u8(&w, 4);
		w_u32(&w, caps->as4_number);
	}
	w_cap_add_path(&w, caps);
	if (caps->enhanced_route_refresh)
		w_cap_flag(&w, BGP_CAP_ENHANCED_ROUTE_REFRESH);
	n = w.len - param_len_at - 1;
	if (n == 0) {
		w.len -= 2;	/* no capabilities: no parameter */
	} else if (n > 255) {
		return -1;
	} else if (!w.overflow) {
		buf[param_len_at] = (uint8_t)n;
		buf[opt_len_at] = (uint8_t)(n + 2);
	}
	return w_finish(&w, BGP_MAX_LEN);
}

/* RFC 4760 §8: without any Multiprotocol capability, IPv4 unicast. */
static uint32_t caps_families(const struct bgp_caps *caps)
{
	if (caps->mp || caps->families)
		return caps->families;
	return BGP_FAM_BIT(BGP_FAM_IPV4_UNICAST);
}

void bgp_negotiate(const struct bgp_open *local, const struct bgp_open *peer,
		   struct bgp_session_params *params)
{
	const struct bgp_caps *l = &local->caps, *p = &peer->caps;
	int fam;

	memset(params, 0, sizeof(*params));
	params->hold_time = local->hold_time < peer->hold_time ?
			    local->hold_time : peer->hold_time;
	params->keepalive_time = params->hold_time / 3;
	params->families = caps_families(l) & caps_families(p);
	params->as4 = l->as4 && p->as4;
	params->extended_message = l->extended_message && p->extended_message;
	params->route_refresh = l->route_refresh && p->route_refresh;
	params->enhanced_route_refresh = l->enhanced_route_refresh &&
					 p->enhanced_route_refresh;
	params->graceful_restart = l->graceful_restart && p->graceful_restart;
	for (fam = 0; fam < BGP_FAM_COUNT; fam++) {
		if (!(params->families & BGP_FAM_BIT(fam)))
			continue;
		if ((l->add_path[fam] & BGP_ADD_PATH_RECEIVE) &&
		    (p->add_path[fam] & BGP_ADD_PATH_SEND))
			params->add_path_rx |= BGP_FAM_BIT(fam);
		if ((l->add_path[fam] & BGP_ADD_PATH_SEND) &&
		    (p->add_path[fam] & BGP_ADD_PATH_RECEIVE))
			params->add_path_tx |= BGP_FAM_BIT(fam);
	}
	params->max_len = params->extended_message ? BGP_EXT_MAX_LEN :
						     BGP_MAX_LEN;
}

/* ---------------------------------------------------------------------
 * NOTIFICATION (RFC 4271 §4.5; RFC 9003 shutdown communication).
 */

enum bgp_parse_status bgp_notification_parse(const uint8_t *msg, size_t len,
					     struct bgp_notification *notif,
					     struct bgp_error *err)
{
	memset(notif, 0, sizeof(*notif));
	memset(err, 0, sizeof(*err));
	if (len < BGP_NOTIFICATION_MIN_LEN)
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_LENGTH,
			     NULL, 0, "NOTIFICATION too short");
	notif->code = msg[BGP_HEADER_LEN];
	notif->subcode = msg[BGP_HEADER_LEN + 1];
	notif->data = msg + BGP_NOTIFICATION_MIN_LEN;
	notif->data_len = len - BGP_NOTIFICATION_MIN_LEN;
	return BGP_PARSE_OK;
}

int bgp_notification_build(uint8_t *buf, size_t cap, uint8_t code,
			   uint8_t subcode, const uint8_t *data,
			   size_t data_len)
{
	struct writer w = writer_make(buf, cap);

	w_header(&w, BGP_MSG_NOTIFICATION);
	w_u8(&w, code);
	w_u8(&w, subcode);
	/*
	 * The data may be a whole offending message: cut it to what fits
	 * rather than send nothing.
	 */
	if (data_len > BGP_MAX_LEN - BGP_NOTIFICATION_MIN_LEN)
		data_len = BGP_MAX_LEN - BGP_NOTIFICATION_MIN_LEN;
	w_bytes(&w, data, data_len);
	return w_finish(&w, BGP_MAX_LEN);
}

bool bgp_utf8_valid(const uint8_t *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t cp, min;

	while (i < len) {
		uint8_t b = s[i];

		if (b < 0x80) {
			i++;
			continue;
		} else if ((b & 0xe0) == 0xc0) {
			n = 1;
			cp = b & 0x1f;
			min = 0x80;
		} else if ((b & 0xf0) == 0xe0) {
			n = 2;
			cp = b & 0x0f;
			min = 0x800;
		} else if ((b & 0xf8) == 0xf0) {
			n = 3;
			cp = b & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (len - i - 1 < n)
			return false;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		/* Overlong forms, surrogates and beyond U+10FFFF. */
		if (cp < min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

int bgp_notification_build_shutdown(uint8_t *buf, size_t cap, uint8_t subcode,
				    const char *text)
{
	uint8_t data[1 + BGP_SHUTDOWN_TEXT_MAX];
	size_t len;

	if (subcode != BGP_CEASE_ADMIN_SHUTDOWN &&
	    subcode != BGP_CEASE_ADMIN_RESET)
		return -1;
	if (!text)
		return bgp_notification_build(buf, cap, BGP_ERR_CEASE, subcode,
					      NULL, 0);
	len = strlen(text);
	if (len > BGP_SHUTDOWN_TEXT_MAX ||
	    !bgp_utf8_valid((const uint8_t *)text, len))
		return -1;
	data[0] = (uint8_t)len;
	memcpy(data + 1, text, len);
	return bgp_notification_build(buf, cap, BGP_ERR_CEASE, subcode, data,
				      len + 1);
}

int bgp_notification_shutdown_text(const struct bgp_notification *notif,
				   char *text, size_t cap)
{
	size_t len;

	if (notif->code != BGP_ERR_CEASE ||
	    (notif->subcode != BGP_CEASE_ADMIN_SHUTDOWN &&
	     notif->subcode != BGP_CEASE_ADMIN_RESET) ||
	    notif->data_len < 1)
		return -1;
	len = notif->data[0];
	if (len > notif->data_len - 1 || len + 1 > cap ||
	    !bgp_utf8_valid(notif->data + 1, len))
		return -1;
	memcpy(text, notif->data + 1, len);
	text[len] = '\0';
	return 0;
}

/* ---------------------------------------------------------------------
 * ROUTE-REFRESH (RFC 2918, RFC 7313, RFC 5291 §4).
 */

enum bgp_parse_status bgp_route_refresh_parse(const uint8_t *msg, size_t len,
					      struct bgp_route_refresh *rr,
					      struct bgp_error *err)
{
	const uint8_t *body = msg + BGP_HEADER_LEN;

	memset(rr, 0, sizeof(*rr));
	memset(err, 0, sizeof(*err));
	if (len < BGP_ROUTE_REFRESH_LEN)
		return reset(err, BGP_ERR_HEADER, BGP_HEADER_BAD_LENGTH,
			     NULL, 0, "ROUTE-REFRESH too short");
	rr->afi = get_be16(body);
	rr->subtype = body[2];
	rr->safi = body[3];
	if ((rr->subtype == BGP_RR_BORR || rr->subtype == BGP_RR_EORR) &&
	    len != BGP_ROUTE_REFRESH_LEN)
		return reset(err, BGP_ERR_ROUTE_REFRESH, BGP_RR_INVALID_LENGTH,
			     msg, len, "BoRR/EoRR with a body beyond 4 octets");
	if (len > BGP_ROUTE_REFRESH_LEN) {
		rr->has_orf = true;
		rr->when_to_refresh = body[4];
		rr->orf = body + 5;
		rr->orf_len = len - BGP_ROUTE_REFRESH_LEN - 1;
	}
	return BGP_PARSE_OK;
}

int bgp_route_refresh_build(uint8_t *buf, size_t cap, uint16_t afi,
			    uint8_t safi, uint8_t subtype)
{
	struct writer w = writer_make(buf, cap);

	w_header(&w, BGP_MSG_ROUTE_REFRESH);
	w_u16(&w, afi);
	w_u8(&w, subtype);
	w_u8(&w, safi);
	return w_finish(&w, BGP_ROUTE_REFRESH_LEN);
}
