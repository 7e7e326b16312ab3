/* platform_dir.c - what common/platform.h offers on top of its own calls, the same on every
 * system: a directory's names handed to a function. */
#include "common/platform.h"

#include <stddef.h>

int platform_dir_list(const char *dir, int (*fn)(const char *name, void *ctx), void *ctx)
{
	struct platform_dir *d = platform_dir_open(dir);
	const char *name;
	int rc = 0;
	if (!d)
		return -1;
	while (rc == 0 && (name = platform_dir_next(d)) != NULL)
		rc = fn(name, ctx);
	platform_dir_close(d);
	return rc;
}
