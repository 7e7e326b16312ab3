/* sums.h - SHA256SUMS beside the bundles (sha256sum -c format), merged: entries of other
 * files are kept, an entry of the same name is replaced */
#ifndef BUNDLER_SUMS_H
#define BUNDLER_SUMS_H

#include <stddef.h>

#include "common/err.h"

/* Hash each of files (all in one directory) and merge them into that directory's SHA256SUMS;
 * entries named in gone (files that no longer exist, may be NULL) are dropped. */
int sums_merge(char *const *files, size_t n, char *const *gone, size_t ngone, struct cf_err *e);

#endif
