// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small streaming JSON writer for farectl -j. Hand-written rather than
 * pulling in json-c or jansson: farectl prints a few flat objects and this
 * keeps libmnl its only dependency (iproute2 carries its own for the same
 * reason). It escapes every string, turns invalid UTF-8 into U+FFFD and
 * writes non-finite numbers as null, so its output is always valid JSON.
 */
#ifndef FARECTL_JSON_H
#define FARECTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *out;
	bool pretty;
	bool after_key;		/* a key was written, its value comes next */
	int depth;
	bool has_items[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *out, bool pretty);
void json_open_object(struct json *j);
void json_close_object(struct json *j);
void json_open_array(struct json *j);
void json_close_array(struct json *j);
/* Inside an object: the key of the value written next. */
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Ends the document with a newline once every container is closed. */
void json_end(struct json *j);

/* Key and value in one call. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_double(struct json *j, const char *key, double v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);

/* Write s as a quoted, escaped JSON string. */
void json_write_string(FILE *out, const char *s);

#endif /* FARECTL_JSON_H */
