/* libname.c - a product's main library named the platform's way */
#include "unpacker/validate/libname.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "manifests/product.h"

void libname_main(const struct product *p, const char *major, char *out, size_t size)
{
	platform_library_file(platform_self(), p->dll_stem, major, out, size);
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
