/* test_decode.c - an indexed payload (common/bundle/decode.h): the index is checked whole
 * against the chunk plan and sizes before use, frames come out in payload order whatever the
 * number of workers, and a frame that is not what its index says, or a chunk that fails its
 * hash, stops the walk with CF_INTEGRITY and its reason (never a hang) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <zstd.h>

#include "tests/unit/bundle_fixture.h"
#include "common/bundle/decode.h"
#include "common/bundle/payload.h"

#define NFILES 12
#define FILE_BYTES 3000
#define TAR_FRAME 1024 /* tar bytes per frame: the tar below makes about 40 */

struct indexed {
	uint8_t *tar;
	size_t tar_len;
	struct manifest_file files[NFILES];
	char names[NFILES][32];
	uint8_t data[NFILES][FILE_BYTES];
	struct payload_frame frames[128];
	size_t nframes;
	struct fixture fx;
	char *path;
};

/* A plain pax tar of NFILES files of distinct bytes, the entry list that matches it. */
static void make_tar(struct indexed *x)
{
	size_t cap = 1 << 20;
	x->tar = xmalloc(cap);
	struct archive *a = archive_write_new();
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, x->tar, cap, &x->tar_len), ARCHIVE_OK);
	for (size_t i = 0; i < NFILES; i++) {
		snprintf(x->names[i], sizeof(x->names[i]), "lib/f%02zu", i);
		for (size_t k = 0; k < FILE_BYTES; k++)
			x->data[i][k] = (uint8_t)(k * 7 + i * 13 + (k >> 5));
		struct archive_entry *ent = archive_entry_new();
		archive_entry_set_pathname(ent, x->names[i]);
		archive_entry_set_filetype(ent, AE_IFREG);
		archive_entry_set_perm(ent, 0644);
		archive_entry_set_size(ent, FILE_BYTES);
		assert_int_equal(archive_write_header(a, ent), ARCHIVE_OK);
		assert_int_equal(archive_write_data(a, x->data[i], FILE_BYTES), FILE_BYTES);
		archive_entry_free(ent);
		memset(&x->files[i], 0, sizeof(x->files[i]));
		x->files[i].path = x->names[i];
		x->files[i].type = MF_FILE;
		x->files[i].mode = 0644;
		x->files[i].size = FILE_BYTES;
		sha256_buf(x->data[i], FILE_BYTES, x->files[i].sha256);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

/* The tar as independent frames of TAR_FRAME bytes, as the bundler writes it, and its index;
 * payload in front of the frame into a bundle file. */
static void make_indexed(struct indexed *x)
{
	memset(x, 0, sizeof(*x));
	make_tar(x);
	size_t cap = ZSTD_compressBound(x->tar_len) + 64 * 128, len = 0;
	uint8_t *payload = xmalloc(cap);
	for (size_t at = 0; at < x->tar_len; at += TAR_FRAME) {
		size_t n = x->tar_len - at < TAR_FRAME ? x->tar_len - at : TAR_FRAME;
		size_t z = ZSTD_compress(payload + len, cap - len, x->tar + at, n, 3);
		assert_false(ZSTD_isError(z));
		assert_true(x->nframes < 128);
		x->frames[x->nframes++] = (struct payload_frame){ len, z, n };
		len += z;
	}
	assert_true(x->nframes > 8);
	fixture_init(&x->fx, payload, len);
	free(payload);
	x->path = fixture_plain(&x->fx, "p.bundle", NULL);
}

static struct bundle_contents contents_of(const struct indexed *x)
{
	struct bundle_contents c = { x->files, NFILES, fixture_plan(&x->fx), x->frames,
				     x->nframes, x->tar_len };
	return c;
}

static void free_indexed(struct indexed *x)
{
	free(x->path);
	free(x->tar);
	fixture_free(&x->fx);
}

struct counted {
	size_t ended;
	uint64_t bytes;
};

static int count_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	(void)buf;
	(void)e;
	((struct counted *)ctx)->bytes += len;
	return CF_OK;
}

static int count_end(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	(void)f;
	(void)e;
	((struct counted *)ctx)->ended++;
	return CF_OK;
}

