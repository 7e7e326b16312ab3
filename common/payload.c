/* payload.c - the one-pass, fail-closed walk over a bundle's payload */
#include "common/payload.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"

#define READ_BUF (256u << 10)

struct walk {
	struct bundle_input *b;
	struct cf_err *e;
	struct progress *progress;
	int chunk_failed;
};

/* libarchive pulls compressed bytes from here: only chunks whose signed hash matched. */
static la_ssize_t read_verified(struct archive *a, void *ctx, const void **buf)
{
	struct walk *w = ctx;
	size_t len;
	if (bundle_next_chunk(w->b, (const uint8_t **)buf, &len, w->e) != CF_OK) {
		w->chunk_failed = 1;
		archive_set_error(a, EIO, "%s", w->e->msg);
		return -1;
	}
	if (w->progress)
		progress_add(w->progress, len);
	return (la_ssize_t)len;
}

/* libarchive sometimes fails without a message (a malformed pax sparse map, say). */
static const char *archive_reason(struct archive *a)
{
	const char *s = archive_error_string(a);
	return s ? s : "malformed tar data";
}

static int entry_error(struct cf_err *e, const char *path, const char *why)
{
	char safe[300];
	return cf_fail(e, CF_INTEGRITY, "entry '%s': %s", log_safe(path, safe, sizeof(safe)), why);
}

/* The tar header must say exactly what the signed manifest says. */
static int check_entry(struct archive_entry *ent, const struct manifest *m, size_t index,
		       struct cf_err *e)
{
	const char *path = archive_entry_pathname(ent);
	const struct manifest_file *f = &m->files[index];
	if (!path)
		return cf_fail(e, CF_INTEGRITY, "entry %zu has no name", index);
	if (strcmp(path, f->path) != 0) {
		const struct manifest_file *listed = manifest_find(m, path);
		if (!listed)
			return entry_error(e, path, "not listed in the signed manifest");
		if (listed < f)
			return entry_error(e, path, "duplicate entry");
		return entry_error(e, f->path, "missing from the payload (or out of order)");
	}
	if (archive_entry_hardlink(ent))
		return entry_error(e, path, "hard links are not allowed");
	if (archive_entry_sparse_count(ent) > 0)
		return entry_error(e, path, "sparse entries are not allowed");
	mode_t type = archive_entry_filetype(ent);
	mode_t mode = archive_entry_mode(ent);
	if (f->type == MF_SYMLINK) {
		const char *target = archive_entry_symlink(ent);
		if (type != AE_IFLNK)
			return entry_error(e, path, "manifest says symlink, payload says otherwise");
		if (!target || strcmp(target, f->target) != 0)
			return entry_error(e, path, "symlink target differs from the manifest");
		return CF_OK;
	}
	if (type != AE_IFREG)
		return entry_error(e, path, "only regular files and symlinks are allowed");
	if ((mode & 07777) != f->mode)
		return entry_error(e, path, "mode differs from the manifest (set-id bits refused)");
	if (!archive_entry_size_is_set(ent) || archive_entry_size(ent) < 0 ||
	    (uint64_t)archive_entry_size(ent) != f->size)
		return entry_error(e, path, "size differs from the manifest");
	return CF_OK;
}

