/* platform_posix.h - what the POSIX platform files share among themselves (never included
 * outside common/platform_posix*.c: it names POSIX types) */
#ifndef COMMON_PLATFORM_POSIX_H
#define COMMON_PLATFORM_POSIX_H

#include <sys/stat.h>

#include "common/platform.h"

void platform_posix_fill_stat(const struct stat *in, struct platform_stat *out);

#endif
