/* pathrule.h - the portable path policy of DESIGN.md §3, shared by bundler and unpacker */
#ifndef MANIFESTS_PATHRULE_H
#define MANIFESTS_PATHRULE_H

#include <stddef.h>

#define PATH_MAX_TOTAL 1024
#define PATH_MAX_COMPONENT 255

/* 0 when path is acceptable on every platform and its last name is no C runtime name
 * (path_is_c_runtime); otherwise -1 and a reason in why. */
int path_check(const char *path, char *why, size_t why_size);
/* 1 when the last name of path is a name of the C library's or the dynamic loader's libraries
 * (libc, libdl, libpthread, libstdc++, ..., every library the unpacker NEEDs: one list of
 * stems, in pathrule.c, matched by path_names_library; and ld-linux-*.so.*). */
int path_is_c_runtime(const char *path);
/* 1 when the last name of path is a name of a library of stems (NULL-terminated): STEM ".so",
 * alone or followed by "." and a version of digits and dots ("libz.so", "libz.so.1",
 * "libz.so.1.2.13"), never another stem's that starts alike ("libzstd.so.1" is not libz's)
 * or another suffix ("libz.so.backup"). A stem ending in '*' is a family: its prefix, one
 * character or more, then the same ("libnss_*": libnss_winbind.so.2). The one matcher of the
 * C-runtime list here and the base-library list of shadow.h. */
int path_names_library(const char *path, const char *const stems[]);
/* The same rule for one component (a symlink target, a file name). */
int path_check_component(const char *name, size_t len, char *why, size_t why_size);
/* Case-insensitive ASCII comparison, as Windows and macOS file systems compare names. */
int path_casecmp(const char *a, const char *b);
/* Whether path lies below directory dir ("lib/x.so" below "lib"; not "lib2/x"). */
int path_is_below(const char *path, const char *dir);

#endif
