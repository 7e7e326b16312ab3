/* test_signing.c - keys, deterministic signatures, strict encodings, every Wycheproof vector */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/sha256.h"
#include "signing/sign.h"
#include "signing/verify.h"

#define WYCHEPROOF CUFERRY_TEST_DATA "wycheproof/"

static const char order_hex[] =
	"FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551";

struct fixture {
	char dir[64];
	struct signer *signer;
	struct signer *other;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct cf_err e = { 0 };
	uint8_t id[32];
	snprintf(f->dir, sizeof(f->dir), "/tmp/cuferry-sign-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	char *a = xasprintf("%s/a", f->dir), *b = xasprintf("%s/b", f->dir);
	char *ak = xasprintf("%s.key", a), *bk = xasprintf("%s.key", b);
	assert_int_equal(signer_keygen(a, id, &e), CF_OK);
	assert_int_equal(signer_keygen(b, id, &e), CF_OK);
	assert_int_equal(signer_load(ak, &f->signer, &e), CF_OK);
	assert_int_equal(signer_load(bk, &f->other, &e), CF_OK);
	free(a);
	free(b);
	free(ak);
	free(bk);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	signer_free(f->signer);
	signer_free(f->other);
	io_rmtree(f->dir);
	free(f);
	return 0;
}

static void test_signing_keygen_files(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	struct cf_err e = { 0 };
	uint8_t id[32];
	char *key = xasprintf("%s/a.key", f->dir), *name = xasprintf("%s/a", f->dir);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* O_EXCL: an existing key is never overwritten */
	assert_int_not_equal(signer_keygen(name, id, &e), CF_OK);
	assert_non_null(strstr(e.msg, "already exists"));
	free(key);
	free(name);
}

static void test_signing_deterministic_and_verifies(void **state)
{
	struct fixture *f = *state;
	struct cf_err e = { 0 };
	uint8_t digest[32], s1[64], s2[64];
	size_t len;
	sha256_buf("header", 6, digest);
	assert_int_equal(signer_sign(f->signer, digest, s1, &e), CF_OK);
	assert_int_equal(signer_sign(f->signer, digest, s2, &e), CF_OK);
	assert_memory_equal(s1, s2, 64);
	const uint8_t *spki = signer_spki(f->signer, &len);
	assert_int_equal(sig_verify(spki, len, digest, s1, 64), SIG_VALID);
}

/* High-S is accepted, by decision (docs/guide.md, "Trust"): (r, n - s) verifies wherever (r, s)
 * does; nothing keys on signature bytes (signers count by key id, replay by the signed
 * counter), and stock OpenSSL, which signs --external, writes a high s half the time. */
static void test_signing_high_s_accepted(void **state)
{
	static const uint8_t n[32] = { 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF,
				       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17,
				       0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51 };
	struct fixture *f = *state;
	struct cf_err e = { 0 };
	uint8_t digest[32], sig[64], flipped[64];
	size_t len;
	const uint8_t *spki = signer_spki(f->signer, &len);
	sha256_buf("high-S", 6, digest);
	assert_int_equal(signer_sign(f->signer, digest, sig, &e), CF_OK);
	memcpy(flipped, sig, 32);
	for (int i = 31, borrow = 0; i >= 0; i--) { /* s' = n - s, big-endian */
		int d = n[i] - sig[32 + i] - borrow;
		borrow = d < 0;
		flipped[32 + i] = (uint8_t)(d + (borrow ? 256 : 0));
	}
	assert_memory_not_equal(sig + 32, flipped + 32, 32);
	assert_int_equal(sig_verify(spki, len, digest, sig, 64), SIG_VALID);
	assert_int_equal(sig_verify(spki, len, digest, flipped, 64), SIG_VALID);
}

static void test_signing_negative_cases(void **state)
{
	struct fixture *f = *state;
	struct cf_err e = { 0 };
	uint8_t digest[32], sig[64], bad[65];
	size_t len, olen;
	sha256_buf("header", 6, digest);
	assert_int_equal(signer_sign(f->signer, digest, sig, &e), CF_OK);
	const uint8_t *spki = signer_spki(f->signer, &len);
	const uint8_t *other = signer_spki(f->other, &olen);
	/* a bitflip in the digest, in r, in s */
	digest[5] ^= 1;
	assert_int_equal(sig_verify(spki, len, digest, sig, 64), SIG_INVALID);
	digest[5] ^= 1;
	for (int i = 0; i < 64; i += 63) {
		memcpy(bad, sig, 64);
		bad[i] ^= 0x10;
		assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	}
	/* the wrong key */
	assert_int_equal(sig_verify(other, olen, digest, sig, 64), SIG_INVALID);
	/* 63 and 65 bytes */
	memcpy(bad, sig, 64);
	bad[64] = 0;
	assert_int_equal(sig_verify(spki, len, digest, bad, 63), SIG_INVALID);
	assert_int_equal(sig_verify(spki, len, digest, bad, 65), SIG_INVALID);
	/* r = 0, s = 0 */
	memcpy(bad, sig, 64);
	memset(bad, 0, 32);
	assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	memcpy(bad, sig, 64);
	memset(bad + 32, 0, 32);
	assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	/* r = n, s = n, r = 2^256 - 1: not below the group order */
	memcpy(bad, sig, 64);
	hex_decode(order_hex, bad, 32);
	assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	memcpy(bad, sig, 64);
	hex_decode(order_hex, bad + 32, 32);
	assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	memcpy(bad, sig, 64);
	memset(bad, 0xff, 32);
	assert_int_equal(sig_verify(spki, len, digest, bad, 64), SIG_INVALID);
	/* a key that is not a key */
	assert_int_equal(sig_verify((const uint8_t *)"junk", 4, digest, sig, 64), SIG_BAD_KEY);
}

static void test_signing_der_round_trip(void **state)
{
	struct fixture *f = *state;
	struct cf_err e = { 0 };
	/* one spare byte for the trailing-garbage case: a 72-byte DER (r and s both with the top
	 * bit set, one key in four) fills SIG_DER_MAX */
	uint8_t digest[32], sig[64], der[SIG_DER_MAX + 1], back[64];
	size_t dlen;
	sha256_buf("x", 1, digest);
	assert_int_equal(signer_sign(f->signer, digest, sig, &e), CF_OK);
	sig_raw_to_der(sig, der, &dlen);
	assert_int_equal(sig_der_to_raw(der, dlen, back), 0);
	assert_memory_equal(sig, back, 64);
	/* trailing garbage and long-form lengths are refused */
	der[dlen] = 0;
	assert_int_equal(sig_der_to_raw(der, dlen + 1, back), -1);
	uint8_t longform[80] = { 0x30, 0x81, (uint8_t)(dlen - 2) };
	memcpy(longform + 3, der + 2, dlen - 2);
	assert_int_equal(sig_der_to_raw(longform, dlen + 1, back), -1);
}

/* A signature file's binary forms are taken as they are: the last byte of a DER or raw
 * signature is a newline, a carriage return or a blank about one time in 85 (the bundler once
 * trimmed it, and `sign --external` refused about 1% of good OpenSSL signatures). */
static void test_signing_decode_any_keeps_binary_bytes(void **state)
{
	(void)state;
	static const uint8_t ends[] = { '\n', '\r', ' ', 0x30 };
	for (size_t i = 0; i < sizeof(ends); i++) {
		uint8_t raw[64], der[SIG_DER_MAX], back[64];
		size_t dlen;
		for (int k = 0; k < 64; k++)
			raw[k] = (uint8_t)(0x11 + k);
		raw[0] = ends[i]; /* a raw signature may start like DER's SEQUENCE (0x30) */
		raw[63] = ends[i];
		sig_raw_to_der(raw, der, &dlen);
		assert_int_equal(der[dlen - 1], ends[i]);
		assert_int_equal(sig_decode_any(der, dlen, back), 0);
		assert_memory_equal(raw, back, 64);
		memset(back, 0, sizeof(back));
		assert_int_equal(sig_decode_any(raw, 64, back), 0);
		assert_memory_equal(raw, back, 64);
	}
	/* hex, with the line end an editor adds */
	uint8_t raw[64], back[64];
	char hex[140];
	for (int k = 0; k < 64; k++)
		raw[k] = (uint8_t)(0xa0 + k);
	for (int k = 0; k < 64; k++)
		snprintf(hex + 2 * k, 3, "%02x", raw[k]);
	strcat(hex, " \r\n");
	assert_int_equal(sig_decode_any((const uint8_t *)hex, strlen(hex), back), 0);
	assert_memory_equal(raw, back, 64);
	hex[10] = 'g';
	assert_int_equal(sig_decode_any((const uint8_t *)hex, strlen(hex), back), -1);
	assert_int_equal(sig_decode_any((const uint8_t *)"0123", 4, back), -1);
}

static uint8_t *unhex(const char *s, size_t *len)
{
	*len = strlen(s) / 2;
	uint8_t *out = malloc(*len + 1);
	assert_int_equal(hex_decode(s, out, *len), 0);
	return out;
}

/* Every vector of a Wycheproof file through our verify path; acceptable = either verdict. */
static void run_wycheproof(const char *file, int der_form)
{
	json_error_t jerr;
	json_t *root = json_load_file(file, 0, &jerr), *group, *t;
	size_t gi, ti, total = 0, mismatches = 0;
	assert_non_null(root);
	json_array_foreach(json_object_get(root, "testGroups"), gi, group) {
		size_t klen;
		uint8_t *key = unhex(json_string_value(json_object_get(group, "publicKeyDer")), &klen);
		uint8_t spki[512];
		size_t slen = 0;
		struct cf_err e = { 0 };
		int key_ok = sig_pubkey_parse(key, klen, spki, &slen, &e) == CF_OK;
		json_array_foreach(json_object_get(group, "tests"), ti, t) {
			size_t mlen, siglen;
			uint8_t *msg = unhex(json_string_value(json_object_get(t, "msg")), &mlen);
			uint8_t *sig = unhex(json_string_value(json_object_get(t, "sig")), &siglen);
			const char *result = json_string_value(json_object_get(t, "result"));
			uint8_t digest[32], raw[64];
			sha256_buf(msg, mlen, digest);
			int valid;
			if (!key_ok)
				valid = 0;
			else if (der_form)
				valid = sig_der_to_raw(sig, siglen, raw) == 0 &&
					sig_verify(spki, slen, digest, raw, 64) == SIG_VALID;
			else
				valid = sig_verify(spki, slen, digest, sig, siglen) == SIG_VALID;
			int expect = strcmp(result, "valid") == 0;
			if (strcmp(result, "acceptable") != 0 && valid != expect) {
				mismatches++;
				print_error("%s tcId %lld: expected %s\n", file,
					    json_integer_value(json_object_get(t, "tcId")), result);
			}
			total++;
			free(msg);
			free(sig);
		}
		free(key);
	}
	json_decref(root);
	print_message("%s: %zu vectors, %zu mismatches\n", file, total, mismatches);
	assert_true(total > 200);
	assert_int_equal(mismatches, 0);
}

static void test_signing_wycheproof_p1363(void **state)
{
	(void)state;
	run_wycheproof(WYCHEPROOF "ecdsa_secp256r1_sha256_p1363_test.json", 0);
}

static void test_signing_wycheproof_der(void **state)
{
	(void)state;
	run_wycheproof(WYCHEPROOF "ecdsa_secp256r1_sha256_test.json", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signing_keygen_files),
		cmocka_unit_test(test_signing_deterministic_and_verifies),
		cmocka_unit_test(test_signing_negative_cases),
		cmocka_unit_test(test_signing_high_s_accepted),
		cmocka_unit_test(test_signing_der_round_trip),
		cmocka_unit_test(test_signing_decode_any_keeps_binary_bytes),
		cmocka_unit_test(test_signing_wycheproof_p1363),
		cmocka_unit_test(test_signing_wycheproof_der),
	};
	return cmocka_run_group_tests_name("signing", tests, setup, teardown);
}
