/* sums.c - one SHA256SUMS per output directory, merged so that `sha256sum -c` checks every
 * bundle written there, not only the last one */
#include "bundler/sums.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static char *sums_path_for(const char *file)
{
	const char *slash = strrchr(file, '/');
	if (!slash)
		return xstrdup("SHA256SUMS");
	return xasprintf("%.*s/SHA256SUMS", (int)(slash - file), file);
}

/* "HEX  NAME" or "HEX *NAME": the name, or NULL for a line that is not an entry. */
static const char *entry_name(const char *line)
{
	size_t hex = strspn(line, "0123456789abcdefABCDEF");
	if (hex != 64 || line[64] != ' ' || (line[65] != ' ' && line[65] != '*'))
		return NULL;
	return line + 66;
}

static int named_in(const char *name, char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, base_name(list[i])) == 0)
			return 1;
	return 0;
}

int sums_merge(char *const *files, size_t n, char *const *gone, size_t ngone, struct cf_err *e)
{
	if (n == 0)
		return CF_OK;
	char *path = sums_path_for(files[0]), *old = NULL;
	size_t old_len = 0, used = 0;
	if (io_read_file(path, 16u << 20, &old, &old_len) != 0)
		old = NULL, old_len = 0;
	size_t cap = old_len + n * 400 + 1;
	char *text = xmalloc(cap);
	text[0] = '\0';
	/* Keep every other file's line, in its order. */
	for (char *line = old, *next; line && line < old + old_len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(old + old_len - line));
		next = nl ? nl + 1 : old + old_len;
		if (nl)
			*nl = '\0';
		const char *name = entry_name(line);
		if (!name || named_in(name, files, n) || (gone && named_in(name, gone, ngone)))
			continue;
		used += (size_t)snprintf(text + used, cap - used, "%s\n", line);
	}
	free(old);
	int rc = CF_OK;
	for (size_t i = 0; i < n && rc == CF_OK; i++) {
		uint8_t d[32];
		char hex[65];
		if (sha256_file(files[i], d, NULL) != 0) {
			rc = cf_fail(e, cf_write_status(errno), "%s: %s", files[i], strerror(errno));
			break;
		}
		hex_encode(d, 32, hex);
		used += (size_t)snprintf(text + used, cap - used, "%s  %s\n", hex, base_name(files[i]));
	}
	if (rc == CF_OK && io_write_file_atomic(path, text, used, 0644) != 0)
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
	free(text);
	free(path);
	return rc;
}
