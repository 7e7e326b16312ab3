/* test_kit.c - the kit's choices that a test machine cannot reach end to end: the split size
 * for each file system type, the CUDA major a driver supports (the driver line of every NVIDIA
 * module flavour: test_platform's test_driver_version); the signed kit index's strict parser
 * and the unpacker container's layout */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundler/kit.h"
#include "common/bundle/sfx.h"
#include "common/err.h"
#include "manifests/compat.h"
#include "manifests/kitindex.h"
#include "common/sha256.h"

static void test_split_follows_the_file_system(void **state)
{
	const char *name;
	assert_int_equal(kit_split_for_fs(0x4d44, &name), 4294967295ull); /* vfat, msdos */
	assert_string_equal(name, "FAT");
	assert_int_equal(kit_split_for_fs(0x65735546, &name), 4294967295ull); /* fuseblk */
	assert_int_equal(kit_split_for_fs(0x2011bab0, &name), 0);              /* exfat */
	assert_string_equal(name, "exFAT");
	assert_int_equal(kit_split_for_fs(0x5346544e, &name), 0);              /* ntfs */
	assert_int_equal(kit_split_for_fs(0xef53, &name), 0);                  /* ext4 */
	assert_int_equal(kit_split_for_fs((long)0xffffffff00004d44ll, &name), 4294967295ull);
}

static void test_cuda_major_of_a_driver(void **state)
{
	assert_int_equal(compat_cuda_major_for_driver("580.65.06", "linux-x86_64"), 13);
	assert_int_equal(compat_cuda_major_for_driver("590.44.01", "linux-sbsa"), 13);
	assert_int_equal(compat_cuda_major_for_driver("580.65.05", "linux-x86_64"), 12);
	assert_int_equal(compat_cuda_major_for_driver("525.60.13", "linux-x86_64"), 12);
	assert_int_equal(compat_cuda_major_for_driver("470.82.01", "linux-x86_64"), 11);
	assert_int_equal(compat_cuda_major_for_driver("390.157", "linux-x86_64"), 0);
}

static const char good_index[] =
	"{\"format\": \"cuferry-kit-1\", \"created\": \"2026-12-01T00:00:00Z\", "
	"\"valid_until\": \"2027-03-01T00:00:00Z\", \"files\": [{\"path\": \"linux-x86_64/unpacker\", "
	"\"size\": 5, \"sha256\": \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\"}]}";

static int parses(const char *json)
{
	struct kitindex x;
	struct cf_err e = { 0 };
	int rc = kitindex_parse(json, strlen(json), &x, &e);
	kitindex_free(&x);
	return rc;
}

/* A copy of good_index with one substring replaced. */
static int parses_with(const char *from, const char *to)
{
	char buf[1024];
	const char *at = strstr(good_index, from);
	assert_non_null(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - good_index), good_index, to, at + strlen(from));
	return parses(buf);
}

static void test_kit_index_round_trip_and_strictness(void **state)
{
	struct kitindex x;
	struct cf_err e = { 0 };
	assert_int_equal(kitindex_parse(good_index, strlen(good_index), &x, &e), CF_OK);
	assert_int_equal(x.nfiles, 1);
	assert_int_equal(x.files[0].size, 5);
	assert_non_null(kitindex_find(&x, "linux-x86_64/unpacker"));
	assert_null(kitindex_find(&x, "README.txt"));
	size_t len;
	char *again = kitindex_encode(&x, &len);
	struct kitindex y;
	assert_int_equal(kitindex_parse(again, len, &y, &e), CF_OK);
	assert_int_equal(y.valid_until, x.valid_until);
	assert_memory_equal(y.files[0].sha256, x.files[0].sha256, 32);
	free(again);
	kitindex_free(&y);
	kitindex_free(&x);
	assert_int_equal(parses_with("cuferry-kit-1", "cuferry-kit-2"), CF_INCOMPATIBLE);
	assert_int_equal(parses_with("2027-03-01T00:00:00Z", "2026-11-01T00:00:00Z"), CF_INTEGRITY);
	assert_int_equal(parses_with("2027-03-01T00:00:00Z", "2027-3-1T00:00:00Z"), CF_INTEGRITY);
	assert_int_equal(parses_with("linux-x86_64/unpacker", "../etc/shadow"), CF_INTEGRITY);
	assert_int_equal(parses_with("linux-x86_64/unpacker", "/etc/shadow"), CF_INTEGRITY);
	assert_int_equal(parses_with("\"size\": 5", "\"size\": -5"), CF_INTEGRITY);
	assert_int_equal(parses_with("2cf24dba", "2cf24dbz"), CF_INTEGRITY);
	assert_int_equal(parses_with("\"format\"", "\"created\": \"x\", \"format\""), CF_INTEGRITY);
	assert_int_equal(parses_with("}]}", "}, {\"path\": \"LINUX-x86_64/unpacker\", \"size\": 5, "
				     "\"sha256\": \"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\"}]}"),
			 CF_INTEGRITY);
}

