/* shadow.c - the distribution's base libraries a bundle may not carry, by exact soname */
#include "manifests/shadow.h"

#include <string.h>

/* The sonames every Linux distribution resolves to its own copy and that a CUDA bundle has
 * no reason to ship (NVIDIA ships none of them). Kept small and exact: a name on it is
 * refused (exit 3), and nothing else is. */
static const char *const base_libraries[] = {
	"libz.so.1",                         /* zlib */
	"libssl.so.3",     "libcrypto.so.3", /* OpenSSL 3 */
	"libssl.so.1.1",   "libcrypto.so.1.1",
	"liblzma.so.5",                      /* xz */
	"libbz2.so.1.0",   "libbz2.so.1",    /* bzip2 (Debian, Red Hat) */
	"libzstd.so.1",
	"libgomp.so.1",    "libatomic.so.1", /* GCC's OpenMP and atomic runtimes */
};

int shadow_is_system_library(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	for (size_t i = 0; i < sizeof(base_libraries) / sizeof(base_libraries[0]); i++)
		if (strcmp(name, base_libraries[i]) == 0)
			return 1;
	return 0;
}
