/* platform_linux_loader.c - where the system finds libraries: ld.so.conf read the way glibc's
 * ldconfig reads it (elf/ldconfig.c parse_conf), and the loader's cache (ldconfig -p) */
#include "common/platform.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/io.h"
#include "common/rootpath.h"

struct conf_walk {
	const char *root;
	void (*fn)(const char *dir, const char *conf, void *ctx);
	void *ctx;
	char **matches; /* one include's glob matches, sorted before they are read */
	size_t nmatches;
};

static int bytewise(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect_match(const char *path, void *ctx)
{
	struct conf_walk *w = ctx;
	w->matches = xrealloc(w->matches, (w->nmatches + 1) * sizeof(char *));
	w->matches[w->nmatches++] = xstrdup(path);
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
	struct conf_walk inner = { w->root, w->fn, w->ctx, NULL, 0 };
	platform_glob(full, 0, collect_match, &inner);
	if (inner.nmatches) /* qsort's base may not be NULL, even for no elements */
		qsort(inner.matches, inner.nmatches, sizeof(char *), bytewise);
	for (size_t i = 0; i < inner.nmatches; i++) {
		conf_file(w, inner.matches[i] + strlen(w->root), depth + 1);
		free(inner.matches[i]);
	}
	free(inner.matches);
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
		l[strcspn(l, "#")] = '\0';
		while (isspace((unsigned char)*l))
			l++;
		if (strncmp(l, "include", 7) == 0 && isblank((unsigned char)l[7])) {
			char *wsave = NULL;
			for (char *p = strtok_r(l + 8, " \t", &wsave); p; p = strtok_r(NULL, " \t", &wsave))
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

void platform_lib_config_dirs(const char *root,
			      void (*fn)(const char *dir, const char *source, void *ctx), void *ctx)
{
	struct conf_walk w = { root, fn, ctx, NULL, 0 };
	char *main_conf = xasprintf("%s/etc/ld.so.conf", root);
	int have_main = io_exists(main_conf);
	free(main_conf);
	if (have_main)
		conf_file(&w, "/etc/ld.so.conf", 0);
	else
		conf_include(&w, "/etc/ld.so.conf", "/etc/ld.so.conf.d/*.conf", 0);
}

const char *platform_lib_cache_program(void)
{
	static const char *const candidates[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (platform_access(candidates[i], PLATFORM_CAN_EXECUTE) == 0)
			return candidates[i];
	return NULL;
}

int platform_lib_cache_find(const char *name,
			    void (*fn)(const char *path, const char *flags, void *ctx), void *ctx)
{
	const char *prog = platform_lib_cache_program();
	char *const argv[] = { "ldconfig", "-p", NULL }, *const envp[] = { NULL };
	struct platform_child child;
	if (!prog || platform_run(prog, argv, envp, PLATFORM_CAPTURE_STDOUT, 30, &child) != 0)
		return -1;
	/* "\tlibnccl.so.2 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnccl.so.2" */
	size_t n = strlen(name);
	int found = 0;
	char *save = NULL;
	for (char *line = child.output ? strtok_r(child.output, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		char *arrow = strstr(line, " => ");
		if (strncmp(line, name, n) != 0 || line[n] != ' ' || !arrow)
			continue;
		*arrow = '\0';
		fn(arrow + 4, line + n + 1, ctx);
		found++;
	}
	free(child.output);
	return child.exited && child.exit_code == 0 ? found : -1;
}

int platform_system_lib_dir(char *out, size_t size)
{
	(void)out;
	(void)size;
	return -1; /* the driver's libcuda.so.1 is found through the loader's cache */
}

int platform_lib_search_is_dirs(void)
{
	return 0; /* the ld cache and LD_LIBRARY_PATH decide */
}
