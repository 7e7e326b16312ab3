/* sha256_check.c - the checks of tests/unit/test_sha256.c without cmocka, for other CPUs:
 * cross-compiled and run under qemu-user (make check-arm) it tests the ARMv8 path and the
 * mbedTLS fallback there. NIST vectors, then random data in random pieces against mbedTLS. */
#include <mbedtls/sha256.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s (%s)\n", what, sha256_impl());
		failures++;
	}
}

static void run(void)
{
	static const char *const msgs[] = { "", "abc",
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq" };
	static const char *const want[] = {
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" };
	uint8_t d[32], m[32];
	char hex[65];
	for (int i = 0; i < 3; i++) {
		sha256_buf(msgs[i], strlen(msgs[i]), d);
		hex_encode(d, 32, hex);
		expect(strcmp(hex, want[i]) == 0, msgs[i]);
	}
	unsigned char *data = malloc(70000);
	unsigned seed = 7;
	for (int i = 0; i < 70000; i++)
		data[i] = (unsigned char)(rand_r(&seed) >> 7);
	for (int round = 0; round < 300; round++) {
		size_t len = (size_t)rand_r(&seed) % (round < 150 ? 300 : 70000);
		struct sha256 h;
		sha256_init(&h);
		for (size_t off = 0; off < len;) {
			size_t piece = 1 + (size_t)rand_r(&seed) % 200;
			if (piece > len - off)
				piece = len - off;
			sha256_update(&h, data + off, piece);
			off += piece;
		}
		sha256_final(&h, d);
		mbedtls_sha256(data, len, m, 0);
		expect(memcmp(d, m, 32) == 0, "random lengths and pieces");
	}
	free(data);
	printf("%s: %s\n", failures ? "FAIL" : "ok", sha256_impl());
}

int main(void)
{
	run();
	sha256_force_portable(1);
	run();
	return failures != 0;
}
