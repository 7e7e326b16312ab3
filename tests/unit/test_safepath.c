/* test_safepath.c - the prefix rule, the directory walk (links out of a --root image, owner and
 * mode of every directory when run as root), and the manifest field rules the review asked for */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "manifests/manifest.h"
#include "unpacker/target/safepath.h"

static void prefix_rule(void **state)
{
	static const char *const good[] = { "/opt/cudnn", "/home/j.doe@corp/.local/opt/cudnn",
					    "/srv/a_b+c-1.2", NULL };
	static const char *const bad[] = { "cudnn", "./cudnn", "/", "/opt/cudnn/", "/opt//cudnn",
					   "/opt/./cudnn", "/opt/../cudnn", "/opt/..", "/opt/a b",
					   "/opt/$(id)", "/opt/a;b", "/opt/a\nb", "/opt/'q'", "", NULL };
	char why[256];
	(void)state;
	for (size_t i = 0; good[i]; i++)
		assert_int_equal(safepath_prefix_rule(good[i], why, sizeof(why)), 0);
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(safepath_prefix_rule(bad[i], why, sizeof(why)), -1);
		assert_null(strchr(why, '\n')); /* one line, whatever the prefix held */
	}
}

static char *scratch(void)
{
	char *dir = xstrdup("/tmp/cuferry-safepath-XXXXXX");
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755);
	return dir;
}

static void links_inside_root(void **state)
{
	struct cf_err e = { 0 };
	char *root = scratch(), *opt = xasprintf("%s/opt", root);
	(void)state;
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_OK);
	assert_int_equal(symlink("/", opt), 0);
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "symbolic link"));
	unlink(opt);
	assert_int_equal(symlink("..", opt), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_INCOMPATIBLE);
	unlink(opt);
	rmdir(root);
	free(opt);
	free(root);
}

static void owners_when_root(void **state)
{
	struct cf_err e = { 0 };
	(void)state;
	if (geteuid() != 0)
		skip();
	char *root = scratch(), *opt = xasprintf("%s/opt", root), *sticky = xasprintf("%s/tmp", root);
	char *below = xasprintf("%s/tmp/cudnn", root);
	assert_int_equal(mkdir(opt, 0755), 0);
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_OK);
	chmod(opt, 0775);
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_INCOMPATIBLE);
	chmod(opt, 0755);
	assert_int_equal(chown(opt, 65534, 65534), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_dir(root, "/opt/cudnn", "the prefix", &e), CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "not root"));
	/* Sticky /tmp: refused while the name below it is still to be made, fine once it exists
	 * and is root's 0755. */
	assert_int_equal(mkdir(sticky, 0755), 0);
	chmod(sticky, 01777);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_dir(root, "/tmp/cudnn", "the prefix", &e), CF_INCOMPATIBLE);
	assert_int_equal(mkdir(below, 0755), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_dir(root, "/tmp/cudnn", "the prefix", &e), CF_OK);
	/* Ubuntu's /var/log (root:syslog 0775): fine above the log's directory, not the prefix's;
	 * a group that is not a system group is refused for the log too. */
	char *log = xasprintf("%s/tmp/cudnn/log", root);
	chmod(below, 0775);
	assert_int_equal(chown(below, 0, 4), 0);
	assert_int_equal(mkdir(log, 0755), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_log_dir(root, "/tmp/cudnn/log", &e), CF_OK);
	assert_int_equal(safepath_check_dir(root, "/tmp/cudnn/log", "the prefix", &e), CF_INCOMPATIBLE);
	assert_int_equal(chown(below, 0, 5000), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_log_dir(root, "/tmp/cudnn/log", &e), CF_INCOMPATIBLE);
	chmod(log, 0775);
	assert_int_equal(chown(below, 0, 4), 0);
	assert_int_equal(chown(log, 0, 4), 0);
	cf_err_clear(&e);
	assert_int_equal(safepath_check_log_dir(root, "/tmp/cudnn/log", &e), CF_INCOMPATIBLE);
	rmdir(log);
	free(log);
	rmdir(below);
	rmdir(sticky);
	rmdir(opt);
	rmdir(root);
	free(below);
	free(sticky);
	free(opt);
	free(root);
}

static void times_and_versions(void **state)
{
	(void)state;
	assert_true(manifest_parse_time("2026-11-29T17:03:20Z") > 0);
	assert_int_equal(manifest_parse_time("2026-1-1T0:0:0Z"), -1);
	assert_int_equal(manifest_parse_time("2026-02-30T00:00:00Z"), -1);
	assert_int_equal(manifest_parse_time("2026-11-29T25:03:20Z"), -1);
	assert_int_equal(manifest_parse_time("2026-11-29 17:03:20Z"), -1);
	assert_int_equal(manifest_parse_time("2026-11-29T17:03:20+00:00"), -1);
	assert_true(manifest_version_compare("9.2.0", "9.19.0") < 0);
	assert_true(manifest_version_compare("9.19.0.56", "9.19.0") > 0);
	assert_int_equal(manifest_version_compare("9.19", "9.19.0"), 0);
	assert_true(manifest_version_compare("10", "9.99") > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prefix_rule),
		cmocka_unit_test(links_inside_root),
		cmocka_unit_test(owners_when_root),
		cmocka_unit_test(times_and_versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
