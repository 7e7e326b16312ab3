/* env.h - making the installed cuDNN findable: ld.so.conf.d and profile.d as root, a sourced
 * snippet for a user, and the lines for sh, PowerShell and cmd */
#ifndef UNPACKER_ENV_H
#define UNPACKER_ENV_H

#include <stddef.h>

#include "common/err.h"

struct env_files {
	char *ldconf;  /* ROOT/etc/ld.so.conf.d/cuferry-cudnn.conf */
	char *profile; /* ROOT/etc/profile.d/cuferry-cudnn.sh */
};

void env_files_init(struct env_files *f, const char *root);
void env_files_free(struct env_files *f);
/* 1 when both system files exist. */
int env_system_present(const struct env_files *f);
/* Write both files (root-owned, 0644) pointing at PREFIX/current; run ldconfig when root is
 * the real one. prefix_sys is the prefix as the running system sees it. */
int env_write_system(const struct env_files *f, const char *root, const char *prefix_sys,
		     struct cf_err *e);
int env_remove_system(const struct env_files *f, const char *root, struct cf_err *e);
/* ~/.config/cuferry/cudnn.sh for a normal user (--env=user). */
int env_write_user(const char *prefix_sys, char *written, size_t size, struct cf_err *e);
/* The lines that make PREFIX/current usable in a shell: sh, ps or cmd. */
int env_print(const char *prefix_sys, const char *shell, struct cf_err *e);
/* Each directory the files of ROOT/etc/ld.so.conf.d name, in the order ldconfig reads them
 * (as written there: without ROOT in front). */
void env_ld_conf_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx);
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
