/* env.h - making the installed product findable: ld.so.conf.d and profile.d as root, a sourced
 * snippet for a user, and the lines for sh, PowerShell and cmd */
#ifndef UNPACKER_ENV_H
#define UNPACKER_ENV_H

#include <stddef.h>

#include "common/err.h"
#include "unpacker/target/layout.h"

struct product;

/* 1 when both system files exist (the ld.so.conf.d one under either name). */
int env_system_present(const struct layout *l);
/* Write both files (root-owned, 0644) pointing at PREFIX/current; run ldconfig when root is
 * the real one (no --root). A file under the old
 * ld.so.conf.d name is renamed first (one atomic step: the directory never leaves the
 * search path). */
int env_write_system(const struct layout *l, struct cf_err *e);
/* Removes the files, the ld.so.conf.d one under both names. */
int env_remove_system(const struct layout *l, struct cf_err *e);
/* Rename the old ld.so.conf.d name to the new one (remove it when both exist), then ldconfig;
 * nothing when there is no file under the old name. */
int env_migrate_legacy(const struct layout *l, struct cf_err *e);
/* Record which of the system files exist and what they hold (in PREFIX/.cuferry/env-before.json),
 * so that env_snapshot_restore can put back exactly that after a failed install. */
int env_snapshot_save(const struct layout *l, struct cf_err *e);
int env_snapshot_restore(const struct layout *l, struct cf_err *e);
/* Write text (a snapshot, NULL when it could not be made) as PREFIX/.cuferry/env-before.json:
 * the one writer of that file (the files' snapshot here, the registry's in regenv.c). */
int env_before_save(const struct layout *l, const char *text, struct cf_err *e);
/* ~/.config/cuferry/NAME (the product's user_env_name) for a normal user (--env=user). */
int env_write_user(const struct layout *l, char *written, size_t size, struct cf_err *e);
/* 1 when that file exists. */
int env_user_present(const struct layout *l);
/* The lines that make the current install of product p usable in a shell (sh, ps or cmd;
 * NULL: cmd for a Windows path, else sh): install_path is what the product's variable
 * (its env_var) names (PREFIX/current; Windows PREFIX\DIR: state_current_install). */
int env_print(const struct product *p, const char *install_path, const char *shell,
	      struct cf_err *e);
/* Write one environment file (0644, its directory made): the one writer every environment
 * file goes through (profile.d, ld.so.conf.d, the user snippet, modulefiles). */
int env_write_file(const char *path, const char *text, struct cf_err *e);
/* The sh snippet itself (the content of profile.d or of the user file). */
char *env_sh_snippet(const struct layout *l, int with_ld_library_path);

#endif
