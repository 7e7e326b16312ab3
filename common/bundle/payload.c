/* payload.c - the one-pass, fail-closed walk over a bundle's payload */
#include "common/bundle/payload.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/decode.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"

#define READ_BUF (256u << 10)

struct walk {
	struct bundle_input *b;
	struct cf_err *e;
	struct progress *progress;
	int chunk_failed; /* the source failed (a chunk, a frame): its reason is in e */
	struct decoder *decoder; /* an indexed payload's, else NULL */
};

/* libarchive pulls its bytes from here: compressed, from chunks whose signed hash matched; or,
 * with a frame index, plain tar from the decoder, which decodes only such chunks, in order. */
static la_ssize_t read_verified(struct archive *a, void *ctx, const void **buf)
{
	struct walk *w = ctx;
	size_t len;
	uint64_t compressed = 0;
	int rc = w->decoder ? decoder_next(w->decoder, (const uint8_t **)buf, &len, &compressed, w->e)
			    : bundle_next_chunk(w->b, (const uint8_t **)buf, &len, w->e);
	if (rc != CF_OK) {
		w->chunk_failed = 1;
		archive_set_error(a, EIO, "%s", w->e->msg);
		return -1;
	}
	if (w->progress)
		progress_add(w->progress, w->decoder ? compressed : len);
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
static int check_entry(struct archive_entry *ent, const struct bundle_contents *c, size_t index,
		       struct cf_err *e)
{
	const char *path = archive_entry_pathname(ent);
	const struct manifest_file *f = &c->files[index];
	if (!path)
		return cf_fail(e, CF_INTEGRITY, "entry %zu has no name", index);
	if (strcmp(path, f->path) != 0) {
		const struct manifest_file *listed = entry_find(c->files, c->nfiles, path);
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
	unsigned type = (unsigned)archive_entry_filetype(ent);
	unsigned mode = (unsigned)archive_entry_mode(ent);
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

/* ---- the writer thread: hashes and writes entry data while the main thread decompresses ----
 * The main thread keeps every check that decides what may be written (names, types, modes,
 * sizes, the size cap); the writer checks each file's SHA-256 at its end. A late verdict is
 * still fail-closed: everything goes into private staging that is discarded on failure. */

#define WRITE_BUFS 8 /* 8 x 256 KiB in flight */

enum job_kind { JOB_BEGIN, JOB_DATA, JOB_END, JOB_STOP };

struct job {
	enum job_kind kind;
	const struct manifest_file *f;
	uint8_t *buf;
	size_t len;
};

struct writer {
	struct platform_thread *thread;
	struct platform_monitor *mon;
	struct job queue[WRITE_BUFS * 2 + 4];
	size_t head, tail;
	uint8_t *bufs[WRITE_BUFS];
	uint8_t *free_bufs[WRITE_BUFS];
	size_t nfree;
	int failed;
	struct cf_err err;
	const struct payload_sink *sink;
	struct sha256 hash;
	uint64_t total;
};

#define QLEN (sizeof(((struct writer *)0)->queue) / sizeof(struct job))

static void writer_do(struct writer *w, const struct job *j)
{
	const struct payload_sink *sink = w->sink;
	struct cf_err *e = &w->err;
	int rc = CF_OK;
	switch (j->kind) {
	case JOB_BEGIN:
		sha256_init(&w->hash);
		w->total = 0;
		if (sink && sink->begin)
			rc = sink->begin(sink->ctx, j->f, e);
		break;
	case JOB_DATA:
		sha256_update(&w->hash, j->buf, j->len);
		w->total += j->len;
		if (sink && sink->data)
			rc = sink->data(sink->ctx, j->buf, j->len, e);
		break;
	case JOB_END: {
		uint8_t digest[32];
		sha256_final(&w->hash, digest);
		if (j->f->type == MF_FILE && w->total != j->f->size)
			rc = entry_error(e, j->f->path, "less data than the manifest declares");
		else if (j->f->type == MF_FILE && !digest_equal(digest, j->f->sha256, 32))
			rc = entry_error(e, j->f->path, "SHA-256 differs from the signed manifest");
		if (rc == CF_OK && sink && sink->end)
			rc = sink->end(sink->ctx, j->f, e);
		break;
	}
	case JOB_STOP:
		break;
	}
	if (rc != CF_OK)
		w->failed = 1;
}

static void writer_main(void *arg)
{
	struct writer *w = arg;
	for (;;) {
		platform_monitor_enter(w->mon);
		while (w->head == w->tail)
			platform_monitor_wait(w->mon);
		struct job j = w->queue[w->head % QLEN];
		int failed = w->failed;
		platform_monitor_leave(w->mon);
		if (!failed) /* after a failure, only drain: no more writes */
			writer_do(w, &j);
		platform_monitor_enter(w->mon);
		w->head++;
		if (j.kind == JOB_DATA)
			w->free_bufs[w->nfree++] = j.buf;
		platform_monitor_wake(w->mon);
		platform_monitor_leave(w->mon);
		if (j.kind == JOB_STOP)
			return;
	}
}

/* Queue a job; 1 when the writer has already failed (the caller stops). */
static int writer_push(struct writer *w, enum job_kind kind, const struct manifest_file *f,
		       uint8_t *buf, size_t len)
{
	platform_monitor_enter(w->mon);
	while (w->tail - w->head >= QLEN)
		platform_monitor_wait(w->mon);
	w->queue[w->tail % QLEN] = (struct job){ kind, f, buf, len };
	w->tail++;
	int failed = w->failed;
	platform_monitor_wake(w->mon);
	platform_monitor_leave(w->mon);
	return failed;
}

static uint8_t *writer_buffer(struct writer *w)
{
	platform_monitor_enter(w->mon);
	while (w->nfree == 0)
		platform_monitor_wait(w->mon);
	uint8_t *buf = w->free_bufs[--w->nfree];
	platform_monitor_leave(w->mon);
	return buf;
}

static void writer_free(struct writer *w)
{
	platform_monitor_free(w->mon);
	for (int i = 0; i < WRITE_BUFS; i++)
		free(w->bufs[i]);
}

static int writer_start(struct writer *w, const struct payload_sink *sink)
{
	memset(w, 0, sizeof(*w));
	w->sink = sink;
	for (int i = 0; i < WRITE_BUFS; i++)
		w->free_bufs[w->nfree++] = w->bufs[i] = xmalloc(READ_BUF);
	w->mon = platform_monitor_new();
	if (w->mon && platform_thread_start(&w->thread, writer_main, w) == 0)
		return 0;
	writer_free(w);
	return -1;
}

/* The writer's failure, passed on to the caller's error. */
static int writer_verdict(const struct writer *w, int failed, struct cf_err *e)
{
	return failed ? cf_fail(e, w->err.code ? w->err.code : CF_INSTALL, "%s", w->err.msg) : CF_OK;
}

/* Stop and join; the writer's verdict, if it failed. */
static int writer_finish(struct writer *w, struct cf_err *e)
{
	writer_push(w, JOB_STOP, NULL, NULL, 0);
	platform_thread_join(w->thread);
	int rc = writer_verdict(w, w->failed, e);
	writer_free(w);
	return rc;
}

static int writer_error(struct writer *w, struct cf_err *e)
{
	platform_monitor_enter(w->mon);
	int failed = w->failed;
	platform_monitor_leave(w->mon);
	return writer_verdict(w, failed, e);
}

static int copy_entry_data(struct archive *a, const struct manifest_file *f, struct writer *w,
			   struct cf_err *e)
{
	uint64_t total = 0;
	for (;;) {
		uint8_t *buf = writer_buffer(w);
		la_ssize_t n = archive_read_data(a, buf, READ_BUF);
		if (n < 0) {
			writer_push(w, JOB_DATA, f, buf, 0);
			return cf_fail(e, CF_INTEGRITY, "entry '%s': %s", f->path, archive_reason(a));
		}
		/* Never more than declared: a size lie stops here, before anything is written. */
		if ((uint64_t)n > f->size - total) {
			writer_push(w, JOB_DATA, f, buf, 0);
			return entry_error(e, f->path, "more data than the manifest declares");
		}
		total += (uint64_t)n;
		if (writer_push(w, JOB_DATA, f, buf, (size_t)n))
			return writer_error(w, e);
		if (n == 0)
			return CF_OK;
	}
}

/* Workers for an indexed payload: one per core; test builds take CUFERRY_DECODE_WORKERS=N
 * (the bench compares one with all). */
static int payload_decode_workers(void)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *v = getenv("CUFERRY_DECODE_WORKERS");
	if (v)
		return atoi(v);
#endif
	return 0;
}

static int walk_entries(struct archive *a, const struct bundle_contents *c,
			const struct payload_sink *sink, struct walk *wk, struct cf_err *e)
{
	struct archive_entry *ent;
	struct writer w;
	if (writer_start(&w, sink) != 0)
		return cf_fail(e, CF_INSTALL, "cannot start the writer thread");
	int rc = CF_OK;
	for (size_t i = 0; i < c->nfiles && rc == CF_OK; i++) {
		int r = archive_read_next_header(a, &ent);
		if (r == ARCHIVE_EOF) {
			rc = entry_error(e, c->files[i].path, "missing from the payload");
			break;
		}
		if (r != ARCHIVE_OK) {
			rc = wk->chunk_failed ? e->code
					      : cf_fail(e, CF_INTEGRITY, "payload: %s", archive_reason(a));
			break;
		}
		const struct manifest_file *f = &c->files[i];
		rc = check_entry(ent, c, i, e);
		if (rc == CF_OK && writer_push(&w, JOB_BEGIN, f, NULL, 0))
			rc = writer_error(&w, e);
		if (rc == CF_OK && f->type == MF_FILE)
			rc = copy_entry_data(a, f, &w, e);
		if (rc == CF_OK && writer_push(&w, JOB_END, f, NULL, 0))
			rc = writer_error(&w, e);
		if (rc != CF_OK && wk->chunk_failed)
			rc = e->code;
	}
	if (rc == CF_OK) {
		int r = archive_read_next_header(a, &ent);
		if (r == ARCHIVE_OK) {
			const char *path = archive_entry_pathname(ent);
			rc = entry_error(e, path, path && entry_find(c->files, c->nfiles, path)
							  ? "duplicate entry"
							  : "not listed in the signed manifest");
		} else if (r != ARCHIVE_EOF) {
			rc = wk->chunk_failed ? e->code
					      : cf_fail(e, CF_INTEGRITY, "payload: %s", archive_reason(a));
		}
	}
	/* The writer's verdict comes last but still counts: nothing is committed before it. */
	int wrc = writer_finish(&w, rc == CF_OK ? e : &(struct cf_err){ 0 });
	return rc != CF_OK ? rc : wrc;
}

/* What libarchive left unread must still be what was signed: with an index, frames that
 * decode as indexed (the tar's end padding); then chunks, and nothing after them. */
static int drain(struct walk *w)
{
	int rc = CF_OK;
	while (w->decoder && rc == CF_OK) {
		const uint8_t *data;
		size_t len;
		uint64_t compressed;
		rc = decoder_next(w->decoder, &data, &len, &compressed, w->e);
		if (rc == CF_OK && len == 0)
			break;
		if (w->progress)
			progress_add(w->progress, compressed);
	}
	decoder_stop(w->decoder); /* the workers end here, before the stream is read again */
	w->decoder = NULL;
	while (rc == CF_OK) {
		const uint8_t *data;
		size_t len;
		rc = bundle_next_chunk(w->b, &data, &len, w->e);
		if (rc == CF_OK && len == 0)
			break;
		if (w->progress)
			progress_add(w->progress, len);
	}
	return rc;
}

int payload_walk(struct bundle_input *b, const struct bundle_contents *c,
		 const struct payload_sink *sink, struct progress *progress, struct cf_err *e)
{
	struct walk w = { b, e, progress, 0, NULL };
	/* The index is checked whole before any frame is used. */
	if (c->nframes && decode_check_index(c, e) != CF_OK)
		return e->code;
	bundle_begin_payload(b, &c->plan);
	if (c->nframes && decoder_start(b, c, payload_decode_workers(), &w.decoder, e) != CF_OK)
		return e->code;
	struct archive *a = archive_read_new();
	/* Only tar, and zstd for a payload without an index: no other parser ever sees a byte. */
	if (!w.decoder)
		archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	int rc;
	if (archive_read_open(a, &w, NULL, read_verified, NULL) != ARCHIVE_OK)
		rc = w.chunk_failed ? e->code
				    : cf_fail(e, CF_INTEGRITY, "payload: %s", archive_reason(a));
	else
		rc = walk_entries(a, c, sink, &w, e);
	archive_read_free(a);
	if (rc == CF_OK)
		return drain(&w);
	decoder_stop(w.decoder);
	return rc;
}
