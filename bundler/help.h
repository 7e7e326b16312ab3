/* help.h - the bundler's usage and the help of each command (bundler help CMD, CMD --help);
 * the command table (cmdtable.c) says which text is whose */
#ifndef BUNDLER_HELP_H
#define BUNDLER_HELP_H

extern const char bundler_usage[];
extern const char help_keygen[];
extern const char help_create[];
extern const char help_resolve[];
extern const char help_inspect[];
extern const char help_sign[];
extern const char help_split[];
extern const char help_sfx[];
extern const char help_kit[];
extern const char help_cuda_json[];
extern const char help_trust_statement[];
extern const char help_help[];

#endif
