/* test_cli.c - the unpacker's command line (unpacker/cli/cli.c, DESIGN.md §8): every option in
 * each of its forms, the Windows switches (/silent, /S, /D=, /log=), verbs, and every usage
 * error with its exit code (1) and its one-line reason */
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

#include "common/err.h"
#include "common/io.h"
#include "unpacker/cli/cli.h"

#define MAX_ARGS 40

/* parse("install", "x.bundle", NULL): argv[0] is the program. */
static int parse_v(struct cli *c, char *why, const char *first, va_list ap)
{
	char *argv[MAX_ARGS] = { "unpacker" };
	int argc = 1;
	for (const char *a = first; a; a = va_arg(ap, const char *)) {
		assert_true(argc < MAX_ARGS);
		argv[argc++] = (char *)a;
	}
	why[0] = '\0';
	return cli_parse(argc, argv, c, why, 256);
}

static int parse(struct cli *c, char *why, const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	int r = parse_v(c, why, first, ap);
	va_end(ap);
	return r;
}

/* A usage error: exit code 1 (CF_USAGE) and a reason containing want. */
static void usage_error(const char *want, const char *first, ...)
{
	struct cli c;
	char why[256];
	va_list ap;
	va_start(ap, first);
	int r = parse_v(&c, why, first, ap);
	va_end(ap);
	assert_int_equal(r, CF_USAGE);
	if (!strstr(why, want))
		fail_msg("reason '%s' does not contain '%s'", why, want);
	assert_null(strchr(why, '\n'));
}

static void test_defaults(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	assert_int_equal(parse(&c, why, NULL), 0);
	assert_string_equal(c.verb, "install");
	assert_null(c.arg);
	assert_string_equal(c.root, "");
	assert_int_equal(c.gpu, -1);
	assert_int_equal(c.verb_given, 0);
	assert_int_equal(parse(&c, why, "x.bundle", NULL), 0);
	assert_string_equal(c.verb, "install"); /* unpacker BUNDLE */
	assert_string_equal(c.arg, "x.bundle");
	assert_int_equal(c.verb_given, 0);
}

static void test_verbs(void **state)
{
	(void)state;
	static const char *const verbs[] = { "install", "verify", "validate", "list", "use",
					     "uninstall", "env", "doctor", "help" };
	struct cli c;
	char why[256];
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		assert_int_equal(parse(&c, why, verbs[i], "arg", NULL), 0);
		assert_string_equal(c.verb, verbs[i]);
		assert_string_equal(c.arg, "arg");
		assert_int_equal(c.verb_given, 1);
	}
	assert_int_equal(parse(&c, why, "version", NULL), 0);
	assert_int_equal(c.version, 1);
	/* a verb's name after the verb is its argument: a bundle may be called "list" */
	assert_int_equal(parse(&c, why, "install", "list", NULL), 0);
	assert_string_equal(c.verb, "install");
	assert_string_equal(c.arg, "list");
}

static void test_flags(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	struct { const char *opt; size_t offset; } flags[] = {
		{ "--silent", offsetof(struct cli, silent) },
		{ "--quiet", offsetof(struct cli, silent) },
		{ "--no-env", offsetof(struct cli, no_env) },
		{ "--no-validate", offsetof(struct cli, no_validate) },
		{ "--require-gpu", offsetof(struct cli, require_gpu) },
		{ "--allow-downgrade", offsetof(struct cli, allow_downgrade) },
		{ "--allow-expired", offsetof(struct cli, allow_expired) },
		{ "--force", offsetof(struct cli, force) },
		{ "--help", offsetof(struct cli, help) },
		{ "-h", offsetof(struct cli, help) },
		{ "--keep-failed", offsetof(struct cli, keep_failed) },
		{ "--quick-validate", offsetof(struct cli, quick) },
		{ "--keep-current", offsetof(struct cli, keep_current) },
		{ "--dry-run", offsetof(struct cli, dry_run) },
		{ "--verbose", offsetof(struct cli, verbose) },
		{ "-v", offsetof(struct cli, verbose) },
		{ "--repair", offsetof(struct cli, repair) },
		{ "--version", offsetof(struct cli, version) },
		{ "--env=user", offsetof(struct cli, env_user) },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		assert_int_equal(parse(&c, why, "install", flags[i].opt, NULL), 0);
		if (*(int *)((char *)&c + flags[i].offset) != 1)
			fail_msg("%s did not set its flag", flags[i].opt);
	}
	/* options before the verb and the bundle, and after them */
	assert_int_equal(parse(&c, why, "--no-env", "verify", "x.bundle", "--force", NULL), 0);
	assert_string_equal(c.verb, "verify");
	assert_int_equal(c.no_env, 1);
	assert_int_equal(c.force, 1);
}

