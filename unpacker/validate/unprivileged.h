/* unprivileged.h - the probe child gives up root before it loads any vendor library
 * (DESIGN.md §7): nobody, no supplementary groups but the GPU device's, no capabilities */
#ifndef UNPACKER_UNPRIVILEGED_H
#define UNPACKER_UNPRIVILEGED_H

#include <stddef.h>

/* Run as root: become nobody (or uid/gid 65534 if the system names no such user), keep only
 * the group owning /dev/nvidiactl when that device is not world-accessible, set no_new_privs,
 * and prove root cannot be regained and no capability is left. Not root: only no_new_privs.
 * 0 on success; -1 with the reason in why (the probe must then load nothing). */
int unprivileged_enter(char *why, size_t size);
/* Whether this process can read path; if not, the first directory on the way that it
 * cannot search (or the file itself) goes to blocker. 0 readable, -1 not. */
int unprivileged_can_read(const char *path, char *blocker, size_t size);

#endif
