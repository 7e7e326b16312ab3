/* elfver.h - the glibc symbol versions an ELF shared object needs (.gnu.version_r) or offers
 * (.gnu.version_d), newest first: what a bundle's libraries ask of a host's C library, and
 * what a root image's libc.so.6 gives, compared before anything is installed.
 *
 * Both programs use it (the bundler records the floor in the manifest, the unpacker reads an
 * image's libc), so it sits in common/ and reads through a callback: the bundler reads
 * multi-hundred-MiB libraries by offset, never whole. 64-bit little-endian ELF only (x86_64
 * and aarch64, the platforms cuferry carries). */
#ifndef COMMON_ELFVER_H
#define COMMON_ELFVER_H

#include <stddef.h>
#include <stdint.h>

/* Reads len bytes at off into buf: 0, or -1 when they are not all there. */
typedef int (*elfver_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

enum elfver_kind { ELFVER_NEEDED, ELFVER_DEFINED };

/* The newest GLIBC_x.y[.z] the object needs or defines, as "x.y[.z]" in out; 0 when found,
 * 1 when the object names none (not ELF, static, no glibc), -1 when it is malformed. */
int elfver_newest_glibc(elfver_read_fn read, void *ctx, enum elfver_kind kind, char *out,
			size_t size);
/* The same over a buffer in memory. */
int elfver_newest_glibc_mem(const void *data, size_t len, enum elfver_kind kind, char *out,
			    size_t size);
/* The object's DT_SONAME, the name ldconfig files it under in the loader's cache whatever
 * the file is called, found as ldconfig finds it: PT_DYNAMIC by file offset, DT_STRTAB
 * through the PT_LOAD segment holding it. 32- and 64-bit little-endian ELF. 0 and the name
 * in out when found, 1 when there is none (not ELF, no dynamic section, no soname), -1 when
 * the ELF file is malformed or the name does not fit in out (a caller that must know the
 * name refuses such a file). Every read is bounded: a hostile file costs a few reads. */
int elfver_soname(elfver_read_fn read, void *ctx, char *out, size_t size);
/* The same over a buffer in memory. */
int elfver_soname_mem(const void *data, size_t len, char *out, size_t size);
/* Numeric comparison of dotted versions ("2.27" > "2.3"): <0, 0, >0. */
int elfver_cmp(const char *a, const char *b);

#endif
