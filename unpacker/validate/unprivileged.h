/* unprivileged.h - what the probe child, once it has given up root (platform_drop_privileges,
 * DESIGN.md §7), can still read of an install */
#ifndef UNPACKER_UNPRIVILEGED_H
#define UNPACKER_UNPRIVILEGED_H

#include <stddef.h>

/* Whether this process can read path; if not, the first directory on the way that it
 * cannot search (or the file itself) goes to blocker. 0 readable, -1 not. */
int unprivileged_can_read(const char *path, char *blocker, size_t size);

#endif
