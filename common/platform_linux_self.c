/* platform_linux_self.c - this process as the kernel describes it in /proc (Linux) */
#include "common/platform.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int platform_mapped_file(const void *address, char *path, size_t size, uint64_t *device,
			 uint64_t *inode)
{
	uintptr_t here = (uintptr_t)address;
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned long start, end, offset, ino;
		unsigned major, minor;
		int name_at = 0;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &offset, &major,
			   &minor, &ino, &name_at) < 7 || here < start || here >= end || !name_at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", line + name_at);
		*device = (uint64_t)makedev(major, minor);
		*inode = (uint64_t)ino;
		found = line[name_at] == '/';
	}
	free(line);
	fclose(f);
	return found ? 0 : -1;
}

int platform_started_file(char *path, size_t size)
{
	return platform_readlink("/proc/self/exe", path, size) > 0 ? 0 : -1;
}
