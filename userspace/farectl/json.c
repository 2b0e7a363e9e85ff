// SPDX-License-Identifier: GPL-2.0-only
/* The JSON writer of farectl -j; json.h says why it is hand-written. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "json.h"

void json_init(struct json *j, FILE *out, bool pretty)
{
	j->out = out;
	j->pretty = pretty;
	j->after_key = false;
	j->depth = 0;
	j->has_items[0] = false;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (i = 0; i < j->depth; i++)
		fputs("    ", j->out);
}

/* Separate a new item (value or key) from the previous one. */
static void item(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = true;
	indent(j);
}

static void open_container(struct json *j, char c)
{
	item(j);
	fputc(c, j->out);
	/* farectl nests four deep at most: deeper is a bug. */
	if (j->depth == JSON_MAX_DEPTH - 1) {
		fputs("json: nested too deep\n", stderr);
		abort();
	}
	j->depth++;
	j->has_items[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	bool had = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->out);
}

void json_open_object(struct json *j)
{
	open_container(j, '{');
}

void json_close_object(struct json *j)
{
	close_container(j, '}');
}

void json_open_array(struct json *j)
{
	open_container(j, '[');
}

void json_close_array(struct json *j)
{
	close_container(j, ']');
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not valid. */
static int utf8_len(const unsigned char *s)
{
	unsigned int cp;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and beyond U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int len;

	fputc('"', out);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(out, "\\u%04x", *s);
				break;
			}
			len = utf8_len(s);
			if (!len) {
				fputs("\\ufffd", out);
				break;
			}
			fwrite(s, 1, len, out);
			s += len;
			continue;
		}
		s++;
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	item(j);
	json_write_string(j->out, key);
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	item(j);
	json_write_string(j->out, s);
}

void json_u64(struct json *j, uint64_t v)
{
	item(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	item(j);
	fprintf(j->out, "%" PRId64, v);
}

void json_double(struct json *j, double v)
{
	item(j);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, bool v)
{
	item(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	item(j);
	fputs("null", j->out);
}

void json_end(struct json *j)
{
	fputc('\n', j->out);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}
