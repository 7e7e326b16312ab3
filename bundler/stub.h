/* stub.h - the unpacker binary a self-extracting file starts with, for a platform.
 *
 * stub_find looks, in this order, and takes the first file whose machine type fits the
 * platform (ELF x86-64 for linux-x86_64, ELF AArch64 for linux-sbsa and linux-aarch64, PE
 * x86-64 for windows-x86_64) and that carries the unpacker's marker (common/bundle/sfx.h), so no
 * other program can become a .run's stub:
 *   1. explicit_path (--unpacker): it must exist (else CF_USAGE), fit and carry the marker
 *      (else CF_INCOMPATIBLE);
 *   2. beside the running bundler: DIR/unpacker when the platform is the host's, then
 *      DIR/<platform>/unpacker (unpacker.exe for Windows) as the build writes them (the
 *      AArch64 platforms share one; windows-x86_64 is also looked for in DIR/windows/);
 *   3. the installed location: DIR/../lib/cuferry/<platform>/unpacker[.exe] (make install).
 * Nothing found is CF_INCOMPATIBLE (exit 4: this bundler cannot make a file for that
 * platform), with one line naming the platform, where it looked and what to build.
 * Callers call it before any download or compression. */
#ifndef BUNDLER_STUB_H
#define BUNDLER_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

int stub_find(const char *platform, const char *explicit_path, char *out, size_t size,
	      struct cf_err *e);
/* ".run" or ".exe": the self-extracting file's extension for a platform. */
const char *stub_extension(const char *platform);
/* The largest self-extracting file the platform starts, in bytes; 0: no limit. */
uint64_t stub_max_file_size(const char *platform);

#endif
