/* platform_posix_dir.c - listing and walking directories, and shell patterns (POSIX) */
#include "common/platform_posix.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <string.h>

struct platform_dir *platform_dir_open(const char *dir)
{
	return (struct platform_dir *)opendir(dir);
}

const char *platform_dir_next(struct platform_dir *d)
{
	struct dirent *de;
	while ((de = readdir((DIR *)d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			return de->d_name;
	return NULL;
}

void platform_dir_close(struct platform_dir *d)
{
	if (d)
		closedir((DIR *)d);
}

/* nftw passes no context: the walk in progress on this thread. */
struct walk {
	int (*fn)(const char *path, const struct platform_stat *st, void *ctx);
	void *ctx;
};
static _Thread_local struct walk *walking;

static int walk_one(const char *path, const struct stat *raw, int type, struct FTW *ftw)
{
	(void)ftw;
	struct platform_stat st;
	if (type == FTW_NS) { /* gone since it was listed, or not ours to look at */
		memset(&st, 0, sizeof(st));
		st.type = PLATFORM_TYPE_OTHER;
	} else {
		platform_posix_fill_stat(raw, &st);
	}
	return walking->fn(path, &st, walking->ctx);
}

int platform_walk_post(const char *path,
		       int (*fn)(const char *path, const struct platform_stat *st, void *ctx),
		       void *ctx)
{
	struct walk w = { fn, ctx }, *outer = walking;
	walking = &w;
	int rc = nftw(path, walk_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	walking = outer;
	return rc;
}

int platform_glob(const char *pattern, int sorted, void (*fn)(const char *path, void *ctx),
		  void *ctx)
{
	glob_t g;
	int n = 0;
	if (glob(pattern, sorted ? 0 : GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++, n++)
			fn(g.gl_pathv[i], ctx);
		globfree(&g);
	}
	return n;
}
