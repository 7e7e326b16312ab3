/* commands.h - list, use, uninstall, validate and env: the commands on what is installed */
#ifndef UNPACKER_INSTALL_COMMANDS_H
#define UNPACKER_INSTALL_COMMANDS_H

#include "common/err.h"
#include "unpacker/target/result.h"

int list_installed(const struct install_options *o, struct cf_err *e);
int use_installed(const struct install_options *o, const char *id, struct cf_err *e);
int uninstall_installed(const struct install_options *o, const char *id, struct cf_err *e);
/* validate [ID]: the current install when id is NULL. */
/* r: the validation's report, for --json (nothing else of it is filled). */
int validate_command(const struct install_options *o, const char *id, struct install_result *r,
		     struct cf_err *e);
int env_command(const struct install_options *o, const char *shell, struct cf_err *e);

#endif