static void test_kit_signature_file(void **state)
{
	struct frame_sig sig, back[FRAME_MAX_SIGS];
	uint32_t n = 0;
	struct cf_err e = { 0 };
	memset(&sig, 0x5a, sizeof(sig));
	sig.spki_len = 91;
	size_t len;
	uint8_t *file = kitindex_sig_encode(&sig, 1, &len);
	assert_int_equal(kitindex_sig_parse(file, len, back, &n, &e), CF_OK);
	assert_int_equal(n, 1);
	assert_memory_equal(back[0].sig, sig.sig, 64);
	assert_int_not_equal(kitindex_sig_parse(file, len - 1, back, &n, &e), CF_OK);
	file[0] = 'X';
	assert_int_equal(kitindex_sig_parse(file, len, back, &n, &e), CF_TRUST);
	free(file);
	/* The index's digest is tagged: never the plain SHA-256 a header or SHA256SUMS.sig signs. */
	uint8_t d1[32], d2[32];
	kitindex_digest((const uint8_t *)"abc", 3, d1);
	sha256_buf("abc", 3, d2);
	assert_memory_not_equal(d1, d2, 32);
}

static void test_unpacker_container_layout(void **state)
{
	/* program, block, trailer with no bundle: parsed as a container, never as a .run */
	struct frame_sig sig, back[FRAME_MAX_SIGS];
	memset(&sig, 0x11, sizeof(sig));
	sig.spki_len = 91;
	size_t block_len;
	uint8_t *block = sfx_block_encode(&sig, 1, &block_len);
	uint8_t file[4096];
	const char program[] = "\177ELF-program-bytes";
	struct sfx_layout l = { sizeof(program), 0, block_len }, got;
	memcpy(file, program, sizeof(program));
	memcpy(file + sizeof(program), block, block_len);
	sfx_trailer_encode(&l, file + sizeof(program) + block_len);
	size_t len = sizeof(program) + block_len + SFX_TRAILER_LEN;
	uint32_t n;
	uint8_t digest[32], want[32], stub_sha[32];
	struct cf_err e = { 0 };
	assert_int_equal(sfx_container_parse(file, len, &got, back, &n, digest, &e), CF_OK);
	assert_int_equal(got.stub_len, sizeof(program));
	sha256_buf(program, sizeof(program), stub_sha);
	sfx_container_digest(stub_sha, sizeof(program), want);
	assert_memory_equal(digest, want, 32);
	/* a byte more or less anywhere: the parts no longer add up */
	assert_int_equal(sfx_container_parse(file + 1, len - 1, &got, back, &n, digest, &e), CF_TRUST);
	/* a trailer that says a bundle is inside is a .run, not a container */
	l.stub_len = 4;
	l.bundle_len = sizeof(program) - 4;
	sfx_trailer_encode(&l, file + sizeof(program) + block_len);
	assert_int_equal(sfx_container_parse(file, len, &got, back, &n, digest, &e), CF_TRUST);
	free(block);
	char version[32];
	const uint8_t marked[] = "x" SFX_VERSION_MARKER "\0" SFX_VERSION_MARKER "1.2.3\0y";
	assert_int_equal(sfx_program_version(marked, sizeof(marked), version, sizeof(version)), 0);
	assert_string_equal(version, "1.2.3");
	assert_int_equal(sfx_program_version((const uint8_t *)"none", 4, version, sizeof(version)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_follows_the_file_system),
		cmocka_unit_test(test_cuda_major_of_a_driver),
		cmocka_unit_test(test_kit_index_round_trip_and_strictness),
		cmocka_unit_test(test_kit_signature_file),
		cmocka_unit_test(test_unpacker_container_layout),
	};
	return cmocka_run_group_tests_name("kit", tests, NULL, NULL);
}
