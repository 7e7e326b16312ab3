/* help.h - the unpacker's usage and the help of each command (unpacker help CMD, CMD --help);
 * the command table (cmdtable.c) says which text is whose */
#ifndef UNPACKER_HELP_H
#define UNPACKER_HELP_H

/* The usage of the whole program: Linux's, or on Windows its own (X.exe, /D=, no --root,
 * --modulefiles or ldconfig-era options). */
const char *unpacker_usage(void);
/* text, or on Windows the text where Windows differs (NULL: the same). */
const char *help_for_platform(const char *text, const char *windows);

extern const char help_install[];
extern const char help_install_windows[];
extern const char help_verify[];
extern const char help_self_install[];
extern const char help_self_install_windows[];
extern const char help_validate[];
extern const char help_list[];
extern const char help_use[];
extern const char help_use_windows[];
extern const char help_uninstall[];
extern const char help_uninstall_windows[];
extern const char help_env[];
extern const char help_env_windows[];
extern const char help_doctor[];
extern const char help_inventory[];
extern const char help_trust[];
extern const char help_help[];

#endif
