/* platform_win_dir.c - listing and walking directories, and shell patterns (Windows). The walk
 * never enters a reparse point (link, junction, mount point) nor another volume; patterns
 * match names without regard to case, as Windows names them. */
#include "common/platform.h"
#include "common/platform_win_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>

struct platform_dir {
	HANDLE find;
	int pending; /* data holds an entry not returned yet (FindFirstFileW's) */
	WIN32_FIND_DATAW data;
	char name[MAX_PATH * 3];
};

struct platform_dir *platform_dir_open(const char *dir)
{
	size_t n = strlen(dir);
	char *pattern = malloc(n + 3);
	if (!pattern) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(pattern, n + 3, "%s%s*", dir, n && (dir[n - 1] == '/' || dir[n - 1] == '\\') ? "" : "\\");
	wchar_t *w = win_wide(pattern);
	free(pattern);
	struct platform_dir *d = w ? calloc(1, sizeof(*d)) : NULL;
	if (!d) {
		free(w);
		return NULL;
	}
	d->find = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
	DWORD e = GetLastError();
	free(w);
	if (d->find == INVALID_HANDLE_VALUE) {
		free(d);
		win_fail(e);
		return NULL;
	}
	d->pending = 1;
	return d;
}

const char *platform_dir_next(struct platform_dir *d)
{
	for (;;) {
		if (!d->pending && !FindNextFileW(d->find, &d->data))
			return NULL;
		d->pending = 0;
		const wchar_t *n = d->data.cFileName;
		if (!wcscmp(n, L".") || !wcscmp(n, L".."))
			continue;
		if (win_narrow(n, d->name, sizeof(d->name)) == 0)
			return d->name;
	}
}

void platform_dir_close(struct platform_dir *d)
{
	if (d) {
		FindClose(d->find);
		free(d);
	}
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s\\%s", dir, name);
	return p;
}

struct walk {
	int (*fn)(const char *path, const struct platform_stat *st, void *ctx);
	void *ctx;
	uint64_t device;
};

static int walk_names(const char *name, void *ctx);

struct walk_dir {
	struct walk *walk;
	const char *dir;
};

static int walk_at(struct walk *w, const char *path)
{
	struct platform_stat st;
	if (platform_lstat(path, &st) != 0) { /* gone since it was listed, or not ours to look at */
		memset(&st, 0, sizeof(st));
		st.type = PLATFORM_TYPE_OTHER;
	} else if (st.type == PLATFORM_TYPE_DIR && st.device == w->device) {
		struct walk_dir wd = { w, path };
		int rc = platform_dir_list(path, walk_names, &wd);
		if (rc > 0 || rc < -1)
			return rc;
	}
	return w->fn(path, &st, w->ctx);
}

static int walk_names(const char *name, void *ctx)
{
	struct walk_dir *wd = ctx;
	char *path = join(wd->dir, name);
	if (!path)
		return -1;
	int rc = walk_at(wd->walk, path);
	free(path);
	return rc;
}

int platform_walk_post(const char *path,
		       int (*fn)(const char *path, const struct platform_stat *st, void *ctx),
		       void *ctx)
{
	struct platform_stat top;
	if (platform_lstat(path, &top) != 0)
		return -1;
	struct walk w = { fn, ctx, top.device };
	return walk_at(&w, path);
}

/* ---- shell patterns ---- */

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether name matches pat (*, ? and [...] with ! or ^ and ranges), case-insensitively. */
static int matches(const char *pat, const char *name)
{
	for (; *pat; pat++, name++) {
		if (*pat == '*') {
			while (pat[1] == '*')
				pat++;
			for (const char *n = name;; n++) {
				if (matches(pat + 1, n))
					return 1;
				if (!*n)
					return 0;
			}
		}
		if (!*name)
			return 0;
		if (*pat == '?')
			continue;
		if (*pat == '[') {
			const char *p = pat + 1;
			int negate = *p == '!' || *p == '^', hit = 0;
			p += negate;
			do {
				int lo = lower((unsigned char)*p), hi = lo;
				if (p[1] == '-' && p[2] && p[2] != ']')
					hi = lower((unsigned char)p[2]), p += 2;
				hit |= lower((unsigned char)*name) >= lo && lower((unsigned char)*name) <= hi;
				p++;
			} while (*p && *p != ']');
			if (!*p)
				return lower((unsigned char)*pat) == lower((unsigned char)*name) &&
				       matches(pat + 1, name + 1); /* no closing ]: a plain [ */
			if (hit == negate)
				return 0;
			pat = p;
			continue;
		}
		if (lower((unsigned char)*pat) != lower((unsigned char)*name))
			return 0;
	}
	return !*name;
}

struct found {
	char **paths;
	size_t n, cap;
};

static void add_found(struct found *f, const char *path)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		char **grown = realloc(f->paths, cap * sizeof(*grown));
		if (!grown)
			return;
		f->paths = grown;
		f->cap = cap;
	}
	char *copy = _strdup(path);
	if (copy)
		f->paths[f->n++] = copy;
}

/* Expand the components of rest under base (a path that exists, or "" at the start). */
static void expand(const char *base, const char *rest, struct found *f)
{
	while (*rest == '/' || *rest == '\\')
		rest++;
	if (!*rest) {
		add_found(f, base);
		return;
	}
	size_t len = strcspn(rest, "/\\");
	char *component = malloc(len + 1);
	if (!component)
		return;
	memcpy(component, rest, len);
	component[len] = '\0';
	const char *next = rest + len;
	if (!strpbrk(component, "*?[")) {
		char *path = *base ? join(base, component) : _strdup(component);
		struct platform_stat st;
		if (path && platform_lstat(path, &st) == 0)
			expand(path, next, f);
		free(path);
	} else {
		struct platform_dir *d = platform_dir_open(*base ? base : ".");
		const char *name;
		while (d && (name = platform_dir_next(d)) != NULL) {
			if ((name[0] == '.' && component[0] != '.') || !matches(component, name))
				continue;
			char *path = *base ? join(base, name) : _strdup(name);
			if (path)
				expand(path, next, f);
			free(path);
		}
		platform_dir_close(d);
	}
	free(component);
}

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int platform_glob(const char *pattern, int sorted, void (*fn)(const char *path, void *ctx),
		  void *ctx)
{
	struct found f = { 0 };
	char root[4] = "";
	const char *rest = pattern;
	if (win_is_absolute(pattern)) { /* "C:\" is where the expansion starts */
		memcpy(root, pattern, 3);
		root[2] = '\\';
		rest = pattern + 3;
	} else if (pattern[0] == '/' || pattern[0] == '\\') {
		root[0] = '\\';
		rest = pattern + 1;
	}
	if (root[0] && !*rest)
		add_found(&f, root);
	else if (root[0])
		expand(root, rest, &f);
	else
		expand("", rest, &f);
	if (sorted && f.n > 1)
		qsort(f.paths, f.n, sizeof(*f.paths), by_bytes);
	for (size_t i = 0; i < f.n; i++) {
		fn(f.paths[i], ctx);
		free(f.paths[i]);
	}
	free(f.paths);
	return (int)f.n;
}
