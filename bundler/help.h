/* help.h - the bundler's usage and the help of each command (bundler help CMD, CMD --help) */
#ifndef BUNDLER_HELP_H
#define BUNDLER_HELP_H

extern const char bundler_usage[];
/* The help of one command, or NULL when there is no such command. */
const char *bundler_help_for(const char *command);

#endif
