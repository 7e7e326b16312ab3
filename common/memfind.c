/* memfind.c - searching bytes for bytes */
#include "common/memfind.h"

#include <string.h>

const void *memfind(const void *hay, size_t hay_len, const void *needle, size_t needle_len)
{
	const unsigned char *h = hay, *first;
	if (needle_len == 0)
		return hay;
	while (hay_len >= needle_len && (first = memchr(h, *(const unsigned char *)needle,
							 hay_len - needle_len + 1)) != NULL) {
		if (memcmp(first, needle, needle_len) == 0)
			return first;
		hay_len -= (size_t)(first - h) + 1;
		h = first + 1;
	}
	return NULL;
}
