/* test_mapped.c - the one search of the libraries mapped into a process (validation's probe
 * child reports them): filters, the loader's paths or the real ones, nothing that does not match */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "unpacker/validate/mapped.h"

static const char *const cmocka_only[] = { "libcmocka", NULL };
static const char *const jansson_only[] = { "libjansson", NULL };
static const char *const both[] = { "libcmocka", "libjansson", NULL };

static void test_a_filter_finds_the_loaded_library_as_loaded(void **state)
{
	(void)state;
	json_t *list = mapped_libraries(cmocka_only, MAPPED_AS_LOADED);
	size_t i;
	json_t *p;
	assert_true(json_array_size(list) >= 1); /* this test runs inside libcmocka */
	json_array_foreach(list, i, p) {
		assert_non_null(strstr(json_string_value(p), "libcmocka"));
		assert_true(io_exists(json_string_value(p)));
	}
	json_decref(list);
}

static void test_real_paths_are_the_loaded_ones_resolved(void **state)
{
	(void)state;
	json_t *loaded = mapped_libraries(cmocka_only, MAPPED_AS_LOADED);
	json_t *real = mapped_libraries(cmocka_only, MAPPED_REAL);
	char want[PATH_MAX];
	assert_int_equal(json_array_size(real), json_array_size(loaded));
	for (size_t i = 0; i < json_array_size(real); i++) {
		assert_non_null(realpath(json_string_value(json_array_get(loaded, i)), want));
		assert_string_equal(json_string_value(json_array_get(real, i)), want);
	}
	json_decref(loaded);
	json_decref(real);
}

static void test_several_filters_match_either(void **state)
{
	(void)state;
	json_t *a = mapped_libraries(cmocka_only, MAPPED_AS_LOADED);
	json_t *b = mapped_libraries(jansson_only, MAPPED_AS_LOADED);
	json_t *ab = mapped_libraries(both, MAPPED_AS_LOADED);
	assert_true(json_array_size(b) >= 1);
	assert_int_equal(json_array_size(ab), json_array_size(a) + json_array_size(b));
	json_decref(a);
	json_decref(b);
	json_decref(ab);
}

static void test_nothing_matches_nothing(void **state)
{
	(void)state;
	static const char *const none[] = { "libno-such-library-here", NULL };
	json_t *list = mapped_libraries(none, MAPPED_REAL);
	assert_non_null(list);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_filter_finds_the_loaded_library_as_loaded),
		cmocka_unit_test(test_real_paths_are_the_loaded_ones_resolved),
		cmocka_unit_test(test_several_filters_match_either),
		cmocka_unit_test(test_nothing_matches_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
