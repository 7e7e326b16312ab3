/* shadow.h - the distribution's base libraries a bundle may not carry (issue 23, environment
 * hygiene): the install's lib/ comes first in the loader's search (00-cuferry-cudnn.conf), so
 * a bundled libz.so.1 would become every program's zlib. Shared by bundler and unpacker. */
#ifndef MANIFESTS_SHADOW_H
#define MANIFESTS_SHADOW_H

/* 1 when the last component of path is the exact soname of a distribution base library
 * (zlib, OpenSSL, xz, bzip2, zstd, GCC's OpenMP and atomic runtimes), else 0. Never a
 * prefix: NVIDIA's own libraries (cuBLAS, NVRTC, NCCL, the math libraries) are never on the
 * list. The C library, the loader and the C++ runtime are refused by their own list. */
int shadow_is_system_library(const char *path);

#endif
