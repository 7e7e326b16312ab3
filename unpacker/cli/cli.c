/* cli.c - parsing the unpacker's arguments: --long options and /windows switches alike */
#include "unpacker/cli/cli.h"
#include "unpacker/environment/modulefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>

#include "common/platform.h"
#include "manifests/product.h"
#include "unpacker/target/progname.h"

const struct cmd_spelling cli_spellings[] = {
	CMD_FLAG(OPT_HELP, "--help"),
	CMD_FLAG(OPT_HELP, "-h"),
	CMD_FLAG(OPT_HELP, "/?"),
	CMD_FLAG(OPT_VERSION, "--version"),
	CMD_FLAG(OPT_SILENT, "--silent"),
	CMD_FLAG(OPT_SILENT, "/silent"),
	CMD_FLAG(OPT_SILENT, "/S"),
	CMD_FLAG(OPT_SILENT, "/quiet"),
	CMD_FLAG(OPT_VERBOSE, "--verbose"),
	CMD_FLAG(OPT_VERBOSE, "-v"),
	CMD_VALUE(OPT_LOG, "--log", FILE),
	CMD_VALUE(OPT_LOG, "/log", FILE),
	CMD_VALUE(OPT_JSON, "--json", FILE),
	CMD_VALUE(OPT_ROOT, "--root", DIR),
	CMD_VALUE(OPT_PREFIX, "--prefix", DIR),
	CMD_VALUE(OPT_PREFIX, "/prefix", DIR),
	CMD_VALUE(OPT_PREFIX, "/D", DIR),
	CMD_VALUE(OPT_TRUST, "--trust", FILE),
	CMD_VALUE(OPT_TRUST_FINGERPRINT, "--trust-fingerprint", TEXT),
	CMD_VALUE(OPT_FINGERPRINT, "--fingerprint", TEXT),
	CMD_FLAG(OPT_REMEMBER, "--remember"),
	CMD_FLAG(OPT_NO_ENV, "--no-env"),
	CMD_FLAG(OPT_ENV_USER, "--env=user"),
	CMD_FLAG(OPT_ALLOW_DOWNGRADE, "--allow-downgrade"),
	CMD_FLAG(OPT_KEEP_CURRENT, "--keep-current"),
	CMD_FLAG(OPT_ALLOW_EXPIRED, "--allow-expired"),
	CMD_FLAG(OPT_REPAIR, "--repair"),
	CMD_FLAG(OPT_NO_VALIDATE, "--no-validate"),
	CMD_FLAG(OPT_REQUIRE_GPU, "--require-gpu"),
	CMD_FLAG(OPT_KEEP_FAILED, "--keep-failed"),
	CMD_VALUE(OPT_GPU, "--gpu", TEXT),
	CMD_FLAG(OPT_QUICK_VALIDATE, "--quick-validate"),
	CMD_VALUE(OPT_MODULEFILES, "--modulefiles", DIR),
	CMD_FLAG(OPT_DRY_RUN, "--dry-run"),
	CMD_VALUE(OPT_CUDA, "--cuda", TEXT),
	CMD_WORDS(OPT_PLATFORM, "--platform", CMD_PLATFORM_WORDS),
	CMD_FLAG(OPT_FORCE, "--force"),
	CMD_FLAG(OPT_DEEP, "--deep"),
	CMD_WORDS(OPT_SHELL, "--shell", "sh ps cmd"),
	/* the words are the product registry's names: cmd_complete_words prints them */
	CMD_WORDS(OPT_PRODUCT, "--product", NULL),
	CMD_WORDS(OPT_SBOM, "--sbom", "cyclonedx spdx"),
	CMD_FLAG(OPT_PROVENANCE, "--provenance"),
	CMD_SPELLINGS_END(OPT_COUNT),
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
		[OPT_PLATFORM] = &c->platform, [OPT_SHELL] = &c->shell, [OPT_PRODUCT] = &c->product,
		[OPT_SBOM] = &c->sbom,
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
		[OPT_DEEP] = &c->deep, [OPT_PROVENANCE] = &c->provenance,
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

/* A word that is no option: the command, trust's subcommand, or an argument of the command
 * (the first one kept in arg; how many it takes is its row's, checked by command_takes). */
static void positional(const char *a, const struct command *table, struct cli *c)
{
	if (!c->verb && strcmp(a, "version") == 0) { /* as 'bundler version' */
		c->version = 1;
		return;
	}
	if (!c->verb) {
		const struct command *t = cli_find_command(table, a);
		if (t) {
			c->verb = t->name, c->verb_given = 1;
			return;
		}
		c->verb = "install"; /* the default verb: unpacker BUNDLE */
	}
	if (strcmp(c->verb, "trust") == 0 && !c->trust_sub) {
		c->trust_sub = a;
		return;
	}
	if (!c->arg)
		c->arg = a;
	c->nargs++;
}

/* The row that runs the command (trust: its subcommand's; list by default), and whether the
 * command takes every option given: the first one it does not take, in the order given, is
 * a usage error that names it and the help to read; then whether it takes as many arguments
 * as were given (its row's min to max), said the same way. --help asks for the help of any
 * command, whatever else the line has; --version goes with no command. */
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
	char name[64], see[64];
	snprintf(name, sizeof(name), "%s%s%s", top->name, row != top ? " " : "",
		 row != top ? row->name : "");
	snprintf(see, sizeof(see), "%s help %s", progname(), top->name);
	if (first) {
		const char *typed = argv[first];
		int n = (int)strcspn(typed + 1, "=") + 1;
		snprintf(why, size, "%s does not take %.*s (see %s)", name, n, typed, see);
	}
	c->why_names_help = first || cmdline_check_args(&row->args, c->nargs, name, see, why, size);
	return c->why_names_help;
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
	if (c->product && !product_find(c->product)) {
		char names[256];
		product_names(names, sizeof(names));
		snprintf(why, size, "--product '%s': no such product (products: %s)", c->product, names);
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
		if (r == 0)
			positional(a, table, c);
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
