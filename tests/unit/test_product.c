/* test_product.c - the product registry (manifests/product.c): cuDNN is its first row and the
 * default, every row is found by its name and says every fact the code asks of it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "manifests/product.h"

static void test_cudnn_is_the_default_and_first_row(void **state)
{
	(void)state;
	const struct product *p = product_default();
	assert_non_null(p);
	assert_ptr_equal(p, product_at(0));
	assert_ptr_equal(p, product_find("cudnn"));
	assert_string_equal(p->display, "cuDNN");
	/* The names installs and bundles already carry: changing one breaks them. */
	assert_string_equal(p->mirror_path, "cudnn/redist");
	assert_string_equal(p->env_var, "CUDNN_PATH");
	assert_string_equal(p->ldconf_name, "00-cuferry-cudnn.conf");
	assert_string_equal(p->profile_name, "cuferry-cudnn.sh");
	assert_string_equal(p->install_stem, "cudnn-");
	assert_string_equal(p->version.headers[0], "cudnn_version.h");
	/* Its bundles stay as they were: no directory of include/ is carried. */
	assert_null(p->files.include_dirs[0]);
}

static void test_unknown_names_are_not_found(void **state)
{
	(void)state;
	assert_null(product_find("nccl-not-yet"));
	assert_null(product_find("NCCL"));
	assert_null(product_find(""));
	assert_null(product_find(NULL));
	assert_null(product_at(product_count()));
}

static void count(const char *const *list, size_t *n)
{
	for (*n = 0; list && list[*n]; (*n)++)
		assert_true(list[*n][0] != '\0');
}

/* Every row states every required fact: the list is the header's own (PRODUCT_REQUIRED_TEXT),
 * not one kept here, so a fact added there is checked in every row. */
#define FACT(field) { #field, offsetof(struct product, field) },
static const struct {
	const char *name;
	size_t offset;
} required[] = { PRODUCT_REQUIRED_TEXT(FACT) }, unique[] = { PRODUCT_UNIQUE_TEXT(FACT) };

static const char *fact(const struct product *p, size_t offset)
{
	return *(const char *const *)(const void *)((const char *)p + offset);
}

static void test_every_row_is_complete(void **state)
{
	(void)state;
	assert_true(product_count() >= 2);
	for (size_t i = 0; i < product_count(); i++) {
		const struct product *p = product_at(i);
		for (size_t f = 0; f < sizeof(required) / sizeof(required[0]); f++) {
			const char *v = fact(p, required[f].offset);
			if (!v || !v[0])
				fail_msg("product %zu (%s): %s is not set", i, p->name,
					 required[f].name);
		}
		const char *version_macros[] = { p->version.major, p->version.minor,
						 p->version.patch };
		for (size_t f = 0; f < 3; f++)
			assert_true(version_macros[f] && version_macros[f][0]);
		size_t n;
		const char *const *lists[] = { p->files.headers, p->files.linux_libs,
					       p->files.licences, p->version.headers };
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			count(lists[l], &n);
			assert_true(n >= 1);
		}
		/* May be empty (no Windows build, nothing opened by name), never NULL. */
		const char *const *may_be_empty[] = { p->files.import_libs, p->files.dlls,
						      p->files.include_dirs, p->cuda_libs_opened };
		for (size_t l = 0; l < sizeof(may_be_empty) / sizeof(may_be_empty[0]); l++) {
			assert_non_null(may_be_empty[l]);
			count(may_be_empty[l], &n);
		}
		/* A Windows import library without its DLL (or the reverse) is half a build. */
		assert_int_equal(p->files.import_libs[0] == NULL, p->files.dlls[0] == NULL);
		assert_ptr_equal(product_find(p->name), p);
	}
}

/* No two rows share a name or anything they put on the target (PRODUCT_UNIQUE_TEXT): two
 * products with one prefix, ld.so.conf.d file or variable would overwrite each other. */
static void test_names_are_unique_across_rows(void **state)
{
	(void)state;
	assert_true(sizeof(unique) / sizeof(unique[0]) >= 6);
	for (size_t f = 0; f < sizeof(unique) / sizeof(unique[0]); f++)
		for (size_t i = 0; i < product_count(); i++)
			for (size_t j = i + 1; j < product_count(); j++)
				if (strcmp(fact(product_at(i), unique[f].offset),
					   fact(product_at(j), unique[f].offset)) == 0)
					fail_msg("%s and %s share %s '%s'", product_at(i)->name,
						 product_at(j)->name, unique[f].name,
						 fact(product_at(i), unique[f].offset));
}

static void test_nccl_is_the_second_row(void **state)
{
	(void)state;
	const struct product *p = product_find("nccl");
	assert_non_null(p);
	assert_ptr_equal(p, product_at(1));
	assert_string_equal(p->display, "NCCL");
	assert_string_equal(p->mirror_path, "nccl/redist");
	assert_string_equal(p->prefix_stem, "nccl");
	assert_string_equal(p->env_var, "NCCL_HOME");
	assert_string_equal(p->ldconf_name, "00-cuferry-nccl.conf");
	assert_null(p->ldconf_legacy_name); /* only cuDNN had an older name */
	assert_string_equal(p->pkgconfig_name, "nccl");
	assert_string_equal(p->cmake_package, "NCCL");
	assert_string_equal(p->version.headers[0], "nccl.h");
	assert_null(p->files.import_libs[0]); /* no Windows build */
	assert_null(p->files.dlls[0]);
	/* 2.28's device API headers: include/nccl_device/, nested */
	assert_string_equal(p->files.include_dirs[0], "nccl_device");
	assert_null(p->files.include_dirs[1]);
	assert_string_equal(p->gpu_check, "nccl-allreduce");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cudnn_is_the_default_and_first_row),
		cmocka_unit_test(test_unknown_names_are_not_found),
		cmocka_unit_test(test_every_row_is_complete),
		cmocka_unit_test(test_names_are_unique_across_rows),
		cmocka_unit_test(test_nccl_is_the_second_row),
	};
	return cmocka_run_group_tests_name("product", tests, NULL, NULL);
}
