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
#include "unpacker/cli/cmdtable.h"

/* The parser reads the command table, which names every command's function: the whole
 * unpacker is linked, trust.c with it; no key compiled in (make TRUSTED_KEYS). */
const char *const trusted_keys_pem[] = { NULL };
const unsigned trusted_threshold = 0, trusted_statement_threshold = 0;

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
	return cli_parse(argc, argv, cmd_table, c, why, 256);
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
		/* with an argument where the row takes one */
		const char *arg = cli_find_command(cmd_table, verbs[i])->args.max ? "arg" : NULL;
		assert_int_equal(parse(&c, why, verbs[i], arg, NULL), 0);
		assert_string_equal(c.verb, verbs[i]);
		if (arg)
			assert_string_equal(c.arg, "arg");
		else
			assert_null(c.arg);
		assert_int_equal(c.verb_given, 1);
	}
	assert_int_equal(parse(&c, why, "version", NULL), 0);
	assert_int_equal(c.version, 1);
	/* a verb's name after the verb is its argument: a bundle may be called "list" */
	assert_int_equal(parse(&c, why, "install", "list", NULL), 0);
	assert_string_equal(c.verb, "install");
	assert_string_equal(c.arg, "list");
}

/* The words that name a command taking option id (trust's: "trust add"): words[0], words[1];
 * its row. One that takes an argument where there is one (the value is then seen not to be
 * taken as the argument). */
static const struct command *command_taking(enum cmd_option id, const char *words[2])
{
	for (int any = 0; any < 2; any++)
		for (const struct command *t = cmd_table; t->name; t++) {
			for (const struct command *s = t->subs; s && s->name; s++)
				if (((CMD_COMMON_OPTIONS | s->options) & CMD_OPT(id)) &&
				    (any || s->args.max))
					return words[0] = t->name, words[1] = s->name, s;
			if (!t->subs && ((CMD_COMMON_OPTIONS | t->options) & CMD_OPT(id)) &&
			    (any || t->args.max))
				return words[0] = t->name, words[1] = NULL, t;
		}
	fail_msg("no command takes option %d", (int)id);
	return NULL;
}