/* payload_walk over x's bundle with contents c. */
static int walk_indexed(const struct indexed *x, const struct bundle_contents *c,
			struct counted *n, struct cf_err *e)
{
	struct bundle_input *b;
	assert_int_equal(bundle_open(x->path, &b, e), CF_OK);
	assert_int_equal(bundle_read_frame(b, e), CF_OK);
	struct payload_sink sink = { NULL, count_data, count_end, n };
	memset(n, 0, sizeof(*n));
	int rc = payload_walk(b, c, &sink, NULL, e);
	bundle_close(b);
	return rc;
}

/* The decoder alone, with workers threads: its output is the tar, byte for byte, in order. */
static void decode_all(const struct indexed *x, int workers)
{
	struct cf_err e = { 0 };
	struct bundle_contents c = contents_of(x);
	struct bundle_input *b;
	struct decoder *d;
	assert_int_equal(decode_check_index(&c, &e), CF_OK);
	assert_int_equal(bundle_open(x->path, &b, &e), CF_OK);
	assert_int_equal(bundle_read_frame(b, &e), CF_OK);
	bundle_begin_payload(b, &c.plan);
	assert_int_equal(decoder_start(b, &c, workers, &d, &e), CF_OK);
	size_t at = 0, frames = 0;
	for (;;) {
		const uint8_t *data;
		size_t len;
		uint64_t compressed;
		assert_int_equal(decoder_next(d, &data, &len, &compressed, &e), CF_OK);
		if (len == 0)
			break;
		assert_int_equal(compressed, x->frames[frames].size);
		assert_true(at + len <= x->tar_len);
		assert_memory_equal(data, x->tar + at, len);
		at += len;
		frames++;
	}
	assert_int_equal(at, x->tar_len);
	assert_int_equal(frames, x->nframes);
	decoder_stop(d);
	bundle_close(b);
}

static void test_in_order_with_several_workers(void **state)
{
	(void)state;
	struct indexed x;
	make_indexed(&x);
	static const int workers[] = { 1, 2, 4, 7 };
	for (size_t i = 0; i < 4; i++)
		for (int round = 0; round < 5; round++) /* threads interleave differently each time */
			decode_all(&x, workers[i]);
	free_indexed(&x);
}

static void test_walk_indexed_payload(void **state)
{
	(void)state;
	struct indexed x;
	struct counted n;
	struct cf_err e = { 0 };
	make_indexed(&x);
	struct bundle_contents c = contents_of(&x);
	assert_int_equal(walk_indexed(&x, &c, &n, &e), CF_OK);
	assert_int_equal(n.ended, NFILES);
	assert_int_equal(n.bytes, (uint64_t)NFILES * FILE_BYTES);
	free_indexed(&x);
}

/* An index that does not fit: refused whole, before a frame is used. */
static void expect_index_refused(struct indexed *x, const char *why)
{
	struct cf_err e = { 0 };
	struct counted n;
	struct bundle_contents c = contents_of(x);
	assert_int_equal(decode_check_index(&c, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, why));
	cf_err_clear(&e);
	assert_int_equal(walk_indexed(x, &c, &n, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, why));
	assert_int_equal(n.bytes, 0);
}

static void test_index_checks(void **state)
{
	(void)state;
	struct indexed x;
	make_indexed(&x);
	struct payload_frame saved[128];
	memcpy(saved, x.frames, sizeof(saved));

	x.frames[3].offset++; /* a gap */
	expect_index_refused(&x, "payload.frames[3] starts at");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[3].offset--; /* an overlap */
	expect_index_refused(&x, "(a gap or an overlap)");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[0].offset = 5; /* not from the start */
	expect_index_refused(&x, "payload.frames[0] starts at 5, not at 0");
	memcpy(x.frames, saved, sizeof(saved));
	x.nframes--; /* the last frame left out: the sizes fall short of the payload */
	expect_index_refused(&x, "payload.frames cover");
	x.nframes++;
	x.frames[x.nframes - 1].size++; /* past the payload's end */
	expect_index_refused(&x, "ends past the payload's");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[2].uncompressed_size++; /* tar sizes not adding up to uncompressed_size */
	expect_index_refused(&x, "payload.frames decode to");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[1].uncompressed_size = 0;
	expect_index_refused(&x, "payload.frames[1] holds 0 tar bytes");
	x.frames[1].uncompressed_size = DECODE_FRAME_MAX + 1ull;
	expect_index_refused(&x, "(1 to 16777216 allowed)");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[1].size = 0;
	expect_index_refused(&x, "has 0 compressed bytes");
	free_indexed(&x);
}

