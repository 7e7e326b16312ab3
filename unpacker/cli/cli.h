/* cli.h - the unpacker's command line, Windows-style switches included (DESIGN.md §8) */
#ifndef UNPACKER_CLI_H
#define UNPACKER_CLI_H

#include <stddef.h>

#include "unpacker/cli/command.h"

#define CLI_MAX_TRUST 16

struct cli {
	const char *verb;      /* install, verify, validate, list, use, uninstall, env, doctor,
			* inventory, help */
	const struct command *command; /* the table's row that runs it (trust: its subcommand's) */
	const char *arg;       /* BUNDLE or ID; trust: the subcommand's KEY.pub, FP, N or FILE */
	size_t nargs;          /* how many were given (arg is the first): the row says how many */
	const char *trust_sub; /* trust: list, add, remove, threshold, apply, reset-clock, ... */
	const char *fingerprint; /* trust add --fingerprint HEX */
	const char *prefix;
	const char *prefix_option; /* how the prefix was given: "--prefix", "/D" or "/prefix" */
	const char *root;
	const char *log_file;
	const char *json_file;
	const char *shell;
	const char *cuda;      /* install DIR: --cuda MAJOR instead of the driver's */
	const char *platform;  /* install DIR --dry-run: choose for another platform */
	const char *modulefiles; /* --modulefiles DIR */
	const char *product;   /* --product NAME: a name of the product registry, or NULL */
	const char *sbom;      /* verify --sbom cyclonedx|spdx */
	const char *trust_files[CLI_MAX_TRUST];
	size_t ntrust_files;
	const char *fingerprints[CLI_MAX_TRUST];
	size_t nfingerprints;
	int silent, no_env, env_user, no_validate, require_gpu, allow_downgrade, allow_expired;
	int force, help, verbose, keep_failed, quick, dry_run;
	int keep_current;
	int remember; /* install --trust K.pub --remember: add the key once the install worked */
	int repair, version;
	int deep; /* inventory --deep: every file's SHA-256 too */
	int provenance; /* verify --provenance */
	int verb_given; /* the command was named: "unpacker install --help" vs "unpacker --help" */
	int gpu; /* -1: all */
	int why_names_help; /* the reason already says which help to read */
};

/* 0 ok; otherwise 1 with a one-line reason in why. The commands and the options each takes
 * are table's (cmdtable.c): an option the command does not take is a usage error. Sets
 * progname() from argv[0]. */
int cli_parse(int argc, char **argv, const struct command *table, struct cli *c, char *why,
	      size_t why_size);
/* Every spelling of every option, ended by a row without a name. */
extern const struct cmd_spelling cli_spellings[];
/* The spelling messages use for an option ("--prefix"). */
const char *cli_option_name(enum cmd_option id);
/* The row of the table (or of a row's subcommands) called name, or NULL. */
const struct command *cli_find_command(const struct command *table, const char *name);
/* "install verify ...": the names of a table's rows, for messages. */
void cli_command_names(const struct command *table, char *out, size_t size);
/* Inputs a command cannot use, said before any work: 0, or the exit code with the reason in
 * why (a directory or a later part given as the bundle: 1; an unreadable --trust file: 2). */
int cli_check_inputs(const struct cli *c, char *why, size_t why_size);

#endif
