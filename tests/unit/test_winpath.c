/* test_winpath.c - the registry PATH edit: ours first, everything else untouched and in
 * order, no duplicates, no length limit, and removal as the exact inverse. Portable C: the
 * same binary is cross-built and run under Wine (make windows-unit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unpacker/environment/winpath.h"

#define OURS "C:\\Program Files\\cuferry\\cudnn\\cudnn-9.19.0.56-cuda13\\bin"
#define OLD "C:\\Program Files\\cuferry\\cudnn\\cudnn-8.9.7.29-cuda12\\bin"

static void expect_add(const char *value, const char *const *prev, size_t nprev,
		       const char *want)
{
	char *got = winpath_add(value, OURS, prev, nprev);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void expect_round_trip(const char *value)
{
	char *added = winpath_add(value, OURS, NULL, 0);
	assert_non_null(added);
	assert_true(winpath_contains(added, OURS));
	assert_memory_equal(added, OURS, strlen(OURS));
	char *back = winpath_remove(added, OURS);
	assert_non_null(back);
	assert_string_equal(back, value);
	free(added);
	free(back);
}

static void ours_goes_first_others_untouched(void **state)
{
	(void)state;
	expect_add("", NULL, 0, OURS);
	expect_add("C:\\Windows\\system32;C:\\Windows", NULL, 0,
		   OURS ";C:\\Windows\\system32;C:\\Windows");
	/* unexpanded variables, empty entries, quotes and a trailing ';' stay as written */
	expect_add("%SystemRoot%\\system32;;\"C:\\a;b\";%USERPROFILE%\\bin;", NULL, 0,
		   OURS ";%SystemRoot%\\system32;;\"C:\\a;b\";%USERPROFILE%\\bin;");
	expect_add(";", NULL, 0, OURS ";;");
	expect_add(" C:\\x ", NULL, 0, OURS "; C:\\x ");
}

static void no_duplicates_of_ours(void **state)
{
	(void)state;
	/* already first: unchanged */
	expect_add(OURS ";C:\\Windows", NULL, 0, OURS ";C:\\Windows");
	/* elsewhere, in another case, with a trailing backslash or slash, quoted: moved first */
	expect_add("C:\\Windows;c:\\program files\\CUFERRY\\cudnn\\cudnn-9.19.0.56-cuda13\\BIN\\;D:\\x",
		   NULL, 0, OURS ";C:\\Windows;D:\\x");
	expect_add("\"" OURS "\";C:/Program Files/cuferry/cudnn/cudnn-9.19.0.56-cuda13/bin/;" OURS,
		   NULL, 0, OURS);
	/* a previous install's directory goes, a look-alike does not */
	static const char *const prev[] = { OLD };
	expect_add("C:\\a;" OLD ";" OLD "\\x;C:\\b", prev, 1, OURS ";C:\\a;" OLD "\\x;C:\\b");
	/* a directory below ours, or one that only starts like it, is another directory */
	expect_add(OURS "\\sub;" OURS "2", NULL, 0, OURS ";" OURS "\\sub;" OURS "2");
}

static void same_dir_rules(void **state)
{
	(void)state;
#define SAME(a, b) winpath_same_dir(a, strlen(a), b, strlen(b))
	assert_true(SAME("C:\\A\\b", "c:/a/B/"));
	assert_true(SAME("\"C:\\A\"", "C:\\A\\\\"));
	assert_true(SAME("C:\\", "c:\\"));
	assert_false(SAME("C:\\", "C:")); /* the drive's root is not its current directory */
	assert_false(SAME("", ""));
	assert_false(SAME("C:\\a", "C:\\ab"));
	assert_false(SAME("%SystemRoot%", "C:\\Windows")); /* nothing is expanded */
#undef SAME
}

static void longer_than_1024(void **state)
{
	(void)state;
	size_t n = 0, cap = 40000;
	char *value = malloc(cap);
	assert_non_null(value);
	value[0] = '\0';
	for (int i = 0; n < 5000; i++)
		n += (size_t)snprintf(value + n, cap - n, "%sC:\\Tools\\tool-%04d\\bin", i ? ";" : "", i);
	char *got = winpath_add(value, OURS, NULL, 0);
	assert_non_null(got);
	assert_int_equal(strlen(got), strlen(OURS) + 1 + strlen(value));
	assert_string_equal(got + strlen(OURS) + 1, value);
	free(got);
	expect_round_trip(value);
	free(value);
}

static void remove_is_the_inverse(void **state)
{
	static const char *const values[] = {
		"", ";", ";;", "C:\\a", "C:\\a;", ";C:\\a", "C:\\a;;C:\\b",
		"%USERPROFILE%\\bin;\"C:\\with;semi\";C:\\x\\", NULL };
	(void)state;
	for (size_t i = 0; values[i]; i++)
		expect_round_trip(values[i]);
	char *got = winpath_remove("C:\\a;" OURS "\\;C:\\b;" OURS, OURS);
	assert_string_equal(got, "C:\\a;C:\\b");
	free(got);
	got = winpath_remove("C:\\a;C:\\b", OURS);
	assert_string_equal(got, "C:\\a;C:\\b");
	free(got);
}

static void refuses_what_cannot_be_one_entry(void **state)
{
	(void)state;
	static const char *const bad[] = { "", "  ", "\"\"", "C:\\a;b", "C:\\\"a", NULL };
	for (size_t i = 0; bad[i]; i++) {
		errno = 0;
		assert_null(winpath_add("C:\\x", bad[i], NULL, 0));
		assert_int_equal(errno, EINVAL);
		assert_null(winpath_remove("C:\\x", bad[i]));
		assert_false(winpath_contains("C:\\x", bad[i]));
	}
	assert_null(winpath_add(NULL, OURS, NULL, 0));
	assert_false(winpath_contains("", OURS));
	assert_false(winpath_contains("C:\\a;\"" OURS, OURS "\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ours_goes_first_others_untouched),
		cmocka_unit_test(no_duplicates_of_ours),
		cmocka_unit_test(same_dir_rules),
		cmocka_unit_test(longer_than_1024),
		cmocka_unit_test(remove_is_the_inverse),
		cmocka_unit_test(refuses_what_cannot_be_one_entry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
