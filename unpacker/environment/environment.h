/* environment.h - the environment an install writes besides its files: ld.so.conf.d,
 * profile.d, the user snippet and modulefiles */
#ifndef UNPACKER_INSTALL_ENVIRONMENT_H
#define UNPACKER_INSTALL_ENVIRONMENT_H

#include "common/err.h"
#include "unpacker/target/result.h"
#include "unpacker/target/layout.h"
#include "unpacker/environment/modulefile.h"

/* The directory modulefiles go to (below) passes the prefix's ownership rule
 * (safepath_check_dir: no link inside --root; as root, every directory down to it owned by
 * root and writable by nobody else): CF_OK, or CF_INCOMPATIBLE (4) with the reason. */
int environment_check_module_dir(const struct layout *p, const struct install_options *o,
				 struct cf_err *e);
/* Modulefiles: into --modulefiles DIR, or into the site's Lmod directory when Lmod is there
 * and the system environment is written (root, no --no-env). */
int environment_write_modulefiles(const struct layout *p, const struct install_options *o,
				  const char *dir, struct install_result *r, struct cf_err *e);
/* The environment files written, for the result. */
void environment_note_paths(struct install_result *r, const char *a, const char *b);
/* How a fresh program finds the install: the loader's cache (the system files) or the
 * LD_LIBRARY_PATH of the user snippet; validate_options' env_mode (the environment is below
 * validation, which checks what it wrote). */
enum { VALIDATE_ENV_CACHE, VALIDATE_ENV_LIBRARY_PATH };
/* The mode an install's options give: VALIDATE_ENV_CACHE or VALIDATE_ENV_LIBRARY_PATH. */
int environment_validate_mode(const struct layout *p, const struct install_options *o);
/* An ld.so.conf.d file under the old name takes the new one. */
int environment_migrate(const struct layout *p, const struct install_options *o, struct cf_err *e);
/* A re-run with --modulefiles DIR: install `dir`'s modulefiles there when they are missing,
 * the default staying with `current` (NULL: none). */
int environment_add_missing_modulefiles(const struct layout *p, const struct install_options *o,
					const char *dir, const char *current,
					struct install_result *r, struct cf_err *e);
/* 1 when the environment the options ask for is missing (a re-run would write it). */
int environment_missing(const struct layout *p, const struct install_options *o);
/* The environment the options ask for, written when it is missing. */
int environment_add_missing(const struct layout *p, const struct install_options *o,
			    struct install_result *r, struct cf_err *e);

/* 1 when the install writes the environment as part of its transaction (saved before, put
 * back on rollback): as root on Linux (ld.so.conf.d, profile.d), always on Windows (the
 * machine's or the user's registry PATH and the product's variable), never with --no-env. */
int environment_transactional(const struct layout *p, const struct install_options *o);
/* 1 when that environment is there (and, on Windows, points at the current install). */
int environment_present(const struct layout *p, const struct install_options *o);
/* Save it exactly as it is now (PREFIX/.cuferry/env-before.json). */
int environment_snapshot_save(const struct layout *p, const struct install_options *o,
			      struct cf_err *e);
/* Write it for the current install of state.json, and say where in r. */
int environment_write(const struct layout *p, const struct install_options *o,
		      struct install_result *r, struct cf_err *e);
/* Rollback: what was saved goes back (saved: the snapshot was written). */
int environment_rollback(const struct layout *p, int saved, struct cf_err *e);
/* Uninstall of the current install DIR: its environment goes (Linux: the files, as root). */
int environment_remove(const struct layout *p, const struct install_options *o, const char *dir,
		       struct cf_err *e);
/* Uninstall --force of the current install `gone`, another made current: the environment
 * follows it (Linux as root: the files written again, naming PREFIX/current, and ldconfig run;
 * Windows: gone's bin leaves PATH and the new current's comes in, in the scope, machine or
 * user, that held gone). */
int environment_hand_over(const struct layout *p, const struct install_options *o,
			  const char *gone, struct cf_err *e);
/* After 'use': the environment follows the new current (Windows: one registry write each
 * for PATH and the product's variable; Linux: nothing, the current link did it). */
int environment_follow_current(const struct layout *p, const struct install_options *o,
			       struct cf_err *e);

#endif
