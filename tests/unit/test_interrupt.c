/* test_interrupt.c - an interrupt only sets a flag, and the main path words it by its signal */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>

#include "common/interrupt.h"

static void expect_interrupt(int sig, const char *name)
{
	struct cf_err e = { 0 };
	raise(sig);
	assert_true(interrupt_pending() != 0);
	assert_int_equal(interrupt_check(&e), CF_INSTALL);
	assert_non_null(strstr(e.msg, name));
	assert_non_null(strstr(e.msg, "stopped and cleaned up"));
}

static void test_nothing_pending_at_first(void **state)
{
	(void)state;
	struct cf_err e = { 0 };
	interrupt_install();
	assert_int_equal(interrupt_pending(), 0);
	assert_int_equal(interrupt_check(&e), CF_OK);
}

static void test_each_signal_is_named(void **state)
{
	(void)state;
	interrupt_install();
	expect_interrupt(SIGHUP, "interrupted by SIGHUP");
	expect_interrupt(SIGINT, "interrupted by SIGINT");
	expect_interrupt(SIGTERM, "interrupted by SIGTERM");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_pending_at_first),
		cmocka_unit_test(test_each_signal_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
