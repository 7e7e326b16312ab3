/* env.h - making the installed cuDNN findable: ld.so.conf.d and profile.d as root, a sourced
 * snippet for a user, and the lines for sh, PowerShell and cmd */
#ifndef UNPACKER_ENV_H
#define UNPACKER_ENV_H

#include <stddef.h>

#include "common/err.h"
#include "unpacker/layout.h"

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
/* ~/.config/cuferry/cudnn.sh for a normal user (--env=user). */
int env_write_user(const char *prefix_sys, char *written, size_t size, struct cf_err *e);
/* 1 when ~/.config/cuferry/cudnn.sh exists. */
int env_user_present(void);
/* The lines that make PREFIX/current usable in a shell: sh, ps or cmd. */
int env_print(const char *prefix_sys, const char *shell, struct cf_err *e);
/* Each directory ROOT/etc/ld.so.conf names, its `include` files read in the order glibc's
 * ldconfig reads them (byte order: ldconfig sorts its globs in the C locale, whatever the
 * caller's), each directory once, as written there (without ROOT in front). Without an
 * ld.so.conf, every ROOT/etc/ld.so.conf.d file ending in .conf is read, as if included. */
void env_ld_conf_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx);
/* The same walk, with every occurrence of a directory (one listed by two files is reported
 * twice) and the file that lists it (as the system sees it: /etc/ld.so.conf.d/x.conf). */
void env_ld_conf_entries(const char *root, void (*fn)(const char *dir, const char *conf, void *ctx),
			 void *ctx);
/* Each file the ld cache (`ldconfig -p`, run with a clean environment) holds for soname, in
 * the loader's order, with its flags ("(libc6,x86-64)"); -1 when ldconfig cannot be run. */
int env_ld_cache_find(const char *soname, void (*fn)(const char *path, const char *flags, void *ctx),
		      void *ctx);
/* Write one environment file (0644, its directory made): the one writer every environment
 * file goes through (profile.d, ld.so.conf.d, the user snippet, modulefiles). */
int env_write_file(const char *path, const char *text, struct cf_err *e);
/* The sh snippet itself (the content of profile.d or of the user file). */
char *env_sh_snippet(const char *prefix_sys, int with_ld_library_path);

#endif
