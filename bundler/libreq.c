/* libreq.c - the host requirements of a tree's ELF and PE files */
#include "bundler/libreq.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/elfver.h"

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread(*(int *)ctx, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* PE: the DOS header's e_lfanew, "PE\0\0", the 20-byte COFF header, then the optional header,
 * whose OS version (at 40) and subsystem version (at 48) are at the same place in PE32 and
 * PE32+. The loader refuses a subsystem version newer than the system's. */
static void pe_version(int fd, char *out, size_t size)
{
	uint8_t dos[64], opt[52];
	out[0] = '\0';
	if (pread(fd, dos, sizeof(dos), 0) != (ssize_t)sizeof(dos) || dos[0] != 'M' || dos[1] != 'Z')
		return;
	uint32_t pe = (uint32_t)dos[60] | (uint32_t)dos[61] << 8 | (uint32_t)dos[62] << 16 |
		      (uint32_t)dos[63] << 24;
	uint8_t sig[4];
	if (pread(fd, sig, 4, pe) != 4 || memcmp(sig, "PE\0\0", 4) != 0 ||
	    pread(fd, opt, sizeof(opt), (off_t)pe + 24) != (ssize_t)sizeof(opt))
		return;
	unsigned os_major = opt[40] | opt[41] << 8, os_minor = opt[42] | opt[43] << 8;
	unsigned sub_major = opt[48] | opt[49] << 8, sub_minor = opt[50] | opt[51] << 8;
	int sub_newer = sub_major > os_major || (sub_major == os_major && sub_minor > os_minor);
	snprintf(out, size, "%u.%u", sub_newer ? sub_major : os_major, sub_newer ? sub_minor : os_minor);
}

static void keep_newest(char *have, size_t size, const char *v)
{
	if (v[0] && (!have[0] || elfver_cmp(v, have) > 0))
		snprintf(have, size, "%s", v);
}

void libreq_scan(const struct tree *t, char *glibc, size_t gsize, char *windows, size_t wsize)
{
	glibc[0] = windows[0] = '\0';
	for (size_t i = 0; i < t->count; i++) {
		const struct tree_entry *ent = &t->entries[i];
		int dll = fnmatch("*.dll", ent->path, 0) == 0;
		if (ent->is_symlink || !ent->src || (!dll && fnmatch("*.so*", ent->path, 0) != 0))
			continue;
		int fd = open(ent->src, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* packing reads it again and reports what is wrong */
		char v[32];
		if (dll)
			pe_version(fd, v, sizeof(v));
		else if (elfver_newest_glibc(fd_read, &fd, ELFVER_NEEDED, v, sizeof(v)) != 0)
			v[0] = '\0';
		close(fd);
		keep_newest(dll ? windows : glibc, dll ? wsize : gsize, v);
	}
}
