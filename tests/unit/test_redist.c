/* test_redist.c - NVIDIA's redistrib manifests (both generations) and the compatibility table */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bundler/source.h"
#include "common/io.h"
#include "manifests/compat.h"
#include "manifests/product.h"
#include "manifests/redist.h"

#define NV CUFERRY_TEST_DATA "nvidia/"

static struct redist *load(const char *file)
{
	char *text;
	size_t len;
	struct redist *r = NULL;
	struct cf_err e = { 0 };
	assert_int_equal(io_read_file(file, 16 << 20, &text, &len), 0);
	assert_int_equal(redist_parse(text, len, &r, &e), CF_OK);
	free(text);
	return r;
}

static void test_redist_variants_generation(void **state)
{
	(void)state;
	struct redist *r = load(NV "redistrib_cudnn_9.13.0.json");
	struct redist_artifact a;
	struct cf_err e = { 0 };
	char offered[64];
	assert_string_equal(redist_release_date(r), "2025-09-04");
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", "13", &a, &e), CF_OK);
	assert_string_equal(a.version, "9.13.0.50");
	assert_string_equal(a.cuda_variant, "13");
	assert_int_equal(a.size, 641302680);
	assert_non_null(strstr(a.relative_path, "_cuda13-archive.tar.xz"));
	/* where jq finds the entry again (the provenance record) */
	assert_string_equal(a.jq_path, ".[\"cudnn\"][\"linux-x86_64\"][\"cuda13\"]");
	redist_variants(r, "cudnn", "linux-x86_64", offered, sizeof(offered));
	assert_non_null(strstr(offered, "12"));
	assert_non_null(strstr(offered, "13"));
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", "11", &a, &e), CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "offered"));
	cf_err_clear(&e);
	assert_int_equal(redist_find(r, "cudnn", "linux-ppc64le", "13", &a, &e), CF_SOURCE);
	redist_free(r);
}

static void test_redist_single_variant_generation(void **state)
{
	(void)state;
	struct redist *r = load(NV "redistrib_cudnn_8.9.7.29.json");
	struct redist_artifact a;
	struct cf_err e = { 0 };
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", NULL, &a, &e), CF_OK);
	assert_string_equal(a.cuda_variant, "12");
	assert_string_equal(a.jq_path, ".[\"cudnn\"][\"linux-x86_64\"]"); /* one variant: no cudaN */
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", "11", &a, &e), CF_INCOMPATIBLE);
	redist_free(r);
}

static void test_redist_cuda_components(void **state)
{
	(void)state;
	const char *files[] = { NV "redistrib_cuda_12.8.0.json", NV "redistrib_cuda_11.8.0.json" };
	for (int i = 0; i < 2; i++) {
		struct redist *r = load(files[i]);
		struct redist_artifact a;
		struct cf_err e = { 0 };
		assert_int_equal(redist_find(r, "libcublas", "linux-x86_64", NULL, &a, &e), CF_OK);
		assert_true(a.size > 0);
		assert_int_equal(redist_find(r, "cuda_nvrtc", "windows-x86_64", NULL, &a, &e), CF_OK);
		redist_free(r);
	}
}

static void test_redist_rejects_bad_json(void **state)
{
	(void)state;
	struct redist *r = NULL;
	struct redist_artifact a;
	struct cf_err e = { 0 };
	const char dup[] = "{\"cudnn\": {}, \"cudnn\": {}}";
	assert_int_equal(redist_parse(dup, strlen(dup), &r, &e), CF_SOURCE);
	const char badsize[] = "{\"cudnn\": {\"name\": \"x\", \"version\": \"9.1.0.1\", \"linux-x86_64\": "
			       "{\"cuda12\": {\"relative_path\": \"a/b.tar.xz\", \"sha256\": "
			       "\"0000000000000000000000000000000000000000000000000000000000000000\", "
			       "\"size\": \"12x\"}}}}";
	cf_err_clear(&e);
	assert_int_equal(redist_parse(badsize, strlen(badsize), &r, &e), CF_OK);
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", "12", &a, &e), CF_SOURCE);
	redist_free(r);
	const char escape[] = "{\"cudnn\": {\"name\": \"x\", \"linux-x86_64\": {\"relative_path\": "
			      "\"../../etc/x\", \"sha256\": "
			      "\"0000000000000000000000000000000000000000000000000000000000000000\", "
			      "\"size\": \"1\"}}}";
	cf_err_clear(&e);
	assert_int_equal(redist_parse(escape, strlen(escape), &r, &e), CF_OK);
	assert_int_equal(redist_find(r, "cudnn", "linux-x86_64", NULL, &a, &e), CF_SOURCE);
	redist_free(r);
}

