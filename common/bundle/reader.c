/* reader.c - one verified stream over plain, split and self-extracting bundles */
#include "common/bundle/reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/frame.h"
#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"

#define MAX_PARTS 999
/* Chunks read and verified ahead: up to 8, holding at most PREFETCH_BYTES (8 MiB with the
 * default 1 MiB chunks). Chunks over half of it are read on demand, one at a time, so a
 * 64 MiB chunk is held once, never eight times (the memory bound of docs/formats.md). */
#define PREFETCH_SLOTS 8
#define PREFETCH_BYTES (16u << 20)

struct bundle_part {
	char *path;
	uint64_t start; /* stream offset of its first byte */
	uint64_t size;
};

struct bundle_input {
	struct bundle_part parts[MAX_PARTS];
	size_t nparts;
	char *split_stem; /* NAME for NAME.001, NULL otherwise */
	size_t current;   /* part whose fd is open */
	int fd;
	uint64_t base;    /* file offset of stream byte 0 in a .run, else 0 */
	uint64_t size;    /* stream length */
	uint64_t pos;     /* next stream offset to read */
	int sfx;
	struct sfx_layout layout; /* of a .run */
	uint8_t *block;           /* a .run's stub-signature block, as read */
	struct frame frame;       /* the signed header, once read */
	struct bundle_contents contents;
	int has_contents;
	bundle_file_check check; /* the caller's rule for each file opened, or NULL */
	void *check_ctx;
	struct chunk_plan plan;
	size_t next_chunk;
	/* The reader thread: it alone touches the stream once the payload begins. */
	struct platform_thread *reader;
	int reader_running;
	struct platform_monitor *mon;
	uint8_t *slots[PREFETCH_SLOTS];
	size_t lens[PREFETCH_SLOTS];
	size_t nslots;          /* in use: PREFETCH_BYTES / chunk_size, at most PREFETCH_SLOTS */
	size_t produced;        /* chunks verified and waiting, counting from 0 */
	size_t consumed;        /* chunks handed out and released */
	int holding;            /* the consumer still uses slot (consumed % SLOTS) */
	int finished;           /* all chunks and the trailing check are done, or failed */
	int stop;
	struct cf_err reader_err; /* belongs to chunk `produced`, or to the trailing check */
};

static void stop_reader(struct bundle_input *b);
static void free_slots(struct bundle_input *b);
static int read_chunk(struct bundle_input *b, uint8_t *buf, size_t *len, struct cf_err *e);

