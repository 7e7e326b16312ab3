/* memfind.h - memmem(3) in portable C: the C library of every target does not have it */
#ifndef COMMON_MEMFIND_H
#define COMMON_MEMFIND_H

#include <stddef.h>

/* The first occurrence of needle (needle_len bytes) in hay (hay_len bytes), or NULL; an empty
 * needle is found at hay. */
const void *memfind(const void *hay, size_t hay_len, const void *needle, size_t needle_len);

#endif
