/* shadow.h - the distribution's base libraries a bundle may not carry (issue 23, environment
 * hygiene): the install's lib/ comes first in the loader's search (the product's ldconf_name), so
 * a bundled libz.so.1 would become every program's zlib. Shared by bundler and unpacker. */
#ifndef MANIFESTS_SHADOW_H
#define MANIFESTS_SHADOW_H

#include <stddef.h>

/* 1 when the last component of path is a name of a distribution base library (zlib, OpenSSL,
 * xz, bzip2, zstd, GCC's OpenMP and atomic runtimes, the terminal, PAM, every NSS module
 * libnss_*, SELinux, systemd libraries root's programs load) or of the driver's (libcuda),
 * else 0: by stem, any version ("libz.so", "libz.so.1.2.13": path_names_library). Never a
 * prefix: NVIDIA's own libraries (cuBLAS, NVRTC, NCCL, the math libraries) are never on the
 * list. The C library, the loader and the C++ runtime are refused by their own list. */
int shadow_is_system_library(const char *path);

/* The same two lists (this one and path_is_c_runtime's) applied to an ELF file's DT_SONAME,
 * the name ldconfig enters it under in the loader's cache whatever the file is called (an
 * innocent libinnocent.so.1 whose soname is libz.so.1 becomes every program's zlib). Reads
 * the open file handle (platform_open) by offset: 0 when the file is no ELF object, has no
 * soname or an allowed one; -1 and why ("its soname is libz.so.1, ...") when its soname is on
 * either list or the ELF file is malformed (its soname then cannot be vouched for). */
int shadow_check_soname(int handle, char *why, size_t why_size);

#endif
