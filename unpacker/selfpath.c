/* selfpath.c - finding our own file, also when the dynamic loader started us */
#include "unpacker/selfpath.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *given_argv0;
static int resolved;
static char program[PATH_MAX];
static char loader[PATH_MAX];

void selfpath_init(const char *argv0)
{
	given_argv0 = argv0;
}

/* The path is accepted only if it is, now, the file with this device and inode. */
static int is_file(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;
	return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev &&
	       st.st_ino == ino;
}

/* The mapping that holds this function's code is the program's own file. */
static int find_mapping(char *path, size_t size, dev_t *dev, ino_t *ino)
{
	uintptr_t here = (uintptr_t)&find_mapping;
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned long start, end, offset, inode;
		unsigned major, minor;
		int name_at = 0;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &offset, &major,
			   &minor, &inode, &name_at) < 7 || here < start || here >= end || !name_at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", line + name_at);
		*dev = makedev(major, minor);
		*ino = (ino_t)inode;
		found = line[name_at] == '/';
	}
	free(line);
	fclose(f);
	return found;
}

static void resolve(void)
{
	char mapped[PATH_MAX], exe[PATH_MAX];
	dev_t dev;
	ino_t ino;
	resolved = 1;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (!find_mapping(mapped, sizeof(mapped), &dev, &ino)) {
		/* No /proc/self/maps: trust /proc/self/exe, the kernel's own answer. */
		snprintf(program, sizeof(program), "%s", exe);
		return;
	}
	if (is_file(exe, dev, ino)) {
		snprintf(program, sizeof(program), "%s", exe);
		return;
	}
	/* /proc/self/exe is another file: the loader that mapped us. */
	snprintf(loader, sizeof(loader), "%s", exe);
	if (is_file(mapped, dev, ino))
		snprintf(program, sizeof(program), "%s", mapped);
	else if (is_file(given_argv0, dev, ino))
		snprintf(program, sizeof(program), "%s", given_argv0);
}

const char *selfpath_program(void)
{
	if (!resolved)
		resolve();
	return program[0] ? program : NULL;
}

const char *selfpath_loader(void)
{
	if (!resolved)
		resolve();
	return loader[0] ? loader : NULL;
}

int selfpath_carries_data(const char *path)
{
	uint8_t h[64];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int more = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 /* 64-bit */ && h[5] == 1 /* LE */) {
		uint64_t shoff = 0;
		for (int i = 7; i >= 0; i--)
			shoff = shoff << 8 | h[0x28 + i];
		uint64_t shentsize = (uint64_t)(h[0x3a] | h[0x3b] << 8);
		uint64_t shnum = (uint64_t)(h[0x3c] | h[0x3d] << 8);
		/* The linker writes the section header table last. */
		more = shoff > 0 && shoff + shentsize * shnum < (uint64_t)st.st_size;
	}
	close(fd);
	return more;
}
