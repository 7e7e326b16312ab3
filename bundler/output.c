/* output.c - temporary file, parts, self-extracting wrapper, SHA256SUMS */
#include "bundler/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/sha256.h"
#include "bundler/sums.h"

char *output_part_name(const char *out_path, unsigned n)
{
	return xasprintf("%s.%03u", out_path, n);
}

#ifdef CUFERRY_TEST_SEAMS
/* Test builds only: CUFERRY_BUNDLE_FLIP=OFFSET changes one byte of the staged bundle after it
 * was flushed, before the self-check reads it back, as a disk that returns other bytes than
 * it was given would. A negative OFFSET counts from the end. */
static void test_flip_byte(int fd, const char *path)
{
	const char *spec = getenv("CUFERRY_BUNDLE_FLIP");
	struct stat st;
	uint8_t c;
	if (!spec || fstat(fd, &st) != 0)
		return;
	off_t off = (off_t)strtoll(spec, NULL, 10);
	if (off < 0)
		off += st.st_size;
	if (off >= 0 && pread(fd, &c, 1, off) == 1) {
		c ^= 0x20;
		if (pwrite(fd, &c, 1, off) == 1 && fsync(fd) == 0)
			fprintf(stderr, "cuferry-test: flipped the byte at %lld of %s\n", (long long)off, path);
	}
}
#endif

int output_stage(const char *out_path, const uint8_t *frame, size_t frame_len, int payload_fd,
		 uint64_t payload_len, char **tmp_path, struct cf_err *e)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", out_path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int rc = cf_fail(e, cf_write_status(errno), "%s: %s", tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	int ok = fchmod(fd, 0644) == 0 && io_write_all(fd, frame, frame_len) == 0 &&
		 lseek(payload_fd, 0, SEEK_SET) == 0 &&
		 io_copy_fd(payload_fd, fd, payload_len) == 0 && fsync(fd) == 0;
	int saved = errno;
#ifdef CUFERRY_TEST_SEAMS
	if (ok)
		test_flip_byte(fd, tmp);
#endif
	close(fd);
	if (!ok) {
		unlink(tmp);
		free(tmp);
		return cf_fail(e, cf_write_status(saved), "%s: %s", out_path, strerror(saved));
	}
	*tmp_path = tmp;
	return CF_OK;
}

static int copy_range(int in, uint64_t off, int out, uint64_t len)
{
	if (lseek(in, (off_t)off, SEEK_SET) < 0)
		return -1;
	return io_copy_fd(in, out, len);
}

/* Cut into temporaries first; rename them all only when every part is written. The bundle
 * itself stays. */
int output_split(const char *bundle_path, uint64_t part_size, struct output_files *written,
		 struct cf_err *e)
{
	struct stat st;
	int in = open(bundle_path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) != 0) {
		int rc = cf_fail(e, cf_write_status(errno), "%s: %s", bundle_path, strerror(errno));
		if (in >= 0)
			close(in);
		return rc;
	}
	unsigned nparts = (unsigned)(((uint64_t)st.st_size + part_size - 1) / part_size);
	if (nparts > 999) {
		close(in);
		return cf_fail(e, CF_USAGE, "--split would make %u parts (999 at most): give a larger "
			       "size", nparts);
	}
	char **tmps = xcalloc(nparts, sizeof(*tmps)), **finals = xcalloc(nparts, sizeof(*finals));
	int rc = CF_OK;
	for (unsigned i = 0; i < nparts && rc == CF_OK; i++) {
		finals[i] = output_part_name(bundle_path, i + 1);
		tmps[i] = xasprintf("%s.tmp-XXXXXX", finals[i]);
		int fd = mkostemp(tmps[i], O_CLOEXEC);
		uint64_t off = (uint64_t)i * part_size;
		uint64_t len = (uint64_t)st.st_size - off < part_size ? (uint64_t)st.st_size - off
								      : part_size;
		if (fd < 0 || fchmod(fd, 0644) != 0 || copy_range(in, off, fd, len) != 0 ||
		    fsync(fd) != 0)
			rc = cf_fail(e, cf_write_status(errno), "%s: %s", finals[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	close(in);
	for (unsigned i = 0; i < nparts && rc == CF_OK; i++)
		if (rename(tmps[i], finals[i]) != 0)
			rc = cf_fail(e, cf_write_status(errno), "%s: %s", finals[i], strerror(errno));
	/* A stale part from an earlier, longer split would be read as part of this bundle. */
	for (unsigned i = nparts + 1; rc == CF_OK; i++) {
		char *stale = output_part_name(bundle_path, i);
		if (unlink(stale) != 0) {
			free(stale);
			break;
		}
		output_files_add(&written->gone, &written->ngone, stale);
	}
	for (unsigned i = 0; i < nparts; i++) {
		if (rc != CF_OK && tmps[i]) {
			unlink(tmps[i]);
			unlink(finals[i]);
		}
		free(tmps[i]);
		if (rc == CF_OK)
			output_files_add(&written->files, &written->n, finals[i]);
		else
			free(finals[i]);
	}
	free(tmps);
	free(finals);
	if (rc == CF_OK)
		io_fsync_parent(bundle_path);
	return rc;
}

static void note_made(const char *dir, void *ctx)
{
	struct output_dir *d = ctx;
	output_files_add(&d->made, &d->nmade, xstrdup(dir));
}

int output_dir_make(const char *dir, struct output_dir *d, struct cf_err *e)
{
	memset(d, 0, sizeof(*d));
	if (io_mkdirs_noting(dir, 0755, note_made, d) != 0)
		return cf_fail(e, cf_write_status(errno), "-o: cannot make the output directory %s: %s",
			       dir, strerror(errno));
	if (access(dir, W_OK | X_OK) != 0)
		return cf_fail(e, cf_write_status(errno), "-o: cannot write in %s: %s; choose another -o",
			       dir, strerror(errno));
	return CF_OK;
}

/* rmdir refuses a directory that is not empty: whatever another program or an earlier step
 * put there stays, and so do the directories above it. */
void output_dir_take_back(const struct output_dir *d)
{
	for (size_t i = d->nmade; i > 0; i--)
		if (rmdir(d->made[i - 1]) != 0)
			return;
}

void output_dir_free(struct output_dir *d)
{
	for (size_t i = 0; i < d->nmade; i++)
		free(d->made[i]);
	free(d->made);
	memset(d, 0, sizeof(*d));
}

int output_commit(const char *tmp_path, const char *out_path, struct output_files *written,
		  struct cf_err *e)
{
	if (rename(tmp_path, out_path) != 0) {
		int rc = cf_fail(e, cf_write_status(errno), "%s: %s", out_path, strerror(errno));
		unlink(tmp_path);
		return rc;
	}
	io_fsync_parent(out_path);
	output_files_add(&written->files, &written->n, xstrdup(out_path));
	return CF_OK;
}

void output_files_add(char ***list, size_t *n, char *path)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = path;
}

int output_files_sums(const struct output_files *written, struct cf_err *e)
{
	return sums_merge(written->files, written->n, written->gone, written->ngone, e);
}

void output_files_free(struct output_files *written)
{
	for (size_t i = 0; i < written->n; i++)
		free(written->files[i]);
	for (size_t i = 0; i < written->ngone; i++)
		free(written->gone[i]);
	free(written->files);
	free(written->gone);
	memset(written, 0, sizeof(*written));
}