/* --name VALUE and --name=VALUE, for every option with a value. */
static void test_values(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	struct { const char *name; size_t offset; } values[] = {
		{ "--prefix", offsetof(struct cli, prefix) },
		{ "--root", offsetof(struct cli, root) },
		{ "--log", offsetof(struct cli, log_file) },
		{ "--json", offsetof(struct cli, json_file) },
		{ "--shell", offsetof(struct cli, shell) },
		{ "--cuda", offsetof(struct cli, cuda) },
		{ "--platform", offsetof(struct cli, platform) },
		{ "--modulefiles", offsetof(struct cli, modulefiles) },
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char joined[64];
		snprintf(joined, sizeof(joined), "%s=/v/joined", values[i].name);
		assert_int_equal(parse(&c, why, values[i].name, "/v/apart", "x.bundle", NULL), 0);
		assert_string_equal(*(const char **)((char *)&c + values[i].offset), "/v/apart");
		assert_string_equal(c.arg, "x.bundle"); /* the value is not taken as the bundle */
		assert_int_equal(parse(&c, why, joined, NULL), 0);
		assert_string_equal(*(const char **)((char *)&c + values[i].offset), "/v/joined");
		usage_error("needs a value", "install", values[i].name, NULL);
	}
	/* a value that starts with '-' is still the value */
	assert_int_equal(parse(&c, why, "--log", "-", NULL), 0);
	assert_string_equal(c.log_file, "-");
	/* the last one wins */
	assert_int_equal(parse(&c, why, "--prefix", "/a", "--prefix=/b", NULL), 0);
	assert_string_equal(c.prefix, "/b");
}

static void test_gpu(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	assert_int_equal(parse(&c, why, "validate", "--gpu", "0", NULL), 0);
	assert_int_equal(c.gpu, 0);
	assert_int_equal(parse(&c, why, "validate", "--gpu=1023", NULL), 0);
	assert_int_equal(c.gpu, 1023);
	usage_error("'--gpu'", "validate", "--gpu", "1024", NULL);
	usage_error("'--gpu'", "validate", "--gpu", "-1", NULL);
	usage_error("'--gpu'", "validate", "--gpu", "x", NULL);
	usage_error("'--gpu'", "validate", "--gpu", "", NULL);
	usage_error("'--gpu'", "validate", "--gpu", " 3", NULL);
	usage_error("'--gpu'", "validate", "--gpu", "+3", NULL);
	usage_error("'--gpu'", "validate", "--gpu", "99999999999999999999", NULL);
	usage_error("'--gpu=2x'", "validate", "--gpu=2x", NULL);
	usage_error("'--gpu'", "validate", "--gpu", NULL);
}

static void test_trust_lists(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	assert_int_equal(parse(&c, why, "--trust", "a.pub", "--trust=b.pub", "--trust-fingerprint",
			       "ab", "--trust-fingerprint=cd", "x.bundle", NULL), 0);
	assert_int_equal(c.ntrust_files, 2);
	assert_string_equal(c.trust_files[0], "a.pub");
	assert_string_equal(c.trust_files[1], "b.pub");
	assert_int_equal(c.nfingerprints, 2);
	assert_string_equal(c.fingerprints[0], "ab");
	assert_string_equal(c.fingerprints[1], "cd");
	assert_string_equal(c.arg, "x.bundle");
	usage_error("'--trust'", "--trust", NULL);
	usage_error("'--trust-fingerprint'", "--trust-fingerprint", NULL);
	/* at most CLI_MAX_TRUST of each */
	char *argv[2 * CLI_MAX_TRUST + 3] = { "unpacker" };
	int argc = 1;
	for (int i = 0; i <= CLI_MAX_TRUST; i++) {
		argv[argc++] = "--trust";
		argv[argc++] = "k.pub";
	}
	assert_int_equal(cli_parse(argc, argv, &c, why, sizeof(why)), CF_USAGE);
	assert_string_equal(why, "option '--trust' given more than 16 times");
	assert_int_equal(cli_parse(argc - 2, argv, &c, why, sizeof(why)), 0);
	assert_int_equal(c.ntrust_files, CLI_MAX_TRUST);
}

/* The Windows installer conventions: /silent /S /quiet /q, /log=, /prefix=, /D=, /? /help,
 * their names in any case; any other /word is a path. */
