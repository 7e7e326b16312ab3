/* test_sfx.c - the self-extracting layout: trailer, stub-signature block, signed digest */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/sfx.h"

static void test_trailer_round_trip_and_exact_size(void **state)
{
	(void)state;
	struct sfx_layout l = { 1000, 500, 200 }, got;
	struct cf_err e = { 0 };
	uint8_t t[SFX_TRAILER_LEN];
	sfx_trailer_encode(&l, t);
	assert_int_equal(sfx_trailer_tagged(t), 0);
	assert_int_equal(sfx_trailer_parse(t, 1732, &got, &e), CF_OK);
	assert_int_equal(got.stub_len, 1000);
	assert_int_equal(got.bundle_len, 500);
	assert_int_equal(got.block_len, 200);
	/* one byte more or less anywhere: the parts no longer add up */
	assert_int_equal(sfx_trailer_parse(t, 1733, &got, &e), CF_TRUST);
	cf_err_clear(&e);
	assert_int_equal(sfx_trailer_parse(t, 1731, &got, &e), CF_TRUST);
	cf_err_clear(&e);
	assert_int_equal(sfx_trailer_parse(t, 16, &got, &e), CF_TRUST);
	cf_err_clear(&e);
	/* lengths that would wrap around */
	struct sfx_layout wrap = { UINT64_MAX - 10, 20, 22 };
	sfx_trailer_encode(&wrap, t);
	assert_int_equal(sfx_trailer_parse(t, 64, &got, &e), CF_TRUST);
	cf_err_clear(&e);
	/* format 1: no block */
	struct sfx_layout old = { 1000, 532, 0 };
	sfx_trailer_encode(&old, t);
	assert_int_equal(sfx_trailer_parse(t, 1564, &got, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "format 1"));
	t[0] = 'X';
	assert_int_equal(sfx_trailer_tagged(t), -1);
}

static void test_block_round_trip_and_truncation(void **state)
{
	(void)state;
	struct frame_sig sigs[2], got[FRAME_MAX_SIGS];
	uint32_t n;
	size_t len;
	struct cf_err e = { 0 };
	memset(sigs, 0, sizeof(sigs));
	for (int i = 0; i < 2; i++) {
		sigs[i].spki_len = 91;
		memset(sigs[i].keyid, i + 1, 32);
		memset(sigs[i].spki, 0x30 + i, 91);
		memset(sigs[i].sig, 0x55 + i, 64);
	}
	uint8_t *block = sfx_block_encode(sigs, 2, &len);
	assert_int_equal(len, 8 + 4 + 2 * (32 + 2 + 91 + 64));
	assert_int_equal(sfx_block_parse(block, len, got, &n, &e), CF_OK);
	assert_int_equal(n, 2);
	assert_memory_equal(got[1].sig, sigs[1].sig, 64);
	for (size_t cut = 0; cut < len; cut++) {
		cf_err_clear(&e);
		assert_int_equal(sfx_block_parse(block, cut, got, &n, &e), CF_TRUST);
	}
	uint8_t *longer = malloc(len + 1);
	memcpy(longer, block, len);
	longer[len] = 0;
	cf_err_clear(&e);
	assert_int_equal(sfx_block_parse(longer, len + 1, got, &n, &e), CF_TRUST);
	block[3] ^= 1; /* the tag */
	cf_err_clear(&e);
	assert_int_equal(sfx_block_parse(block, len, got, &n, &e), CF_TRUST);
	free(longer);
	free(block);
}

static void test_digest_covers_every_input(void **state)
{
	(void)state;
	uint8_t stub[32] = { 1 }, d0[32], d1[32];
	struct sfx_layout l = { 1000, 500, 200 };
	const uint8_t header[] = "{\"a\":1}";
	sfx_digest(stub, header, 7, &l, d0);
	stub[5] ^= 1;
	sfx_digest(stub, header, 7, &l, d1);
	assert_memory_not_equal(d0, d1, 32);
	stub[5] ^= 1;
	sfx_digest(stub, header, 6, &l, d1);
	assert_memory_not_equal(d0, d1, 32);
	l.bundle_len++;
	sfx_digest(stub, header, 7, &l, d1);
	assert_memory_not_equal(d0, d1, 32);
	l.bundle_len--;
	l.stub_len++;
	sfx_digest(stub, header, 7, &l, d1);
	assert_memory_not_equal(d0, d1, 32);
	l.stub_len--;
	l.block_len = 999; /* the block's own length is structure, checked against the size */
	sfx_digest(stub, header, 7, &l, d1);
	assert_memory_equal(d0, d1, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trailer_round_trip_and_exact_size),
		cmocka_unit_test(test_block_round_trip_and_truncation),
		cmocka_unit_test(test_digest_covers_every_input),
	};
	return cmocka_run_group_tests_name("sfx", tests, NULL, NULL);
}
