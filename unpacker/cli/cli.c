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

const char cli_usage[] =
	"usage: unpacker [install] BUNDLE|PART.001|X.run [--prefix DIR] [--trust K.pub]...\n"
	"                [--trust-fingerprint HEX]... [/silent | --silent] [/log=FILE | --log FILE]\n"
	"                [--json FILE] [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	"                [--allow-expired]\n"
	"                [--root DIR] [--no-validate | --require-gpu] [--keep-failed] [--gpu N]\n"
	"                [--repair] [--modulefiles DIR] [--quick-validate] [--remember]\n"
	"       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] ...   the bundle\n"
	"                of a kit that fits (--platform: as if on P, with --dry-run)\n"
	"       unpacker install BUNDLE --dry-run ...   what installing it would change; writes nothing\n"
	"       unpacker verify BUNDLE [--trust K.pub]...   signature and every hash; installs nothing\n"
	"       unpacker verify KIT [--allow-expired]   a signed kit: its index, every file, its unpackers\n"
	"       unpacker self-install KIT|CONTAINER [--allow-downgrade] [--root DIR]   the kit's\n"
	"                verified unpacker as /usr/local/sbin/unpacker (%ProgramFiles%\\cuferry)\n"
	"       unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate] [--trust K.pub]...\n"
	"       unpacker list | use ID | uninstall ID [--force] | env [--shell sh|ps|cmd] | doctor\n"
	"       unpacker trust [list] | add K.pub [--fingerprint HEX] | remove FP | threshold N\n"
	"                | statement-threshold N | apply STATEMENT | reset-clock   what this host trusts\n"
	"       unpacker --version | help [COMMAND] | COMMAND --help\n"
	"Windows-style switches work too: /silent /S /quiet /log=FILE /prefix=DIR /D=DIR /?\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible, 5 install failed,\n"
	"            6 validation failed, 7 policy, 8 busy, 10 rollback failed\n";

static const char *const verbs[] = { "install", "verify", "validate", "list", "use", "uninstall",
				     "env", "doctor", "help", "self-install", "trust", NULL };

/* "/log=FILE" and "--log=FILE": the value after '=', case-insensitive name. */
static const char *value_of(const char *arg, const char *name)
{
	size_t n = strlen(name);
	if (strncasecmp(arg, name, n) == 0 && arg[n] == '=')
		return arg + n + 1;
	return NULL;
}

static int windows_switch(const char *a, struct cli *c)
{
	const char *v;
	if (!strcasecmp(a, "/silent") || !strcasecmp(a, "/S") || !strcasecmp(a, "/quiet") ||
	    !strcasecmp(a, "/q"))
		return c->silent = 1;
	if (!strcmp(a, "/?") || !strcasecmp(a, "/help"))
		return c->help = 1;
	if ((v = value_of(a, "/log")))
		return c->log_file = v, 1;
	if ((v = value_of(a, "/prefix")))
		return c->prefix = v, c->prefix_option = "/prefix", 1;
	if ((v = value_of(a, "/D")))
		return c->prefix = v, c->prefix_option = "/D", 1;
	return 0; /* any other /argument is a path */
}

static int takes_value(const char *a, const char *name, int *i, int argc, char **argv,
		       const char **out)
{
	const char *v = value_of(a, name);
	if (v)
		return *out = v, 1;
	if (strcmp(a, name) != 0)
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*out = argv[++*i];
	return 1;
}

/* -2: one more than the list holds (a usage error of its own, not a missing value) */
static int add_list(const char **list, size_t *n, const char *v)
{
	if (*n >= CLI_MAX_TRUST)
		return -2;
	list[(*n)++] = v;
	return 1;
}

