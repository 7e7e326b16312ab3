/* help.h - the unpacker's help for each command (unpacker help CMD, CMD --help) */
#ifndef UNPACKER_HELP_H
#define UNPACKER_HELP_H

/* The usage of the whole program: cli_usage, or on Windows its own (X.exe, /D=, no --root,
 * --modulefiles or ldconfig-era options). */
const char *unpacker_usage(void);
/* The help of one command, or NULL when there is no such command. */
const char *unpacker_help_for(const char *command);

#endif
