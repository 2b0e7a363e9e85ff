// SPDX-License-Identifier: GPL-2.0-only
/*
 * fared.conf's session protection: "password" (TCP-MD5), "tcp-ao" and
 * "ttl-security" (GTSM), quoted secrets, and the combinations refused,
 * each as FILE:LINE: problem, never echoing a secret.
 */
#include <string.h>

#include "config.h"
#include "harness.h"
#include "tcp_auth.h"

#define HEAD "router-id 192.0.2.7\nlocal-as 65000\n"
#define NB(lines) HEAD "plane 1 {\n\tneighbor 192.0.2.1 {\n" \
	"\t\tremote-as 65001\n" lines "\t}\n}\n"
#define NB_WARN "t.conf:4: warning: neighbor 192.0.2.1 has no import " \
	"policy: it accepts no route (RFC 8212)\n" \
	"t.conf:4: warning: neighbor 192.0.2.1 has no export policy: " \
	"it is sent no route (RFC 8212)\n"

static const char *parse(const char *text, struct fared_config *cfg,
			 int *errors, struct capture *cap)
{
	capture_start(cap);
	*errors = fared_config_parse("t.conf", text, cfg, cap->f);
	return capture_text(cap);
}

TEST(auth_password_is_a_quoted_word_with_spaces_hash_and_braces)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(NB("\t\tpassword \"s3 #{x}\" # comment\n"),
				&cfg, &errors, &cap);

	CHECK_STR(out, NB_WARN);
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.neighbors[0].auth.md5_len, 7);
	CHECK(!memcmp(cfg.neighbors[0].auth.md5_key, "s3 #{x}", 7));
	CHECK_INT(cfg.neighbors[0].auth.ao, false);
	CHECK_STR(tcp_auth_name(&cfg.neighbors[0].auth), "TCP-MD5");
	capture_end(&cap);
	fared_config_free(&cfg);

	/* A bare word too; a quoted "{" opens no block. */
	out = parse(NB("\t\tpassword {\n\t\tpassword \"{\"\n"), &cfg, &errors,
		    &cap);
	CHECK_STR(out, "t.conf:6: no block may open inside a neighbor\n"
		  NB_WARN);
	CHECK_INT(errors, 1);
	CHECK_INT(cfg.neighbors[0].auth.md5_len, 1);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(auth_bad_secrets_are_reported_without_their_text)
{
	char text[512], key[82];
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out;

	memset(key, 'k', 81);
	key[81] = '\0';
	snprintf(text, sizeof(text), NB("\t\tpassword \"%s\"\n"
		 "\t\tpassword \"\"\n\t\tpassword \"open\n"
		 "\t\tpassword \"a\"b\n"
		 "\t\ttcp-ao send-id 1 recv-id 2 secret \"%s\"\n"
		 "\t\ttcp-ao \"hidden\" 1 recv-id 2 secret \"x\"\n"), key, key);
	out = parse(text, &cfg, &errors, &cap);
	CHECK(!strstr(out, "kkkk"));
	CHECK(!strstr(out, "hidden"));
	CHECK_STR(out,
		  "t.conf:6: password: the secret must be 1 to 80 characters "
		  "(it has 81)\n"
		  "t.conf:7: password: the secret must be 1 to 80 characters "
		  "(it has 0)\n"
		  "t.conf:8: a quoted word has no closing quote\n"
		  "t.conf:9: put a space after a quoted word\n"
		  "t.conf:10: tcp-ao: the secret must be 1 to 80 characters "
		  "(it has 81)\n"
		  "t.conf:11: tcp-ao: unknown word \"(a quoted word)\": expected "
		  "\"tcp-ao send-id ID recv-id ID [algorithm "
		  "hmac-sha1|cmac-aes-128] secret \"SECRET\"\"\n" NB_WARN);
	CHECK_INT(errors, 6);
	CHECK_INT(cfg.neighbors[0].auth.md5_len, 0);
	CHECK_INT(cfg.neighbors[0].auth.ao, false);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(auth_tcp_ao_takes_ids_algorithm_and_secret)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out = parse(NB("\t\ttcp-ao recv-id 7 secret \"k e y\" "
				   "algorithm cmac-aes-128 send-id 255\n"),
				&cfg, &errors, &cap);
	const struct fared_auth *a = &cfg.neighbors[0].auth;

	CHECK_STR(out, NB_WARN);
	CHECK_INT(errors, 0);
	CHECK_INT(a->ao, true);
	CHECK_INT(a->ao_send_id, 255);
	CHECK_INT(a->ao_recv_id, 7);
	CHECK_INT(a->ao_alg, FARED_AO_CMAC_AES_128);
	CHECK_INT(a->ao_len, 5);
	CHECK(!memcmp(a->ao_key, "k e y", 5));
	CHECK_INT(a->ao_line, 6);
	CHECK_STR(tcp_auth_name(a), "TCP-AO");
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse(NB("\t\ttcp-ao send-id 1 recv-id 1 secret x\n"), &cfg,
		    &errors, &cap);
	CHECK_INT(errors, 0);
	CHECK_INT(cfg.neighbors[0].auth.ao_alg, FARED_AO_HMAC_SHA1);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse(NB("\t\ttcp-ao send-id 1 recv-id 256 secret x\n"
		       "\t\ttcp-ao send-id 1 algorithm md5 secret x\n"
		       "\t\ttcp-ao send-id 1 secret x\n"
		       "\t\ttcp-ao send-id 1 recv-id\n"), &cfg, &errors, &cap);
	CHECK_STR(out,
		  "t.conf:6: tcp-ao: recv-id must be 0..255, not \"256\"\n"
		  "t.conf:7: tcp-ao: algorithm must be hmac-sha1 or "
		  "cmac-aes-128 (RFC 5926), not \"md5\"\n"
		  "t.conf:8: tcp-ao: send-id, recv-id and secret are all "
		  "needed: expected \"tcp-ao send-id ID recv-id ID [algorithm "
		  "hmac-sha1|cmac-aes-128] secret \"SECRET\"\"\n"
		  "t.conf:9: expected \"tcp-ao send-id ID recv-id ID [algorithm "
		  "hmac-sha1|cmac-aes-128] secret \"SECRET\"\"\n" NB_WARN);
	CHECK_INT(errors, 4);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(auth_md5_with_ao_and_gtsm_on_ibgp_are_refused)
{
	struct fared_config cfg;
	struct capture cap;
	int errors;
	const char *out;

	out = parse(NB("\t\tpassword p\n"
		       "\t\ttcp-ao send-id 1 recv-id 1 secret x\n"
		       "\t\tttl-security yes\n"), &cfg, &errors, &cap);
	CHECK_STR(out, NB_WARN
		  "t.conf:7: neighbor 192.0.2.1 has both a password "
		  "(TCP-MD5, line 6) and tcp-ao: a connection uses one or "
		  "the other (RFC 5925 §7.6)\n");
	CHECK_INT(errors, 1);
	CHECK_INT(cfg.neighbors[0].auth.ttl_security, true);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse(HEAD "plane 1 {\n\tneighbor 192.0.2.1 {\n"
		    "\t\tremote-as 65000\n\t\tttl-security yes\n\t}\n}\n",
		    &cfg, &errors, &cap);
	CHECK_STR(out, NB_WARN
		  "t.conf:6: neighbor 192.0.2.1: ttl-security (GTSM, RFC "
		  "5082) is for directly connected eBGP neighbors; this one "
		  "is iBGP (remote-as is local-as)\n");
	CHECK_INT(errors, 1);
	capture_end(&cap);
	fared_config_free(&cfg);

	out = parse(NB("\t\tttl-security on\n\t\tttl-security no\n"), &cfg,
		    &errors, &cap);
	CHECK_STR(out, "t.conf:6: ttl-security: expected \"yes\" or \"no\", "
		  "not \"on\"\n" NB_WARN);
	CHECK_INT(errors, 1);
	CHECK_INT(cfg.neighbors[0].auth.ttl_security, false);
	capture_end(&cap);
	fared_config_free(&cfg);
}

TEST(auth_equal_tells_a_changed_key_id_or_gtsm)
{
	struct fared_auth a = { 0 }, b;

	a.ao = true;
	a.ao_send_id = 1;
	a.ao_len = 3;
	memcpy(a.ao_key, "abc", 3);
	b = a;
	CHECK(tcp_auth_equal(&a, &b));
	b.ao_key[2] = 'd';
	CHECK(!tcp_auth_equal(&a, &b));
	b = a;
	b.ao_recv_id = 9;
	CHECK(!tcp_auth_equal(&a, &b));
	b = a;
	b.ttl_security = true;
	CHECK(!tcp_auth_equal(&a, &b));
	b = a;
	b.ao = false;
	b.md5_len = 3;
	CHECK(!tcp_auth_equal(&a, &b));
}
