/* cmdtable.h - the bundler's one command table: every command's name, the function that runs
 * it, its help and the options it takes, read by the parser and the dispatch (main.c), the
 * help and the shell completion (--complete-words) */
#ifndef BUNDLER_CMDTABLE_H
#define BUNDLER_CMDTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cmdline.h"

struct bundler_args;

/* Every option the bundler knows; a command takes a set of them (CMD_OPT bits). */
enum cmd_option {
	OPT_HELP, OPT_VERBOSE, OPT_QUIET, OPT_PRODUCT, OPT_PRODUCT_VERSION, OPT_VERSION_ALIAS,
	OPT_CUDA, OPT_PLATFORM, OPT_KEY, OPT_OUT,
	OPT_MIRROR, OPT_ARCHIVE, OPT_DIR, OPT_CUDA_LIBS, OPT_ADD_FILE, OPT_COUNTER, OPT_EXPIRES,
	OPT_ALLOW_FUTURE, OPT_LEVEL, OPT_THREADS, OPT_SPLIT, OPT_SFX, OPT_UNPACKER, OPT_CACHE,
	OPT_OFFLINE, OPT_EXPORT, OPT_EXTERNAL, OPT_PUB, OPT_SIGNATURE, OPT_FORCE, OPT_BUNDLE,
	OPT_NO_UNPACKER, OPT_VALID_DAYS, OPT_STATEMENT, OPT_RELEASE, OPT_REVOKE, OPT_ADD,
	OPT_THRESHOLD, OPT_STATEMENT_THRESHOLD, OPT_SBOM, OPT_PROVENANCE, OPT_WITH, OPT_WITH_DIR,
	OPT_WITH_ARCHIVE,
	OPT_COUNT
};
#define CMD_OPT(id) ((uint64_t)1 << (id))
/* What every command takes: its help, and more detail (--verbose). */
#define CMD_COMMON_OPTIONS (CMD_OPT(OPT_HELP) | CMD_OPT(OPT_VERBOSE))

/* Every spelling, ended by a row without a name. */
extern const struct cmd_spelling cmd_spellings[];

struct command {
	const char *name;
	struct cmd_args args; /* what it takes besides options: main.c refuses more or fewer */
	int (*run)(struct bundler_args *c, int argc, char **argv); /* argv: what is no option */
	const char *summary; /* one line, for the list of commands in the usage */
	const char *help;    /* 'help NAME' and 'NAME --help' */
	uint64_t options;    /* besides CMD_COMMON_OPTIONS */
};
/* Every command, ended by a row without a name. */
extern const struct command cmd_table[];

const struct command *cmd_find(const char *name);
/* "keygen create ...", for messages. */
void cmd_names(char *out, size_t size);
/* bundler help [COMMAND]: the usage and the list of commands (to stderr when to_stderr), or
 * one command's help; 1 with a usage error when there is no such command. */
int cmd_print_help(const char *command, int to_stderr);
/* --complete-words [COMMAND]: for the shell completion, one a line on stdout: the commands,
 * or each option COMMAND takes with the kind of value it takes ("--key file", "--split word
 * fat32 700M 2G"); 1 when there is no such command. */
int cmd_complete_words(int argc, char **argv);

#endif
