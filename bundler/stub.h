/* stub.h - finding the static unpacker built for a platform: the stub of a .run/.exe, and
 * the unpacker a kit carries for each platform */
#ifndef BUNDLER_STUB_H
#define BUNDLER_STUB_H

#include <stddef.h>

#include "common/err.h"

/* explicit_path when given; else DIR/unpacker beside this bundler for the host platform and
 * DIR/<platform>/unpacker[.exe] for the others. CF_OK with the path in out, or an error that
 * names the platform and where it looked. */
int stub_find(const char *platform, const char *explicit_path, char *out, size_t size,
	      struct cf_err *e);

#endif
