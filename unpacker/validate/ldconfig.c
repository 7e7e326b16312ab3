/* ldconfig.c - the loader's configured directories, each once, as ldconfig takes them */
#include "unpacker/validate/ldconfig.h"

#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"

struct unique_dirs {
	char **seen;
	size_t n;
	void (*fn)(const char *dir, void *ctx);
	void *ctx;
};

/* ldconfig takes a directory given twice only once, at its first place. */
static void unique_dir(const char *dir, const char *conf, void *ctx)
{
	struct unique_dirs *u = ctx;
	(void)conf;
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->seen[i], dir) == 0)
			return;
	u->seen = xrealloc(u->seen, (u->n + 1) * sizeof(char *));
	u->seen[u->n++] = xstrdup(dir);
	u->fn(dir, u->ctx);
}

void ldconfig_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx)
{
	struct unique_dirs u = { NULL, 0, fn, ctx };
	platform_lib_config_dirs(root, unique_dir, &u);
	for (size_t i = 0; i < u.n; i++)
		free(u.seen[i]);
	free(u.seen);
}
