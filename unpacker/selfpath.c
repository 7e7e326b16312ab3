/* selfpath.c - finding our own file, also when the dynamic loader started us */
#include "unpacker/selfpath.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/platform.h"

static const char *given_argv0;
static int resolved;
static char program[PATH_MAX];
static char loader[PATH_MAX];

static void resolve(void);

void selfpath_init(const char *argv0)
{
	given_argv0 = argv0;
	resolve(); /* now, while one thread runs: validation asks from several */
}

/* The path is accepted only if it is, now, the file with this device and inode. */
static int is_file(const char *path, uint64_t device, uint64_t inode)
{
	struct platform_stat st;
	return path && *path && platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_FILE &&
	       st.device == device && st.inode == inode;
}

static void resolve(void)
{
	char mapped[PATH_MAX], exe[PATH_MAX];
	uint64_t device, inode;
	resolved = 1;
	if (platform_started_file(exe, sizeof(exe)) != 0)
		exe[0] = '\0';
	/* The mapping that holds this function's code is the program's own file. */
	if (platform_mapped_file((const void *)&resolve, mapped, sizeof(mapped), &device, &inode) != 0) {
		/* No /proc/self/maps: trust /proc/self/exe, the kernel's own answer. */
		snprintf(program, sizeof(program), "%s", exe);
		return;
	}
	if (is_file(exe, device, inode)) {
		snprintf(program, sizeof(program), "%s", exe);
		return;
	}
	/* /proc/self/exe is another file: the loader that mapped us. */
	snprintf(loader, sizeof(loader), "%s", exe);
	if (is_file(mapped, device, inode))
		snprintf(program, sizeof(program), "%s", mapped);
	else if (is_file(given_argv0, device, inode))
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
	struct platform_stat st;
	int fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	int more = 0;
	if (fd < 0)
		return 0;
	if (platform_fstat(fd, &st) == 0 && platform_pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 /* 64-bit */ && h[5] == 1 /* LE */) {
		uint64_t shoff = 0;
		for (int i = 7; i >= 0; i--)
			shoff = shoff << 8 | h[0x28 + i];
		uint64_t shentsize = (uint64_t)(h[0x3a] | h[0x3b] << 8);
		uint64_t shnum = (uint64_t)(h[0x3c] | h[0x3d] << 8);
		/* The linker writes the section header table last. */
		more = shoff > 0 && shoff + shentsize * shnum < st.size;
	}
	platform_close(fd);
	return more;
}
