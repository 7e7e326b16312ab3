/* platform.h - the small interface behind which operating-system differences live
 * (POSIX now; Windows is to be added behind the same calls) */
#ifndef COMMON_PLATFORM_H
#define COMMON_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* NVIDIA's name for the platform this program was built for: "linux-x86_64", … */
const char *platform_name(void);
int platform_is_admin(void);
/* Replace (or create) link so it points at target, atomically: readers see old or new. */
int platform_switch_link(const char *link, const char *target);
/* Bytes available to this user on the file system that holds path. */
int platform_free_bytes(const char *path, uint64_t *out);
/* Take an exclusive lock on path without waiting: 0 ok (fd kept in *handle), 1 busy, -1 error. */
int platform_lock(const char *path, int *handle);
void platform_unlock(int handle);
/* 0 when path (file or directory) is owned by root and not writable by group or others. */
int platform_is_admin_owned(const char *path);

#endif
