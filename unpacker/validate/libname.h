/* libname.h - the file names of a product's main library in an install, on this build's
 * platform: what steps 1-4 of validation and doctor look for (the GPU check has its own) */
#ifndef UNPACKER_VALIDATE_LIBNAME_H
#define UNPACKER_VALIDATE_LIBNAME_H

#include <stddef.h>

struct product;

/* The main library of a major version as programs ask for it, the platform's way: the
 * product's lib_stem on Linux (libnccl.so.2), its dll_stem on Windows (NAME64_MAJOR.dll). */
void libname_main(const struct product *p, const char *major, char *out, size_t size);
/* DIR/lib (Linux), DIR\bin (Windows): where an install's libraries lie. Free it. */
char *libname_dir(const char *install_dir);
/* That directory's main library of major. Free it. */
char *libname_main_path(const struct product *p, const char *install_dir, const char *major);

#endif
