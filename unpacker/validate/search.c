/* search.c - the loader's search path, read as files (--root, or the host's ld cache) */
#include "unpacker/validate/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/rootpath.h"
#include "manifests/platforms.h"
#include "unpacker/validate/ldconfig.h"

void search_add(struct search *s, const char *root, const char *dir)
{
	if (s->n < sizeof(s->dirs) / sizeof(s->dirs[0]) && dir[0] == '/')
		snprintf(s->dirs[s->n++], PATH_MAX, "%s%s", root, dir);
}

static void add_conf_dir(const char *dir, void *ctx)
{
	struct search *s = ctx;
	search_add(s, "", dir); /* completed with the root below */
}

/* In the loader's order: LD_LIBRARY_PATH of a user install, ld.so.conf.d, the default dirs. */
void search_root(const struct run *r, struct search *s)
{
	static const char *const defaults[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
						"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
						"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL };
	struct search conf = { .n = 0 };
	s->n = 0;
	s->root = r->o->layout->root;
	if (r->o->env_mode == VALIDATE_ENV_LIBRARY_PATH)
		snprintf(s->dirs[s->n++], PATH_MAX, "%s/lib", r->o->layout->current);
	ldconfig_dirs(r->o->layout->root, add_conf_dir, &conf);
	for (size_t i = 0; i < conf.n; i++)
		search_add(s, r->o->layout->root, conf.dirs[i]);
	for (size_t i = 0; defaults[i]; i++)
		search_add(s, r->o->layout->root, defaults[i]);
}

/* path (root included) through its links the way the image resolves them, a link's absolute
 * target taken inside the root (rootpath.h), never the host's; then as the host names the
 * result. Without a root, or for a path outside it, the system's (platform_realpath). real,
 * or NULL. */
char *search_image_realpath(const char *root, const char *path, char real[PATH_MAX])
{
	size_t n = strlen(root);
	char inside[PATH_MAX];
	if (!n || strncmp(path, root, n) != 0 || path[n] != '/')
		return platform_realpath(path, real, PATH_MAX) == 0 ? real : NULL;
	if (rootpath_resolve(root, path + n, inside, sizeof(inside)) != 0)
		return NULL;
	char *full = xasprintf("%s%s", root, inside);
	int got = platform_realpath(full, real, PATH_MAX) == 0;
	free(full);
	return got ? real : NULL;
}

/* A shared library file for this machine: an ELF of our class and machine. No loading. */
int search_elf_library(const char *root, const char *path)
{
	unsigned char h[20];
	char real[PATH_MAX];
	int fd = search_image_realpath(root, path, real)
			 ? platform_open(real, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK, 0) : -1;
	struct platform_stat st;
	int ok = fd >= 0 && platform_fstat(fd, &st) == 0 && st.type == PLATFORM_TYPE_FILE &&
		 platform_read(fd, h, sizeof(h)) == (ssize_t)sizeof(h);
	if (fd >= 0)
		platform_close(fd);
	return ok && memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 && h[16] == 3 /* ET_DYN */ &&
	       platform_same_program(platform_from_elf_machine((unsigned)(h[18] | h[19] << 8)),
				     platform_self());
}

/* The first file named soname on the search path, as the image's loader would pick it. */
int search_find(const struct search *s, const char *soname, char *out, size_t size)
{
	for (size_t i = 0; i < s->n; i++) {
		char *p = xasprintf("%s/%s", s->dirs[i], soname);
		int ok = search_elf_library(s->root, p);
		if (ok)
			snprintf(out, size, "%s", p);
		free(p);
		if (ok)
			return 0;
	}
	return -1;
}

struct first_native {
	char *out;
	size_t size;
};

/* The first entry for this machine's own architecture (not a 32-bit compat copy). */
static void first_native(const char *path, const char *flags, void *ctx)
{
	struct first_native *h = ctx;
	if (!h->out[0] && strstr(flags, platform_self()->ld_cache_tag))
		snprintf(h->out, h->size, "%s", path);
}

int search_cache_find(const char *soname, char *out, size_t size)
{
	struct first_native hit = { out, size };
	out[0] = '\0';
	platform_lib_cache_find(soname, first_native, &hit);
	return out[0] ? 0 : -1;
}
