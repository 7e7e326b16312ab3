/* pack.c - deterministic tar into independent zstd frames (indexed in the manifest), with
 * per-chunk and per-file SHA-256 */
#include "bundler/pack.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/platform.h"
#include "common/progress.h"
#include "common/sha256.h"

struct packer {
	ZSTD_CCtx *z;
	int out_fd;
	uint8_t *zbuf;
	size_t zbuf_size;
	struct manifest *m;
	struct sha256 chunk_hash;
	uint64_t chunk_fill;
	uint64_t compressed;
	uint64_t uncompressed;
	/* Independent frames: tar bytes gather in fbuf until frame_size, then one frame each. */
	size_t frame_size; /* 0: one stream, as bundles were before the index */
	uint8_t *fbuf;
	size_t ffill;
	uint8_t *fout;
	size_t fout_size;
	struct progress progress;
	struct cf_err *e;
};

static void chunk_push(struct packer *p)
{
	struct manifest *m = p->m;
	m->chunks = xrealloc(m->chunks, (m->nchunks + 1) * 32);
	sha256_final(&p->chunk_hash, m->chunks[m->nchunks++]);
	sha256_init(&p->chunk_hash);
	p->chunk_fill = 0;
}

/* Compressed bytes go to the file and, chunk by chunk, into the signed hash list. */
static int emit(struct packer *p, const uint8_t *data, size_t len)
{
	if (io_write_all(p->out_fd, data, len) != 0)
		return cf_fail(p->e, cf_write_status(errno), "writing payload: %s", strerror(errno));
	p->compressed += len;
	while (len > 0) {
		size_t room = p->m->chunk_size - p->chunk_fill;
		size_t n = len < room ? len : room;
		sha256_update(&p->chunk_hash, data, n);
		p->chunk_fill += n;
		data += n;
		len -= n;
		if (p->chunk_fill == p->m->chunk_size)
			chunk_push(p);
	}
	return CF_OK;
}

#ifdef CUFERRY_TEST_SEAMS
/* Test builds only: CUFERRY_ZSTD_FAIL=BYTES hands zstd an output buffer it must refuse once
 * BYTES of tar have gone in, so that a compression error takes its real path. */
static void test_break_zstd(const struct packer *p, ZSTD_outBuffer *out)
{
	const char *at = getenv("CUFERRY_ZSTD_FAIL");
	if (at && p->uncompressed >= strtoull(at, NULL, 10))
		out->pos = out->size + 1;
}
#endif

static int compress(struct packer *p, const void *data, size_t len, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { data, len, 0 };
	for (;;) {
		ZSTD_outBuffer out = { p->zbuf, p->zbuf_size, 0 };
#ifdef CUFERRY_TEST_SEAMS
		test_break_zstd(p, &out);
#endif
		size_t left = ZSTD_compressStream2(p->z, &out, &in, mode);
		if (ZSTD_isError(left))
			return cf_fail(p->e, CF_INSTALL, "zstd: %s", ZSTD_getErrorName(left));
		if (out.pos && emit(p, p->zbuf, out.pos) != CF_OK)
			return p->e->code;
		if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return CF_OK;
	}
}

/* One frame of the tar gathered so far, with its content size in its header (so its window
 * fits it), recorded in the index. */
static int frame_flush(struct packer *p)
{
	size_t cap = p->fout_size;
#ifdef CUFERRY_TEST_SEAMS
	const char *at = getenv("CUFERRY_ZSTD_FAIL");
	if (at && p->uncompressed >= strtoull(at, NULL, 10))
		cap = 1;
#endif
	size_t n = ZSTD_compress2(p->z, p->fout, cap, p->fbuf, p->ffill);
	if (ZSTD_isError(n))
		return cf_fail(p->e, CF_INSTALL, "zstd: %s", ZSTD_getErrorName(n));
	struct manifest *m = p->m;
	m->frames = xrealloc(m->frames, (m->nframes + 1) * sizeof(*m->frames));
	m->frames[m->nframes++] = (struct payload_frame){ p->compressed, n, p->ffill };
	p->ffill = 0;
	return emit(p, p->fout, n);
}

