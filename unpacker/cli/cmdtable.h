/* cmdtable.h - the unpacker's one command table: every command's name, the function that runs
 * it, its help and the options it takes (a row: command.h), read by the parser, the dispatch,
 * the help and the shell completion */
#ifndef UNPACKER_CLI_CMDTABLE_H
#define UNPACKER_CLI_CMDTABLE_H

#include "unpacker/cli/command.h"

/* Every command, ended by a row without a name. */
extern const struct command cmd_table[];

/* unpacker help [COMMAND], --help: the usage and the list of commands, or one command's help
 * on stdout; CF_USAGE (the reason in e) when there is no such command. */
int cmd_print_help(const char *command, struct cf_err *e);
/* --complete-words [COMMAND [SUB]]: for the shell completion, one a line on stdout: with no
 * COMMAND the commands, then what goes without one; else COMMAND's subcommands, then each
 * option it takes, with the kind of value it takes ("--prefix dir", "--shell word sh ps cmd").
 * CF_USAGE (the reason in e) when there is no such command. */
int cmd_complete_words(int argc, char **argv, struct cf_err *e);

#endif
