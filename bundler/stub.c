/* stub.c - finding the unpacker to embed in a .run/.exe, and checking its architecture */
#include "bundler/stub.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/bundle/sfx.h"
#include "manifests/platforms.h"

/* How messages name the programs of p (NULL: none of a platform's). */
static const char *kind_name(const struct platform_spec *p)
{
	return (p ? p : platform_facts(NULL))->program_kind;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The platform whose machine field an ELF (64-bit, little-endian) or PE header carries; NULL
 * for anything else. */
static const struct platform_spec *binary_kind(const char *path)
{
	uint8_t h[64], pe[6];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const struct platform_spec *k = NULL;
	if (fd < 0)
		return k;
	if (pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h)) {
		if (!memcmp(h, "\177ELF", 4) && h[4] == 2 /* 64-bit */ && h[5] == 1 /* LE */) {
			k = platform_from_elf_machine(le16(h + 18));
		} else if (!memcmp(h, "MZ", 2)) {
			uint32_t at = (uint32_t)h[60] | (uint32_t)h[61] << 8 | (uint32_t)h[62] << 16 |
				      (uint32_t)h[63] << 24;
			if (pread(fd, pe, sizeof(pe), (off_t)at) == (ssize_t)sizeof(pe) &&
			    !memcmp(pe, "PE\0\0", 4))
				k = platform_from_pe_machine(le16(pe + 4));
		}
	}
	close(fd);
	return k;
}

const char *stub_extension(const char *platform)
{
	return platform_facts(platform)->sfx_suffix;
}

uint64_t stub_max_file_size(const char *platform)
{
	return platform_facts(platform)->max_program_size;
}

/* Whether the file carries the unpacker's marker (common/bundle/sfx.h): 1 yes, 0 no, -1 unreadable.
 * The needle is joined here at run time, so this program's own bytes never hold it. */
static int carries_marker(const char *path)
{
	static const char head[] = SFX_STUB_MARKER_HEAD, tail[] = SFX_STUB_MARKER_TAIL;
	char needle[sizeof(head) + sizeof(tail)];
	volatile size_t head_len = sizeof(head) - 1;
	memcpy(needle, head, head_len);
	memcpy(needle + head_len, tail, sizeof(tail));
	char *data = NULL;
	size_t len = 0;
	if (io_read_file(path, (size_t)1 << 30, &data, &len) != 0)
		return -1;
	int found = memmem(data, len, needle, strlen(needle)) != NULL;
	free(data);
	return found;
}

static int is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Take candidate if it fits; note where we looked, for the error line. */
static int try_candidate(char *candidate, const struct platform_spec *want, char *out,
			 size_t size, char *looked, size_t looked_size)
{
	size_t used = strlen(looked);
	int right_kind = is_regular(candidate) && platform_same_program(binary_kind(candidate), want);
	int fits = right_kind && carries_marker(candidate) == 1;
	if (fits)
		snprintf(out, size, "%s", candidate);
	else {
		const char *why = right_kind ? " (not a cuferry unpacker)"
				  : is_regular(candidate) ? " (other architecture)" : "";
		snprintf(looked + used, looked_size - used, "%s%s%s", used ? ", " : "", candidate, why);
	}
	free(candidate);
	return fits;
}

int stub_find(const char *platform, const char *explicit_path, char *out, size_t size,
	      struct cf_err *e)
{
	const struct platform_spec *want = platform_find(platform);
	if (!want)
		return cf_fail(e, CF_USAGE, "unknown platform '%s'", platform);
	if (explicit_path) {
		errno = 0;
		if (!is_regular(explicit_path))
			return cf_fail(e, CF_USAGE, "--unpacker %s: %s", explicit_path,
				       errno ? strerror(errno) : "not a regular file");
		const struct platform_spec *got = binary_kind(explicit_path);
		if (!platform_same_program(got, want))
			return cf_fail(e, CF_INCOMPATIBLE, "--unpacker %s is %s, but a %s bundle needs %s",
				       explicit_path, kind_name(got), platform, kind_name(want));
		int marked = carries_marker(explicit_path);
		if (marked < 0)
			return cf_fail(e, CF_USAGE, "--unpacker %s: cannot read it", explicit_path);
		if (!marked)
			return cf_fail(e, CF_INCOMPATIBLE, "--unpacker %s is %s but not a cuferry "
				       "unpacker: only the unpacker goes in front of a .run",
				       explicit_path, kind_name(got));
		snprintf(out, size, "%s", explicit_path);
		return CF_OK;
	}
	const char *self = platform_self_path();
	const char *slash = self ? strrchr(self, '/') : NULL;
	char *dir = slash ? xasprintf("%.*s", (int)(slash - self), self) : xstrdup(".");
	const char *exe = want->exe_suffix;
	char looked[2048] = "";
	/* linux-sbsa and linux-aarch64 run the same AArch64 unpacker: either directory serves;
	 * make windows writes the Windows one as windows/unpacker.exe (the row's alias). */
	const char *alias = want->unpacker_alias;
	int found = (platform_same_program(want, platform_self()) &&
		     try_candidate(xasprintf("%s/unpacker", dir), want, out, size, looked,
				   sizeof(looked)));
	for (int i = 0; i < 2 && !found; i++) {
		const char *name = i == 0 ? platform : alias;
		if (i == 1 && !name)
			break;
		found = try_candidate(xasprintf("%s/%s/unpacker%s", dir, name, exe), want, out, size,
				      looked, sizeof(looked)) ||
			try_candidate(xasprintf("%s/../lib/cuferry/%s/unpacker%s", dir, name, exe),
				      want, out, size, looked, sizeof(looked));
	}
	free(dir);
	if (found)
		return CF_OK;
	return cf_fail(e, CF_INCOMPATIBLE, "no unpacker for %s to put in front of the bundle "
		       "(looked for %s at %s): build it with '%s', or give --unpacker PATH",
		       platform, kind_name(want), looked, want->unpacker_make);
}