static int part_add(struct bundle_input *b, const char *path, uint64_t size)
{
	struct bundle_part *p = &b->parts[b->nparts];
	p->path = xstrdup(path);
	p->start = b->nparts ? b->parts[b->nparts - 1].start + b->parts[b->nparts - 1].size : 0;
	p->size = size;
	b->nparts++;
	return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The last SFX_TRAILER_LEN bytes of an open file: 0 when read, -1 when not. */
static int read_trailer(int fd, uint64_t file_size, uint8_t tail[SFX_TRAILER_LEN])
{
	if (file_size < SFX_TRAILER_LEN)
		return -1;
	ssize_t n = platform_pread(fd, tail, SFX_TRAILER_LEN, file_size - SFX_TRAILER_LEN);
	return n == SFX_TRAILER_LEN ? 0 : -1;
}

int bundle_file_has_sfx_trailer(const char *path)
{
	uint8_t tail[SFX_TRAILER_LEN];
	struct platform_stat st;
	int fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	int tagged = fd >= 0 && platform_fstat(fd, &st) == 0 && st.size > SFX_TRAILER_LEN &&
		     read_trailer(fd, st.size, tail) == 0 && sfx_trailer_tagged(tail) == 0 &&
		     frame_le64(tail + 16) != 0; /* L = 0: an unpacker carried on a kit, no bundle */
	if (fd >= 0)
		platform_close(fd);
	return tagged;
}

/* A .run has the stub in front, then the bundle, the stub-signature block and the trailer.
 * A file that does not start with the header frame but ends in the trailer's tag is a .run,
 * and then every byte of it must be where the trailer says (else CF_TRUST). */
static int detect_sfx(struct bundle_input *b, int fd, uint64_t file_size, struct cf_err *e)
{
	uint8_t head[4], tail[SFX_TRAILER_LEN];
	if (file_size < SFX_TRAILER_LEN + 8 || platform_pread(fd, head, 4, 0) != 4)
		return CF_OK;
	if (frame_le32(head) == FRAME_MAGIC)
		return CF_OK;
	if (read_trailer(fd, file_size, tail) != 0)
		return CF_OK;
	if (sfx_trailer_tagged(tail) != 0)
		/* A program without the trailer: a .run with bytes added at its end, or no .run. */
		return memcmp(head, "\177ELF", 4) == 0 || memcmp(head, "MZ", 2) == 0
			       ? cf_fail(e, CF_TRUST, "%s: a program without a self-extracting "
					 "trailer at its end (bytes added after it, or not a %s)",
					 b->parts[0].path, head[0] == 'M' ? ".exe" : ".run")
			       : CF_OK;
	int rc = sfx_trailer_parse(tail, file_size, &b->layout, e);
	if (rc != CF_OK)
		return rc;
	if (sfx_layout_is_container(&b->layout))
		return cf_fail(e, CF_TRUST, "%s: a signed unpacker from a kit, not a bundle (install it "
			       "with 'unpacker self-install')", b->parts[0].path);
	b->block = xmalloc((size_t)b->layout.block_len);
	if (platform_pread(fd, b->block, (size_t)b->layout.block_len,
			   b->layout.stub_len + b->layout.bundle_len) != (ssize_t)b->layout.block_len)
		return cf_fail(e, CF_TRUST, "%s: cannot read the stub-signature block: %s",
			       b->parts[0].path, platform_strerror(errno ? errno : EIO));
	b->sfx = 1;
	b->base = b->layout.stub_len;
	b->size = b->layout.bundle_len;
	return CF_OK;
}

int bundle_split_parts(const char *path, struct bundle_parts *out, struct cf_err *e)
{
	struct platform_stat st;
	memset(out, 0, sizeof(*out));
	out->stem = xstrdup(path);
	out->stem[strlen(path) - 4] = '\0'; /* NAME of NAME.001 */
	out->paths = xcalloc(MAX_PARTS, sizeof(*out->paths));
	out->sizes = xcalloc(MAX_PARTS, sizeof(*out->sizes));
	for (int i = 1; i <= MAX_PARTS; i++) {
		char *part = xasprintf("%s.%03d", out->stem, i);
		/* Later parts are never links: on a stick, one could point anywhere. */
		int ok = (i == 1 ? platform_stat(part, &st) : platform_lstat(part, &st)) == 0 &&
			 st.type == PLATFORM_TYPE_FILE;
		if (!ok) {
			free(part);
			break;
		}
		out->paths[out->count] = part;
		out->sizes[out->count++] = st.size;
	}
	if (out->count == 0) {
		bundle_parts_free(out);
		return cf_fail(e, CF_USAGE, "%s: cannot open bundle part", path);
	}
	return CF_OK;
}

void bundle_parts_free(struct bundle_parts *p)
{
	for (size_t i = 0; i < p->count; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->sizes);
	free(p->stem);
	memset(p, 0, sizeof(*p));
}

int bundle_open(const char *path, struct bundle_input **out, struct cf_err *e)
{
	return bundle_open_checked(path, NULL, NULL, out, e);
}

int bundle_open_checked(const char *path, bundle_file_check check, void *ctx,
			struct bundle_input **out, struct cf_err *e)
{
	struct bundle_input *b = xcalloc(1, sizeof(*b));
	struct platform_stat st;
	b->fd = -1;
	b->check = check;
	b->check_ctx = ctx;
	if (has_suffix(path, ".001")) {
		struct bundle_parts parts;
		int rc = bundle_split_parts(path, &parts, e);
		if (rc != CF_OK) {
			bundle_close(b);
			return rc;
		}
		for (size_t i = 0; i < parts.count; i++)
			part_add(b, parts.paths[i], parts.sizes[i]);
		b->split_stem = parts.stem;
		parts.stem = NULL;
		bundle_parts_free(&parts);
		b->size = b->parts[b->nparts - 1].start + b->parts[b->nparts - 1].size;
	} else {
		int found = platform_stat(path, &st) == 0;
		if (!found || st.type != PLATFORM_TYPE_FILE) {
			int saved = errno;
			bundle_close(b);
			/* /dev/zero exists: say what it is, never a stale "No such file". */
			return cf_fail(e, CF_USAGE, "%s: %s", path,
				       found ? "not a regular file, so not a bundle" : platform_strerror(saved));
		}
		part_add(b, path, st.size);
		b->size = st.size;
	}
	/* Opened without blocking and checked again through the handle: a name swapped between
	 * the look above and this open (a FIFO, a device: outside review) is refused, never
	 * waited on. O_NONBLOCK changes nothing for a regular file's reads. */
	struct platform_stat named;
	int plain = platform_lstat(b->parts[0].path, &named) == 0 && named.type == PLATFORM_TYPE_FILE;
	/* A name that was a file, not a link, is opened as one: a link swapped in is not followed
	 * (to /dev/watchdog, say, whose mere opening acts). A link the caller named is followed. */
	b->fd = platform_open(b->parts[0].path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK |
			      (plain ? PLATFORM_OPEN_NOFOLLOW : 0), 0);
	if (b->fd < 0) {
		int rc = cf_fail(e, CF_USAGE, "%s: %s", b->parts[0].path, platform_strerror(errno));
		bundle_close(b);
		return rc;
	}
	struct platform_stat opened;
	if (platform_fstat(b->fd, &opened) != 0 || opened.type != PLATFORM_TYPE_FILE ||
	    opened.size != b->parts[0].size) {
		int rc = cf_fail(e, CF_USAGE, "%s: changed while it was opened (not the regular file it "
				 "was a moment before)", b->parts[0].path);
		bundle_close(b);
		return rc;
	}
	int rc = b->check ? b->check(b->check_ctx, b->parts[0].path, b->fd, e) : CF_OK;
	if (rc == CF_OK && !b->split_stem)
		rc = detect_sfx(b, b->fd, b->parts[0].size, e);
	if (rc != CF_OK) {
		bundle_close(b);
		return rc;
	}
	*out = b;
	return CF_OK;
}

void bundle_close(struct bundle_input *b)
{
	if (!b)
		return;
	stop_reader(b);
	free_slots(b);
	if (b->fd >= 0)
		platform_close(b->fd);
	for (size_t i = 0; i < b->nparts; i++)
		free(b->parts[i].path);
	free(b->split_stem);
	free(b->block);
	frame_free(&b->frame);
	free(b);
}

const struct frame *bundle_frame(const struct bundle_input *b)
{
	return b->frame.header ? &b->frame : NULL;
}

void bundle_set_contents(struct bundle_input *b, const struct bundle_contents *c)
{
	b->contents = *c;
	b->has_contents = 1;
}

const struct bundle_contents *bundle_contents(const struct bundle_input *b)
{
	return b->has_contents ? &b->contents : NULL;
}

uint64_t bundle_size(const struct bundle_input *b)
{
	return b->size;
}

int bundle_is_sfx(const struct bundle_input *b)
{
	return b->sfx;
}

const struct sfx_layout *bundle_sfx_layout(const struct bundle_input *b, const uint8_t **block)
{
	if (!b->sfx)
		return NULL;
	*block = b->block;
	return &b->layout;
}

int bundle_sfx_stub_sha256(const struct bundle_input *b, uint8_t out[32], struct cf_err *e)
{
	if (sfx_hash_range(b->fd, b->layout.stub_len, out) != 0)
		return cf_fail(e, CF_TRUST, "%s: cannot read the stub: %s", b->parts[0].path,
			       platform_strerror(errno));
	return CF_OK;
}

size_t bundle_part_count(const struct bundle_input *b)
{
	return b->nparts;
}

static const char *part_name_at(const struct bundle_input *b, uint64_t offset)
{
	for (size_t i = b->nparts; i-- > 0;)
		if (offset >= b->parts[i].start)
			return b->parts[i].path;
	return b->parts[0].path;
}

/* Open the part that holds stream offset pos; names a missing part of a split bundle. */
static int switch_part(struct bundle_input *b, struct cf_err *e)
{
	while (b->current + 1 < b->nparts &&
	       b->pos >= b->parts[b->current].start + b->parts[b->current].size) {
		platform_close(b->fd);
		b->current++;
		b->fd = platform_open(b->parts[b->current].path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NOFOLLOW, 0);
		/* A part that is not there is missing data (3); one the medium cannot give is an
		 * I/O error (5, DESIGN.md §9). */
		if (b->fd < 0)
			return cf_fail(e, errno == ENOENT ? CF_INTEGRITY : CF_INSTALL, "%s: %s",
				       b->parts[b->current].path, platform_strerror(errno));
		int rc = b->check ? b->check(b->check_ctx, b->parts[b->current].path, b->fd, e) : CF_OK;
		if (rc != CF_OK)
			return rc;
	}
	return CF_OK;
}

/* Read up to len stream bytes at pos. Returns bytes read, 0 at the end of the stream. */
static ssize_t stream_read(struct bundle_input *b, uint8_t *buf, size_t len, struct cf_err *e)
{
	size_t got = 0;
	while (got < len && b->pos < b->size) {
		if (switch_part(b, e) != CF_OK)
			return -1;
		const struct bundle_part *p = &b->parts[b->current];
		uint64_t in_part = b->pos - p->start;
		uint64_t avail = (b->sfx ? b->size : p->size) - in_part;
		size_t want = len - got < avail ? len - got : (size_t)avail;
		ssize_t n = platform_pread(b->fd, buf + got, want, b->base + in_part);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* The medium failed (EIO: a pulled stick, a bad sector), not the bundle: an
			 * I/O error, exit 5. Bytes that arrive wrong or not at all stay integrity (3). */
			cf_fail(e, CF_INSTALL, "%s: read error at offset %llu: %s (the medium "
				"failed, not the bundle)", p->path, (unsigned long long)b->pos,
				platform_strerror(errno));
			return -1;
		}
		if (n == 0) {
			/* The file shrank under us: treat it as truncated data. */
			cf_fail(e, CF_INTEGRITY, "%s: truncated at offset %llu", p->path,
				(unsigned long long)b->pos);
			return -1;
		}
		got += (size_t)n;
		b->pos += (uint64_t)n;
	}
	return (ssize_t)got;
}

