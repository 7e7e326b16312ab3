/* shadow.c - the distribution's base libraries a bundle may not carry, by stem (every name) */
#include "manifests/shadow.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/elfver.h"
#include "common/platform.h"
#include "manifests/pathrule.h"

/* The libraries every Linux distribution resolves to its own copy, and the driver's, that a
 * CUDA bundle has no reason to ship (NVIDIA's redistributables carry none of them), by stem:
 * every name of each (libz.so, libz.so.1, libz.so.1.2.13: path_names_library), never a
 * prefix (libzstd is its own stem; libcublas, libnccl, libmpi are on no list). A name on it is
 * refused (exit 3), and nothing else is. */
static const char *const base_libraries[] = {
	"libz",                              /* zlib */
	"libssl",          "libcrypto",      /* OpenSSL */
	"liblzma",                           /* xz */
	"libbz2",                            /* bzip2 */
	"libzstd",
	"libgomp",         "libatomic",      /* GCC's OpenMP and atomic runtimes */
	/* What root's own programs load (issue 23 A8): the terminal library of bash, PAM of
	 * sudo, sshd and login, the name services of every getpwnam (the whole family: glibc
	 * loads libnss_SERVICE.so.2 for any SERVICE nsswitch.conf names, winbind, extrausers,
	 * mymachines, ...), SELinux, capabilities, systemd's client library, and the rest of a
	 * login's base. libcrypt is the C runtime's (pathrule.c). */
	"libtinfo",        "libncursesw",    "libncurses",      "libreadline",
	"libpam",          "libpam_misc",    "libaudit",        "libnss_*",
	"libselinux",      "libcap",         "libcap-ng",       "libacl",     "libattr",
	"libsystemd",      "libudev",        "libkeyutils",     "libpcre2-8",
	"libgcrypt",       "libgpg-error",   "liblz4",
	"libkrb5",         "libgssapi_krb5", "libk5crypto",     "libcom_err",
	"libexpat",        "libffi",         "libuuid",         "libblkid",   "libmount",
	/* The driver's: libcuda and its helpers come with the kernel module, never from a
	 * bundle (a bundled one would be every CUDA program's driver). The CUDA toolkit's own
	 * libraries (cuBLAS, NVRTC, ...) are not the driver's and not on this list. */
	"libcuda",         "libnvidia-ml",   "libnvidia-ptxjitcompiler", "libnvidia-nvvm",
	NULL
};

int shadow_is_system_library(const char *path)
{
	return path_names_library(path, base_libraries);
}

static int handle_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return platform_pread(*(const int *)ctx, buf, len, off) == (ssize_t)len ? 0 : -1;
}

int shadow_check_soname(int handle, char *why, size_t why_size)
{
	char soname[PATH_MAX_COMPONENT + 1];
	int rc = elfver_soname(handle_read, &handle, soname, sizeof(soname));
	if (rc == 1)
		return 0;
	if (rc != 0)
		return snprintf(why, why_size, "an ELF file whose soname cannot be read (malformed): "
				"ldconfig might still file it under any name"), -1;
	if (path_is_c_runtime(soname))
		return snprintf(why, why_size, "its soname is %s, the C library's or the dynamic "
				"loader's: never carried in a bundle", soname), -1;
	if (shadow_is_system_library(soname))
		return snprintf(why, why_size, "its soname is %s, the distribution's own library: "
				"ldconfig would make it every program's %s", soname, soname), -1;
	return 0;
}
