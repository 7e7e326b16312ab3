/* test_manifest.c - manifest round trips, the path rules, strict parsing errors */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifests/manifest.h"
#include "manifests/pathrule.h"

static struct manifest *sample(void)
{
	struct manifest *m = manifest_new();
	m->product = product_default();
	uint8_t sha[32];
	memset(sha, 0xab, sizeof(sha));
	manifest_set(&m->bundle_id, "cudnn-9.19.0.56-cuda13-linux-x86_64");
	manifest_set(&m->created, "2026-11-29T17:03:20Z");
	manifest_set(&m->platform, "linux-x86_64");
	manifest_set(&m->product_version, "9.19.0.56");
	manifest_set(&m->cuda_variant, "13");
	manifest_set(&m->source_kind, "dir");
	manifest_set(&m->source_name, "/usr/local/cuda");
	manifest_set(&m->cuda_release, "13.0");
	manifest_set(&m->driver_min, "580.65.06");
	manifest_set(&m->cc_min, "7.5");
	manifest_set(&m->glibc_min, "2.27");
	struct manifest_component c = { .name = "libcublas", .version = "13.1.0.3", .has_sha256 = 1,
					.size = 7, .included = 0 };
	memcpy(c.sha256, sha, 32);
	manifest_add_component(m, &c);
	m->counter = 1764431000;
	m->source_date_epoch = 1760486400;
	manifest_add_file(m, "lib/libcudnn.so.9", 129240, 0755, sha);
	manifest_add_symlink(m, "lib/libcudnn.so", "libcudnn.so.9");
	manifest_add_file(m, "include/cudnn.h", 10, 0644, sha);
	manifest_sort_files(m);
	m->compressed_size = 3 * 1048576 + 5;
	m->uncompressed_size = 200000;
	m->nchunks = 4;
	m->chunks = calloc(4, 32);
	manifest_strings_add(&m->env_ld_library_path, "lib");
	return m;
}

static void test_manifest_round_trip_is_identical(void **state)
{
	(void)state;
	struct manifest *m = sample(), *back = NULL;
	struct cf_err e = { 0 };
	size_t len, len2;
	assert_int_equal(manifest_validate(m, &e), CF_OK);
	char *json = manifest_to_json(m, &len);
	assert_non_null(json);
	assert_int_equal(manifest_parse(json, len, &back, &e), CF_OK);
	char *again = manifest_to_json(back, &len2);
	assert_string_equal(json, again);
	assert_int_equal(back->nfiles, 3);
	assert_string_equal(back->files[1].path, "lib/libcudnn.so");
	assert_string_equal(back->files[1].target, "libcudnn.so.9");
	assert_int_equal(back->files[2].mode, 0755);
	assert_int_equal(back->ncomponents, 1);
	assert_string_equal(back->glibc_min, "2.27");
	assert_null(back->windows_min); /* absent from the JSON, as in every Linux bundle */
	free(json);
	free(again);
	manifest_free(m);
	manifest_free(back);
}

