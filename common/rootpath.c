/* rootpath.c - realpath(3) with a root: links are followed component by component, and a
 * link that starts with / starts again at the root */
#include "common/rootpath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"

#define MAX_LINKS 40 /* the kernel's own limit for one lookup */
#define MAX_NAME 255  /* one component: NAME_MAX on Linux, and Windows' limit too */

int rootpath_resolve(const char *root, const char *path, char *out, size_t size)
{
	char done[PATH_MAX] = "", *todo = xstrdup(path);
	int links = 0, rc = 0;
	char *rest = todo;
	while (rc == 0 && *rest) {
		char *slash = strchr(rest, '/');
		size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
		char name[MAX_NAME + 1];
		if (n > MAX_NAME) {
			rc = -1;
			break;
		}
		memcpy(name, rest, n);
		name[n] = '\0';
		rest += n + (slash != NULL);
		if (n == 0 || strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			char *up = strrchr(done, '/');
			if (up)
				*up = '\0';
			continue;
		}
		size_t used = strlen(done);
		if (used + 1 + n >= sizeof(done)) {
			rc = -1;
			break;
		}
		snprintf(done + used, sizeof(done) - used, "/%s", name);
		char *full = xasprintf("%s%s", root, done), target[PATH_MAX];
		struct platform_stat st;
		int r = platform_lstat(full, &st);
		ssize_t t = r == 0 && st.type == PLATFORM_TYPE_LINK
				    ? platform_readlink(full, target, sizeof(target))
				    : 0;
		free(full);
		if (r != 0 || t < 0 || (t > 0 && ++links > MAX_LINKS)) {
			rc = -1;
			break;
		}
		if (t == 0)
			continue;
		/* The link's target, then what was left: resolved from the root or the link's dir. */
		char *next = xasprintf("%s/%s", target, rest);
		done[used] = '\0';
		if (target[0] == '/')
			done[0] = '\0';
		free(todo);
		todo = rest = next;
	}
	free(todo);
	if (rc == 0)
		snprintf(out, size, "%s", done[0] ? done : "/");
	return rc;
}
