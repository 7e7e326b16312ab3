/* test_frame.c - the signed frame's bounded parser and the self-extracting trailer */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/frame.h"
#include "common/bundle/write.h"

static uint8_t *sample(size_t *len, uint32_t nsigs)
{
	struct frame_sig sigs[FRAME_MAX_SIGS];
	memset(sigs, 0, sizeof(sigs));
	for (uint32_t i = 0; i < nsigs && i < FRAME_MAX_SIGS; i++) {
		sigs[i].spki_len = 91;
		memset(sigs[i].keyid, (int)i + 1, 32);
		memset(sigs[i].sig, 0x55, 64);
	}
	return frame_encode((const uint8_t *)"{\"a\":1}", 7, sigs, nsigs, len);
}

static void test_frame_round_trip(void **state)
{
	(void)state;
	size_t len;
	struct frame f;
	struct cf_err e = { 0 };
	uint8_t *buf = sample(&len, 2);
	assert_int_equal(frame_le32(buf), FRAME_MAGIC);
	assert_int_equal(frame_le32(buf + 4), len - 8);
	assert_int_equal(frame_parse(buf + 8, len - 8, &f, &e), CF_OK);
	assert_int_equal(f.nsigs, 2);
	assert_int_equal(f.header_len, 7);
	assert_memory_equal(f.header, "{\"a\":1}", 7);
	assert_int_equal(f.sigs[1].keyid[0], 2);
	assert_int_equal(f.frame_len, len);
	frame_free(&f);
	free(buf);
}

static void test_frame_every_truncation_is_refused(void **state)
{
	(void)state;
	size_t len;
	uint8_t *buf = sample(&len, 1);
	for (size_t cut = 0; cut < len - 8; cut++) {
		struct frame f;
		struct cf_err e = { 0 };
		assert_int_equal(frame_parse(buf + 8, cut, &f, &e), CF_TRUST);
	}
	free(buf);
}

static void test_frame_bounds(void **state)
{
	(void)state;
	size_t len;
	struct frame f;
	struct cf_err e = { 0 };
	uint8_t *buf = sample(&len, 0);
	assert_int_equal(frame_parse(buf + 8, len - 8, &f, &e), CF_TRUST); /* zero signatures */
	free(buf);
	cf_err_clear(&e);
	buf = sample(&len, 1);
	buf[8] ^= 0x20; /* tag */
	assert_int_equal(frame_parse(buf + 8, len - 8, &f, &e), CF_TRUST);
	buf[8] ^= 0x20;
	cf_err_clear(&e);
	frame_put_le32(buf + 8 + 8 + 4 + 7, 9); /* nine signatures claimed */
	assert_int_equal(frame_parse(buf + 8, len - 8, &f, &e), CF_TRUST);
	cf_err_clear(&e);
	frame_put_le32(buf + 8 + 8 + 4 + 7, 1);
	uint8_t *longer = malloc(len + 1);
	memcpy(longer, buf, len);
	longer[len] = 0;
	assert_int_equal(frame_parse(longer + 8, len - 7, &f, &e), CF_TRUST); /* trailing byte */
	cf_err_clear(&e);
	assert_int_equal(frame_parse(buf + 8, FRAME_CAP + 1, &f, &e), CF_TRUST); /* over the cap */
	free(longer);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(test_frame_every_truncation_is_refused),
		cmocka_unit_test(test_frame_bounds),
	};
	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