static void test_windows_switches(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	static const char *const silent[] = { "/silent", "/SILENT", "/S", "/s", "/quiet", "/Q",
					      "/q" };
	for (size_t i = 0; i < sizeof(silent) / sizeof(silent[0]); i++) {
		assert_int_equal(parse(&c, why, "x.run", silent[i], NULL), 0);
		assert_int_equal(c.silent, 1);
		assert_string_equal(c.arg, "x.run");
	}
	assert_int_equal(parse(&c, why, "/log=C:\\cuferry.log", "x.run", NULL), 0);
	assert_string_equal(c.log_file, "C:\\cuferry.log");
	assert_int_equal(parse(&c, why, "/LOG=/var/log/x", NULL), 0);
	assert_string_equal(c.log_file, "/var/log/x");
	assert_int_equal(parse(&c, why, "/prefix=/opt/a", NULL), 0);
	assert_string_equal(c.prefix, "/opt/a");
	assert_int_equal(parse(&c, why, "/D=/opt/b", NULL), 0);
	assert_string_equal(c.prefix, "/opt/b");
	assert_int_equal(parse(&c, why, "/d=/opt/c", NULL), 0);
	assert_string_equal(c.prefix, "/opt/c");
	assert_int_equal(parse(&c, why, "/?", NULL), 0);
	assert_int_equal(c.help, 1);
	assert_int_equal(parse(&c, why, "/HELP", NULL), 0);
	assert_int_equal(c.help, 1);
	/* an absolute path is the bundle, not a switch */
	assert_int_equal(parse(&c, why, "/media/usb/x.run", NULL), 0);
	assert_string_equal(c.arg, "/media/usb/x.run");
	assert_int_equal(c.silent, 0);
	assert_int_equal(parse(&c, why, "/S", "/D=/opt/d", "/log=l.txt", "/x.run", NULL), 0);
	assert_int_equal(c.silent, 1);
	assert_string_equal(c.prefix, "/opt/d");
	assert_string_equal(c.log_file, "l.txt");
	assert_string_equal(c.arg, "/x.run");
	/* "/D" without '=' is not the prefix switch: a path */
	assert_int_equal(parse(&c, why, "/D", NULL), 0);
	assert_string_equal(c.arg, "/D");
	assert_null(c.prefix);
}

static void test_usage_errors(void **state)
{
	(void)state;
	usage_error("unknown option '--nosuch'", "install", "x.bundle", "--nosuch", NULL);
	usage_error("unknown option '-x'", "-x", NULL);
	usage_error("unknown option '--prefix/opt'", "--prefix/opt", NULL);
	usage_error("unknown option '--SILENT'", "--SILENT", NULL); /* long options are exact */
	usage_error("unknown option '--env=system'", "--env=system", NULL);
	usage_error("unexpected argument 'b'", "install", "a", "b", NULL);
	usage_error("unexpected argument 'b'", "a", "b", NULL);
	usage_error("unknown command 'nosuch-verb'", "nosuch-verb", "--help", NULL);
	usage_error("--no-validate and --require-gpu exclude each other", "--no-validate",
		    "--require-gpu", NULL);
	usage_error("--no-env and --env=user exclude each other", "--env=user", "--no-env", NULL);
	usage_error("--allow-downgrade and --keep-current exclude each other", "--keep-current",
		    "--allow-downgrade", NULL);
	usage_error("--modulefiles 'relative/dir'", "--modulefiles", "relative/dir", NULL);
	usage_error("--modulefiles '/a b'", "--modulefiles=/a b", NULL);
	/* "-" alone is a positional argument (standard input), not an option */
	struct cli c;
	char why[256];
	assert_int_equal(parse(&c, why, "-", NULL), 0);
	assert_string_equal(c.arg, "-");
	/* 'unpacker FILE --help' with a FILE that exists is install's help */
	assert_int_equal(parse(&c, why, "/", "--help", NULL), 0);
	assert_int_equal(c.help, 1);
	assert_string_equal(c.verb, "install");
}

static void test_check_inputs(void **state)
{
	(void)state;
	struct cli c;
	char why[256], dir[] = "/tmp/cuferry-cli-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *first = xasprintf("%s/x.bundle.001", dir), *second = xasprintf("%s/x.bundle.002", dir);
	char *key = xasprintf("%s/k.pub", dir);
	assert_int_equal(io_write_file_atomic(first, "1", 1, 0644), 0);
	assert_int_equal(io_write_file_atomic(second, "2", 1, 0644), 0);
	assert_int_equal(io_write_file_atomic(key, "k", 1, 0644), 0);

	/* verify DIR is a kit's check (unpacker/target/kitcheck.c: a directory that is no kit is a
	 * usage error there, test_everyday_unpacker.sh) */
	assert_int_equal(parse(&c, why, "verify", dir, NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);
	assert_int_equal(parse(&c, why, "install", dir, NULL), 0); /* a kit: chosen later */
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);

	assert_int_equal(parse(&c, why, second, NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), CF_USAGE);
	assert_non_null(strstr(why, "is part 2 of a split bundle: give"));
	assert_non_null(strstr(why, first));
	assert_int_equal(parse(&c, why, first, NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);
	assert_int_equal(parse(&c, why, "list", NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);

	assert_int_equal(parse(&c, why, "x.bundle", "--trust", key, NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), 0);
	assert_int_equal(parse(&c, why, "x.bundle", "--trust", "/nonexistent.pub", NULL), 0);
	assert_int_equal(cli_check_inputs(&c, why, sizeof(why)), CF_TRUST);
	assert_non_null(strstr(why, "--trust /nonexistent.pub"));

	io_rmtree(dir);
	free(first);
	free(second);
	free(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_gpu),
		cmocka_unit_test(test_trust_lists),
		cmocka_unit_test(test_windows_switches),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_check_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
