/* search.h - the loader's search path of a root (--root) or the host, read as files: which
 * file a program loading a name would get, without loading anything */
#ifndef UNPACKER_VALIDATE_SEARCH_H
#define UNPACKER_VALIDATE_SEARCH_H

#include <limits.h>
#include <stddef.h>

#include "unpacker/validate/report.h"

struct search {
	const char *root; /* "" for the host's own directories */
	char dirs[64][PATH_MAX];
	size_t n;
};

/* Append root + dir (an absolute dir; the list holds 64). */
void search_add(struct search *s, const char *root, const char *dir);
/* In the loader's order: LD_LIBRARY_PATH of a user install, ld.so.conf.d, the default dirs. */
void search_root(const struct run *r, struct search *s);
/* path (root included) through its links the way the image resolves them (rootpath.h); real,
 * or NULL. */
char *search_image_realpath(const char *root, const char *path, char real[PATH_MAX]);
/* A shared library file for this machine: an ELF of our class and machine. No loading. */
int search_elf_library(const char *root, const char *path);
/* The first file named soname on the search path, as the image's loader would pick it. */
int search_find(const struct search *s, const char *soname, char *out, size_t size);
/* The host's ld cache entry for soname of this machine's own architecture (not a 32-bit
 * compat copy), in out; -1 when it has none. */
int search_cache_find(const char *soname, char *out, size_t size);

#endif
