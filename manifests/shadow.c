/* shadow.c - the distribution's base libraries a bundle may not carry, by exact soname */
#include "manifests/shadow.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/elfver.h"
#include "common/platform.h"
#include "manifests/pathrule.h"

/* The sonames every Linux distribution resolves to its own copy, and the driver's, that a
 * CUDA bundle has no reason to ship (NVIDIA's redistributables carry none of them). Exact
 * names, never prefixes: a name on it is refused (exit 3), and nothing else is. */
static const char *const base_libraries[] = {
	"libz.so.1",                         /* zlib */
	"libssl.so.3",     "libcrypto.so.3", /* OpenSSL 3 */
	"libssl.so.1.1",   "libcrypto.so.1.1",
	"liblzma.so.5",                      /* xz */
	"libbz2.so.1.0",   "libbz2.so.1",    /* bzip2 (Debian, Red Hat) */
	"libzstd.so.1",
	"libgomp.so.1",    "libatomic.so.1", /* GCC's OpenMP and atomic runtimes */
	/* What root's own programs load (issue 23 A8): the terminal library of bash, PAM of
	 * sudo, sshd and login, the name services of every getpwnam, SELinux, capabilities,
	 * systemd's client library, and the rest of a login's base. */
	"libtinfo.so.6",   "libtinfo.so.5",  "libncursesw.so.6", "libncurses.so.6",
	"libreadline.so.8", "libpam.so.0",   "libpam_misc.so.0", "libaudit.so.1",
	"libnss_files.so.2", "libnss_dns.so.2", "libnss_compat.so.2", "libnss_systemd.so.2",
	"libnss_sss.so.2", "libnss_ldap.so.2", "libnss_myhostname.so.2", "libnss_resolve.so.2",
	"libselinux.so.1", "libcap.so.2",    "libcap-ng.so.0",  "libacl.so.1", "libattr.so.1",
	"libsystemd.so.0", "libudev.so.1",   "libkeyutils.so.1", "libpcre2-8.so.0",
	"libcrypt.so.2",   "libgcrypt.so.20", "libgpg-error.so.0", "liblz4.so.1",
	"libkrb5.so.3",    "libgssapi_krb5.so.2", "libk5crypto.so.3", "libcom_err.so.2",
	"libexpat.so.1",   "libffi.so.8",    "libuuid.so.1",    "libblkid.so.1", "libmount.so.1",
	/* The driver's: libcuda and its helpers come with the kernel module, never from a
	 * bundle (a bundled one would be every CUDA program's driver). The CUDA toolkit's own
	 * libraries (cuBLAS, NVRTC, ...) are not the driver's and not on this list. */
	"libcuda.so.1",    "libnvidia-ml.so.1", "libnvidia-ptxjitcompiler.so.1", "libnvidia-nvvm.so.4",
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
