/* stub.c - where the unpacker for a platform lies: given, or beside this bundler
 * (minimal version for the kit; the sfx lane owns this module) */
#include "bundler/stub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/io.h"
#include "common/platform.h"

static int regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int stub_find(const char *platform, const char *explicit_path, char *out, size_t size,
	      struct cf_err *e)
{
	char *path;
	if (explicit_path) {
		path = xstrdup(explicit_path);
	} else {
		const char *self = platform_self_path();
		const char *slash = self ? strrchr(self, '/') : NULL;
		int dirlen = slash ? (int)(slash - self) : 1;
		const char *dir = slash ? self : ".";
		if (strcmp(platform, platform_name()) == 0)
			path = xasprintf("%.*s/unpacker", dirlen, dir);
		else
			path = xasprintf("%.*s/%s/unpacker%s", dirlen, dir, platform,
					 strncmp(platform, "windows", 7) == 0 ? ".exe" : "");
	}
	int rc = CF_OK;
	errno = 0;
	if (!regular_file(path))
		rc = cf_fail(e, CF_USAGE, "no unpacker for %s: %s: %s", platform, path,
			     errno ? strerror(errno) : "is not a regular file");
	else if (strlen(path) >= size)
		rc = cf_fail(e, CF_USAGE, "%s: path too long", path);
	else
		snprintf(out, size, "%s", path);
	free(path);
	return rc;
}
