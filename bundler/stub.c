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

enum binary_kind { BIN_UNKNOWN, BIN_ELF_X86_64, BIN_ELF_AARCH64, BIN_PE_X86_64 };

#if defined(__aarch64__)
#define HOST_KIND BIN_ELF_AARCH64
#else
#define HOST_KIND BIN_ELF_X86_64
#endif

static enum binary_kind wanted_kind(const char *platform)
{
	if (!strcmp(platform, "linux-x86_64"))
		return BIN_ELF_X86_64;
	if (!strcmp(platform, "linux-sbsa") || !strcmp(platform, "linux-aarch64"))
		return BIN_ELF_AARCH64;
	if (!strcmp(platform, "windows-x86_64"))
		return BIN_PE_X86_64;
	return BIN_UNKNOWN;
}

static const char *kind_name(enum binary_kind k)
{
	switch (k) {
	case BIN_ELF_X86_64: return "an x86-64 ELF program";
	case BIN_ELF_AARCH64: return "an AArch64 ELF program";
	case BIN_PE_X86_64: return "an x86-64 Windows PE program";
	default: return "no program this bundler knows";
	}
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The machine field of an ELF or PE header; BIN_UNKNOWN for anything else. */
static enum binary_kind binary_kind(const char *path)
{
	uint8_t h[64], pe[6];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	enum binary_kind k = BIN_UNKNOWN;
	if (fd < 0)
		return k;
	if (pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h)) {
		if (!memcmp(h, "\177ELF", 4) && h[4] == 2 /* 64-bit */ && h[5] == 1 /* LE */) {
			uint16_t machine = le16(h + 18);
			k = machine == 62 ? BIN_ELF_X86_64 : machine == 183 ? BIN_ELF_AARCH64 : k;
		} else if (!memcmp(h, "MZ", 2)) {
			uint32_t at = (uint32_t)h[60] | (uint32_t)h[61] << 8 | (uint32_t)h[62] << 16 |
				      (uint32_t)h[63] << 24;
			if (pread(fd, pe, sizeof(pe), (off_t)at) == (ssize_t)sizeof(pe) &&
			    !memcmp(pe, "PE\0\0", 4) && le16(pe + 4) == 0x8664)
				k = BIN_PE_X86_64;
		}
	}
	close(fd);
	return k;
}

const char *stub_extension(const char *platform)
{
	return strncmp(platform, "windows", 7) == 0 ? ".exe" : ".run";
}

uint64_t stub_max_file_size(const char *platform)
{
	/* Windows refuses to start a program file of 4 GiB or more ("not a valid Win32
	 * application"), whatever follows its image. */
	return strncmp(platform, "windows", 7) == 0 ? UINT32_MAX : 0;
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
static int try_candidate(char *candidate, enum binary_kind want, char *out, size_t size,
			 char *looked, size_t looked_size)
{
	size_t used = strlen(looked);
	int right_kind = is_regular(candidate) && binary_kind(candidate) == want;
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
	enum binary_kind want = wanted_kind(platform);
	if (want == BIN_UNKNOWN)
		return cf_fail(e, CF_USAGE, "unknown platform '%s'", platform);
	if (explicit_path) {
		errno = 0;
		if (!is_regular(explicit_path))
			return cf_fail(e, CF_USAGE, "--unpacker %s: %s", explicit_path,
				       errno ? strerror(errno) : "not a regular file");
		enum binary_kind got = binary_kind(explicit_path);
		if (got != want)
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
	const char *exe = want == BIN_PE_X86_64 ? ".exe" : "";
	char looked[2048] = "";
	/* linux-sbsa and linux-aarch64 run the same AArch64 unpacker: either directory serves;
	 * make windows writes the Windows one as windows/unpacker.exe. */
	const char *alias = !strcmp(platform, "linux-aarch64")    ? "linux-sbsa"
			    : !strcmp(platform, "linux-sbsa")     ? "linux-aarch64"
			    : !strcmp(platform, "windows-x86_64") ? "windows"
								  : platform;
	int found = (want == HOST_KIND &&
		     try_candidate(xasprintf("%s/unpacker", dir), want, out, size, looked,
				   sizeof(looked)));
	for (int i = 0; i < 2 && !found; i++) {
		const char *name = i == 0 ? platform : alias;
		if (i == 1 && name == platform)
			break;
		found = try_candidate(xasprintf("%s/%s/unpacker%s", dir, name, exe), want, out, size,
				      looked, sizeof(looked)) ||
			try_candidate(xasprintf("%s/../lib/cuferry/%s/unpacker%s", dir, name, exe),
				      want, out, size, looked, sizeof(looked));
	}
	free(dir);
	if (found)
		return CF_OK;
	const char *target = want == BIN_ELF_AARCH64 ? "make aarch64"
			     : want == BIN_PE_X86_64  ? "make windows"
						      : "make";
	return cf_fail(e, CF_INCOMPATIBLE, "no unpacker for %s to put in front of the bundle "
		       "(looked for %s at %s): build it with '%s', or give --unpacker PATH",
		       platform, kind_name(want), looked, target);
}
