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

/* SHA256SUMS in sha256sum -c format, beside the output. */
static int write_sums(const char *out_path, char **files, size_t n, struct cf_err *e)
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
	size_t cap = n * 400 + 1, used = 0;
	char *text = xmalloc(cap);
	text[0] = '\0';
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
		rc = write_sums(out_path, finals, nparts, e);
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

/* stub + bundle + trailer; the stub is the static unpacker, so ./x.run /silent works. */
static int commit_sfx(const char *tmp_path, const char *out_path, const char *stub,
		      struct cf_err *e)
{
	struct stat st_stub, st_bundle;
	int sfd = open(stub, O_RDONLY | O_CLOEXEC), bfd = open(tmp_path, O_RDONLY | O_CLOEXEC);
	char *tmp = xasprintf("%s.tmp-XXXXXX", out_path);
	int ofd = -1, rc = CF_OK;
	if (sfd < 0 || fstat(sfd, &st_stub) != 0) {
		rc = cf_fail(e, CF_USAGE, "%s: cannot read the unpacker to embed: %s", stub,
			     strerror(errno));
		goto out;
	}
	ofd = mkostemp(tmp, O_CLOEXEC);
	if (bfd < 0 || fstat(bfd, &st_bundle) != 0 || ofd < 0) {
		rc = cf_fail(e, CF_USAGE, "%s: %s", out_path, strerror(errno));
		goto out;
	}
	uint8_t trailer[SFX_TRAILER_LEN];
	frame_sfx_trailer((uint64_t)st_stub.st_size, (uint64_t)st_bundle.st_size, trailer);
	if (fchmod(ofd, 0755) != 0 || io_copy_fd(sfd, ofd, (uint64_t)st_stub.st_size) != 0 ||
	    io_copy_fd(bfd, ofd, (uint64_t)st_bundle.st_size) != 0 ||
	    io_write_all(ofd, trailer, sizeof(trailer)) != 0 || fsync(ofd) != 0 ||
	    rename(tmp, out_path) != 0) {
		rc = cf_fail(e, CF_USAGE, "%s: %s", out_path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	char *files[] = { (char *)out_path };
	rc = write_sums(out_path, files, 1, e);
out:
	if (sfd >= 0)
		close(sfd);
	if (bfd >= 0)
		close(bfd);
	if (ofd >= 0)
		close(ofd);
	unlink(tmp_path);
	free(tmp);
	return rc;
}

int output_commit(const char *tmp_path, const char *out_path, const struct output_options *o,
		  struct cf_err *e)
{
	if (o->sfx_stub)
		return commit_sfx(tmp_path, out_path, o->sfx_stub, e);
	if (o->split_size)
		return commit_split(tmp_path, out_path, o->split_size, e);
	if (rename(tmp_path, out_path) != 0) {
		int rc = cf_fail(e, CF_USAGE, "%s: %s", out_path, strerror(errno));
		unlink(tmp_path);
		return rc;
	}
	io_fsync_parent(out_path);
	char *files[] = { (char *)out_path };
	return write_sums(out_path, files, 1, e);
}
