/* cli.c - parsing the unpacker's arguments: --long options and /windows switches alike */
#include "unpacker/cli/cli.h"
#include "unpacker/environment/modulefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>

#include "common/platform.h"
#include "unpacker/target/progname.h"

const struct cmd_spelling cli_spellings[] = {
	{ OPT_HELP, "--help", VALUE_NONE, NULL },
	{ OPT_HELP, "-h", VALUE_NONE, NULL },
	{ OPT_HELP, "/?", VALUE_NONE, NULL },
	{ OPT_VERSION, "--version", VALUE_NONE, NULL },
	{ OPT_SILENT, "--silent", VALUE_NONE, NULL },
	{ OPT_SILENT, "/silent", VALUE_NONE, NULL },
	{ OPT_SILENT, "/S", VALUE_NONE, NULL },
	{ OPT_SILENT, "/quiet", VALUE_NONE, NULL },
	{ OPT_VERBOSE, "--verbose", VALUE_NONE, NULL },
	{ OPT_VERBOSE, "-v", VALUE_NONE, NULL },
	{ OPT_LOG, "--log", VALUE_FILE, NULL },
	{ OPT_LOG, "/log", VALUE_FILE, NULL },
	{ OPT_JSON, "--json", VALUE_FILE, NULL },
	{ OPT_ROOT, "--root", VALUE_DIR, NULL },
	{ OPT_PREFIX, "--prefix", VALUE_DIR, NULL },
	{ OPT_PREFIX, "/prefix", VALUE_DIR, NULL },
	{ OPT_PREFIX, "/D", VALUE_DIR, NULL },
	{ OPT_TRUST, "--trust", VALUE_FILE, NULL },
	{ OPT_TRUST_FINGERPRINT, "--trust-fingerprint", VALUE_TEXT, NULL },
	{ OPT_FINGERPRINT, "--fingerprint", VALUE_TEXT, NULL },
	{ OPT_REMEMBER, "--remember", VALUE_NONE, NULL },
	{ OPT_NO_ENV, "--no-env", VALUE_NONE, NULL },
	{ OPT_ENV_USER, "--env=user", VALUE_NONE, NULL },
	{ OPT_ALLOW_DOWNGRADE, "--allow-downgrade", VALUE_NONE, NULL },
	{ OPT_KEEP_CURRENT, "--keep-current", VALUE_NONE, NULL },
	{ OPT_ALLOW_EXPIRED, "--allow-expired", VALUE_NONE, NULL },
	{ OPT_REPAIR, "--repair", VALUE_NONE, NULL },
	{ OPT_NO_VALIDATE, "--no-validate", VALUE_NONE, NULL },
	{ OPT_REQUIRE_GPU, "--require-gpu", VALUE_NONE, NULL },
	{ OPT_KEEP_FAILED, "--keep-failed", VALUE_NONE, NULL },
	{ OPT_GPU, "--gpu", VALUE_TEXT, NULL },
	{ OPT_QUICK_VALIDATE, "--quick-validate", VALUE_NONE, NULL },
	{ OPT_MODULEFILES, "--modulefiles", VALUE_DIR, NULL },
	{ OPT_DRY_RUN, "--dry-run", VALUE_NONE, NULL },
	{ OPT_CUDA, "--cuda", VALUE_TEXT, NULL },
	{ OPT_PLATFORM, "--platform", VALUE_WORD, "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64" },
	{ OPT_FORCE, "--force", VALUE_NONE, NULL },
	{ OPT_SHELL, "--shell", VALUE_WORD, "sh ps cmd" },
	{ OPT_COUNT, NULL, VALUE_NONE, NULL },
};

const char *cli_option_name(enum cmd_option id)
{
	for (const struct cmd_spelling *s = cli_spellings; s->name; s++)
		if (s->id == (int)id)
			return s->name;
	return "?";
}