static int frame_add(struct packer *p, const uint8_t *data, size_t len)
{
	while (len > 0) {
		size_t n = len < p->frame_size - p->ffill ? len : p->frame_size - p->ffill;
		memcpy(p->fbuf + p->ffill, data, n);
		p->ffill += n;
		data += n;
		len -= n;
		if (p->ffill == p->frame_size && frame_flush(p) != CF_OK)
			return p->e->code;
	}
	return CF_OK;
}

static la_ssize_t tar_write(struct archive *a, void *ctx, const void *buf, size_t len)
{
	struct packer *p = ctx;
	(void)a;
	p->uncompressed += len;
	int rc = p->frame_size ? frame_add(p, buf, len) : compress(p, buf, len, ZSTD_e_continue);
	return rc == CF_OK ? (la_ssize_t)len : -1;
}

/* The end of the payload: the last, shorter frame, or the end of the one stream. */
static int finish(struct packer *p)
{
	if (!p->frame_size)
		return compress(p, NULL, 0, ZSTD_e_end);
	return p->ffill ? frame_flush(p) : CF_OK;
}

/* PACK_FRAME_SIZE; test builds take CUFERRY_PACK_FRAME_SIZE=BYTES (0: one stream, a bundle of
 * the kind made before the index, which must still install). */
static size_t frame_size_for(void)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *v = getenv("CUFERRY_PACK_FRAME_SIZE");
	if (v)
		return (size_t)strtoull(v, NULL, 10);
#endif
	return PACK_FRAME_SIZE;
}

static int setup_zstd(struct packer *p, const struct pack_options *o)
{
	int threads = o->threads > 0 ? o->threads : platform_cpu_count();
	p->z = ZSTD_createCCtx();
	if (!p->z)
		return cf_fail(p->e, CF_INSTALL, "zstd: cannot allocate a compression context");
	/* nbWorkers >= 1 always: zstd's output then does not depend on the number of workers,
	 * so the same inputs give the same bundle on any machine. */
	size_t r = ZSTD_CCtx_setParameter(p->z, ZSTD_c_compressionLevel, o->level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(p->z, ZSTD_c_nbWorkers, threads < 1 ? 1 : threads);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(p->z, ZSTD_c_enableLongDistanceMatching, 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(p->z, ZSTD_c_windowLog, PACK_WINDOW_LOG);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(p->z, ZSTD_c_checksumFlag, 1);
	if (ZSTD_isError(r))
		return cf_fail(p->e, CF_INSTALL, "zstd: %s", ZSTD_getErrorName(r));
	p->zbuf_size = ZSTD_CStreamOutSize();
	p->zbuf = xmalloc(p->zbuf_size);
	p->frame_size = frame_size_for();
	if (p->frame_size) {
		p->fbuf = xmalloc(p->frame_size);
		p->fout_size = ZSTD_compressBound(p->frame_size);
		p->fout = xmalloc(p->fout_size);
	}
	return CF_OK;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct tree_entry *const *)a)->path,
		      (*(const struct tree_entry *const *)b)->path);
}

static int pack_file(struct archive *a, struct packer *p, const struct tree_entry *t,
		     struct archive_entry *ent, uint8_t *buf)
{
	int fd = open(t->src, O_RDONLY | O_CLOEXEC);
	struct sha256 h;
	uint64_t size;
	if (fd < 0)
		return cf_fail(p->e, CF_SOURCE, "%s: %s", t->src, strerror(errno));
	size = (uint64_t)lseek(fd, 0, SEEK_END);
	lseek(fd, 0, SEEK_SET);
	archive_entry_set_filetype(ent, AE_IFREG);
	archive_entry_set_perm(ent, t->mode);
	archive_entry_set_size(ent, (la_int64_t)size);
	if (archive_write_header(a, ent) != ARCHIVE_OK) {
		close(fd);
		return cf_fail(p->e, p->e->code ? p->e->code : CF_INSTALL, "tar: %s",
			       archive_error_string(a));
	}
	sha256_init(&h);
	uint64_t done = 0;
	while (done < size) {
		if (interrupt_pending()) {
			close(fd);
			return interrupt_check(p->e);
		}
		ssize_t n = io_read_full(fd, buf, 1 << 20);
		if (n <= 0)
			break;
		if ((uint64_t)n > size - done)
			n = (ssize_t)(size - done);
		sha256_update(&h, buf, (size_t)n);
		if (archive_write_data(a, buf, (size_t)n) != n) {
			close(fd);
			return cf_fail(p->e, p->e->code ? p->e->code : CF_INSTALL, "tar: %s",
				       archive_error_string(a));
		}
		done += (uint64_t)n;
		progress_add(&p->progress, (uint64_t)n);
	}
	close(fd);
	uint8_t digest[32];
	sha256_final(&h, digest);
	if (done != size)
		return cf_fail(p->e, CF_SOURCE, "%s changed while it was read", t->src);
	manifest_add_file(p->m, t->path, size, t->mode, digest);
	return CF_OK;
}

