/* platform_posix.h - what the POSIX platform files share among themselves (never included
 * outside common/platform_posix*.c and platform_linux*.c: it names POSIX types) */
#ifndef COMMON_PLATFORM_POSIX_H
#define COMMON_PLATFORM_POSIX_H

#include <sys/stat.h>
#include <sys/types.h>

#include "common/platform.h"

/* The unprivileged user a child becomes (nobody, 65534 where the system has none) and the GPU
 * device's group it keeps when only that group may open it: looked up before a fork, since
 * the lookup is not safe between fork and exec. */
struct platform_posix_drop {
	uid_t user;
	gid_t group;
	gid_t keep[1];
	size_t nkeep;
};
void platform_posix_drop_target(struct platform_posix_drop *d);
/* Become that user for good (no_new_privs; root cannot be regained): 0, or -1 with errno.
 * Not root already: only no_new_privs. Safe between fork and exec. */
int platform_posix_drop_to(const struct platform_posix_drop *d);

void platform_posix_fill_stat(const struct stat *in, struct platform_stat *out);

#endif
