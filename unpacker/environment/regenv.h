/* regenv.h - the Windows environment of an install (DESIGN.md §6): the registry PATH (machine
 * or user) holding the current install's bin directory and the product's variable naming it, written
 * through common/platform.h's persistent environment, with the values before saved exactly
 * (text, REG_EXPAND_SZ or not, or absent) so that a rollback puts them back byte for byte. */
#ifndef UNPACKER_REGENV_H
#define UNPACKER_REGENV_H

#include "common/err.h"
#include "common/platform.h"
#include "unpacker/target/layout.h"

/* Whose environment: the machine's for an Administrator, the user's otherwise or when the
 * user's was asked for (--env=user). */
enum platform_env_scope regenv_scope(int env_user);
/* For use and uninstall: regenv_scope, but the user's when an Administrator's prefix is on
 * the user's PATH and not on the machine's (it was installed with --env=user). dir: an
 * install being removed (no longer in state.json) that counts as the prefix's, or NULL. */
enum platform_env_scope regenv_scope_in_use(const struct layout *l, int env_user, const char *dir);
/* 1 when PATH holds the current install's bin directory and the product's variable names it. */
int regenv_present(const struct layout *l, enum platform_env_scope scope);
/* Point PATH and the product's variable at the current install of state.json (one write each, only what
 * differs): our entry first, every other entry as it was, the bin directories of the other
 * installs of the prefix taken out; WM_SETTINGCHANGE after. Nothing current: as regenv_remove. */
int regenv_write(const struct layout *l, enum platform_env_scope scope, struct cf_err *e);
/* Take the install DIR's bin out of PATH and the product's variable away when it names DIR. */
int regenv_remove(const struct layout *l, enum platform_env_scope scope, const char *dir,
		  struct cf_err *e);
/* Save PATH and the product's variable as they are (l->env_before), and put exactly that back. */
int regenv_snapshot_save(const struct layout *l, enum platform_env_scope scope, struct cf_err *e);
int regenv_snapshot_restore(const struct layout *l, struct cf_err *e);

#endif
