// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers for the BGP codec tests: messages are written as hex strings
 * (spaces and '|' ignored, "M" stands for the 16-octet all-ones marker)
 * so that each vector reads like the RFC diagram it comes from.
 */
#ifndef FARE_BGP_TEST_UTIL_H
#define FARE_BGP_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bgp.h"
#include "harness.h"

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decodes hex into out; a malformed string aborts the whole run. */
static inline size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi, lo, i;

	while (*s) {
		if (*s == ' ' || *s == '|' || *s == '\n') {
			s++;
			continue;
		}
		if (*s == 'M') {
			for (i = 0; i < 16 && n < cap; i++)
				out[n++] = 0xff;
			s++;
			continue;
		}
		hi = hexval(s[0]);
		lo = s[1] ? hexval(s[1]) : -1;
		if (hi < 0 || lo < 0 || n == cap) {
			fprintf(stderr, "bad test vector at \"%s\"\n", s);
			exit(2);
		}
		out[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return n;
}

/*
 * An UPDATE from its three variable parts, with both lengths and the
 * header computed.
 */
static inline size_t mk_update(const char *withdrawn, const char *attrs,
			       const char *nlri, uint8_t *out, size_t cap)
{
	size_t w, a, n, len;

	w = unhex(withdrawn, out + 21, cap - 21);
	a = unhex(attrs, out + 23 + w, cap - 23 - w);
	n = unhex(nlri, out + 23 + w + a, cap - 23 - w - a);
	len = 23 + w + a + n;
	memset(out, 0xff, 16);
	out[16] = len >> 8;
	out[17] = len & 0xff;
	out[18] = BGP_MSG_UPDATE;
	out[19] = w >> 8;
	out[20] = w & 0xff;
	out[21 + w] = a >> 8;
	out[22 + w] = a & 0xff;
	return len;
}

static inline void hexdump(char *dst, size_t cap, const uint8_t *p, size_t n)
{
	size_t i, at = 0;

	for (i = 0; i < n && at + 3 < cap; i++)
		at += snprintf(dst + at, cap - at, "%02x", p[i]);
	if (cap)
		dst[at < cap ? at : cap - 1] = '\0';
}

/* Compares bytes against a hex vector and reports both on mismatch. */
#define CHECK_HEX(got, got_len, want_hex)				\
	do {								\
		uint8_t w_[8192];					\
		char gs_[2048], ws_[2048];				\
		size_t wn_ = unhex(want_hex, w_, sizeof(w_));		\
		size_t gn_ = (got_len);					\
		if (gn_ != wn_ || memcmp((got), w_, wn_)) {		\
			hexdump(gs_, sizeof(gs_), (got), gn_);		\
			hexdump(ws_, sizeof(ws_), w_, wn_);		\
			t_fail(__FILE__, __LINE__,			\
			       "bytes are\n\t%s\n\tnot\n\t%s",		\
			       gs_, ws_);				\
			return;						\
		}							\
	} while (0)

#endif /* FARE_BGP_TEST_UTIL_H */