static int copy_entry_data(struct archive *a, const struct manifest_file *f,
			   const struct payload_sink *sink, uint8_t *buf, struct cf_err *e)
{
	struct sha256 h;
	uint64_t total = 0;
	sha256_init(&h);
	for (;;) {
		la_ssize_t n = archive_read_data(a, buf, READ_BUF);
		if (n < 0) {
			uint8_t tmp[32];
			sha256_final(&h, tmp);
			return cf_fail(e, CF_INTEGRITY, "entry '%s': %s", f->path,
				       archive_reason(a));
		}
		if (n == 0)
			break;
		/* Never more than declared: a size lie stops here, before anything is written. */
		if ((uint64_t)n > f->size - total) {
			uint8_t tmp[32];
			sha256_final(&h, tmp);
			return entry_error(e, f->path, "more data than the manifest declares");
		}
		total += (uint64_t)n;
		sha256_update(&h, buf, (size_t)n);
		if (sink && sink->data && sink->data(sink->ctx, buf, (size_t)n, e) != CF_OK) {
			uint8_t tmp[32];
			sha256_final(&h, tmp);
			return e->code;
		}
	}
	uint8_t digest[32];
	sha256_final(&h, digest);
	if (total != f->size)
		return entry_error(e, f->path, "less data than the manifest declares");
	if (!digest_equal(digest, f->sha256, 32))
		return entry_error(e, f->path, "SHA-256 differs from the signed manifest");
	return CF_OK;
}

static int walk_entries(struct archive *a, const struct manifest *m,
			const struct payload_sink *sink, struct walk *w, struct cf_err *e)
{
	struct archive_entry *ent;
	uint8_t *buf = xmalloc(READ_BUF);
	int rc = CF_OK;
	for (size_t i = 0; i < m->nfiles && rc == CF_OK; i++) {
		int r = archive_read_next_header(a, &ent);
		if (r == ARCHIVE_EOF) {
			rc = entry_error(e, m->files[i].path, "missing from the payload");
			break;
		}
		if (r != ARCHIVE_OK) {
			rc = w->chunk_failed ? e->code
					     : cf_fail(e, CF_INTEGRITY, "payload: %s",
						       archive_reason(a));
			break;
		}
		const struct manifest_file *f = &m->files[i];
		rc = check_entry(ent, m, i, e);
		if (rc == CF_OK && sink && sink->begin)
			rc = sink->begin(sink->ctx, f, e);
		if (rc == CF_OK && f->type == MF_FILE)
			rc = copy_entry_data(a, f, sink, buf, e);
		if (rc == CF_OK && sink && sink->end)
			rc = sink->end(sink->ctx, f, e);
		if (rc != CF_OK && w->chunk_failed)
			rc = e->code;
	}
	if (rc == CF_OK) {
		int r = archive_read_next_header(a, &ent);
		if (r == ARCHIVE_OK) {
			const char *path = archive_entry_pathname(ent);
			rc = entry_error(e, path, path && manifest_find(m, path)
							  ? "duplicate entry"
							  : "not listed in the signed manifest");
		}
		else if (r != ARCHIVE_EOF)
			rc = w->chunk_failed ? e->code
					     : cf_fail(e, CF_INTEGRITY, "payload: %s",
						       archive_reason(a));
	}
	free(buf);
	return rc;
}

int payload_walk(struct bundle_input *b, const struct manifest *m, const struct payload_sink *sink,
		 struct progress *progress, struct cf_err *e)
{
	struct chunk_plan plan = { m->compressed_size, m->chunk_size, m->nchunks,
				   (const uint8_t(*)[32])m->chunks };
	struct walk w = { b, e, progress, 0 };
	bundle_begin_payload(b, &plan);
	struct archive *a = archive_read_new();
	/* Only tar and zstd: no other parser ever sees a byte. */
	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	int rc;
	if (archive_read_open(a, &w, NULL, read_verified, NULL) != ARCHIVE_OK)
		rc = w.chunk_failed ? e->code
				    : cf_fail(e, CF_INTEGRITY, "payload: %s", archive_reason(a));
	else
		rc = walk_entries(a, m, sink, &w, e);
	archive_read_free(a);
	/* Whatever libarchive left unread must still be signed chunks, and nothing after them. */
	while (rc == CF_OK) {
		const uint8_t *data;
		size_t len;
		rc = bundle_next_chunk(b, &data, &len, e);
		if (rc == CF_OK && len == 0)
			break;
		if (progress)
			progress_add(progress, len);
	}
	return rc;
}