static const struct {
	const char *path;
	int ok;
} path_table[] = {
	{ "lib/libcudnn.so.9", 1 },
	{ "include/cudnn_version.h", 1 },
	{ "bin/x64/cudnn64_9.dll", 1 },
	{ "a+b-c_d.e", 1 },
	{ "../etc/passwd", 0 },
	{ "lib/../../x", 0 },
	{ "/etc/passwd", 0 },
	{ "./lib/x", 0 },
	{ "lib//x", 0 },
	{ "lib/", 0 },
	{ "", 0 },
	{ "bad\nname", 0 },
	{ "a\\b", 0 },
	{ "x:y", 0 },
	{ "CON.txt", 0 },
	{ "con", 0 },
	{ "aux", 0 },
	{ "lib/AUX.dll", 0 },
	{ "NUL", 0 },
	{ "com1", 0 },
	{ "LPT9.log", 0 },
	{ "COM0", 1 },
	{ "CONSOLE", 1 },
	{ "dir./f", 0 },
	{ "file.", 0 },
	{ "GIT~1", 0 },
	{ "sp ace", 0 },
	{ "tab\tname", 0 },
	{ "caf\xc3\xa9", 0 },
	{ "star*", 0 },
	{ "q?", 0 },
	{ "pipe|x", 0 },
	{ "lt<", 0 },
	{ "quote\"", 0 },
	/* Windows spellings of the same escapes, and names NTFS would change or redirect */
	{ "..\\x", 0 },
	{ "bin\\..\\..\\x", 0 },
	{ "C:\\outside\\x", 0 },
	{ "\\outside\\x", 0 },
	{ "\\\\server\\share\\x", 0 },
	{ "C:x", 0 },
	{ "bin/cudnn64_9.dll:evil", 0 },
	{ "bin/x.dll::$DATA", 0 },
	{ "nul.txt", 0 },
	{ "COM1", 0 },
	{ "bin/x.dll.", 0 },
	{ "bin/x.dll ", 0 },
	/* the C library's and the loader's own libraries, under any of their names (by stem,
	 * issue 23 and its follow-up F3), in any directory */
	{ "lib/libc.so.6", 0 },
	{ "lib/libdl.so.2", 0 },
	{ "libpthread.so.0", 0 },
	{ "lib/stubs/librt.so.1", 0 },
	{ "lib/libm.so.6", 0 },
	{ "lib/libgcc_s.so.1", 0 },
	{ "lib/libstdc++.so.6", 0 },
	{ "lib/ld-linux-x86-64.so.2", 0 },
	{ "lib/ld-linux-aarch64.so.1", 0 },
	{ "lib/ld-linux.so.2", 0 },
	{ "lib/libdl.so", 0 },
	{ "lib/libc.so", 0 },
	{ "lib/libpthread.so.0.1", 0 },
	/* never a prefix, nor another suffix: these are fine */
	{ "lib/libmpi.so.40", 1 },
	{ "lib/libcudart.so.13", 1 },
	{ "lib/libc.so.6.txt", 1 },
	{ "lib/libdl.so.backup", 1 },
	{ "lib/libcx.so.6", 1 },
	{ "lib/ld-linux-notes", 1 },
	{ "lib/libmath.so.6", 1 },
};

static void test_pathrule_hostile_table(void **state)
{
	(void)state;
	char why[160];
	for (size_t i = 0; i < sizeof(path_table) / sizeof(path_table[0]); i++) {
		int ok = path_check(path_table[i].path, why, sizeof(why)) == 0;
		if (ok != path_table[i].ok)
			fail_msg("path '%s': expected %s", path_table[i].path,
				 path_table[i].ok ? "accepted" : "refused");
	}
}

static void test_pathrule_lengths(void **state)
{
	(void)state;
	char why[160], comp[300], whole[1100];
	memset(comp, 'a', 255);
	comp[255] = '\0';
	assert_int_equal(path_check(comp, why, sizeof(why)), 0);
	comp[255] = 'a';
	comp[256] = '\0';
	assert_int_equal(path_check(comp, why, sizeof(why)), -1);
	for (size_t i = 0; i < sizeof(whole) - 1; i++)
		whole[i] = (i % 100 == 99) ? '/' : 'b';
	whole[1024] = '\0';
	whole[1023] = 'c';
	assert_int_equal(path_check(whole, why, sizeof(why)), 0);
	whole[1024] = 'd';
	whole[1025] = '\0';
	assert_int_equal(path_check(whole, why, sizeof(why)), -1);
}

static int parse_code(const char *json)
{
	struct manifest *m = NULL;
	struct cf_err e = { 0 };
	int rc = manifest_parse(json, strlen(json), &m, &e);
	manifest_free(m);
	return rc;
}

