/* test_devfiles.c - the pkg-config and CMake files the bundler adds, and the modulefiles the
 * unpacker writes: which files, what they say, and the trees that get none */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundler/devfiles.h"
#include "common/io.h"
#include "manifests/product.h"
#include "unpacker/environment/modulefile.h"

static char *scratch(void)
{
	char *dir = xstrdup("/tmp/cuferry-devfiles-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void add(struct tree *t, const char *path)
{
	t->entries = xrealloc(t->entries, (t->count + 1) * sizeof(*t->entries));
	struct tree_entry ent = { .path = xstrdup(path), .src = xstrdup("/dev/null"), .mode = 0644 };
	t->entries[t->count++] = ent;
}

static char *generated(const struct tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->entries[i].path, path) == 0) {
			char *text = NULL;
			assert_int_equal(io_read_file(t->entries[i].src, 1 << 16, &text, NULL), 0);
			return text;
		}
	return NULL;
}

static void test_linux_tree_gets_relocatable_files(void **state)
{
	(void)state;
	char *work = scratch();
	struct tree t = { .product = NULL };
	t.product = product_default();
	struct cf_err e = { 0 };
	add(&t, "lib/libcudnn.so.9");
	add(&t, "lib/libcudnn_graph.so.9");
	add(&t, "lib/libcudnn_ops.so.9");
	add(&t, "lib/libcudnn_ops.so");
	assert_int_equal(devfiles_add(&t, "9.19.0.56", work, &e), CF_OK);
	assert_int_equal(t.count, 7);
	char *pc = generated(&t, "lib/pkgconfig/cudnn.pc");
	assert_non_null(pc);
	assert_non_null(strstr(pc, "prefix=${pcfiledir}/../..\n"));
	assert_non_null(strstr(pc, "Version: 9.19.0.56\n"));
	/* no lib/libcudnn.so in this tree: the soname itself is linked */
	assert_non_null(strstr(pc, "Libs: -L${libdir} -l:libcudnn.so.9\n"));
	char *config = generated(&t, "lib/cmake/CUDNN/CUDNNConfig.cmake");
	assert_non_null(config);
	assert_non_null(strstr(config, "${CMAKE_CURRENT_LIST_DIR}/../../.."));
	assert_non_null(strstr(config, "add_library(CUDNN::cudnn SHARED IMPORTED)"));
	assert_non_null(strstr(config, "add_library(CUDNN::cudnn_graph SHARED IMPORTED)"));
	assert_non_null(strstr(config, "add_library(CUDNN::cudnn_ops SHARED IMPORTED)"));
	assert_null(strstr(config, "/opt/")); /* nothing absolute */
	char *version = generated(&t, "lib/cmake/CUDNN/CUDNNConfigVersion.cmake");
	assert_non_null(strstr(version, "NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL \"9\""));
	free(pc);
	free(config);
	free(version);
	tree_free(&t);
	io_rmtree(work);
	free(work);
}

static void test_dev_link_and_source_files_win(void **state)
{
	(void)state;
	char *work = scratch();
	struct tree t = { .product = NULL };
	t.product = product_default();
	struct cf_err e = { 0 };
	add(&t, "lib/libcudnn.so.9");
	add(&t, "lib/libcudnn.so");
	add(&t, "lib/pkgconfig/cudnn.pc"); /* the source's own: kept, not replaced */
	assert_int_equal(devfiles_add(&t, "9.1.0", work, &e), CF_OK);
	assert_int_equal(t.count, 5);
	assert_string_equal(t.entries[2].src, "/dev/null"); /* still the source's file */
	char *config = generated(&t, "lib/cmake/CUDNN/CUDNNConfig.cmake");
	assert_non_null(config);
	free(config);
	tree_free(&t);
	io_rmtree(work);
	free(work);
}

static void test_windows_tree_gets_none(void **state)
{
	(void)state;
	char *work = scratch();
	struct tree t = { .product = NULL };
	t.product = product_default();
	struct cf_err e = { 0 };
	add(&t, "bin/cudnn64_9.dll");
	add(&t, "lib/x64/cudnn.lib");
	assert_int_equal(devfiles_add(&t, "9.19.0.56", work, &e), CF_OK);
	assert_int_equal(t.count, 2);
	tree_free(&t);
	io_rmtree(work);
	free(work);
}

static void test_modulefiles_follow_install_use_uninstall(void **state)
{
	(void)state;
	char *root = scratch();
	char *prefix = xasprintf("%s/opt/cudnn", root), *inst = xasprintf("%s/cudnn-9.1.0-cuda12/bin", prefix);
	assert_int_equal(io_mkdirs(inst, 0755), 0);
	char *meta = xasprintf("%s/.cuferry", prefix);
	assert_int_equal(io_mkdirs(meta, 0755), 0);
	free(meta);
	struct layout c;
	layout_init(&c, root, "/opt/cudnn", product_default());
	struct cf_err e = { 0 };
	assert_int_equal(modulefile_install(&c, "/mods", "cudnn-9.1.0-cuda12", &e), CF_OK);
	char *lua = NULL, *ver = NULL, *path = xasprintf("%s/mods/cudnn/9.1.0-cuda12.lua", root);
	assert_int_equal(io_read_file(path, 1 << 16, &lua, NULL), 0);
	assert_non_null(strstr(lua, "local root = \"/opt/cudnn/cudnn-9.1.0-cuda12\""));
	assert_non_null(strstr(lua, "append_path(\"PATH\", pathJoin(root, \"bin\"))")); /* bin/ exists */
	assert_null(strstr(lua, "PKG_CONFIG_PATH")); /* an old bundle: no .pc, no line */
	char *dot = xasprintf("%s/mods/cudnn/.version", root);
	assert_int_equal(io_read_file(dot, 1 << 16, &ver, NULL), 0);
	assert_non_null(strstr(ver, "set ModulesVersion \"9.1.0-cuda12\""));
	assert_int_equal(modulefile_remove(&c, "cudnn-9.1.0-cuda12", &e), CF_OK);
	assert_int_equal(modulefile_set_default(&c, NULL, &e), CF_OK);
	assert_false(io_exists(path));
	assert_false(io_exists(dot));
	/* a quote in a path would break out of the files' strings: refused */
	assert_int_equal(modulefile_install(&c, "/mods\"x", "cudnn-9.1.0-cuda12", &e), CF_USAGE);
	free(lua);
	free(ver);
	free(path);
	free(dot);
	free(inst);
	free(prefix);
	layout_free(&c);
	io_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_tree_gets_relocatable_files),
		cmocka_unit_test(test_dev_link_and_source_files_win),
		cmocka_unit_test(test_windows_tree_gets_none),
		cmocka_unit_test(test_modulefiles_follow_install_use_uninstall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