static int pack_entries(struct archive *a, struct packer *p, const struct tree *t)
{
	const struct tree_entry **order = xcalloc(t->count, sizeof(*order));
	uint8_t *buf = xmalloc(1 << 20);
	int rc = CF_OK;
	for (size_t i = 0; i < t->count; i++)
		order[i] = &t->entries[i];
	qsort(order, t->count, sizeof(*order), entry_cmp);
	for (size_t i = 0; i < t->count && rc == CF_OK; i++) {
		struct archive_entry *ent = archive_entry_new();
		/* Fixed metadata: same inputs, same bytes. No owner names, no atime/ctime. */
		archive_entry_set_pathname(ent, order[i]->path);
		archive_entry_set_mtime(ent, (time_t)p->m->source_date_epoch, 0);
		archive_entry_set_uid(ent, 0);
		archive_entry_set_gid(ent, 0);
		if (order[i]->is_symlink) {
			archive_entry_set_filetype(ent, AE_IFLNK);
			archive_entry_set_perm(ent, 0777);
			archive_entry_set_symlink(ent, order[i]->target);
			if (archive_write_header(a, ent) != ARCHIVE_OK)
				rc = cf_fail(p->e, CF_INSTALL, "tar: %s", archive_error_string(a));
			else
				manifest_add_symlink(p->m, order[i]->path, order[i]->target);
		} else {
			rc = pack_file(a, p, order[i], ent, buf);
		}
		archive_entry_free(ent);
	}
	free(buf);
	free(order);
	return rc;
}

int pack_payload(const struct tree *t, struct manifest *m, const struct pack_options *o,
		 int out_fd, struct cf_err *e)
{
	struct packer p = { .out_fd = out_fd, .m = m, .e = e };
	uint64_t bytes = 0;
	for (size_t i = 0; i < t->count; i++)
		if (!t->entries[i].is_symlink) {
			uint64_t size = 0;
			int fd = open(t->entries[i].src, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				size = (uint64_t)lseek(fd, 0, SEEK_END);
				close(fd);
			}
			bytes += size;
		}
#ifdef CUFERRY_TEST_SEAMS
	/* CUFERRY_PACK_CHUNK_SIZE=BYTES: chunks of another size than the default, up to the
	 * format's 64 MiB (the memory bound's test installs one). */
	const char *chunk = getenv("CUFERRY_PACK_CHUNK_SIZE");
	if (chunk)
		m->chunk_size = (uint32_t)strtoul(chunk, NULL, 10);
#endif
	sha256_init(&p.chunk_hash);
	if (setup_zstd(&p, o) != CF_OK) {
		ZSTD_freeCCtx(p.z);
		free(p.zbuf);
		return e->code;
	}
	progress_start(&p.progress, "compressing", bytes, o->progress);
	struct archive *a = archive_write_new();
	archive_write_set_format_pax_restricted(a);
	int rc = CF_OK;
	if (archive_write_open(a, &p, NULL, tar_write, NULL) != ARCHIVE_OK)
		rc = cf_fail(e, CF_INSTALL, "tar: %s", archive_error_string(a));
	if (rc == CF_OK)
		rc = pack_entries(a, &p, t);
	if (rc == CF_OK && archive_write_close(a) != ARCHIVE_OK)
		rc = cf_fail(e, CF_INSTALL, "tar: %s", archive_error_string(a));
	archive_write_free(a);
	if (rc == CF_OK)
		rc = finish(&p);
	progress_end(&p.progress);
	if (rc == CF_OK && p.chunk_fill > 0)
		chunk_push(&p);
	m->compressed_size = p.compressed;
	m->uncompressed_size = p.uncompressed;
	ZSTD_freeCCtx(p.z);
	free(p.zbuf);
	free(p.fbuf);
	free(p.fout);
	return rc;
}
