/* modulefile.h - Lmod (Lua) and Environment Modules (Tcl) modulefiles for each install:
 * MODULE/<version>-cuda<variant> (the product's module_name), with the current install as the default (.version). The
 * directories written to are recorded in PREFIX/.cuferry/modulefiles, so that use and
 * uninstall keep them in step without being told again. */
#ifndef UNPACKER_MODULEFILE_H
#define UNPACKER_MODULEFILE_H

#include <stddef.h>

#include "common/err.h"
#include "unpacker/target/layout.h"

/* The site's module directory when Lmod is installed (as the system sees it), or NULL:
 * the first directory of ROOT/etc/lmod/modulespath (Debian's and Ubuntu's lmod), else
 * /usr/share/modulefiles when ROOT/usr/share/lmod/lmod exists (EL, upstream). */
char *modulefile_site_dir(const char *root);
/* 1 when --modulefiles DIR can be written into the files: absolute, and only characters that
 * mean nothing in Lua or Tcl strings ([A-Za-z0-9._+@/-]); the command line checks it first. */
int modulefile_dir_valid(const char *module_dir);
/* Write the Lua and Tcl files of install `dir` (STEM-9.19.0.56-cuda13) into module_dir (as
 * the system sees it), record the directory, and make `dir` the default there. */
int modulefile_install(const struct layout *c, const char *module_dir, const char *dir,
		       struct cf_err *e);
/* 1 when module_dir (as the system sees it) holds both files of install `dir`. */
int modulefile_present(const struct layout *c, const char *module_dir, const char *dir);
/* The recorded module directories (as the system sees them), *n of them; for readers that
 * report them (inventory). Free with modulefile_recorded_free. */
char **modulefile_recorded(const struct layout *c, size_t *n);
void modulefile_recorded_free(char **dirs, size_t n);
/* 1 when module_dir's .version makes install `dir` the default. */
int modulefile_is_default(const struct layout *c, const char *module_dir, const char *dir);
/* In every recorded directory: make `dir` the default, or have none when dir is NULL. */
int modulefile_set_default(const struct layout *c, const char *dir, struct cf_err *e);
/* Remove install `dir`'s modulefiles from every recorded directory. */
int modulefile_remove(const struct layout *c, const char *dir, struct cf_err *e);

#endif
