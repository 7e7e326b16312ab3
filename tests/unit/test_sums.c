/* test_sums.c - SHA256SUMS is merged: other files' entries kept, the same name replaced,
 * removed parts dropped, foreign lines that are not entries dropped */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundler/sums.h"
#include "common/io.h"
#include "unpacker/cli/cli.h"
#include "unpacker/cli/cmdtable.h"

/* The parser reads the command table, which names every command's function: the whole
 * unpacker is linked, trust.c with it; no key compiled in (make TRUSTED_KEYS). */
const char *const trusted_keys_pem[] = { NULL };
const unsigned trusted_threshold = 0, trusted_statement_threshold = 0;

static char dir[] = "/tmp/cuferry-test-sums-XXXXXX";

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
	char *p = path_of(name);
	assert_int_equal(io_write_file_atomic(p, text, strlen(text), 0644), 0);
	free(p);
}

static char *sums(void)
{
	char *p = path_of("SHA256SUMS"), *text;
	size_t len;
	assert_int_equal(io_read_file(p, 1 << 20, &text, &len), 0);
	free(p);
	return text;
}

static void merge_keeps_others(void **state)
{
	struct cf_err e = { 0 };
	put("a.bundle", "one");
	put("b.bundle", "two");
	char *a = path_of("a.bundle"), *b = path_of("b.bundle");
	assert_int_equal(sums_merge(&a, 1, NULL, 0, &e), CF_OK);
	assert_int_equal(sums_merge(&b, 1, NULL, 0, &e), CF_OK);
	char *text = sums();
	assert_non_null(strstr(text, "  a.bundle\n"));
	assert_non_null(strstr(text, "  b.bundle\n"));
	free(text);
	/* The same name again: replaced, not repeated. */
	put("a.bundle", "changed");
	assert_int_equal(sums_merge(&a, 1, NULL, 0, &e), CF_OK);
	text = sums();
	assert_non_null(strstr(text, "  a.bundle\n"));
	assert_null(strstr(strstr(text, "  a.bundle\n") + 1, "  a.bundle\n"));
	/* sha256("changed") */
	assert_non_null(strstr(text, "d67e2e944994496c8d8ec76eed0cf9f09679448d584b532bebf941852a37f5ed  a.bundle"));
	free(text);
	free(a);
	free(b);
}

static void merge_drops_gone(void **state)
{
	struct cf_err e = { 0 };
	put("c.bundle.001", "p1");
	put("c.bundle.002", "p2");
	char *parts[] = { path_of("c.bundle.001"), path_of("c.bundle.002") };
	assert_int_equal(sums_merge(parts, 2, NULL, 0, &e), CF_OK);
	assert_int_equal(sums_merge(parts, 1, &parts[1], 1, &e), CF_OK);
	char *text = sums();
	assert_non_null(strstr(text, "  c.bundle.001\n"));
	assert_null(strstr(text, "c.bundle.002"));
	assert_non_null(strstr(text, "  b.bundle\n"));
	free(text);
	free(parts[0]);
	free(parts[1]);
}

static void cli_repair_and_version(void **state)
{
	char why[256];
	struct cli c;
	char *argv[] = { "unpacker", "x.bundle", "--repair", "--version", NULL };
	assert_int_equal(cli_parse(4, argv, cmd_table, &c, why, sizeof(why)), 0);
	assert_true(c.repair);
	assert_true(c.version);
	/* verify DIR is a kit's check now (unpacker/target/kitcheck.c: a directory that is no kit is a
	 * usage error there, test_everyday_unpacker.sh), not the command line's */
	char *kit[] = { "unpacker", "verify", dir, NULL };
	assert_int_equal(cli_parse(3, kit, cmd_table, &c, why, sizeof(why)), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);
}

int main(void)
{
	assert_non_null(mkdtemp(dir));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_keeps_others),
		cmocka_unit_test(merge_drops_gone),
		cmocka_unit_test(cli_repair_and_version),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	io_rmtree(dir);
	return failed;
}
