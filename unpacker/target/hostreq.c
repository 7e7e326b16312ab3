/* hostreq.c - the C library (Linux) or the Windows version (Windows) a bundle's libraries
 * need against the one the host offers */
#include "unpacker/target/hostreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/elfver.h"
#include "common/io.h"
#include "common/platform.h"
#include "common/rootpath.h"
#include "manifests/platforms.h"
#include "manifests/product.h"

/* Where distributions keep libc.so.6, as the image's own system finds it (links inside it). */
static const char *const libc_places[] = {
	"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6",
	"/usr/lib64/libc.so.6", "/lib/libc.so.6", "/usr/lib/libc.so.6",
};

/* The newest GLIBC_ version an image's libc.so.6 defines: what programs there can bind to.
 * Read from the file, never loaded. 0, or -1 when the image has none that can be read. */
static int image_libc(const char *root, char *out, size_t size, char *file, size_t fsize)
{
	for (size_t i = 0; i < sizeof(libc_places) / sizeof(libc_places[0]); i++) {
		char found[4096], *data = NULL;
		size_t len = 0;
		if (rootpath_resolve(root, libc_places[i], found, sizeof(found)) != 0)
			continue;
		snprintf(file, fsize, "%s%s", root, found);
		int ok = io_read_file(file, 64u << 20, &data, &len) == 0 &&
			 elfver_newest_glibc_mem(data, len, ELFVER_DEFINED, out, size) == 0;
		free(data);
		if (ok)
			return 0;
	}
	return -1;
}

/* Windows' loader refuses a DLL whose PE header names a subsystem version newer than the
 * running system's: the bundle would install, fail validation and roll back. A version that
 * cannot be read (RtlGetVersion is in every ntdll since Windows 2000) is not judged here:
 * validation still loads the DLLs. */
static int windows_check(const struct manifest *m, char *why, size_t size)
{
	const char *have = platform_windows_version();
	if (!m->windows_min || !have || elfver_cmp(have, m->windows_min) >= 0)
		return 0;
	snprintf(why, size, "%s %s needs Windows %s (its DLLs' PE headers), this machine runs "
		 "Windows %s: use an older %s, or a newer Windows", m->product->display,
		 m->product_version, m->windows_min, have, m->product->display);
	return 1;
}

int hostreq_check(const char *root, const struct manifest *m, char *why, size_t size)
{
	char have[32], file[4096];
	const struct platform_spec *p = platform_find(m->platform);
	if (p && p->floor == PLATFORM_FLOOR_WINDOWS)
		return windows_check(m, why, size);
	if (!m->glibc_min || !p || p->floor != PLATFORM_FLOOR_GLIBC)
		return 0;
	if (*root) {
		if (image_libc(root, have, sizeof(have), file, sizeof(file)) != 0)
			return 0; /* an image without a C library runs nothing of the bundle anyway */
	} else {
		const char *v = platform_libc_version();
		if (!v)
			return 0;
		snprintf(have, sizeof(have), "%s", v);
		snprintf(file, sizeof(file), "this machine's C library");
	}
	if (elfver_cmp(have, m->glibc_min) >= 0)
		return 0;
	snprintf(why, size, "%s %s needs glibc %s (its libraries' symbol versions), %s offers "
		 "%s: use an older %s, or a newer system", m->product->display, m->product_version,
		 m->glibc_min, *root ? file : "this machine's C library", have, m->product->display);
	return 1;
}
