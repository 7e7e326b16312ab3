/* pathrule.c - portable path policy: names every target file system accepts unchanged */
#include "manifests/pathrule.h"

#include <stdio.h>
#include <string.h>

static int is_allowed_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '+' || c == '-';
}

static char ascii_upper(char c)
{
	return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* CON, PRN, AUX, NUL, COM1-9, LPT1-9, alone or before an extension ("con.txt", "aux"). */
static int is_reserved_dos_name(const char *name, size_t len)
{
	static const char *const fixed[] = { "CON", "PRN", "AUX", "NUL" };
	size_t stem = 0;
	char up[5];
	while (stem < len && name[stem] != '.')
		stem++;
	if (stem != 3 && stem != 4)
		return 0;
	for (size_t i = 0; i < stem; i++)
		up[i] = ascii_upper(name[i]);
	up[stem] = '\0';
	if (stem == 3) {
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			if (strcmp(up, fixed[i]) == 0)
				return 1;
		return 0;
	}
	return (strncmp(up, "COM", 3) == 0 || strncmp(up, "LPT", 3) == 0) && up[3] >= '1' &&
	       up[3] <= '9';
}

int path_check_component(const char *name, size_t len, char *why, size_t why_size)
{
	if (len == 0)
		return snprintf(why, why_size, "empty path component"), -1;
	if (len > PATH_MAX_COMPONENT)
		return snprintf(why, why_size, "path component longer than %d bytes",
				PATH_MAX_COMPONENT), -1;
	for (size_t i = 0; i < len; i++)
		if (!is_allowed_char((unsigned char)name[i]))
			return snprintf(why, why_size,
					"character 0x%02x not allowed (only A-Z a-z 0-9 . _ + -)",
					(unsigned char)name[i]), -1;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return snprintf(why, why_size, "'.' and '..' are not allowed"), -1;
	if (name[len - 1] == '.')
		return snprintf(why, why_size, "component ends in a dot"), -1;
	if (is_reserved_dos_name(name, len))
		return snprintf(why, why_size, "reserved device name on Windows"), -1;
	return 0;
}

/* rest is ".so" alone or followed by a version of digits and dots (".so", ".so.1",
 * ".so.1.2.13"): every name a library goes under in a lib/ directory. */
static int is_so_and_version(const char *rest)
{
	if (strncmp(rest, ".so", 3) != 0)
		return 0;
	rest += 3;
	if (*rest == '\0')
		return 1;
	if (*rest != '.')
		return 0;
	while (*++rest)
		if ((*rest < '0' || *rest > '9') && *rest != '.')
			return 0;
	return 1;
}

int path_names_library(const char *path, const char *const stems[])
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	for (size_t i = 0; stems[i]; i++) {
		size_t n = strlen(stems[i]);
		if (n > 0 && stems[i][n - 1] == '*') {
			/* a family: the prefix, at least one character of its member, then .so[.V] */
			if (strncmp(name, stems[i], n - 1) != 0 || name[n - 1] == '\0')
				continue;
			for (const char *so = strstr(name + n, ".so"); so; so = strstr(so + 1, ".so"))
				if (is_so_and_version(so))
					return 1;
		} else if (strncmp(name, stems[i], n) == 0 && is_so_and_version(name + n)) {
			return 1;
		}
	}
	return 0;
}

/* The C library's and the dynamic loader's own libraries, and every other library the shipped
 * unpacker NEEDs (readelf -d build/unpacker: libdl.so.2, libpthread.so.0, libc.so.6; a test
 * keeps this list covering it), by stem: every name of each (libc.so, libc.so.6,
 * libpthread.so.0.1), never a prefix (libmpi.so, libm_solver.so are fine). A bundle carrying
 * one of them would have every program, the unpacker included, load it first. */
static const char *const c_runtime_stems[] = {
	"libc", "libdl", "libpthread", "librt", "libm", "libgcc_s", "libstdc++", "libutil",
	"libresolv", "libanl", "libnsl", "libcrypt", NULL
};

int path_is_c_runtime(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (path_names_library(base, c_runtime_stems))
		return 1;
	/* ld-linux-*.so.*: the loader under every machine's name (ld-linux-x86-64.so.2,
	 * ld-linux-aarch64.so.1), and ld-linux.so.2 itself */
	const char *so = strncmp(base, "ld-linux", 8) == 0 ? strstr(base + 8, ".so.") : NULL;
	return so && (base[8] == '-' || so == base + 8) && so[4] != '\0';
}

int path_check(const char *path, char *why, size_t why_size)
{
	size_t total = strlen(path);
	if (total == 0)
		return snprintf(why, why_size, "empty path"), -1;
	if (total > PATH_MAX_TOTAL)
		return snprintf(why, why_size, "path longer than %d bytes", PATH_MAX_TOTAL), -1;
	if (path[0] == '/')
		return snprintf(why, why_size, "absolute path"), -1;
	const char *start = path;
	for (;;) {
		const char *slash = strchr(start, '/');
		size_t len = slash ? (size_t)(slash - start) : strlen(start);
		if (path_check_component(start, len, why, why_size) != 0)
			return -1;
		if (!slash)
			return path_is_c_runtime(start) ? (snprintf(why, why_size, "named like the C "
				"library or the dynamic loader (%s): never carried in a bundle", start), -1) : 0;
		start = slash + 1;
	}
}

int path_is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

int path_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		char ca = ascii_upper(*a), cb = ascii_upper(*b);
		if (ca != cb)
			return (unsigned char)ca - (unsigned char)cb;
		if (ca == '\0')
			return 0;
	}
}
