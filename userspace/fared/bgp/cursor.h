// SPDX-License-Identifier: GPL-2.0-only
/*
 * Bounded readers and writers for the codec. Every read checks what is
 * left first, so no parser can run off its buffer; a writer that runs out
 * of room remembers it and ignores further writes, so builders check once
 * at the end.
 */
#ifndef FARED_BGP_CURSOR_H
#define FARED_BGP_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *p;
	size_t left;
};

static inline struct cursor cursor_make(const uint8_t *p, size_t len)
{
	return (struct cursor){ .p = p, .left = len };
}

static inline bool cur_u8(struct cursor *c, uint8_t *v)
{
	if (c->left < 1)
		return false;
	*v = c->p[0];
	c->p++;
	c->left--;
	return true;
}

static inline bool cur_u16(struct cursor *c, uint16_t *v)
{
	if (c->left < 2)
		return false;
	*v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	c->p += 2;
	c->left -= 2;
	return true;
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline bool cur_u32(struct cursor *c, uint32_t *v)
{
	if (c->left < 4)
		return false;
	*v = get_be32(c->p);
	c->p += 4;
	c->left -= 4;
	return true;
}

/* Takes n bytes as a view. */
static inline bool cur_take(struct cursor *c, size_t n, const uint8_t **v)
{
	if (c->left < n)
		return false;
	*v = c->p;
	c->p += n;
	c->left -= n;
	return true;
}

struct writer {
	uint8_t *p;
	size_t cap;
	size_t len;
	bool overflow;
};

static inline struct writer writer_make(uint8_t *p, size_t cap)
{
	return (struct writer){ .p = p, .cap = cap };
}

static inline bool w_room(struct writer *w, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return false;
	}
	return true;
}

static inline void w_u8(struct writer *w, uint8_t v)
{
	if (w_room(w, 1))
		w->p[w->len++] = v;
}

static inline void w_u16(struct writer *w, uint16_t v)
{
	if (!w_room(w, 2))
		return;
	w->p[w->len++] = v >> 8;
	w->p[w->len++] = v & 0xff;
}

static inline void w_u32(struct writer *w, uint32_t v)
{
	if (!w_room(w, 4))
		return;
	w->p[w->len++] = v >> 24;
	w->p[w->len++] = (v >> 16) & 0xff;
	w->p[w->len++] = (v >> 8) & 0xff;
	w->p[w->len++] = v & 0xff;
}

static inline void w_bytes(struct writer *w, const void *v, size_t n)
{
	if (n && w_room(w, n)) {
		memcpy(w->p + w->len, v, n);
		w->len += n;
	}
}

/* Fills in a 16-bit length field written earlier at offset at. */
static inline void w_patch_u16(struct writer *w, size_t at, uint16_t v)
{
	if (!w->overflow && at + 2 <= w->len) {
		w->p[at] = v >> 8;
		w->p[at + 1] = v & 0xff;
	}
}

/* Header with a length to patch by w_finish(). */
static inline void w_header(struct writer *w, uint8_t type)
{
	size_t i;

	for (i = 0; i < 16; i++)
		w_u8(w, 0xff);
	w_u16(w, 0);
	w_u8(w, type);
}

/* Patches the header length; returns the message length or -1. */
static inline int w_finish(struct writer *w, size_t max_len)
{
	if (w->overflow || w->len > max_len)
		return -1;
	w_patch_u16(w, 16, (uint16_t)w->len);
	return (int)w->len;
}

#endif /* FARED_BGP_CURSOR_H */
