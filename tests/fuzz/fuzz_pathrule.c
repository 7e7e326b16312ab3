/* fuzz_pathrule.c - the path policy against a slow, obvious reference written separately:
 * any disagreement is a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifests/pathrule.h"

static int ref_component(const char *c, size_t len)
{
	static const char allowed[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-";
	static const char *const reserved[] = { "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3",
						"COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1",
						"LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8",
						"LPT9" };
	char stem[300];
	size_t n = 0;
	if (len == 0 || len > 255)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!memchr(allowed, c[i], sizeof(allowed) - 1))
			return 0;
	if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
		return 0;
	if (c[len - 1] == '.')
		return 0;
	while (n < len && c[n] != '.') {
		stem[n] = (c[n] >= 'a' && c[n] <= 'z') ? (char)(c[n] - 32) : c[n];
		n++;
	}
	stem[n] = '\0';
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcmp(stem, reserved[i]) == 0)
			return 0;
	return 1;
}

/* The last component named like the C library or the loader (DESIGN §10): a stem, ".so", and
 * nothing or "." and digits and dots after it (libc.so, libc.so.6, libm.so.6.0.1), or
 * ld-linux.so.N / ld-linux-MACHINE.so.N with something after ".so.". */
static int ref_c_runtime(const char *base)
{
	static const char *const stems[] = { "libc", "libdl", "libpthread", "librt", "libm",
					     "libgcc_s", "libstdc++", "libutil", "libresolv",
					     "libanl", "libnsl", "libcrypt" };
	for (size_t i = 0; i < sizeof(stems) / sizeof(stems[0]); i++) {
		size_t k = strlen(stems[i]);
		if (strncmp(base, stems[i], k) != 0 || strncmp(base + k, ".so", 3) != 0)
			continue;
		const char *v = base + k + 3;
		if (*v == '\0' || (*v == '.' && strspn(v, "0123456789.") == strlen(v)))
			return 1;
	}
	size_t n = strlen(base);
	if (strncmp(base, "ld-linux", 8) != 0)
		return 0;
	if (base[8] == '.') /* ld-linux.so.N */
		return n > 12 && memcmp(base + 8, ".so.", 4) == 0;
	if (base[8] != '-')
		return 0;
	for (size_t i = 9; i + 4 <= n; i++)
		if (memcmp(base + i, ".so.", 4) == 0)
			return i + 4 < n;
	return 0;
}

static int ref_path(const char *p)
{
	size_t n = strlen(p), start = 0, last = 0;
	if (n == 0 || n > 1024)
		return 0;
	for (size_t i = 0; i <= n; i++)
		if (i == n || p[i] == '/') {
			if (!ref_component(p + start, i - start))
				return 0;
			last = start;
			start = i + 1;
		}
	return !ref_c_runtime(p + last);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1), why[160];
	memcpy(p, data, size);
	p[size] = '\0';
	int ours = path_check(p, why, sizeof(why)) == 0, ref = ref_path(p);
	if (ours != ref)
		abort();
	if (size > 1) {
		/* case folding is symmetric and agrees with itself */
		char *q = p + size / 2;
		char saved = *q;
		*q = '\0';
		int a = path_casecmp(p, q + 1), b = path_casecmp(q + 1, p);
		if ((a == 0) != (b == 0) || (a < 0 && b <= 0) || (a > 0 && b >= 0))
			abort();
		*q = saved;
	}
	free(p);
	return 0;
}
