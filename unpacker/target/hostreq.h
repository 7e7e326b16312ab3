/* hostreq.h - whether this machine (or the --root image) meets what a bundle's own libraries
 * ask of it: the glibc symbol versions they need (manifest requires.glibc_min), or for a
 * Windows bundle the Windows version its DLLs' PE headers name (requires.windows_min), both
 * read from the files by the bundler. Judged before anything is staged, by install and by the
 * chooser, so that an old system is told why instead of installing, failing validation and
 * rolling back. */
#ifndef UNPACKER_HOSTREQ_H
#define UNPACKER_HOSTREQ_H

#include <stddef.h>

#include "manifests/manifest.h"

/* 0 when the host meets the bundle's floor, or the bundle or host names none (older bundles,
 * an image without a C library, a Windows whose version cannot be read); 1 when it does not,
 * with the reason in why. */
int hostreq_check(const char *root, const struct manifest *m, char *why, size_t size);

#endif
