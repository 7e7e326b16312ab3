/* command.h - what a row of the unpacker's command table is (the table: cmdtable.c): a
 * command's name, the arguments and options it takes, the function that runs it and its help. Types only, so
 * that the parser (cli.c) reads the table without depending on the commands it runs. */
#ifndef UNPACKER_COMMAND_H
#define UNPACKER_COMMAND_H

#include <stdint.h>

#include "common/cmdline.h"
#include "common/err.h"

struct cli;
struct install_options;
struct install_result;

/* Every option the unpacker knows (their spellings: cli.c); a command takes a set of them. */
enum cmd_option {
	OPT_HELP, OPT_VERSION, OPT_SILENT, OPT_VERBOSE, OPT_LOG, OPT_JSON, OPT_ROOT, OPT_PREFIX,
	OPT_TRUST, OPT_TRUST_FINGERPRINT, OPT_FINGERPRINT, OPT_REMEMBER, OPT_NO_ENV, OPT_ENV_USER,
	OPT_ALLOW_DOWNGRADE, OPT_KEEP_CURRENT, OPT_ALLOW_EXPIRED, OPT_REPAIR, OPT_NO_VALIDATE,
	OPT_REQUIRE_GPU, OPT_KEEP_FAILED, OPT_GPU, OPT_QUICK_VALIDATE, OPT_MODULEFILES,
	OPT_DRY_RUN, OPT_CUDA, OPT_PLATFORM, OPT_FORCE, OPT_SHELL, OPT_PRODUCT, OPT_DEEP, OPT_SBOM,
	OPT_PROVENANCE,
	OPT_COUNT
};
/* A set of options: one bit per enum cmd_option. */
#define CMD_OPT(id) ((uint64_t)1 << (id))
/* What every command takes: its help, and how it reports (silent, verbose, a log, a --json
 * report) and where the system's paths are (--root). */
#define CMD_COMMON_OPTIONS                                                                    \
	(CMD_OPT(OPT_HELP) | CMD_OPT(OPT_SILENT) | CMD_OPT(OPT_VERBOSE) | CMD_OPT(OPT_LOG) |   \
	 CMD_OPT(OPT_JSON) | CMD_OPT(OPT_ROOT))

typedef int (*cmd_run)(const struct cli *c, struct install_options *o, struct install_result *r,
		       struct cf_err *e);

struct command {
	const char *name;
	struct cmd_args args;     /* what it takes besides options (cli.c refuses more or fewer);
				   * with subcommands: the subcommand, for the usage only */
	cmd_run run;              /* NULL when its subcommands run it (trust) */
	const char *summary;      /* one line, for the list of commands in the usage */
	const char *help;         /* 'help NAME' and 'NAME --help' */
	const char *help_windows; /* where Windows differs, else NULL */
	uint64_t options;         /* besides the ones every command takes (CMD_COMMON_OPTIONS) */
	const struct command *subs; /* trust list|add|...; the first is the default */
};

#endif