int bundle_read_frame(struct bundle_input *b, struct cf_err *e)
{
	uint8_t prefix[FRAME_PREFIX_LEN];
	uint32_t len;
	ssize_t n = stream_read(b, prefix, sizeof(prefix), e);
	if (n < 0)
		return cf_fail(e, CF_TRUST, "cannot read the signed header");
	if (frame_prefix(prefix, (size_t)n, &len) != 0)
		return cf_fail(e, CF_TRUST, "not a cuferry bundle: no signed header frame at the start");
	if (len > FRAME_CAP)
		return cf_fail(e, CF_TRUST, "signed header of %u bytes is over the %u-byte cap", len,
			       FRAME_CAP);
	uint8_t *content = xmalloc(len ? len : 1);
	n = stream_read(b, content, len, e);
	if (n != (ssize_t)len) {
		free(content);
		cf_err_clear(e);
		return cf_fail(e, CF_TRUST, "signed header truncated (%zd of %u bytes)", n < 0 ? 0 : n,
			       len);
	}
	frame_free(&b->frame);
	int rc = frame_parse(content, len, &b->frame, e);
	free(content);
	return rc;
}

static void reader_main(void *arg)
{
	struct bundle_input *b = arg;
	struct cf_err e = { 0 };
	for (;;) {
		platform_monitor_enter(b->mon);
		while (!b->stop && b->produced - b->consumed >= b->nslots - 1)
			platform_monitor_wait(b->mon);
		size_t index = b->produced;
		int stop = b->stop;
		platform_monitor_leave(b->mon);
		if (stop)
			return;
		size_t len;
		int rc = read_chunk(b, b->slots[index % b->nslots], &len, &e);
		platform_monitor_enter(b->mon);
		if (rc != CF_OK || index == b->plan.nchunks) {
			b->reader_err = e;
			b->finished = 1;
		} else {
			b->lens[index % b->nslots] = len;
			b->produced++;
		}
		int done = b->finished;
		platform_monitor_wake(b->mon);
		platform_monitor_leave(b->mon);
		if (done)
			return;
	}
}