/* An index that fits the sizes but not the frames: found when the frame is decoded. */
static void expect_frame_refused(struct indexed *x, const char *why)
{
	struct cf_err e = { 0 };
	struct counted n;
	struct bundle_contents c = contents_of(x);
	if (decode_check_index(&c, &e) != CF_OK)
		fail_msg("the index itself was refused: %s", e.msg);
	assert_int_equal(walk_indexed(x, &c, &n, &e), CF_INTEGRITY);
	if (!strstr(e.msg, why))
		fail_msg("'%s' does not say '%s'", e.msg, why);
	assert_true(n.ended < NFILES);
}

static void test_frames_unlike_their_index(void **state)
{
	(void)state;
	struct indexed x;
	make_indexed(&x);
	struct payload_frame saved[128];
	memcpy(saved, x.frames, sizeof(saved));
	/* Tar sizes moved between two frames: the sums still match, the frames do not. */
	x.frames[4].uncompressed_size--;
	x.frames[5].uncompressed_size++;
	expect_frame_refused(&x, "payload.frames[4] decodes to more than its");
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[4].uncompressed_size++;
	x.frames[5].uncompressed_size--;
	expect_frame_refused(&x, "payload.frames[4] decodes to 1024 bytes, the index says 1025");
	/* Two frames indexed as one: not one zstd frame. */
	memcpy(x.frames, saved, sizeof(saved));
	x.frames[6].size += x.frames[7].size;
	x.frames[6].uncompressed_size += x.frames[7].uncompressed_size;
	memmove(&x.frames[7], &x.frames[8], (x.nframes - 8) * sizeof(x.frames[0]));
	x.nframes--;
	expect_frame_refused(&x, "payload.frames[6] (");
	/* One frame indexed as two: the first half is not a whole frame. */
	memcpy(x.frames, saved, sizeof(saved));
	x.nframes++; /* back to the count made, and one more */
	x.nframes++;
	memmove(&x.frames[4], &x.frames[3], (x.nframes - 4) * sizeof(x.frames[0]));
	x.frames[3].size = saved[3].size / 2;
	x.frames[4].offset = x.frames[3].offset + x.frames[3].size;
	x.frames[4].size = saved[3].size - x.frames[3].size;
	x.frames[3].uncompressed_size = 512;
	x.frames[4].uncompressed_size = saved[3].uncompressed_size - 512;
	expect_frame_refused(&x, "payload.frames[3] (");
	free_indexed(&x);
}

/* A chunk in the middle that fails its hash: the frames before it are used, it is not. */
static void test_corrupt_chunk_in_the_middle(void **state)
{
	(void)state;
	struct indexed x;
	struct counted n;
	struct cf_err e = { 0 };
	make_indexed(&x);
	size_t mid = x.fx.nchunks / 2;
	x.fx.payload[mid * FIXTURE_CHUNK + 3] ^= 0x40; /* the signed hashes stay as they were */
	free(x.path);
	x.path = fixture_plain(&x.fx, "p.bundle", NULL);
	struct bundle_contents c = contents_of(&x);
	for (int workers = 0; workers < 3; workers++) {
		assert_int_equal(walk_indexed(&x, &c, &n, &e), CF_INTEGRITY);
		char want[64];
		snprintf(want, sizeof(want), "payload chunk %zu ", mid);
		if (!strstr(e.msg, want))
			fail_msg("'%s' does not name chunk %zu", e.msg, mid);
		assert_true(n.ended > 0 && n.ended < NFILES);
		cf_err_clear(&e);
	}
	free_indexed(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_with_several_workers),
		cmocka_unit_test(test_walk_indexed_payload),
		cmocka_unit_test(test_index_checks),
		cmocka_unit_test(test_frames_unlike_their_index),
		cmocka_unit_test(test_corrupt_chunk_in_the_middle),
	};
	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
