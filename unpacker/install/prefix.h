/* prefix.h - opening a prefix for change: real directories, the lock, then recovery */
#ifndef UNPACKER_INSTALL_PREFIX_H
#define UNPACKER_INSTALL_PREFIX_H

#include "common/err.h"
#include "unpacker/target/layout.h"

/* Lock, then repair: every command that changes the prefix starts here. *lock: to give to
 * platform_unlock (-1 on failure). */
int prefix_open(const struct layout *p, int *lock, int *recovered, struct cf_err *e);

#endif
