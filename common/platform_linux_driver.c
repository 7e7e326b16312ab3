/* platform_linux_driver.c - the GPU driver the system runs, as its kernel module reports it
 * (Linux: /proc/driver/nvidia/version) */
#include "common/platform.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." and the open
 * modules' "... Open Kernel Module for x86_64  580.95.05  Release Build ...": the first word of
 * the first line made of digits and dots with at least one dot. */
static int module_version(const char *text, char *out, size_t size)
{
	const char *line_end = strchr(text, '\n');
	size_t limit = line_end ? (size_t)(line_end - text) : strlen(text);
	for (size_t i = 0; i < limit;) {
		size_t n = strcspn(text + i, " \t\n");
		if (n > limit - i)
			n = limit - i;
		size_t digits = strspn(text + i, "0123456789.");
		if (n > 2 && digits == n && isdigit((unsigned char)text[i]) &&
		    memchr(text + i, '.', n) && n < size) {
			snprintf(out, size, "%.*s", (int)n, text + i);
			return 0;
		}
		i += n ? n : 1;
	}
	return -1;
}

int platform_driver_version(const char *root, char *out, size_t size)
{
	char *path = xasprintf("%s/proc/driver/nvidia/version", root), *text = NULL;
	/* /proc files report size 0: io_read_file reads to the end regardless. */
	int rc = io_read_file(path, 1 << 16, &text, NULL) == 0 ? module_version(text, out, size) : -1;
	free(text);
	free(path);
	return rc;
}
