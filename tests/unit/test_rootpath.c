/* test_rootpath.c - paths inside an image resolve inside it: absolute link targets start at
 * the root, .. stops there, loops and missing names fail */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/rootpath.h"

static char root[64];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/cuferry-test-rootpath-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	char *dir = xasprintf("%s/usr/local/cuda-12.8/targets/x86_64-linux/lib", root);
	char *file = xasprintf("%s/libcudnn.so.9.1.0", dir), *alt = xasprintf("%s/etc/alternatives", root);
	int rc = io_mkdirs(dir, 0755) || io_write_file_atomic(file, "x", 1, 0644) || io_mkdirs(alt, 0755);
	free(alt);
	char *links[][2] = {
		{ "/etc/alternatives/cuda", "/usr/local/cuda-12.8" },       /* absolute, as dpkg's */
		{ "/usr/local/cuda", "/etc/alternatives/cuda" },
		{ "/usr/local/cuda-12.8/lib64", "targets/x86_64-linux/lib" }, /* relative */
		{ "/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcudnn.so.9", "libcudnn.so.9.1.0" },
		{ "/loop-a", "/loop-b" },
		{ "/loop-b", "loop-a" },
		{ "/escape", "../../../../../../etc" },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]) && rc == 0; i++) {
		char *at = xasprintf("%s%s", root, links[i][0]);
		rc = symlink(links[i][1], at);
		free(at);
	}
	free(dir);
	free(file);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return io_rmtree(root);
}

static void test_absolute_links_start_at_the_root(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(rootpath_resolve(root, "/usr/local/cuda/lib64/libcudnn.so.9", out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcudnn.so.9.1.0");
	/* .. after a link is the parent of where the link led, as in the kernel */
	assert_int_equal(rootpath_resolve(root, "/usr/local/cuda/./lib64/../lib//", out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/local/cuda-12.8/targets/x86_64-linux/lib");
}

static void test_dotdot_stops_at_the_root(void **state)
{
	(void)state;
	char out[PATH_MAX];
	/* ../../.. from the root is the root: /escape is the image's /etc, not the host's. */
	assert_int_equal(rootpath_resolve(root, "/escape/alternatives", out, sizeof(out)), 0);
	assert_string_equal(out, "/etc/alternatives");
	assert_int_equal(rootpath_resolve(root, "/", out, sizeof(out)), 0);
	assert_string_equal(out, "/");
}

static void test_loops_and_missing_names_fail(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(rootpath_resolve(root, "/loop-a", out, sizeof(out)), -1);
	assert_int_equal(rootpath_resolve(root, "/usr/local/cuda/lib64/libcudnn.so.8", out, sizeof(out)), -1);
	/* the host has /etc/passwd; the image does not */
	assert_int_equal(rootpath_resolve(root, "/escape/passwd", out, sizeof(out)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absolute_links_start_at_the_root),
		cmocka_unit_test(test_dotdot_stops_at_the_root),
		cmocka_unit_test(test_loops_and_missing_names_fail),
	};
	return cmocka_run_group_tests_name("rootpath", tests, setup, teardown);
}