static int long_option(const char *a, int *i, int argc, char **argv, struct cli *c)
{
	const char *v;
	int r;
	struct { const char *name; int *flag; } flags[] = {
		{ "--silent", &c->silent }, { "--quiet", &c->silent }, { "--no-env", &c->no_env },
		{ "--no-validate", &c->no_validate }, { "--require-gpu", &c->require_gpu },
		{ "--allow-downgrade", &c->allow_downgrade }, { "--allow-expired", &c->allow_expired },
		{ "--force", &c->force }, { "--help", &c->help }, { "-h", &c->help },
		{ "--keep-failed", &c->keep_failed }, { "--quick-validate", &c->quick },
		{ "--keep-current", &c->keep_current }, { "--remember", &c->remember },
		{ "--dry-run", &c->dry_run },
		{ "--verbose", &c->verbose }, { "-v", &c->verbose }, { "--repair", &c->repair },
		{ "--version", &c->version },
	};
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (strcmp(a, flags[k].name) == 0)
			return *flags[k].flag = 1;
	if (strcmp(a, "--env=user") == 0)
		return c->env_user = 1;
	struct { const char *name; const char **out; } values[] = {
		{ "--prefix", &c->prefix }, { "--root", &c->root }, { "--log", &c->log_file },
		{ "--json", &c->json_file }, { "--shell", &c->shell },
		{ "--cuda", &c->cuda }, { "--platform", &c->platform },
		{ "--modulefiles", &c->modulefiles }, { "--fingerprint", &c->fingerprint },
	};
	for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++)
		if ((r = takes_value(a, values[k].name, i, argc, argv, values[k].out)) != 0) {
			if (values[k].out == &c->prefix)
				c->prefix_option = "--prefix";
			return r;
		}
	if ((r = takes_value(a, "--gpu", i, argc, argv, &v)) != 0) {
		/* digits only: strtol alone takes "" (as 0), " 3" and "+3" */
		long n = r > 0 && *v && v[strspn(v, "0123456789")] == '\0' ? strtol(v, NULL, 10) : -1;
		if (n < 0 || n > 1023)
			return -1;
		c->gpu = (int)n;
		return 1;
	}
	if ((r = takes_value(a, "--trust", i, argc, argv, &v)) != 0)
		return r < 0 ? r : add_list(c->trust_files, &c->ntrust_files, v);
	if ((r = takes_value(a, "--trust-fingerprint", i, argc, argv, &v)) != 0)
		return r < 0 ? r : add_list(c->fingerprints, &c->nfingerprints, v);
	return 0;
}

static int positional(const char *a, struct cli *c, char *why, size_t size)
{
	if (!c->verb && strcmp(a, "version") == 0) /* as 'bundler version' */
		return c->version = 1, 0;
	if (!c->verb) {
		for (size_t k = 0; verbs[k]; k++)
			if (strcmp(a, verbs[k]) == 0)
				return c->verb = verbs[k], c->verb_given = 1, 0;
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

int cli_parse(int argc, char **argv, struct cli *c, char *why, size_t why_size)
{
	memset(c, 0, sizeof(*c));
	progname_set(argc > 0 ? argv[0] : NULL);
	c->gpu = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '/' && windows_switch(a, c))
			continue;
		if (a[0] == '-' && a[1]) {
			int r = long_option(a, &i, argc, argv, c);
			if (r == 0) {
				snprintf(why, why_size, "unknown option '%s'", a);
				return 1;
			}
			if (r == -2) {
				snprintf(why, why_size, "option '%s' given more than %d times", a,
					 CLI_MAX_TRUST);
				return 1;
			}
			if (r < 0) {
				snprintf(why, why_size, "option '%s' needs a value", a);
				return 1;
			}
			continue;
		}
		if (positional(a, c, why, why_size))
			return 1;
	}
	/* 'unpacker nosuch --help': a word that is no command and no file is a typo, as for
	 * the bundler, not the help of install. */
	if (c->help && !c->verb_given && c->arg && platform_access(c->arg, PLATFORM_CAN_EXIST) != 0) {
		snprintf(why, why_size, "unknown command '%s' (commands: install verify validate list "
			 "use uninstall env doctor trust help)", c->arg);
		return 1;
	}
	if (!c->verb)
		c->verb = "install";
	if (!c->root)
		c->root = "";
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
				 strerror(errno));
			return 2;
		}
	return 0;
}
