/* progname.c - the name the program was started as */
#include "unpacker/target/progname.h"

#include "common/platform.h"

static const char *program_name = "unpacker";

const char *progname(void)
{
	return program_name;
}

void progname_set(const char *argv0)
{
	const char *name = argv0;
	for (const char *p = argv0; p && *p; p++)
		if (platform_is_separator(*p))
			name = p + 1;
	if (name && *name)
		program_name = name;
}