static void stop_reader(struct bundle_input *b)
{
	if (!b->reader_running)
		return;
	platform_monitor_enter(b->mon);
	b->stop = 1;
	platform_monitor_wake(b->mon);
	platform_monitor_leave(b->mon);
	platform_thread_join(b->reader);
	platform_monitor_free(b->mon);
	b->mon = NULL;
	b->reader_running = 0;
}

/* The slots outlive the thread: without one, slot 0 serves chunks read on demand. */
static void free_slots(struct bundle_input *b)
{
	for (int i = 0; i < PREFETCH_SLOTS; i++) {
		free(b->slots[i]);
		b->slots[i] = NULL;
	}
}

void bundle_begin_payload(struct bundle_input *b, const struct chunk_plan *plan)
{
	stop_reader(b);
	free_slots(b);
	b->plan = *plan;
	b->next_chunk = 0;
	b->produced = b->consumed = 0;
	b->holding = b->finished = b->stop = 0;
	cf_err_clear(&b->reader_err);
	size_t fit = plan->chunk_size ? PREFETCH_BYTES / plan->chunk_size : PREFETCH_SLOTS;
	b->nslots = fit > PREFETCH_SLOTS ? PREFETCH_SLOTS : fit < 2 ? 1 : fit;
	for (size_t i = 0; i < b->nslots; i++)
		b->slots[i] = xmalloc(plan->chunk_size);
	if (b->nslots == 1)
		return; /* on demand */
	b->mon = platform_monitor_new();
	b->reader_running = b->mon && platform_thread_start(&b->reader, reader_main, b) == 0;
	if (!b->reader_running) {
		/* No thread: verify on demand in the caller, one chunk at a time. */
		platform_monitor_free(b->mon);
		b->mon = NULL;
	}
}

