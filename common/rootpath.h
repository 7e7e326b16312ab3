/* rootpath.h - resolving a path inside an image (--root) the way its own system would: a
 * link's absolute target (/etc/alternatives/cuda) is taken inside the root, never the host's */
#ifndef COMMON_ROOTPATH_H
#define COMMON_ROOTPATH_H

#include <stddef.h>

/* Resolve path (as the system under root sees it) through every link; out gets the final
 * name, again as that system sees it. 0 when it exists, -1 when not (or a link loop). With
 * root "" this is realpath(3). */
int rootpath_resolve(const char *root, const char *path, char *out, size_t size);

#endif