const struct command *cli_find_command(const struct command *table, const char *name)
{
	for (const struct command *t = table; t && t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

void cli_command_names(const struct command *table, char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
	for (const struct command *t = table; t->name && n < size; t++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", t == table ? "" : " ", t->name);
}

/* The spelling arg is: "--log=F" and "--log F" alike; a Windows switch in any case, "/log=F".
 * A flag given a value ("--repair=1") is no spelling of it. NULL when none. */
static const struct cmd_spelling *spelling_of(const char *arg, const char **value)
{
	*value = NULL;
	for (const struct cmd_spelling *s = cli_spellings; s->name; s++) {
		size_t n = strlen(s->name);
		int windows = s->name[0] == '/';
		if ((windows ? strncasecmp(arg, s->name, n) : strncmp(arg, s->name, n)) != 0)
			continue;
		if (arg[n] == '\0' && (s->value == VALUE_NONE || !windows))
			return s;
		if (arg[n] == '=' && s->value != VALUE_NONE)
			return *value = arg + n + 1, s;
	}
	return NULL;
}

/* -2: one more than the list holds (a usage error of its own, not a missing value) */
static int add_list(const char **list, size_t *n, const char *v)
{
	if (*n >= CLI_MAX_TRUST)
		return -2;
	list[(*n)++] = v;
	return 1;
}

/* --gpu N: digits only (strtol alone takes "" as 0, " 3" and "+3"); -1 when it is no GPU. */
static int gpu_number(const char *v)
{
	long n = *v && v[strspn(v, "0123456789")] == '\0' ? strtol(v, NULL, 10) : -1;
	return n < 0 || n > 1023 ? -1 : (int)n;
}

/* 1 set; -1 a bad value; -2 given too often. */
static int set_value(struct cli *c, const struct cmd_spelling *s, const char *v)
{
	const char **values[OPT_COUNT] = {
		[OPT_LOG] = &c->log_file, [OPT_JSON] = &c->json_file, [OPT_ROOT] = &c->root,
		[OPT_PREFIX] = &c->prefix, [OPT_FINGERPRINT] = &c->fingerprint,
		[OPT_MODULEFILES] = &c->modulefiles, [OPT_CUDA] = &c->cuda,
		[OPT_PLATFORM] = &c->platform, [OPT_SHELL] = &c->shell,
	};
	if (s->id == OPT_TRUST)
		return add_list(c->trust_files, &c->ntrust_files, v);
	if (s->id == OPT_TRUST_FINGERPRINT)
		return add_list(c->fingerprints, &c->nfingerprints, v);
	if (s->id == OPT_GPU)
		return (c->gpu = gpu_number(v)) < 0 ? -1 : 1;
	if (s->id == OPT_PREFIX)
		c->prefix_option = s->name;
	*values[s->id] = v;
	return 1;
}

static void set_flag(struct cli *c, enum cmd_option id)
{
	int *flags[OPT_COUNT] = {
		[OPT_HELP] = &c->help, [OPT_VERSION] = &c->version, [OPT_SILENT] = &c->silent,
		[OPT_VERBOSE] = &c->verbose, [OPT_REMEMBER] = &c->remember, [OPT_NO_ENV] = &c->no_env,
		[OPT_ENV_USER] = &c->env_user, [OPT_ALLOW_DOWNGRADE] = &c->allow_downgrade,
		[OPT_KEEP_CURRENT] = &c->keep_current, [OPT_ALLOW_EXPIRED] = &c->allow_expired,
		[OPT_REPAIR] = &c->repair, [OPT_NO_VALIDATE] = &c->no_validate,
		[OPT_REQUIRE_GPU] = &c->require_gpu, [OPT_KEEP_FAILED] = &c->keep_failed,
		[OPT_QUICK_VALIDATE] = &c->quick, [OPT_DRY_RUN] = &c->dry_run, [OPT_FORCE] = &c->force,
	};
	*flags[id] = 1;
}

/* An option at argv[*i]: 1 taken, 0 no option of ours, -1 a missing or bad value, -2 given
 * too often. The first place each option was given goes into given_at (for the check of what
 * the command takes). */
static int option(int *i, int argc, char **argv, struct cli *c, int *given_at)
{
	const char *v;
	const struct cmd_spelling *s = spelling_of(argv[*i], &v);
	if (!s)
		return 0;
	if (!given_at[s->id])
		given_at[s->id] = *i;
	if (s->value == VALUE_NONE)
		return set_flag(c, s->id), 1;
	if (!v && *i + 1 >= argc)
		return -1;
	return set_value(c, s, v ? v : argv[++*i]);
}

static int positional(const char *a, const struct command *table, struct cli *c, char *why,
		      size_t size)
{
	if (!c->verb && strcmp(a, "version") == 0) /* as 'bundler version' */
		return c->version = 1, 0;
	if (!c->verb) {
		const struct command *t = cli_find_command(table, a);
		if (t)
			return c->verb = t->name, c->verb_given = 1, 0;
		c->verb = "install"; /* the default verb: unpacker BUNDLE */
	}
	if (strcmp(c->verb, "trust") == 0 && !c->trust_sub)
		return c->trust_sub = a, 0;
	if (c->arg) {
		snprintf(why, size, "unexpected argument '%s'", a);
		return 1;
	}
	c->arg = a;
	return 0;
}

/* The row that runs the command (trust: its subcommand's; list by default), and whether the
 * command takes every option given: the first one it does not take, in the order given, is
 * a usage error that names it and the help to read. --help asks for the help of any command;
 * --version goes with no command. */
static int command_takes(struct cli *c, const struct command *table, const int *given_at,
			 char **argv, char *why, size_t size)
{
	const struct command *top = cli_find_command(table, c->verb), *row = top;
	if (top && top->subs) {
		row = cli_find_command(top->subs, c->trust_sub ? c->trust_sub : top->subs->name);
		if (!row && !c->help) {
			char names[256];
			cli_command_names(top->subs, names, sizeof(names));
			snprintf(why, size, "unknown %s command '%s' (%s)", top->name, c->trust_sub, names);
			return 1;
		}
	}
	c->command = row;
	if (!row || c->help)
		return 0;
	uint64_t takes = CMD_COMMON_OPTIONS | row->options | (c->verb_given ? 0 : CMD_OPT(OPT_VERSION));
	int first = 0;
	for (int id = 0; id < OPT_COUNT; id++)
		if (given_at[id] && !(takes & CMD_OPT(id)) && (!first || given_at[id] < first))
			first = given_at[id];
	if (!first)
		return 0;
	const char *typed = argv[first];
	int n = (int)strcspn(typed + 1, "=") + 1;
	snprintf(why, size, "%s%s%s does not take %.*s (see %s help %s)", top->name,
		 row != top ? " " : "", row != top ? row->name : "", n, typed, progname(),
		 top->name);
	c->why_names_help = 1;
	return 1;
}

/* Options that ask for opposite things, and values wrong before any work: a usage error. */
static int contradiction(const struct cli *c, char *why, size_t size)
{
	struct { int both; const char *a, *b; } pairs[] = {
		{ c->no_validate && c->require_gpu, "--no-validate", "--require-gpu" },
		{ c->no_env && c->env_user, "--no-env", "--env=user" },
		{ c->allow_downgrade && c->keep_current, "--allow-downgrade", "--keep-current" },
	};
	for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++)
		if (pairs[k].both) {
			snprintf(why, size, "%s and %s exclude each other: give one", pairs[k].a,
				 pairs[k].b);
			return 1;
		}
	if (c->remember && (!c->ntrust_files || strcmp(c->verb, "install") != 0)) {
		snprintf(why, size, "--remember goes with install --trust K.pub: it adds those keys "
			 "once the install worked");
		return 1;
	}
	if (c->modulefiles && !modulefile_dir_valid(c->modulefiles)) {
		snprintf(why, size, "--modulefiles '%s': give an absolute directory of the characters "
			 "[A-Za-z0-9._+@/-]", c->modulefiles);
		return 1;
	}
	return 0;
}

int cli_parse(int argc, char **argv, const struct command *table, struct cli *c, char *why,
	      size_t why_size)
{
	int given_at[OPT_COUNT] = { 0 };
	memset(c, 0, sizeof(*c));
	progname_set(argc > 0 ? argv[0] : NULL);
	c->gpu = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		/* any /argument that is no switch of ours is a path; "-" alone is standard input */
		int r = a[0] == '/' || (a[0] == '-' && a[1]) ? option(&i, argc, argv, c, given_at) : 0;
		if (r == 0 && a[0] == '-' && a[1]) {
			snprintf(why, why_size, "unknown option '%s'", a);
			return 1;
		}
		if (r == -2) {
			snprintf(why, why_size, "option '%s' given more than %d times", a, CLI_MAX_TRUST);
			return 1;
		}
		if (r < 0) {
			snprintf(why, why_size, "option '%s' needs a value", a);
			return 1;
		}
		if (r == 0 && positional(a, table, c, why, why_size))
			return 1;
	}
	/* 'unpacker nosuch --help': a word that is no command and no file is a typo, as for
	 * the bundler, not the help of install. */
	if (c->help && !c->verb_given && c->arg && platform_access(c->arg, PLATFORM_CAN_EXIST) != 0) {
		char names[256];
		cli_command_names(table, names, sizeof(names));
		snprintf(why, why_size, "unknown command '%s' (commands: %s)", c->arg, names);
		return 1;
	}
	if (!c->verb)
		c->verb = "install";
	if (!c->root)
		c->root = "";
	if (command_takes(c, table, given_at, argv, why, why_size))
		return 1;
	/* An image's system paths (/etc, /var) mean nothing to Windows, whose places are the
	 * registry and known folders: refused, never half applied. */
	if (*c->root && platform_dir_separator() == '\\') {
		snprintf(why, why_size, "--root prepares Linux images: on Windows give --prefix (or /D=) instead");
		return 1;
	}
	return contradiction(c, why, why_size);
}

/* NAME.NNN with NNN other than 001, when NAME.001 is there: which part to give instead. */
static int later_part(const char *path, char *why, size_t size)
{
	size_t n = strlen(path);
	if (n < 5 || path[n - 4] != '.' || strspn(path + n - 3, "0123456789") != 3 ||
	    strcmp(path + n - 3, "001") == 0)
		return 0;
	char first[4096];
	struct platform_stat st;
	snprintf(first, sizeof(first), "%.*s.001", (int)(n - 4), path);
	if (platform_stat(first, &st) != 0)
		return 0;
	snprintf(why, size, "%s is part %d of a split bundle: give %s (the parts are read in order "
		 "from there)", path, atoi(path + n - 3), first);
	return 1;
}

int cli_check_inputs(const struct cli *c, char *why, size_t size)
{
	struct platform_stat st;
	int reads_bundle = strcmp(c->verb, "install") == 0 || strcmp(c->verb, "verify") == 0;
	/* install DIR chooses among a kit's bundles (unpacker/target/choose.c); verify DIR checks a
	 * whole signed kit (unpacker/target/kitcheck.c). */
	if (reads_bundle && c->arg && later_part(c->arg, why, size))
		return 1;
	for (size_t i = 0; i < c->ntrust_files; i++)
		if (platform_stat(c->trust_files[i], &st) != 0 ||
		    platform_access(c->trust_files[i], PLATFORM_CAN_READ) != 0) {
			snprintf(why, size, "--trust %s: %s (give the .pub file 'bundler keygen' wrote, "
				 "brought by another channel than the bundle)", c->trust_files[i],
				 platform_strerror(errno));
			return 2;
		}
	return 0;
}
