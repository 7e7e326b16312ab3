/* result.c - the timings of an install's phases */
#include "unpacker/target/result.h"

#include <stdio.h>

void install_timings_text(const struct install_result *r, char *out, size_t size)
{
	static const char *const names[PHASE_COUNT] = { "open_verify", "extract", "sync", "switch",
							 "environment", "validation" };
	size_t used = (size_t)snprintf(out, size, "{");
	for (int i = 0; i < PHASE_COUNT && used < size; i++)
		if (r->phase_s[i] >= 0)
			used += (size_t)snprintf(out + used, size - used, "%s\"%s\": %.3f", used > 1 ? ", " : "",
						 names[i], r->phase_s[i]);
	if (used < size)
		snprintf(out + used, size - used, "}");
}
