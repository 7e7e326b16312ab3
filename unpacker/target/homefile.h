/* homefile.h - a file below a user's home written as root (--env=user): no link followed on
 * the way, every directory on it owned by root or by the home's owner and writable by nobody
 * else, the file itself owned by the home's owner */
#ifndef UNPACKER_HOMEFILE_H
#define UNPACKER_HOMEFILE_H

#include "common/err.h"

/* Write text as home/rel (rel '/'-separated below home, ".config/cuferry/NAME.sh"), 0644,
 * atomically, making the directories of rel that are missing; for root on POSIX (others
 * write only what they could write anyway). The path is walked one component at a time from
 * '/' through the home (its own links resolved first) and on through rel, each opened without
 * following a link; a link below the home, or a directory owned by neither root nor the home's
 * owner, or writable by group or others (a root-owned sticky one such as /tmp only above the
 * home), is CF_INCOMPATIBLE (exit 4) with the reason, and nothing is written. What is made is
 * owned by the home's owner. */
int homefile_write(const char *home, const char *rel, const char *text, struct cf_err *e);

#endif
