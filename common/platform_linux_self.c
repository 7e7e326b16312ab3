/* platform_linux_self.c - this process as the kernel describes it in /proc (Linux) */
#include "common/platform.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The line of /proc/self/maps whose range holds here: its range, file, device and inode.
 * 0, or -1 when there is no such line or it names no file. */
static int find_mapping(uintptr_t here, unsigned long range[2], char *path, size_t size,
			uint64_t *device, uint64_t *inode)
{
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
		range[0] = start, range[1] = end;
		found = line[name_at] == '/';
	}
	free(line);
	fclose(f);
	return found ? 0 : -1;
}

int platform_mapped_file(const void *address, char *path, size_t size, uint64_t *device,
			 uint64_t *inode)
{
	unsigned long range[2];
	return find_mapping((uintptr_t)address, range, path, size, device, inode);
}

int platform_started_file(char *path, size_t size)
{
	return platform_readlink("/proc/self/exe", path, size) > 0 ? 0 : -1;
}

/* fd is open on the regular file with this device and inode. */
static int is_mapped_file(int fd, uint64_t device, uint64_t inode)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_dev == device && (uint64_t)st.st_ino == inode;
}

static int own_image = -1;

/* Before main, while one thread runs: the file that holds this code, open for as long as the
 * process lives, so that what the probe executes later is copied from it and never from a
 * name that someone who can write the program's directory may have renamed another program
 * over meanwhile (issue 23 A1, and F2 of its follow-up review for a start through the loader). */
__attribute__((constructor)) static void hold_own_image(void)
{
	char mapped[PATH_MAX], range[80];
	unsigned long at[2];
	uint64_t device, inode;
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (find_mapping((uintptr_t)&hold_own_image, at, mapped, sizeof(mapped), &device, &inode) != 0) {
		own_image = exe; /* no /proc/self/maps: the kernel's own answer stands */
		return;
	}
	if (is_mapped_file(exe, device, inode)) {
		own_image = exe;
		return;
	}
	if (exe >= 0)
		close(exe); /* the dynamic loader, which started this program */
	/* The mapping's own file through the kernel (map_files: root only on most kernels, and
	 * right whatever its name is now), else the name the map shows; either only if it is
	 * still the file mapped. */
	snprintf(range, sizeof(range), "/proc/self/map_files/%lx-%lx", at[0], at[1]);
	const char *const tries[] = { range, mapped };
	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		int fd = open(tries[i], O_RDONLY | O_CLOEXEC);
		if (is_mapped_file(fd, device, inode)) {
			own_image = fd;
			return;
		}
		if (fd >= 0)
			close(fd);
	}
}

int platform_own_image(void)
{
	return own_image;
}
