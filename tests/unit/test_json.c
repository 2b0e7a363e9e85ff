// SPDX-License-Identifier: GPL-2.0-only
/* farectl's JSON writer: escaping, structure and pretty printing. */
#include <math.h>

#include "harness.h"
#include "json.h"

/* The JSON form of the C string s. */
static const char *escaped(struct capture *c, const char *s)
{
	capture_start(c);
	json_write_string(c->f, s);
	return capture_text(c);
}

#define CHECK_ESCAPE(in, want)						\
	do {								\
		struct capture c_;					\
		const char *got_ = escaped(&c_, in);			\
		CHECK_STR(got_, want);					\
		capture_end(&c_);					\
	} while (0)

TEST(json_escapes_quote_and_backslash)
{
	CHECK_ESCAPE("a\"b\\c", "\"a\\\"b\\\\c\"");
	CHECK_ESCAPE("", "\"\"");
	CHECK_ESCAPE("/path", "\"/path\"");
}

TEST(json_escapes_control_characters)
{
	CHECK_ESCAPE("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	CHECK_ESCAPE("\x01x\x1f", "\"\\u0001x\\u001f\"");
	CHECK_ESCAPE("del\x7f", "\"del\\u007f\"");
}

TEST(json_passes_valid_utf8_through)
{
	CHECK_ESCAPE("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	CHECK_ESCAPE("\xe2\x82\xac", "\"\xe2\x82\xac\"");
	CHECK_ESCAPE("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
}

TEST(json_replaces_invalid_utf8_with_u_fffd)
{
	/* A stray byte, a cut sequence, overlong forms, a surrogate. */
	CHECK_ESCAPE("a\xff" "b", "\"a\\ufffdb\"");
	CHECK_ESCAPE("\xc3", "\"\\ufffd\"");
	CHECK_ESCAPE("\xe2\x82", "\"\\ufffd\\ufffd\"");
	CHECK_ESCAPE("\xc0\x80", "\"\\ufffd\\ufffd\"");
	CHECK_ESCAPE("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESCAPE("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESCAPE("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

static void write_doc(struct json *j)
{
	json_open_object(j);
	json_kv_u64(j, "n", 18446744073709551615ull);
	json_key(j, "list");
	json_open_array(j);
	json_i64(j, -3);
	json_bool(j, true);
	json_null(j);
	json_string(j, "x");
	json_close_array(j);
	json_key(j, "empty");
	json_open_object(j);
	json_close_object(j);
	json_kv_double(j, "share", 0.75);
	json_kv_bool(j, "up", false);
	json_close_object(j);
	json_end(j);
}

TEST(json_compact_output_separates_with_commas_only)
{
	struct capture c;
	struct json j;

	capture_start(&c);
	json_init(&j, c.f, false);
	write_doc(&j);
	CHECK_STR(capture_text(&c),
		  "{\"n\":18446744073709551615,\"list\":[-3,true,null,\"x\"],"
		  "\"empty\":{},\"share\":0.75,\"up\":false}\n");
	capture_end(&c);
}

TEST(json_pretty_output_indents_by_four)
{
	struct capture c;
	struct json j;

	capture_start(&c);
	json_init(&j, c.f, true);
	write_doc(&j);
	CHECK_STR(capture_text(&c),
		  "{\n"
		  "    \"n\": 18446744073709551615,\n"
		  "    \"list\": [\n"
		  "        -3,\n"
		  "        true,\n"
		  "        null,\n"
		  "        \"x\"\n"
		  "    ],\n"
		  "    \"empty\": {},\n"
		  "    \"share\": 0.75,\n"
		  "    \"up\": false\n"
		  "}\n");
	capture_end(&c);
}

TEST(json_empty_array_stays_on_one_line)
{
	struct capture c;
	struct json j;

	capture_start(&c);
	json_init(&j, c.f, true);
	json_open_array(&j);
	json_close_array(&j);
	json_end(&j);
	CHECK_STR(capture_text(&c), "[]\n");
	capture_end(&c);
}

TEST(json_writes_non_finite_numbers_as_null)
{
	struct capture c;
	struct json j;

	capture_start(&c);
	json_init(&j, c.f, false);
	json_open_array(&j);
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_double(&j, 1.0 / 3.0);
	json_double(&j, 0);
	json_close_array(&j);
	CHECK_STR(capture_text(&c), "[null,null,0.333333,0]");
	capture_end(&c);
}

TEST(json_escapes_keys_too)
{
	struct capture c;
	struct json j;

	capture_start(&c);
	json_init(&j, c.f, false);
	json_open_object(&j);
	json_kv_string(&j, "a\"b", "c\nd");
	json_close_object(&j);
	CHECK_STR(capture_text(&c), "{\"a\\\"b\":\"c\\nd\"}");
	capture_end(&c);
}
