/* test_platform_env.c - the persistent environment on POSIX: there is none to edit, so every
 * call says ENOTSUP and hands back nothing (Windows: tests/windows/test_platform_win_env.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "common/platform.h"

static void not_supported(void **state)
{
	char *value = (char *)"untouched";
	int expandable = 7;
	(void)state;
	errno = 0;
	assert_int_equal(platform_env_read(PLATFORM_ENV_MACHINE, "PATH", &value, &expandable), -1);
	assert_int_equal(errno, ENOTSUP);
	assert_null(value);
	assert_int_equal(expandable, 0);
	errno = 0;
	assert_int_equal(platform_env_write(PLATFORM_ENV_USER, "PATH", "/x", 1), -1);
	assert_int_equal(errno, ENOTSUP);
	errno = 0;
	assert_int_equal(platform_env_delete(PLATFORM_ENV_USER, "CUDNN_PATH"), -1);
	assert_int_equal(errno, ENOTSUP);
	errno = 0;
	assert_int_equal(platform_env_announce(), -1);
	assert_int_equal(errno, ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_supported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
