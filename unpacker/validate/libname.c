/* libname.c - a product's main library named the platform's way */
#include "unpacker/validate/libname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "manifests/product.h"

/* The stem the platform dresses: lib_stem less the platform's "lib" where it has one (Linux),
 * else dll_stem (Windows; a product without a Windows build has none: its lib_stem then). */
void libname_main(const struct product *p, const char *major, char *out, size_t size)
{
	const struct platform_spec *s = platform_self();
	size_t n = strlen(s->lib_prefix);
	const char *stem = n && strncmp(p->lib_stem, s->lib_prefix, n) == 0 ? p->lib_stem + n
			   : !n && p->dll_stem ? p->dll_stem : p->lib_stem;
	platform_library_file(s, stem, major, out, size);
}

char *libname_dir(const char *install_dir)
{
	return xasprintf("%s%c%s", install_dir, platform_dir_separator(), platform_self()->lib_dir);
}

char *libname_main_path(const struct product *p, const char *install_dir, const char *major)
{
	char name[128], *dir = libname_dir(install_dir);
	libname_main(p, major, name, sizeof(name));
	char *path = xasprintf("%s%c%s", dir, platform_dir_separator(), name);
	free(dir);
	return path;
}
