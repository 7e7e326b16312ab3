/* devfiles.h - the pkg-config and CMake package files every Linux bundle carries, so builders
 * find the installed product: lib/pkgconfig/<pkgconfig_name>.pc and
 * lib/cmake/<cmake_package>/<cmake_package>Config.cmake with its ConfigVersion.cmake. They are relocatable (paths from ${pcfiledir} and
 * ${CMAKE_CURRENT_LIST_DIR}), so the files are part of the signed tree like any other: the
 * install directory is never modified after install, and validation checks them. */
#ifndef BUNDLER_DEVFILES_H
#define BUNDLER_DEVFILES_H

#include "bundler/source.h"
#include "common/err.h"

/* Write the files for `version` of the tree's product into workdir/devfiles and add them to
 * the tree. A tree without lib/<lib_stem>.so.<major> (Windows) gets none; a file the source
 * already has is kept. */
int devfiles_add(struct tree *t, const char *version, const char *workdir, struct cf_err *e);

#endif
