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

/* Every row: a unique name, and every fact set (NULL would crash the code that asks). */
static void test_every_row_is_complete(void **state)
{
	(void)state;
	assert_true(product_count() >= 1);
	for (size_t i = 0; i < product_count(); i++) {
		const struct product *p = product_at(i);
		const char *facts[] = { p->name, p->display, p->description, p->mirror_path,
					p->redist_key, p->archive_stem, p->wheel_dist, p->wheel_dir,
					p->conda_name,
					p->version.major, p->version.minor, p->version.patch,
					p->lib_stem,
					p->prefix_stem, p->install_stem, p->bundle_id_stem,
					p->manifest_key, p->env_var, p->env_root_var, p->ldconf_name,
					p->profile_name, p->user_env_name,
					p->pkgconfig_name, p->cmake_package, p->module_name,
					p->compat_kind, p->gpu_check };
		for (size_t f = 0; f < sizeof(facts) / sizeof(facts[0]); f++) {
			assert_non_null(facts[f]);
			assert_true(facts[f][0] != '\0');
		}
		size_t n;
		const char *const *lists[] = { p->files.headers, p->files.linux_libs,
					       p->files.licences, p->version.headers };
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			count(lists[l], &n);
			assert_true(n >= 1);
		}
		/* May be empty (no Windows build, nothing opened by name), never NULL. */
		const char *const *may_be_empty[] = { p->files.import_libs, p->files.dlls,
						      p->cuda_libs_opened };
		for (size_t l = 0; l < sizeof(may_be_empty) / sizeof(may_be_empty[0]); l++) {
			assert_non_null(may_be_empty[l]);
			count(may_be_empty[l], &n);
		}
		assert_ptr_equal(product_find(p->name), p);
	}
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
	assert_string_equal(p->gpu_check, "nccl-allreduce");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cudnn_is_the_default_and_first_row),
		cmocka_unit_test(test_unknown_names_are_not_found),
		cmocka_unit_test(test_every_row_is_complete),
		cmocka_unit_test(test_nccl_is_the_second_row),
	};
	return cmocka_run_group_tests_name("product", tests, NULL, NULL);
}
