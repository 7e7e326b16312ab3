/* selfpath.c - finding our own file, also when the dynamic loader started us */
#include "unpacker/target/selfpath.h"

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

int selfpath_check_loader_start(char *why, size_t size)
{
	struct platform_stat st;
	const char *name = selfpath_program();
	if (!selfpath_loader() || !platform_is_admin())
		return 0;
	if (platform_own_image() < 0 || platform_fstat(platform_own_image(), &st) != 0)
		return snprintf(why, size, "started through the dynamic loader, but the program's own "
				"file could not be held open: start a copy in a directory only root can "
				"write"), -1;
	if (st.owner != 0 || (st.mode & 022))
		return snprintf(why, size, "%s, started through the dynamic loader, is %s: whoever may "
				"write it could change root's running code (copy it to a directory only "
				"root can write, chmod 700, and start that copy)", name ? name : "the "
				"program", st.owner != 0 ? "owned by another user than root"
				: "writable by group or others"), -1;
	return 0;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Where a 64-bit little-endian ELF image ends: after the section header table, which the
 * linker writes last. 0 when h is no such header. */
static uint64_t elf_image_end(const uint8_t h[64])
{
	if (memcmp(h, "\177ELF", 4) != 0 || h[4] != 2 /* 64-bit */ || h[5] != 1 /* LE */)
		return 0;
	uint64_t shoff = le(h + 0x28, 8);
	return shoff ? shoff + le(h + 0x3a, 2) * le(h + 0x3c, 2) : 0;
}

/* Where a PE image ends: after its last section's raw data, the COFF symbol and string
 * tables (mingw keeps them unless stripped) and the certificate table, whichever is last.
 * Anything after that is overlay, which Windows never maps: where a .exe keeps its bundle.
 * 0 when the file is no PE. */
static uint64_t pe_image_end(int fd, const uint8_t h[64])
{
	uint8_t coff[24], opt[152], sect[40], strtab[4];
	if (memcmp(h, "MZ", 2) != 0)
		return 0;
	uint64_t pe = le(h + 0x3c, 4);
	if (platform_pread(fd, coff, sizeof(coff), pe) != (ssize_t)sizeof(coff) ||
	    memcmp(coff, "PE\0\0", 4) != 0)
		return 0;
	uint64_t nsections = le(coff + 6, 2), symtab = le(coff + 12, 4), nsyms = le(coff + 16, 4);
	uint64_t opt_size = le(coff + 20, 2), end = 0;
	for (uint64_t i = 0; i < nsections; i++) {
		if (platform_pread(fd, sect, sizeof(sect), pe + 24 + opt_size + 40 * i) != (ssize_t)sizeof(sect))
			return 0;
		uint64_t sect_end = le(sect + 20, 4) + le(sect + 16, 4);
		end = sect_end > end ? sect_end : end;
	}
	if (symtab) {
		uint64_t strings = symtab + 18 * nsyms;
		uint64_t tab_end = platform_pread(fd, strtab, 4, strings) == 4 ? strings + le(strtab, 4)
									       : strings;
		end = tab_end > end ? tab_end : end;
	}
	/* PE32+ (0x20b) keeps its data directories at 112, PE32 at 96; the certificate table
	 * (an Authenticode signature) is the fifth, its address a file offset. */
	if (opt_size >= sizeof(opt) && platform_pread(fd, opt, sizeof(opt), pe + 24) == (ssize_t)sizeof(opt)) {
		const uint8_t *cert = opt + (le(opt, 2) == 0x20b ? 112 : 96) + 4 * 8;
		uint64_t cert_end = le(cert, 4) + le(cert + 4, 4);
		end = le(cert + 4, 4) && cert_end > end ? cert_end : end;
	}
	return end;
}

/* The bytes of the program image (ELF or PE) open as fd, and the file's size; 0, 0 when
 * unreadable. */
static uint64_t image_end_of(int fd, uint64_t *file_size)
{
	uint8_t h[64];
	struct platform_stat st;
	uint64_t end = 0;
	*file_size = 0;
	if (platform_fstat(fd, &st) == 0 && platform_pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h)) {
		*file_size = st.size;
		end = elf_image_end(h);
		if (!end)
			end = pe_image_end(fd, h);
	}
	return end;
}

static uint64_t image_end(const char *path, uint64_t *file_size)
{
	int fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	*file_size = 0;
	if (fd < 0)
		return 0;
	uint64_t end = image_end_of(fd, file_size);
	platform_close(fd);
	return end;
}

int selfpath_carries_data(const char *path)
{
	uint64_t size, end = image_end(path, &size);
	return end > 0 && end < size;
}

uint64_t selfpath_image_size(const char *path, int held)
{
	uint64_t size, end = held >= 0 ? image_end_of(held, &size) : image_end(path, &size);
	return end > 0 && end < size ? end : 0;
}