/* Found by fuzz_redist (and gcc -fanalyzer): a relative_path that is not a string. */
static void test_redist_regression_non_string_relative_path(void **state)
{
	(void)state;
	const char json[] = "{\"cudnn\": {\"name\": \"x\", \"linux-sbsa\": {\"relative_path\": [], "
			    "\"cuda11\": \"1\"}}}";
	struct redist *r = NULL;
	struct redist_artifact a;
	struct cf_err e = { 0 };
	char offered[64];
	assert_int_equal(redist_parse(json, strlen(json), &r, &e), CF_OK);
	redist_variants(r, "cudnn", "linux-sbsa", offered, sizeof(offered));
	assert_string_equal(offered, "");
	assert_int_equal(redist_find(r, "cudnn", "linux-sbsa", NULL, &a, &e), CF_SOURCE);
	redist_free(r);
}

static void test_compat_table(void **state)
{
	(void)state;
	struct compat_result c;
	struct cf_err e = { 0 };
	const struct product *def = product_default();
	assert_int_equal(compat_check(def, "9.19.0.56", "13", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "580.65.06");
	assert_int_equal(compat_check(def, "8.2.2.26", "11.4", "windows-x86_64", &c, &e), CF_OK);
	assert_int_equal(compat_check(def, "9.5.0", "12", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "525.60.13");
	assert_string_equal(c.sm_min, "5.0");
	/* The compute-capability floor of the CUDA 12 builds: 9.10.2 the last with pre-Turing
	 * device code, 9.11 and later from 7.5 (issue 27) */
	assert_int_equal(compat_check(def, "9.10.2.21", "12", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.sm_min, "5.0");
	/* its one CUDA 12 archive runs from 525 (the matrix's 12.0-12.9 row); 570.26 is its
	 * Blackwell row's, which those GPUs' drivers meet anyway */
	assert_string_equal(c.driver_min, "525.60.13");
	const char *const turing_only[] = { "9.11.0.98", "9.12.0.46", "9.14.0.64", "9.19.0.56" };
	for (size_t i = 0; i < sizeof(turing_only) / sizeof(turing_only[0]); i++) {
		assert_int_equal(compat_check(def, turing_only[i], "12", "linux-x86_64", &c, &e), CF_OK);
		assert_string_equal(c.sm_min, "7.5");
	}
	assert_int_equal(compat_check(def, "9.12.0.46", "13", "linux-x86_64", &c, &e), CF_OK);
	assert_int_equal(compat_check(def, "8.2.2.26", "12.0", "linux-x86_64", &c, &e), CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "11.4"));
	cf_err_clear(&e);
	assert_int_equal(compat_check(def, "9.0.0", "13", "linux-x86_64", &c, &e), CF_INCOMPATIBLE);
	cf_err_clear(&e);
	/* 8.9.7 came as two packages, each with its own driver minimum */
	assert_int_equal(compat_check(def, "8.9.7.29", "11.8", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "450.80.02");
	assert_int_equal(compat_check(def, "8.9.7.29", "12", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "525.60.13");
	assert_int_equal(compat_check(def, "8.9.7.29", "11", "windows-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "452.39");
	assert_int_equal(compat_check(def, "8.9.7.29", "12", "windows-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "527.41");
	assert_int_equal(compat_check(def, "7.6.5", "10.2", "linux-x86_64", &c, &e), CF_OK);
	assert_int_equal(c.known, 0);
	assert_true(compat_version_cmp("9.27.0", "9.27.0.42") == 0);
	assert_true(compat_version_cmp_full("580.65.06", "580.95.05") < 0);
}

/* compat_check reads only the product's rows (compat_kind): cuDNN's refuse 9.0.0 with CUDA 13,
 * NCCL, which has none (no support matrix in the data), is not refused by them; the CUDA 13
 * toolkit's driver floor still stands. */
static void test_compat_rows_are_the_products(void **state)
{
	(void)state;
	struct compat_result c;
	struct cf_err e = { 0 };
	const struct product *nccl = product_find("nccl");
	assert_non_null(nccl);
	assert_int_equal(compat_check(product_default(), "9.0.0", "13", "linux-x86_64", &c, &e),
			 CF_INCOMPATIBLE);
	assert_int_equal(c.ruled, 1);
	cf_err_clear(&e);
	assert_int_equal(compat_check(nccl, "9.0.0", "13", "linux-x86_64", &c, &e), CF_OK);
	assert_int_equal(c.ruled, 0);
	assert_int_equal(c.known, 0);
	assert_string_equal(c.driver_min, "580.65.06");
	assert_int_equal(compat_check(nccl, "2.28.9", "12", "linux-x86_64", &c, &e), CF_OK);
	assert_string_equal(c.driver_min, "525.60.13");
}

/* Each product's archive names are its own: NCCL's parser does not read cuDNN's. */
static void test_archive_names_per_product(void **state)
{
	(void)state;
	char v[64], c[16], p[32];
	const struct product *nccl = product_find("nccl");
	source_parse_archive_name(nccl, "nccl-linux-x86_64-2.28.9_cuda13-archive.tar.xz", v, sizeof(v),
				  c, sizeof(c), p, sizeof(p));
	assert_string_equal(v, "2.28.9");
	assert_string_equal(c, "13");
	assert_string_equal(p, "linux-x86_64");
	source_parse_archive_name(nccl, "cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", v,
				  sizeof(v), c, sizeof(c), p, sizeof(p));
	assert_string_equal(v, "");
	assert_string_equal(p, "");
}

static void test_source_archive_names(void **state)
{
	(void)state;
	char v[64], c[16], p[32];
	const struct product *def = product_default();
	source_parse_archive_name(def, "/x/cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz", v,
				  sizeof(v), c, sizeof(c), p, sizeof(p));
	assert_string_equal(v, "9.13.0.50");
	assert_string_equal(c, "13");
	assert_string_equal(p, "linux-x86_64");
	source_parse_archive_name(def, "cudnn-11.4-windows-x64-v8.2.2.26.zip", v, sizeof(v), c, sizeof(c),
				  p, sizeof(p));
	assert_string_equal(v, "8.2.2.26");
	assert_string_equal(c, "11.4");
	assert_string_equal(p, "windows-x86_64");
	source_parse_archive_name(def, "cudnn-11.3-linux-x64-v8.2.1.32.tgz", v, sizeof(v), c, sizeof(c), p,
				  sizeof(p));
	assert_string_equal(v, "8.2.1.32");
	assert_string_equal(c, "11.3");
	assert_string_equal(p, "linux-x86_64");
	source_parse_archive_name(def, "cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive.zip", v, sizeof(v), c,
				  sizeof(c), p, sizeof(p));
	assert_string_equal(v, "8.3.2.44");
	assert_string_equal(p, "windows-x86_64");
	source_parse_archive_name(def, "random.tar.xz", v, sizeof(v), c, sizeof(c), p, sizeof(p));
	assert_string_equal(v, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redist_variants_generation),
		cmocka_unit_test(test_redist_single_variant_generation),
		cmocka_unit_test(test_redist_cuda_components),
		cmocka_unit_test(test_redist_rejects_bad_json),
		cmocka_unit_test(test_redist_regression_non_string_relative_path),
		cmocka_unit_test(test_compat_table),
		cmocka_unit_test(test_source_archive_names),
		cmocka_unit_test(test_compat_rows_are_the_products),
		cmocka_unit_test(test_archive_names_per_product),
	};
	return cmocka_run_group_tests_name("redist", tests, NULL, NULL);
}
