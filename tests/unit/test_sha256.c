/* test_sha256.c - both SHA-256 paths (x86 SHA extensions, mbedTLS) against NIST vectors and
 * against mbedTLS itself on random lengths and random update boundaries */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <mbedtls/sha256.h>
#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"

static const struct {
	const char *msg;
	size_t repeat;
	const char *hex;
} nist[] = {
	{ "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  1, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	{ "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
};

static void run_nist(void)
{
	for (size_t i = 0; i < sizeof(nist) / sizeof(nist[0]); i++) {
		struct sha256 h;
		uint8_t d[32];
		char hex[65];
		sha256_init(&h);
		for (size_t r = 0; r < nist[i].repeat; r++)
			sha256_update(&h, nist[i].msg, strlen(nist[i].msg));
		sha256_final(&h, d);
		hex_encode(d, 32, hex);
		assert_string_equal(hex, nist[i].hex);
	}
}

/* Random data, random lengths, cut into random pieces: equal to mbedTLS in one call. */
static void run_random(void)
{
	uint8_t *data = malloc(70000);
	unsigned seed = 12345;
	for (size_t i = 0; i < 70000; i++)
		data[i] = (uint8_t)(rand_r(&seed) >> 7);
	for (int round = 0; round < 400; round++) {
		size_t len = (size_t)rand_r(&seed) % (round < 200 ? 300 : 70000);
		uint8_t want[32], got[32];
		mbedtls_sha256(data, len, want, 0);
		struct sha256 h;
		sha256_init(&h);
		for (size_t off = 0; off < len;) {
			size_t piece = 1 + (size_t)rand_r(&seed) % (round % 3 == 0 ? 3 : 200);
			if (piece > len - off)
				piece = len - off;
			sha256_update(&h, data + off, piece);
			off += piece;
		}
		sha256_final(&h, got);
		assert_memory_equal(got, want, 32);
		sha256_buf(data, len, got);
		assert_memory_equal(got, want, 32);
	}
	free(data);
}

static void test_sha256_accelerated_path(void **state)
{
	(void)state;
	sha256_force_portable(0);
	print_message("implementation: %s\n", sha256_impl());
	run_nist();
	run_random();
}

static void test_sha256_portable_path(void **state)
{
	(void)state;
	sha256_force_portable(1);
	assert_string_equal(sha256_impl(), "mbedTLS (portable)");
	run_nist();
	run_random();
	sha256_force_portable(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_accelerated_path),
		cmocka_unit_test(test_sha256_portable_path),
	};
	return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
