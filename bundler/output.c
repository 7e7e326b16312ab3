/* output.c - temporary file, parts, self-extracting wrapper, SHA256SUMS */
#include "bundler/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/frame.h"
#include "common/io.h"
#include "common/sha256.h"

char *output_part_name(const char *out_path, unsigned n)
{
	return xasprintf("%s.%03u", out_path, n);
}

int output_stage(const char *out_path, const uint8_t *frame, size_t frame_len, int payload_fd,
		 uint64_t payload_len, char **tmp_path, struct cf_err *e)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", out_path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int rc = cf_fail(e, CF_USAGE, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	int ok = fchmod(fd, 0644) == 0 && io_write_all(fd, frame, frame_len) == 0 &&
		 lseek(payload_fd, 0, SEEK_SET) == 0 &&
		 io_copy_fd(payload_fd, fd, payload_len) == 0 && fsync(fd) == 0;
	int saved = errno;
	close(fd);
	if (!ok) {
		unlink(tmp);
		free(tmp);
		return cf_fail(e, CF_USAGE, "%s: %s", out_path, strerror(saved));
	}
	*tmp_path = tmp;
	return CF_OK;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The lines of an existing SHA256SUMS that name none of files and a file still there: they
 * stay. */
static size_t keep_other_lines(const char *sums_path, char **files, size_t n, char **text,
			       size_t *cap)
{
	char *old;
	size_t len, used = 0;
	if (io_read_file(sums_path, 1 << 20, &old, &len) != 0)
		return 0;
	const char *slash = strrchr(sums_path, '/');
	int dir_len = slash ? (int)(slash - sums_path + 1) : 0;
	char *save = NULL;
	for (char *line = strtok_r(old, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = strlen(line) > 66 ? line + 66 : "";
		int replaced = 0;
		for (size_t i = 0; i < n; i++)
			replaced |= strcmp(name, base_name(files[i])) == 0;
		char *beside = xasprintf("%.*s%s", dir_len, sums_path, name);
		int present = io_exists(beside);
		free(beside);
		if (replaced || !*name || !present)
			continue;
		size_t need = used + strlen(line) + 2;
		if (need > *cap) {
			*cap = need * 2;
			*text = xrealloc(*text, *cap);
		}
		used += (size_t)snprintf(*text + used, *cap - used, "%s\n", line);
	}
	free(old);
	return used;
}

int output_write_sums(const char *out_path, char **files, size_t n, struct cf_err *e)
{
	char *dir = xstrdup(out_path);
	char *slash = strrchr(dir, '/');
	char *sums_path;
	if (slash) {
		*slash = '\0';
		sums_path = xasprintf("%s/SHA256SUMS", dir);
	} else {
		sums_path = xstrdup("SHA256SUMS");
	}
	free(dir);
	size_t cap = n * 400 + 1, used;
	char *text = xmalloc(cap);
	text[0] = '\0';
	/* A .run written beside its bundle (or a bundle rewritten) keeps the others' lines. */
	used = keep_other_lines(sums_path, files, n, &text, &cap);
	if (cap - used < n * 400 + 1) {
		cap = used + n * 400 + 1;
		text = xrealloc(text, cap);
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t d[32];
		char hex[65];
		if (sha256_file(files[i], d, NULL) != 0) {
			free(text);
			free(sums_path);
			return cf_fail(e, CF_USAGE, "%s: %s", files[i], strerror(errno));
		}
		hex_encode(d, 32, hex);
		used += (size_t)snprintf(text + used, cap - used, "%s  %s\n", hex, base_name(files[i]));
	}
	int rc = io_write_file_atomic(sums_path, text, used, 0644) == 0
			 ? CF_OK
			 : cf_fail(e, CF_USAGE, "%s: %s", sums_path, strerror(errno));
	free(text);
	free(sums_path);
	return rc;
}

static int copy_range(int in, uint64_t off, int out, uint64_t len)
{
	if (lseek(in, (off_t)off, SEEK_SET) < 0)
		return -1;
	return io_copy_fd(in, out, len);
}

/* Cut into temporaries first; rename them all only when every part is written. */
static int commit_split(const char *tmp_path, const char *out_path, uint64_t part_size,
			struct cf_err *e)
{
	struct stat st;
	int in = open(tmp_path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) != 0)
		return cf_fail(e, CF_USAGE, "%s: %s", tmp_path, strerror(errno));
	unsigned nparts = (unsigned)(((uint64_t)st.st_size + part_size - 1) / part_size);
	if (nparts > 999) {
		close(in);
		return cf_fail(e, CF_USAGE, "--split would make %u parts (999 at most)", nparts);
	}
	char **tmps = xcalloc(nparts, sizeof(*tmps)), **finals = xcalloc(nparts, sizeof(*finals));
	int rc = CF_OK;
	for (unsigned i = 0; i < nparts && rc == CF_OK; i++) {
		finals[i] = output_part_name(out_path, i + 1);
		tmps[i] = xasprintf("%s.tmp-XXXXXX", finals[i]);
		int fd = mkostemp(tmps[i], O_CLOEXEC);
		uint64_t off = (uint64_t)i * part_size;
		uint64_t len = (uint64_t)st.st_size - off < part_size ? (uint64_t)st.st_size - off
								      : part_size;
		if (fd < 0 || fchmod(fd, 0644) != 0 || copy_range(in, off, fd, len) != 0 ||
		    fsync(fd) != 0)
			rc = cf_fail(e, CF_USAGE, "%s: %s", finals[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	close(in);
	for (unsigned i = 0; i < nparts && rc == CF_OK; i++)
		if (rename(tmps[i], finals[i]) != 0)
			rc = cf_fail(e, CF_USAGE, "%s: %s", finals[i], strerror(errno));
	/* A stale part from an earlier, longer split would be read as part of this bundle. */
	for (unsigned i = nparts + 1; rc == CF_OK; i++) {
		char *stale = output_part_name(out_path, i);
		int gone = unlink(stale) != 0;
		free(stale);
		if (gone)
			break;
	}
	if (rc == CF_OK)
		rc = output_write_sums(out_path, finals, nparts, e);
	for (unsigned i = 0; i < nparts; i++) {
		if (rc != CF_OK && tmps[i]) {
			unlink(tmps[i]);
			unlink(finals[i]);
		}
		free(tmps[i]);
		free(finals[i]);
	}
	free(tmps);
	free(finals);
	unlink(tmp_path);
	return rc;
}

int output_commit(const char *tmp_path, const char *out_path, const struct output_options *o,
		  struct cf_err *e)
{
	if (o->split_size)
		return commit_split(tmp_path, out_path, o->split_size, e);
	if (rename(tmp_path, out_path) != 0) {
		int rc = cf_fail(e, CF_USAGE, "%s: %s", out_path, strerror(errno));
		unlink(tmp_path);
		return rc;
	}
	io_fsync_parent(out_path);
	char *files[] = { (char *)out_path };
	return output_write_sums(out_path, files, 1, e);
}
