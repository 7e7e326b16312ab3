/* libreq.h - what a bundle's own libraries ask of the host, read from the files: the newest
 * glibc symbol version their ELF files need (.gnu.version_r), and the newest Windows version
 * their PE headers name (MajorOperatingSystemVersion / MajorSubsystemVersion). The manifest
 * records both (requires.glibc_min, requires.windows_min) so that the unpacker refuses an
 * older host before it writes anything. */
#ifndef BUNDLER_LIBREQ_H
#define BUNDLER_LIBREQ_H

#include <stddef.h>

#include "bundler/source.h"

/* glibc and windows get "2.27" and "6.1", or "" when no file of the tree names one. */
void libreq_scan(const struct tree *t, char *glibc, size_t gsize, char *windows, size_t wsize);

#endif
