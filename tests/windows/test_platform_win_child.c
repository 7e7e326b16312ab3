/* test_platform_win_child.c - the probe child's side of common/platform_win*.c under Wine: the
 * report pipe named by its HANDLE value and taken back (and nothing else taken for it), the
 * clean environment, System32 as the driver's directory, and descriptors that are not open
 * asked about and closed without the C runtime ending the process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/platform.h"

static void pipe_named_and_taken_back(void **state)
{
	int r = -1, w = -1, fd;
	char arg[32], got[16] = "";
	(void)state;
	assert_int_equal(platform_child_pipe(&r, &w, 4096), 0);
	assert_int_equal(platform_child_handle_arg(w, arg, sizeof(arg)), 0);
	/* the HANDLE's value, not the descriptor's number */
	assert_int_not_equal(strtoull(arg, NULL, 10), (unsigned long long)w);
	fd = platform_inherited_handle(arg);
	assert_true(fd >= 3);
	assert_int_equal(platform_write(fd, "ok", 2), 2);
	assert_int_equal(platform_read(r, got, sizeof(got) - 1), 2);
	assert_string_equal(got, "ok");
	platform_close(fd); /* the HANDLE behind w too: w is not closed again */
	platform_close(r);
	/* too small a buffer is an error, never a cut number */
	assert_int_equal(platform_child_pipe(&r, &w, 0), 0);
	assert_int_equal(platform_child_handle_arg(w, arg, 2), -1);
	platform_close(r);
	platform_close(w);
}

static void only_a_pipe_is_taken(void **state)
{
	char arg[32];
	(void)state;
	assert_int_equal(platform_inherited_handle(""), -1);
	assert_int_equal(platform_inherited_handle("0"), -1);
	assert_int_equal(platform_inherited_handle("12x"), -1);
	assert_int_equal(platform_inherited_handle("-4"), -1);
	assert_int_equal(platform_inherited_handle("99999999999999999999999"), -1);
	/* an open file is not a report pipe */
	char name[] = "cuferry-child-XXXXXX";
	int f = platform_temp_file(name);
	assert_true(f >= 0);
	assert_int_equal(platform_child_handle_arg(f, arg, sizeof(arg)), 0);
	assert_int_equal(platform_inherited_handle(arg), -1);
	platform_close(f);
	platform_unlink(name);
	/* nor is a descriptor's number that names no handle here */
	assert_int_equal(platform_inherited_handle("3"), -1);
}

static void closed_descriptors_are_safe(void **state)
{
	(void)state;
	char name[] = "cuferry-close-XXXXXX";
	int keep = platform_temp_file(name), other = platform_open("NUL", PLATFORM_OPEN_READ, 0);
	assert_true(keep >= 3);
	assert_true(other >= 3);
	assert_int_equal(platform_handle_valid(9999), 0);
	assert_int_equal(platform_handle_valid(-1), 0);
	/* closed, then asked about and closed again among the 2048 the C runtime may have */
	int gone = platform_open("NUL", PLATFORM_OPEN_READ, 0);
	platform_close(gone);
	assert_int_equal(platform_handle_valid(gone), 0);
	platform_close_other_handles(keep);
	assert_int_equal(platform_handle_valid(keep), 1);
	assert_int_equal(platform_handle_valid(other), 0);
	platform_close(keep);
	platform_unlink(name);
}

static void clean_environment(void **state)
{
	(void)state;
	const char *const *env = platform_clean_env();
	char sys[1024];
	assert_int_equal(platform_system_lib_dir(sys, sizeof(sys)), 0);
	assert_non_null(env[0]);
	assert_non_null(env[1]);
	assert_null(env[2]);
	assert_int_equal(strncmp(env[0], "SystemRoot=", 11), 0);
	assert_int_equal(strncmp(env[1], "PATH=", 5), 0);
	assert_string_equal(env[1] + 5, sys); /* System32 alone */
	assert_int_equal(strcasecmp(sys + strlen(sys) - 9, "\\system32"), 0);
	assert_int_equal(platform_lib_search_is_dirs(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pipe_named_and_taken_back),
		cmocka_unit_test(only_a_pipe_is_taken),
		cmocka_unit_test(closed_descriptors_are_safe),
		cmocka_unit_test(clean_environment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
