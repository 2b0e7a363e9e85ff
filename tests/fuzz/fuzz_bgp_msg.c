// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for fared's BGP message codec.
 *
 * The first input octet picks the session the bytes arrive on (4-octet
 * AS, iBGP, ADD-PATH per family, extended message); the rest is a TCP
 * stream of messages, cut with bgp_header_parse() the way the daemon cuts
 * it and handed to the parser of each type. Parsed values are walked in
 * full, and what the codec builds from a parsed OPEN must parse back to
 * the same struct: a difference is a bug, reported by abort().
 */
#include <stdlib.h>
#include <string.h>

#include "bgp.h"

static void walk_nlri(const struct bgp_nlri *nlri)
{
	struct bgp_prefix p;
	size_t pos = 0, last = 0;
	char text[BGP_PREFIX_STRLEN];

	while (bgp_nlri_next(nlri, &pos, &p)) {
		if (pos <= last || pos > nlri->len)
			abort();
		last = pos;
		bgp_prefix_str(&p, text, sizeof(text));
	}
}

static void fuzz_open(const uint8_t *msg, size_t len)
{
	static uint8_t out[BGP_MAX_LEN];
	struct bgp_open open, again;
	struct bgp_error err;
	int n;

	if (bgp_open_parse(msg, len, &open, &err) != BGP_PARSE_OK)
		return;
	/* Unknown capabilities are not rebuilt; compare what is. */
	open.caps.n_unknown = 0;
	memset(open.caps.unknown, 0, sizeof(open.caps.unknown));
	/*
	 * Nor is a Multiprotocol capability of a family fared does not
	 * speak: the rebuilt OPEN has one exactly when a known family is set.
	 */
	open.caps.mp = open.caps.families != 0;
	n = bgp_open_build(out, sizeof(out), &open);
	if (n < 0)
		return;	/* more capabilities than one parameter holds */
	if (bgp_open_parse(out, n, &again, &err) != BGP_PARSE_OK)
		abort();
	/* Only the last GR instance counts, so its families may shrink. */
	if (memcmp(&open, &again, sizeof(open)))
		abort();
}

static void fuzz_update(const uint8_t *msg, size_t len,
			const struct bgp_codec_opts *opts)
{
	struct bgp_update up;
	char path[512];

	bgp_update_parse(msg, len, opts, &up);
	if (up.error.data &&
	    (up.error.data < msg || up.error.data + up.error.data_len >
				     msg + len) &&
	    up.error.data_len > 1)
		abort();
	walk_nlri(&up.withdrawn);
	walk_nlri(&up.nlri);
	walk_nlri(&up.mp_reach);
	walk_nlri(&up.mp_unreach);
	bgp_as_path_str(&up.attrs.as_path, path, sizeof(path));
	bgp_as_path_length(&up.attrs.as_path);
	bgp_update_free(&up);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bgp_codec_opts opts = { 0 };
	struct bgp_header hdr;
	struct bgp_error err;
	struct bgp_notification notif;
	struct bgp_route_refresh rr;
	char text[BGP_SHUTDOWN_TEXT_MAX + 1];

	if (size < 1)
		return 0;
	opts.as4 = data[0] & 1;
	opts.ibgp = data[0] & 2;
	opts.add_path_rx = (data[0] >> 2) & 3;
	opts.max_len = data[0] & 16 ? BGP_EXT_MAX_LEN : BGP_MAX_LEN;
	data++;
	size--;

	while (bgp_header_parse(data, size, opts.max_len, &hdr, &err) ==
	       BGP_PARSE_OK) {
		switch (hdr.type) {
		case BGP_MSG_OPEN:
			fuzz_open(data, hdr.length);
			break;
		case BGP_MSG_UPDATE:
			fuzz_update(data, hdr.length, &opts);
			break;
		case BGP_MSG_NOTIFICATION:
			if (bgp_notification_parse(data, hdr.length, &notif,
						   &err) == BGP_PARSE_OK)
				bgp_notification_shutdown_text(&notif, text,
							       sizeof(text));
			break;
		case BGP_MSG_ROUTE_REFRESH:
			bgp_route_refresh_parse(data, hdr.length, &rr, &err);
			break;
		}
		data += hdr.length;
		size -= hdr.length;
	}
	return 0;
}
