/* unlisted.c - entries of an installed tree that its manifest does not list */
#include "unpacker/target/unlisted.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/pathrule.h"
#include "manifests/shadow.h"

struct walk {
	size_t skip; /* strlen(dir) */
	const struct manifest *m;
	char **found;
	size_t n, cap;
};

/* A directory is listed when a listed entry lies below it. */
static int dir_listed(const struct manifest *m, const char *rel)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (path_is_below(m->files[i].path, rel))
			return 1;
	return 0;
}

/* lib/NAME -> TARGET, TARGET a plain name that the manifest lists in lib/: what ldconfig
 * makes for a library's soname. A NAME of the C library, the loader or a base library
 * (libc.so.6, libdl.so.2, libz.so.1, libz.so, libnss_winbind.so.2: the stem lists of
 * pathrule.h and shadow.h, any version) is never one: no
 * bundle may carry such a soname, so ldconfig never makes that link, and one planted would
 * become what every program (the unpacker included) maps under that name. */
static int soname_link(const char *path, const struct platform_stat *st, const char *rel,
		       const struct manifest *m)
{
	char target[PATH_MAX];
	if (st->type != PLATFORM_TYPE_LINK || strncmp(rel, "lib/", 4) != 0 || strchr(rel + 4, '/') ||
	    path_is_c_runtime(rel) || shadow_is_system_library(rel) ||
	    platform_readlink(path, target, sizeof(target)) <= 0 || strchr(target, '/') ||
	    strcmp(target, ".") == 0 || strcmp(target, "..") == 0)
		return 0;
	char *listed = xasprintf("lib/%s", target);
	int found = entry_find(m->files, m->nfiles, listed) != NULL;
	free(listed);
	return found;
}

static int visit(const char *path, const struct platform_stat *st, void *ctx)
{
	struct walk *w = ctx;
	if (strlen(path) <= w->skip)
		return 0; /* the tree's own directory */
	/* as the manifest spells it: '/' between names (Windows walks with '\\') */
	char *rel = xstrdup(path + w->skip + 1);
	for (char *p = rel; *p; p++)
		*p = platform_is_separator(*p) ? '/' : *p;
	size_t meta = strlen(MANIFEST_META_DIR);
	int listed = (strncmp(rel, MANIFEST_META_DIR, meta) == 0 && (rel[meta] == '\0' || rel[meta] == '/')) ||
		     (st->type == PLATFORM_TYPE_DIR ? dir_listed(w->m, rel)
						    : entry_find(w->m->files, w->m->nfiles, rel) != NULL);
	if (listed || soname_link(path, st, rel, w->m)) {
		free(rel);
		return 0;
	}
	/* Post-order: what an unlisted directory holds came first; only the directory stays. */
	size_t n = strlen(rel);
	while (w->n > 0 && strncmp(w->found[w->n - 1], rel, n) == 0 && w->found[w->n - 1][n] == '/')
		free(w->found[--w->n]);
	if (w->n + 2 > w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->found = xrealloc(w->found, w->cap * sizeof(*w->found));
	}
	w->found[w->n++] = rel;
	return 0;
}

char **unlisted_entries(const char *dir, const struct manifest *m)
{
	struct walk w = { .skip = strlen(dir), .m = m };
	w.found = xmalloc(sizeof(*w.found));
	w.cap = 1;
	if (platform_walk_post(dir, visit, &w) != 0) {
		w.found[w.n] = NULL;
		unlisted_free(w.found);
		return NULL;
	}
	w.found[w.n] = NULL;
	return w.found;
}

void unlisted_free(char **list)
{
	for (size_t i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

int unlisted_move_aside(const char *dir, const struct manifest *m, size_t *moved, struct cf_err *e)
{
	char **list = unlisted_entries(dir, m);
	int rc = CF_OK;
	*moved = 0;
	if (!list)
		return cf_fail(e, CF_INSTALL, "%s: cannot be read: %s", dir, platform_strerror(errno));
	char sep = platform_dir_separator();
	char *meta = xasprintf("%s%c%s", dir, sep, MANIFEST_META_DIR);
	char *aside = xasprintf("%s%caside", meta, sep);
	/* Only when there is something to move: a clean install stays as the bundle left it. */
	if (list[0]) {
		platform_mkdir(meta, 0755);
		platform_mkdir(aside, 0700);
	}
	for (size_t i = 0; rc == CF_OK && list[i]; i++) {
		/* lib/x.so -> .cuferry/aside/lib%x.so.N: one flat directory, never overwritten */
		char *flat = xstrdup(list[i]), *to = NULL;
		char *from = xasprintf("%s%c%s", dir, platform_dir_separator(), list[i]);
		for (char *p = flat; *p; p++)
			*p = *p == '/' ? '%' : *p;
		char shown[PATH_MAX];
		log_safe(list[i], shown, sizeof(shown));
		struct platform_stat st;
		for (int k = 0; !to || platform_lstat(to, &st) == 0; k++) {
			free(to);
			to = xasprintf("%s%c%s.%d", aside, sep, flat, k);
		}
		if (platform_rename(from, to) != 0) /* rename(2) moves a link, never what it names */
			rc = cf_fail(e, CF_INSTALL, "moving the unlisted '%s' aside: %s", shown, platform_strerror(errno));
		else {
			log_msg(LOG_INFO, "moved aside %s (not in the manifest): %s", shown, to);
			(*moved)++;
		}
		free(flat);
		free(to);
		free(from);
	}
	free(meta);
	free(aside);
	unlisted_free(list);
	return rc;
}
