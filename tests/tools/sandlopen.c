/* sandlopen.c - the sanitizer build's dlopen: the search glibc would make for the real caller
 *
 * Linked into the unpacker only by `make SAN=1` (make sanitize), never into a shipped one.
 * glibc's dlopen searches a bare name in the DT_RUNPATH (or DT_RPATH) of the object that
 * called it, found by the return address. ASan's runtime interposes dlopen, so glibc sees
 * libasan as the caller and forgets the caller's paths: cuDNN's libcudnn.so.9, which opens
 * libcudnn_graph.so.9 by name through its RUNPATH $ORIGIN, gets the copy the ld cache names
 * instead (google/sanitizers#1219), and validation rightly fails ("loaded from outside the
 * install"). This dlopen, exported from the executable and so bound before libasan's, makes
 * glibc's search for the real caller and hands the file it finds to the next dlopen (ASan's,
 * which keeps its bookkeeping) by path. What it cannot reproduce exactly ($LIB, $PLATFORM,
 * secure mode) it leaves to the next dlopen as it was, so a sanitized run is never looser
 * than the normal one: a library the normal build would not find here is not found either.
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

typedef void *(*dlopen_fn)(const char *, int);

/* The caller's DT_RUNPATH and DT_RPATH strings (NULL when absent). */
static void dynamic_paths(const struct link_map *lm, const char **runpath, const char **rpath)
{
	const char *strtab = NULL;
	ElfW(Addr) run = 0, r = 0;
	int has_run = 0, has_r = 0;
	*runpath = *rpath = NULL;
	for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			/* glibc relocates the dynamic section in place on most targets, not on all */
			strtab = (const char *)(d->d_un.d_ptr < lm->l_addr ? d->d_un.d_ptr + lm->l_addr
									   : d->d_un.d_ptr);
		else if (d->d_tag == DT_RUNPATH)
			run = d->d_un.d_val, has_run = 1;
		else if (d->d_tag == DT_RPATH)
			r = d->d_un.d_val, has_r = 1;
	}
	if (!strtab)
		return;
	if (has_run)
		*runpath = strtab + run;
	if (has_r)
		*rpath = strtab + r;
}

/* One search-path element with $ORIGIN expanded into out; -1 for what glibc would expand
 * differently ($LIB, $PLATFORM) or an object whose directory is unknown. */
static int expand_element(const char *e, size_t len, const char *origin, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		const char *piece = NULL;
		size_t skip = 0;
		if (e[i] == '$' && len - i >= 7 && memcmp(e + i, "$ORIGIN", 7) == 0)
			piece = origin, skip = 7;
		else if (e[i] == '$' && len - i >= 9 && memcmp(e + i, "${ORIGIN}", 9) == 0)
			piece = origin, skip = 9;
		else if (e[i] == '$')
			return -1;
		if (skip) {
			if (!piece || o + strlen(piece) >= size)
				return -1;
			memcpy(out + o, piece, strlen(piece));
			o += strlen(piece);
			i += skip - 1;
		} else if (o + 1 < size) {
			out[o++] = e[i];
		} else {
			return -1;
		}
	}
	out[o] = '\0';
	return 0;
}

/* The first DIR/file that exists for the ':'-separated list: 1 found (in path), 0 none,
 * -1 a list this emulation cannot follow exactly. Empty elements are skipped. */
static int search_list(const char *list, const char *origin, const char *file, char *path,
		       size_t size)
{
	while (list && *list) {
		size_t len = strcspn(list, ":");
		char dir[PATH_MAX];
		if (len > 0) {
			if (expand_element(list, len, origin, dir, sizeof(dir)) != 0)
				return -1;
			if ((size_t)snprintf(path, size, "%s/%s", dir, file) < size &&
			    access(path, F_OK) == 0)
				return 1;
		}
		list += len + (list[len] == ':');
	}
	return 0;
}

void *dlopen(const char *file, int mode)
{
	static dlopen_fn next;
	const void *caller = __builtin_return_address(0);
	if (!next)
		next = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	if (!file || strchr(file, '/') || getauxval(AT_SECURE))
		return next(file, mode);
	/* A name already loaded (its soname included) is that object, as glibc has it. */
	void *loaded = next(file, mode | RTLD_NOLOAD);
	if (loaded || (mode & RTLD_NOLOAD))
		return loaded;
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return next(file, mode);
	const char *runpath, *rpath;
	dynamic_paths(lm, &runpath, &rpath);
	char origin[PATH_MAX] = "", path[PATH_MAX];
	const char *slash = lm->l_name ? strrchr(lm->l_name, '/') : NULL;
	if (slash && (size_t)(slash - lm->l_name) < sizeof(origin))
		memcpy(origin, lm->l_name, (size_t)(slash - lm->l_name)),
			origin[slash - lm->l_name] = '\0';
	const char *o = origin[0] ? origin : NULL;
	int found;
	if (runpath) {
		/* DT_RUNPATH: LD_LIBRARY_PATH first, then the caller's RUNPATH. */
		found = search_list(getenv("LD_LIBRARY_PATH"), NULL, file, path, sizeof(path));
		if (found == 0)
			found = search_list(runpath, o, file, path, sizeof(path));
	} else {
		/* DT_RPATH (without RUNPATH) comes before LD_LIBRARY_PATH; the rest is the next's. */
		found = search_list(rpath, o, file, path, sizeof(path));
	}
	return next(found == 1 ? path : file, mode);
}
