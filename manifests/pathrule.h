/* pathrule.h - the portable path policy of DESIGN.md §3, shared by bundler and unpacker */
#ifndef MANIFESTS_PATHRULE_H
#define MANIFESTS_PATHRULE_H

#include <stddef.h>

#define PATH_MAX_TOTAL 1024
#define PATH_MAX_COMPONENT 255

/* 0 when path is acceptable on every platform and its last name is no C runtime name
 * (path_is_c_runtime); otherwise -1 and a reason in why. */
int path_check(const char *path, char *why, size_t why_size);
/* 1 when the last name of path is exactly one of the C library's or the dynamic loader's
 * sonames (libc.so.6, libdl.so.2, libpthread.so.0, ld-linux-*.so.*, libstdc++.so.6, and every
 * name the unpacker NEEDs): one list, in pathrule.c. */
int path_is_c_runtime(const char *path);
/* The same rule for one component (a symlink target, a file name). */
int path_check_component(const char *name, size_t len, char *why, size_t why_size);
/* Case-insensitive ASCII comparison, as Windows and macOS file systems compare names. */
int path_casecmp(const char *a, const char *b);
/* Whether path lies below directory dir ("lib/x.so" below "lib"; not "lib2/x"). */
int path_is_below(const char *path, const char *dir);

#endif
