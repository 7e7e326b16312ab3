/* unprivileged.c - what the probe child can still read once root is gone */
#include "unpacker/validate/unprivileged.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

int unprivileged_can_read(const char *path, char *blocker, size_t size)
{
	if (platform_access(path, PLATFORM_CAN_READ) == 0)
		return 0;
	char *copy = strdup(path);
	snprintf(blocker, size, "%s", path);
	for (char *p = copy ? strchr(copy + 1, '/') : NULL; p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (platform_access(copy, PLATFORM_CAN_EXECUTE) != 0) {
			snprintf(blocker, size, "%s", copy);
			break;
		}
		*p = '/';
	}
	free(copy);
	return -1;
}
