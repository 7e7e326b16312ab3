/* test_platform_win_env.c - the persistent environment in the registry under Wine (a private
 * prefix: tests/e2e/test_windows_unit.sh): a PATH far longer than setx's 1024 characters,
 * with %USERPROFILE% entries, round-trips exactly and stays REG_EXPAND_SZ, for the machine
 * and for the user; with unpacker/environment/winpath.c, adding the install's bin and removing it again
 * gives the value back byte for byte. The user's PATH is left that way, and written to
 * %CUFERRY_WIN_SCRATCH%\long-path.txt, for the script to compare with `reg query`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"
#include "unpacker/environment/winpath.h"

#define OURS "C:\\Program Files\\cuferry\\cudnn\\9.19.0.56-cuda12\\bin"

static char long_path[4096];

/* Over 1500 characters: %USERPROFILE% and %SystemRoot% entries, spaces, an empty entry and
 * a quoted one with a ';' in it, as real machines have them. */
static void make_long_path(void)
{
	size_t n = (size_t)snprintf(long_path, sizeof(long_path),
				    "%%SystemRoot%%\\system32;%%SystemRoot%%;%%USERPROFILE%%\\bin;;"
				    "\"C:\\Odd;Name\\bin\"");
	for (int i = 0; n < 1600; i++)
		n += (size_t)snprintf(long_path + n, sizeof(long_path) - n,
				      ";C:\\Program Files\\Vendor Tool %04d\\bin;%%USERPROFILE%%\\tools\\%d", i, i);
}

static void expect(enum platform_env_scope scope, const char *name, const char *want,
		   int want_expandable)
{
	char *got = NULL;
	int expandable = -1;
	assert_int_equal(platform_env_read(scope, name, &got, &expandable), 0);
	assert_string_equal(got, want);
	assert_int_equal(expandable, want_expandable);
	free(got);
}

static void round_trip(enum platform_env_scope scope)
{
	char *saved = NULL;
	int saved_expandable = 0;
	int had = platform_env_read(scope, "Path", &saved, &saved_expandable) == 0;
	assert_int_equal(platform_env_write(scope, "Path", long_path, 1), 0);
	expect(scope, "Path", long_path, 1);
	/* the install adds its bin first; uninstall's exact inverse restores the value */
	char *added = winpath_add(long_path, OURS, NULL, 0);
	assert_non_null(added);
	assert_int_equal(platform_env_write(scope, "Path", added, 1), 0);
	expect(scope, "Path", added, 1);
	char *stored = NULL;
	int expandable = 0;
	assert_int_equal(platform_env_read(scope, "Path", &stored, &expandable), 0);
	char *removed = winpath_remove(stored, OURS);
	assert_non_null(removed);
	assert_memory_equal(removed, long_path, strlen(long_path) + 1);
	assert_int_equal(platform_env_write(scope, "Path", removed, expandable), 0);
	expect(scope, "Path", long_path, 1);
	free(added);
	free(stored);
	free(removed);
	/* a plain value stays plain */
	assert_int_equal(platform_env_write(scope, "CUDNN_PATH", OURS, 0), 0);
	expect(scope, "CUDNN_PATH", OURS, 0);
	assert_int_equal(platform_env_delete(scope, "CUDNN_PATH"), 0);
	errno = 0;
	assert_int_equal(platform_env_read(scope, "CUDNN_PATH", &stored, &expandable), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(stored);
	assert_int_equal(platform_env_delete(scope, "CUDNN_PATH"), 0); /* not there: fine */
	if (scope == PLATFORM_ENV_MACHINE) { /* the machine's PATH is put back */
		if (had)
			assert_int_equal(platform_env_write(scope, "Path", saved, saved_expandable), 0);
		else
			assert_int_equal(platform_env_delete(scope, "Path"), 0);
	}
	free(saved);
}

static void machine_path(void **state)
{
	(void)state;
	round_trip(PLATFORM_ENV_MACHINE);
}

static void user_path(void **state)
{
	(void)state;
	round_trip(PLATFORM_ENV_USER);
	const char *scratch = getenv("CUFERRY_WIN_SCRATCH");
	char file[4096];
	snprintf(file, sizeof(file), "%s\\long-path.txt", scratch ? scratch : ".");
	FILE *f = fopen(file, "wb");
	assert_non_null(f);
	fputs(long_path, f);
	fclose(f);
}

static void names_and_announce(void **state)
{
	char *value = (char *)"untouched";
	int expandable = 7;
	(void)state;
	errno = 0;
	assert_int_equal(platform_env_read(PLATFORM_ENV_USER, "CuferryNoSuchVariable", &value, &expandable), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(value);
	/* UTF-8 names and values go through as they are, '/' included */
	assert_int_equal(platform_env_write(PLATFORM_ENV_USER, "CUFERRY_Ü", "D:/ü/bin", 0), 0);
	expect(PLATFORM_ENV_USER, "CUFERRY_Ü", "D:/ü/bin", 0);
	assert_int_equal(platform_env_delete(PLATFORM_ENV_USER, "CUFERRY_Ü"), 0);
	assert_int_equal(platform_env_announce(), 0);
}

int main(void)
{
	make_long_path();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(machine_path),
		cmocka_unit_test(user_path),
		cmocka_unit_test(names_and_announce),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