static const struct cmd_spelling *spelling(const char *name)
{
	for (const struct cmd_spelling *s = cli_spellings; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	fail_msg("no spelling %s", name);
	return NULL;
}

/* Each flag, given to a command that takes it. */
static void test_flags(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	struct { const char *opt; size_t offset; } flags[] = {
		{ "--silent", offsetof(struct cli, silent) },
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
		{ "--env=user", offsetof(struct cli, env_user) },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const char *words[2];
		const struct command *row = command_taking(spelling(flags[i].opt)->id, words);
		assert_null(words[1]);
		assert_int_equal(parse(&c, why, words[0], flags[i].opt, row->args.min ? "id" : NULL,
				       NULL), 0);
		if (*(int *)((char *)&c + flags[i].offset) != 1)
			fail_msg("%s did not set its flag", flags[i].opt);
	}
	assert_int_equal(parse(&c, why, "--version", NULL), 0);
	assert_int_equal(c.version, 1);
	/* options before the command and the argument, and after them */
	assert_int_equal(parse(&c, why, "--prefix", "/p", "uninstall", "id", "--force", NULL), 0);
	assert_string_equal(c.verb, "uninstall");
	assert_string_equal(c.prefix, "/p");
	assert_int_equal(c.force, 1);
}

/* Every command (trust: every subcommand) refuses an option it does not take: a usage error
 * that names the option, the command and its help; --help still gives the help. */
static void test_command_refuses(void **state)
{
	(void)state;
	struct cli c;
	char why[256], want[256];
	for (const struct command *t = cmd_table; t->name; t++)
		for (const struct command *s = t->subs ? t->subs : t; s->name; s++) {
			uint64_t takes = CMD_COMMON_OPTIONS | s->options;
			const struct cmd_spelling *o = cli_spellings;
			while (o->name && (takes & CMD_OPT(o->id)))
				o++;
			assert_non_null(o->name);
			/* unpacker COMMAND [SUB] OPTION [x] [--help] */
			char *argv[6] = { "unpacker", (char *)t->name };
			int argc = 2;
			if (t->subs)
				argv[argc++] = (char *)s->name;
			argv[argc++] = (char *)o->name;
			if (o->value != VALUE_NONE)
				argv[argc++] = "x";
			snprintf(want, sizeof(want), "%s%s%s does not take %s (see unpacker help %s)",
				 t->name, t->subs ? " " : "", t->subs ? s->name : "", o->name, t->name);
			assert_int_equal(cli_parse(argc, argv, cmd_table, &c, why, sizeof(why)), CF_USAGE);
			assert_string_equal(why, want);
			assert_int_equal(c.why_names_help, 1);
			argv[argc++] = "--help";
			assert_int_equal(cli_parse(argc, argv, cmd_table, &c, why, sizeof(why)), 0);
			if (!t->subs)
				break;
		}
	usage_error("list does not take --repair (see unpacker help list)", "list", "--repair", NULL);
	usage_error("trust list does not take /d (see unpacker help trust)", "trust", "/d=/p", NULL);
	usage_error("install does not take --shell (see unpacker help install)", "x.bundle", "--shell",
		    "sh", NULL);
	usage_error("list does not take --version", "list", "--version", NULL);
	usage_error("trust list does not take --fingerprint", "trust", "--fingerprint", "ab", NULL);
	usage_error("unknown trust command 'nosuch'", "trust", "nosuch", NULL);
	/* the first one given is named */
	usage_error("doctor does not take --force", "--force", "doctor", "--repair", NULL);
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
		{ "--fingerprint", offsetof(struct cli, fingerprint) },
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char joined[64];
		const char *words[2];
		const struct command *row = command_taking(spelling(values[i].name)->id, words);
		snprintf(joined, sizeof(joined), "%s=/v/joined", values[i].name);
		/* the argument where the row takes one (env --shell takes none) */
		const char *arg = row->args.max ? "x.bundle" : NULL, *needed = row->args.min ? arg : NULL;
		const char *sub = words[1] ? words[1] : values[i].name, *name = words[1] ? values[i].name : "/v/apart";
		const char *apart = words[1] ? "/v/apart" : arg, *last = words[1] ? arg : NULL;
		assert_int_equal(parse(&c, why, words[0], sub, name, apart, last, NULL), 0);
		assert_string_equal(*(const char **)((char *)&c + values[i].offset), "/v/apart");
		if (arg)
			assert_string_equal(c.arg, "x.bundle"); /* the value is not taken as the bundle */
		else
			assert_null(c.arg);
		assert_int_equal(words[1] ? parse(&c, why, words[0], words[1], joined, needed, NULL)
					  : parse(&c, why, words[0], joined, needed, NULL), 0);
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
	assert_int_equal(cli_parse(argc, argv, cmd_table, &c, why, sizeof(why)), CF_USAGE);
	assert_string_equal(why, "option '--trust' given more than 16 times");
	assert_int_equal(cli_parse(argc - 2, argv, cmd_table, &c, why, sizeof(why)), 0);
	assert_int_equal(c.ntrust_files, CLI_MAX_TRUST);
}

/* The Windows installer conventions: /silent /S /quiet /q, /log=, /prefix=, /D=, /? /help,
 * their names in any case; any other /word is a path. */
static void test_windows_switches(void **state)
{
	(void)state;
	struct cli c;
	char why[256];
	static const char *const silent[] = { "/silent", "/SILENT", "/S", "/s", "/quiet", "/QUIET" };
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
	/* /q and /help were never documented: paths, as every other /word */
	assert_int_equal(parse(&c, why, "/q", NULL), 0);
	assert_string_equal(c.arg, "/q");
	assert_int_equal(parse(&c, why, "/help", NULL), 0);
	assert_string_equal(c.arg, "/help");
	assert_int_equal(c.help, 0);
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

/* COMMAND [SUB] (nwords of them), n arguments "x0"... after them, then option if not NULL. */
static int args_parse(struct cli *c, char *why, const char *const *words, size_t nwords,
		      size_t n, const char *option)
{
	char *argv[MAX_ARGS] = { "unpacker" }, names[8][4];
	int argc = 1;
	for (size_t i = 0; i < nwords; i++)
		argv[argc++] = (char *)words[i];
	for (size_t i = 0; i < n && i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "x%zu", i);
		argv[argc++] = names[i];
	}
	if (option)
		argv[argc++] = (char *)option;
	why[0] = '\0';
	return cli_parse(argc, argv, cmd_table, c, why, 256);
}

/* One command (trust's: "trust add") against its row: min to max arguments are taken, one
 * more is refused, one fewer where it needs one, each with the one line of the refusal. */
static void check_arguments(const char *const *words, size_t nwords, const struct command *row)
{
	struct cli c;
	char why[256], name[64], want[256];
	snprintf(name, sizeof(name), "%s%s%s", words[0], nwords > 1 ? " " : "",
		 nwords > 1 ? words[1] : "");
	for (size_t n = row->args.min; n <= row->args.max; n++) {
		if (args_parse(&c, why, words, nwords, n, NULL) != 0)
			fail_msg("%s with %zu arguments: refused: %s", name, n, why);
		assert_ptr_equal(c.command, row);
	}
	if (row->args.max == 0)
		snprintf(want, sizeof(want), "%s takes no arguments (see unpacker help %s)", name,
			 words[0]);
	else
		snprintf(want, sizeof(want), "%s takes %s %s (see unpacker help %s)", name,
			 row->args.min ? "one" : "at most one", row->args.names, words[0]);
	assert_int_equal(args_parse(&c, why, words, nwords, row->args.max + 1, NULL), CF_USAGE);
	assert_string_equal(why, want);
	assert_int_equal(c.why_names_help, 1);
	/* --help shows the help, whatever the count */
	assert_int_equal(args_parse(&c, why, words, nwords, row->args.max + 1, "--help"), 0);
	assert_int_equal(c.help, 1);
	if (row->args.min == 0)
		return;
	snprintf(want, sizeof(want), "%s needs %s (see unpacker help %s)", name, row->args.names,
		 words[0]);
	assert_int_equal(args_parse(&c, why, words, nwords, row->args.min - 1, NULL), CF_USAGE);
	assert_string_equal(why, want);
}

/* Every row of the table and every trust subcommand: the arguments it takes, by its row. */
static void test_arguments_counted(void **state)
{
	(void)state;
	size_t checked = 0;
	for (const struct command *t = cmd_table; t->name; t++) {
		for (const struct command *s = t->subs; s && s->name; s++, checked++)
			check_arguments((const char *const[]){ t->name, s->name }, 2, s);
		if (!t->subs)
			check_arguments((const char *const[]){ t->name }, 1, t), checked++;
	}
	assert_true(checked >= 17); /* 10 commands and trust's 7 */
	/* by example: the rows' names in the refusal */
	usage_error("list takes no arguments (see unpacker help list)", "list", "foo", NULL);
	usage_error("use needs ID (see unpacker help use)", "use", NULL);
	usage_error("use takes one ID (see unpacker help use)", "use", "a", "b", NULL);
	usage_error("trust add needs K.pub (see unpacker help trust)", "trust", "add", NULL);
	usage_error("trust list takes no arguments (see unpacker help trust)", "trust", "list", "x",
		    NULL);
	usage_error("help takes at most one COMMAND (see unpacker help help)", "help", "list", "x",
		    NULL);
	usage_error("env takes no arguments", "--root", "/img", "env", "x", NULL);
	/* an option it does not take is said first, as before */
	usage_error("list does not take --repair", "list", "x", "--repair", NULL);
}

static void test_usage_errors(void **state)
{
	(void)state;
	usage_error("unknown option '--nosuch'", "install", "x.bundle", "--nosuch", NULL);
	usage_error("unknown option '-x'", "-x", NULL);
	usage_error("unknown option '--prefix/opt'", "--prefix/opt", NULL);
	usage_error("unknown option '--SILENT'", "--SILENT", NULL); /* long options are exact */
	usage_error("unknown option '--quiet'", "--quiet", NULL);  /* never documented */
	usage_error("unknown option '--repair=1'", "--repair=1", NULL);
	usage_error("unknown option '--env=system'", "--env=system", NULL);
	usage_error("install takes at most one BUNDLE|DIR (see unpacker help install)", "install", "a",
		    "b", NULL);
	usage_error("install takes at most one BUNDLE|DIR", "a", "b", NULL); /* unpacker BUNDLE */
	usage_error("install takes at most one BUNDLE|DIR", "/S", "a", "/D=/opt/x", "b", NULL);
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
		cmocka_unit_test(test_command_refuses),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_gpu),
		cmocka_unit_test(test_trust_lists),
		cmocka_unit_test(test_windows_switches),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_arguments_counted),
		cmocka_unit_test(test_check_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