/* Replace the first occurrence of from with to in the sample's JSON and parse it. */
static int mutated(const char *from, const char *to, char *msg, size_t size)
{
	struct manifest *m = sample(), *back = NULL;
	struct cf_err e = { 0 };
	size_t len;
	char *json = manifest_to_json(m, &len);
	char *at = strstr(json, from);
	assert_non_null(at);
	char *out = malloc(len + strlen(to) + 1);
	sprintf(out, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
	int rc = manifest_parse(out, strlen(out), &back, &e);
	if (msg)
		snprintf(msg, size, "%s", e.msg);
	free(out);
	free(json);
	manifest_free(m);
	manifest_free(back);
	return rc;
}

/* The format names a reader knows: exactly "cuferry-bundle-N", and of those only format 1. */
static void test_bundle_format_names(void **state)
{
	(void)state;
	assert_int_equal(bundle_format_number(MANIFEST_FORMAT), BUNDLE_FORMAT_WRITTEN);
	assert_int_equal(bundle_format_number("cuferry-bundle-2"), 2);
	assert_int_equal(bundle_format_number("cuferry-bundle-12"), 12);
	const char *bad[] = { "", "cuferry-bundle-", "cuferry-bundle-01", "cuferry-bundle-1 ",
			      "cuferry-bundle--1", "cuferry-bundle-+1", "Cuferry-bundle-1",
			      "cuferry-bundle-1x", "cuferry-bundle-9999999999", "cuferry-trust-statement-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(bundle_format_number(bad[i]), -1);
	assert_true(bundle_format_supported(1) && bundle_format_supported(2));
	assert_false(bundle_format_supported(0) || bundle_format_supported(3) ||
		     bundle_format_supported(-1));
	assert_int_equal(parse_code("{\"format\": \"cuferry-bundle-01\"}"), CF_INCOMPATIBLE);
}

static void test_manifest_strict_errors(void **state)
{
	(void)state;
	char msg[1024];
	assert_int_equal(parse_code("[]"), CF_INTEGRITY);
	assert_int_equal(parse_code("{\"format\": \"cuferry-bundle-1\", \"format\": \"x\"}"), CF_INTEGRITY);
	assert_int_equal(parse_code("{\"format\": \"cuferry-bundle-3\"}"), CF_INCOMPATIBLE);
	assert_int_equal(parse_code("{\"format\": \"cuferry-bundle-2\"}"), CF_INTEGRITY);
	assert_int_equal(parse_code("not json"), CF_INTEGRITY);
	assert_int_equal(mutated("\"counter\": 1764431000", "\"counter\": \"1\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_non_null(strstr(msg, "counter"));
	assert_int_equal(mutated("\"counter\": 1764431000", "\"counter\": -5", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"platform\": \"linux-x86_64\"", "\"platform\": \"linux-mips\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"path\": \"include/cudnn.h\"", "\"path\": \"../cudnn.h\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_non_null(strstr(msg, "unsafe path"));
	assert_int_equal(mutated("\"mode\": \"0755\"", "\"mode\": \"4755\"", msg, sizeof(msg)), CF_INTEGRITY);
	/* octal digits only: strtoul alone would read these as 0755 */
	assert_int_equal(mutated("\"mode\": \"0755\"", "\"mode\": \"+755\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_non_null(strstr(msg, "not octal"));
	assert_int_equal(mutated("\"mode\": \"0755\"", "\"mode\": \" 755\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"mode\": \"0755\"", "\"mode\": \"-755\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"target\": \"libcudnn.so.9\"", "\"target\": \"../../etc/shadow\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"target\": \"libcudnn.so.9\"", "\"target\": \"missing.so\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"type\": \"file\"", "\"type\": \"hardlink\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"created\": \"2026-11-29T17:03:20Z\"", "\"created\": \"yesterday\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"bundle_id\"", "\"bundle_id\": \"x\", \"bundle_id\"", msg, sizeof(msg)), CF_INTEGRITY);
	/* requires.glibc_min: a dotted version or absent (older bundles), nothing else */
	assert_int_equal(mutated("\"glibc_min\": \"2.27\"", "\"glibc_min\": \"2.27; x\"", msg, sizeof(msg)), CF_INTEGRITY);
	assert_non_null(strstr(msg, "glibc_min"));
	assert_int_equal(mutated("\"glibc_min\": \"2.27\"", "\"glibc_min\": 2", msg, sizeof(msg)), CF_INTEGRITY);
	assert_int_equal(mutated("\"glibc_min\": \"2.27\"", "\"x-glibc\": \"2.27\"", msg, sizeof(msg)), CF_OK);
	/* unknown fields are ignored */
	assert_int_equal(mutated("\"bundle_id\"", "\"x-extra\": {\"a\": 1}, \"bundle_id\"", msg, sizeof(msg)), CF_OK);
	/* the product is the registered product whose key names an object: none is an error */
	assert_int_equal(mutated("\"cudnn\": {", "\"x-product\": {", msg, sizeof(msg)), CF_INTEGRITY);
	assert_non_null(strstr(msg, "names no product"));
}

/* Every registered product's key makes the manifest that product's; a parsed manifest says
 * which, and its install directory starts with that product's stem. */
static void test_manifest_names_its_product(void **state)
{
	(void)state;
	for (size_t i = 0; i < product_count(); i++) {
		const struct product *p = product_at(i);
		struct manifest *m = sample(), *back = NULL;
		struct cf_err e = { 0 };
		m->product = p;
		size_t len;
		char *json = manifest_to_json(m, &len);
		assert_int_equal(manifest_parse(json, len, &back, &e), CF_OK);
		assert_ptr_equal(back->product, p);
		char *dir = manifest_install_name(back);
		assert_int_equal(strncmp(dir, p->install_stem, strlen(p->install_stem)), 0);
		free(dir);
		free(json);
		manifest_free(m);
		manifest_free(back);
	}
}

/* A unit (bundler create --with): format 2, "with" keyed by each member's manifest_key, the
 * install name and the product list naming every member; the rules a reader holds it to. */
static void test_manifest_members(void **state)
{
	(void)state;
	const struct product *nccl = product_find("nccl");
	assert_non_null(nccl);
	struct manifest *m = sample(), *back = NULL;
	struct cf_err e = { 0 };
	struct manifest_member w = { .product = nccl, .version = "2.28.9", .source_kind = "dir",
				     .source_name = "/usr/local/cuda" };
	manifest_add_member(m, &w);
	assert_int_equal(manifest_format(m), 2);
	assert_string_equal(manifest_format_name(m), "cuferry-bundle-2");
	assert_int_equal(manifest_validate(m, &e), CF_OK);
	size_t len, len2;
	char *json = manifest_to_json(m, &len);
	assert_non_null(strstr(json, "\"format\": \"cuferry-bundle-2\""));
	assert_int_equal(manifest_parse(json, len, &back, &e), CF_OK);
	assert_int_equal(back->nmembers, 1);
	assert_ptr_equal(back->members[0].product, nccl);
	assert_string_equal(back->members[0].version, "2.28.9");
	assert_int_equal(manifest_product_count(back), 2);
	assert_ptr_equal(manifest_product_at(back, 1), nccl);
	assert_string_equal(manifest_product_version_at(back, 1), "2.28.9");
	char *dir = manifest_install_name(back);
	assert_string_equal(dir, "cudnn-9.19.0.56-cuda13+nccl-2.28.9");
	free(dir);
	char *again = manifest_to_json(back, &len2);
	assert_string_equal(json, again);
	free(again);
	manifest_free(back);
	back = NULL;

	/* the reader's rules */
	struct { const char *from, *to, *says; int code; } cases[] = {
		{ "\"format\": \"cuferry-bundle-2\"", "\"format\": \"cuferry-bundle-1\"",
		  "'with' needs format 2", CF_INTEGRITY },
		{ "\"with\": {\n  \"nccl\"", "\"with\": {\n  \"cudnn\"", "another product than cudnn",
		  CF_INTEGRITY },
		{ "\"with\": {\n  \"nccl\"", "\"with\": {\n  \"nosuch\"", "not a product this unpacker knows",
		  CF_INTEGRITY },
		{ "\"version\": \"2.28.9\"", "\"version\": \"2.28.9/../x\"", "with.nccl.version",
		  CF_INTEGRITY },
		{ "\"version\": \"2.28.9\"", "\"versio\": \"2.28.9\"", "with.nccl.version is missing",
		  CF_INTEGRITY },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *at = strstr(json, cases[i].from);
		assert_non_null(at);
		char *bad = malloc(len + 64);
		snprintf(bad, len + 64, "%.*s%s%s", (int)(at - json), json, cases[i].to,
			 at + strlen(cases[i].from));
		struct cf_err be = { 0 };
		assert_int_equal(manifest_parse(bad, strlen(bad), &back, &be), cases[i].code);
		if (!strstr(be.msg, cases[i].says))
			fail_msg("case %zu: '%s' not in '%s'", i, cases[i].says, be.msg);
		assert_null(back);
		free(bad);
	}
	/* a member twice is impossible in JSON (duplicate keys are refused) */
	free(json);
	manifest_free(m);
}

static void test_manifest_case_and_dir_conflicts(void **state)
{
	(void)state;
	struct cf_err e = { 0 };
	uint8_t sha[32] = { 0 };
	struct manifest *m = sample();
	manifest_add_file(m, "lib/LIBCUDNN.so.9", 1, 0644, sha);
	manifest_sort_files(m);
	assert_int_equal(manifest_validate(m, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "case"));
	manifest_free(m);
	cf_err_clear(&e);
	m = sample();
	manifest_add_file(m, "lib", 1, 0644, sha);
	manifest_sort_files(m);
	assert_int_equal(manifest_validate(m, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "file and a directory"));
	manifest_free(m);
	cf_err_clear(&e);
	m = sample();
	manifest_add_file(m, "F.dll", 1, 0644, sha);
	manifest_add_file(m, "f.dll", 1, 0644, sha);
	manifest_sort_files(m);
	assert_int_equal(manifest_validate(m, &e), CF_INTEGRITY);
	manifest_free(m);
}

static void test_manifest_windows_bundle_has_no_links(void **state)
{
	(void)state;
	struct cf_err e = { 0 };
	struct manifest *m = sample();
	manifest_set(&m->platform, "windows-x86_64");
	assert_int_equal(manifest_validate(m, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "no links"));
	manifest_free(m);
	cf_err_clear(&e);
	m = sample();
	manifest_set(&m->platform, "windows-x86_64");
	for (size_t i = 0; i < m->nfiles; i++)
		if (m->files[i].type == MF_SYMLINK)
			m->files[i].type = MF_FILE, m->files[i].mode = 0644;
	assert_int_equal(manifest_validate(m, &e), CF_OK);
	manifest_free(m);
}

static void test_manifest_chunk_count_must_match(void **state)
{
	(void)state;
	struct cf_err e = { 0 };
	struct manifest *m = sample();
	m->compressed_size = 5 * 1048576;
	assert_int_equal(manifest_validate(m, &e), CF_INTEGRITY);
	manifest_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_round_trip_is_identical),
		cmocka_unit_test(test_pathrule_hostile_table),
		cmocka_unit_test(test_pathrule_lengths),
		cmocka_unit_test(test_manifest_strict_errors),
		cmocka_unit_test(test_manifest_names_its_product),
		cmocka_unit_test(test_manifest_members),
		cmocka_unit_test(test_bundle_format_names),
		cmocka_unit_test(test_manifest_case_and_dir_conflicts),
		cmocka_unit_test(test_manifest_chunk_count_must_match),
		cmocka_unit_test(test_manifest_windows_bundle_has_no_links),
	};
	return cmocka_run_group_tests_name("manifest", tests, NULL, NULL);
}