/* Hand out the next verified chunk; the previous one is released first. A chunk that failed
 * its check is never handed out: its error is. */
int bundle_next_chunk(struct bundle_input *b, const uint8_t **data, size_t *len,
		      struct cf_err *e)
{
	if (!b->reader_running) {
		*data = b->slots[0];
		return read_chunk(b, b->slots[0], len, e);
	}
	platform_monitor_enter(b->mon);
	if (b->holding) {
		b->consumed++;
		b->holding = 0;
		platform_monitor_wake(b->mon);
	}
	while (b->produced == b->consumed && !b->finished)
		platform_monitor_wait(b->mon);
	int rc = CF_OK;
	*len = 0;
	*data = NULL;
	if (b->produced > b->consumed) {
		*data = b->slots[b->consumed % b->nslots];
		*len = b->lens[b->consumed % b->nslots];
		b->holding = 1;
	} else if (b->reader_err.code) {
		rc = cf_fail(e, b->reader_err.code, "%s", b->reader_err.msg);
	}
	platform_monitor_leave(b->mon);
	return rc;
}

/* Read and verify the next chunk into buf (or check that nothing follows the payload). */
static int read_chunk(struct bundle_input *b, uint8_t *buf, size_t *len, struct cf_err *e)
{
	const struct chunk_plan *p = &b->plan;
	*len = 0;
	if (b->next_chunk == p->nchunks) {
		uint8_t extra;
		ssize_t n = stream_read(b, &extra, 1, e);
		if (n < 0)
			return e->code;
		if (n > 0)
			return cf_fail(e, CF_INTEGRITY,
				       "unexpected data after the payload at offset %llu (%s)",
				       (unsigned long long)(b->pos - 1), part_name_at(b, b->pos - 1));
		return CF_OK;
	}
	uint64_t done = (uint64_t)b->next_chunk * p->chunk_size;
	size_t want = p->payload_size - done < p->chunk_size ? (size_t)(p->payload_size - done)
							     : p->chunk_size;
	uint64_t start = b->pos;
	ssize_t n = stream_read(b, buf, want, e);
	if (n < 0)
		return e->code;
	if ((size_t)n != want) {
		if (b->split_stem && b->current + 1 == b->nparts)
			return cf_fail(e, CF_INTEGRITY,
				       "bundle part %s.%03zu is missing (payload chunk %zu at offset "
				       "%llu)",
				       b->split_stem, b->nparts + 1, b->next_chunk,
				       (unsigned long long)b->pos);
		return cf_fail(e, CF_INTEGRITY, "payload truncated in chunk %zu at offset %llu (%s)",
			       b->next_chunk, (unsigned long long)b->pos, part_name_at(b, start));
	}
	uint8_t digest[32];
	sha256_buf(buf, want, digest);
	/* A chunk can span two parts: the bad bytes may be in either, so name both. */
	const char *first = part_name_at(b, start), *last = part_name_at(b, start + want - 1);
	if (!digest_equal(digest, p->hashes[b->next_chunk], 32))
		return cf_fail(e, CF_INTEGRITY,
			       "payload chunk %zu (offset %llu, %s%s%s) does not match its signed SHA-256",
			       b->next_chunk, (unsigned long long)start, first,
			       first == last ? "" : " and ", first == last ? "" : last);
	b->next_chunk++;
	*len = want;
	return CF_OK;
}
