/* dllsearch.h - which copy of a DLL a program that loads it by name gets, where that search is
 * plain directories of files (platform_lib_search_is_dirs: Windows): after the program's own
 * directory, System32, the Windows directory, then the machine's and the user's PATH from the
 * registry, expanded, in order. Read as files, nothing loaded: the one search behind
 * validation's steps 3 and 4 and doctor. */
#ifndef UNPACKER_VALIDATE_DLLSEARCH_H
#define UNPACKER_VALIDATE_DLLSEARCH_H

#include <stddef.h>

/* Room for a path: Windows paths may pass MAX_PATH (260, mingw's PATH_MAX) with \\?\. */
#define DLLSEARCH_PATH 4096

struct dll_hit {
	char path[DLLSEARCH_PATH];
	const char *source; /* "System32", "Windows", "HKLM" (the machine's PATH), "HKCU" (the user's) */
};

/* Each directory of the search, in order, each once, with its source as above. */
void dllsearch_dirs(void (*fn)(const char *dir, const char *source, void *ctx), void *ctx);
/* The first file called name along the search that is a DLL for this machine: 0 with *hit
 * filled, or -1. */
int dllsearch_first(const char *name, struct dll_hit *hit);
/* 1 when path is a DLL built for this machine (x86-64); a 32-bit copy is never loaded. */
int dllsearch_is_native(const char *path);
/* The FileVersion of the DLL at path ("9.19.0.56") from its version resource: 0, or -1. */
int dllsearch_version(const char *path, char *out, size_t size);
/* Words for source: "System32", "the Windows directory", "the machine's PATH", … */
const char *dllsearch_source_text(const char *source);

#endif
