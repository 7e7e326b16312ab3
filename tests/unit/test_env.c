/* test_env.c - reading the ld cache as the loader sees it (doctor and validation use it) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "unpacker/env.h"

struct hits {
	int n;
	char first[512], flags[128];
};

static void collect(const char *path, const char *flags, void *ctx)
{
	struct hits *h = ctx;
	if (h->n++ == 0) {
		snprintf(h->first, sizeof(h->first), "%s", path);
		snprintf(h->flags, sizeof(h->flags), "%s", flags);
	}
}

static void test_ld_cache_finds_a_system_library(void **state)
{
	(void)state;
	struct hits h = { 0 };
	/* zlib is in every Debian ld cache (libarchive, which the unpacker links, needs it). */
	assert_int_equal(env_ld_cache_find("libz.so.1", collect, &h), 0);
	assert_true(h.n >= 1);
	assert_true(io_exists(h.first));
	assert_non_null(strstr(h.first, "libz.so.1"));
	assert_non_null(strstr(h.flags, "libc6"));
}

static void only_unversioned(const char *path, const char *flags, void *ctx)
{
	(void)flags;
	(void)ctx;
	assert_null(strstr(path, "libz.so.1"));
}

static void test_ld_cache_matches_the_whole_soname(void **state)
{
	(void)state;
	struct hits h = { 0 };
	/* "libz.so" is a prefix of "libz.so.1": it must not match that entry. */
	assert_int_equal(env_ld_cache_find("libz.so", only_unversioned, NULL), 0);
	assert_int_equal(env_ld_cache_find("libno-such-library-here.so.7", collect, &h), 0);
	assert_int_equal(h.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ld_cache_finds_a_system_library),
		cmocka_unit_test(test_ld_cache_matches_the_whole_soname),
	};
	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
