/* ldconfig.c - what the dynamic loader is told: ld.so.conf as glibc's ldconfig reads it, and
 * the ld cache as ldconfig prints it */
#include "unpacker/validate/ldconfig.h"

#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/layout.h"
#include "common/rootpath.h"

const char *ldconfig_program(void)
{
	static const char *const candidates[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	for (size_t i = 0; i < 2; i++)
		if (access(candidates[i], X_OK) == 0)
			return candidates[i];
	return NULL;
}

/* ---- reading ld.so.conf the way glibc's ldconfig does (elf/ldconfig.c parse_conf) ---- */

struct conf_walk {
	const char *root;
	void (*fn)(const char *dir, const char *conf, void *ctx);
	void *ctx;
};

static int bytewise(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void conf_file(struct conf_walk *w, const char *conf_sys, int depth);

/* An `include` pattern: relative ones are relative to the including file's directory. Matches
 * are read in byte order, as ldconfig keeps the C collation for exactly this glob. */
static void conf_include(struct conf_walk *w, const char *conf_sys, const char *pattern, int depth)
{
	char *dir = xstrdup(conf_sys), *slash = strrchr(dir, '/');
	if (slash)
		slash[1] = '\0';
	char *sys = pattern[0] == '/' ? xstrdup(pattern) : xasprintf("%s%s", slash ? dir : "/", pattern);
	/* The directory part through the root's own links (never out of the root), then the glob. */
	char *last = strrchr(sys, '/'), real[PATH_MAX], *full;
	*last = '\0';
	if (!strpbrk(sys, "*?[") && rootpath_resolve(w->root, *sys ? sys : "/", real, sizeof(real)) == 0)
		full = xasprintf("%s%s/%s", w->root, strcmp(real, "/") ? real : "", last + 1);
	else
		full = xasprintf("%s%s/%s", w->root, sys, last + 1);
	free(sys);
	glob_t g;
	if (glob(full, GLOB_NOSORT, NULL, &g) == 0) {
		qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), bytewise);
		for (size_t i = 0; i < g.gl_pathc; i++)
			conf_file(w, g.gl_pathv[i] + strlen(w->root), depth + 1);
		globfree(&g);
	}
	free(full);
	free(dir);
}

static void conf_file(struct conf_walk *w, const char *conf_sys, int depth)
{
	char real[PATH_MAX], *text, *save = NULL;
	if (rootpath_resolve(w->root, conf_sys, real, sizeof(real)) != 0)
		return;
	char *path = xasprintf("%s%s", w->root, real);
	int read = depth < 8 && io_read_file(path, 1 << 20, &text, NULL) == 0; /* 8: include loops */
	free(path);
	if (!read)
		return;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		*strchrnul(l, '#') = '\0';
		while (isspace((unsigned char)*l))
			l++;
		if (strncmp(l, "include", 7) == 0 && isblank((unsigned char)l[7])) {
			char *words = l + 8, *wsave = NULL;
			for (char *p = strtok_r(words, " \t", &wsave); p; p = strtok_r(NULL, " \t", &wsave))
				conf_include(w, conf_sys, p, depth);
			continue;
		}
		if (strncasecmp(l, "hwcap", 5) == 0 && isblank((unsigned char)l[5]))
			continue;
		size_t n = strlen(l);
		while (n > 1 && (isspace((unsigned char)l[n - 1]) || l[n - 1] == '/'))
			l[--n] = '\0';
		if (l[0] == '/')
			w->fn(l, conf_sys, w->ctx);
	}
	free(text);
}

void ldconfig_entries(const char *root, void (*fn)(const char *dir, const char *conf, void *ctx),
			 void *ctx)
{
	struct conf_walk w = { root, fn, ctx };
	char *main_conf = xasprintf("%s/etc/ld.so.conf", root);
	int have_main = io_exists(main_conf);
	free(main_conf);
	if (have_main)
		conf_file(&w, "/etc/ld.so.conf", 0);
	else
		conf_include(&w, "/etc/ld.so.conf", LAYOUT_LDCONF_DIR "/*.conf", 0);
}

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
	ldconfig_entries(root, unique_dir, &u);
	for (size_t i = 0; i < u.n; i++)
		free(u.seen[i]);
	free(u.seen);
}

int ldconfig_cache_find(const char *soname, void (*fn)(const char *path, const char *flags, void *ctx),
		      void *ctx)
{
	const char *prog = ldconfig_program();
	char *const argv[] = { "ldconfig", "-p", NULL }, *const envp[] = { NULL };
	struct platform_child child;
	if (!prog || platform_run(prog, argv, envp, PLATFORM_CAPTURE_STDOUT, 30, &child) != 0)
		return -1;
	/* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9" */
	size_t n = strlen(soname);
	char *save = NULL;
	for (char *line = child.output ? strtok_r(child.output, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		char *arrow = strstr(line, " => ");
		if (strncmp(line, soname, n) != 0 || line[n] != ' ' || !arrow)
			continue;
		*arrow = '\0';
		fn(arrow + 4, line + n + 1, ctx);
	}
	free(child.output);
	return child.exited && child.exit_code == 0 ? 0 : -1;
}
