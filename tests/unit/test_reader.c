/* test_reader.c - the bundle reader (common/bundle/reader.h): plain, split and .run streams,
 * chunks released only when their signed hash matches, nothing after the payload; and the
 * verified open (common/bundle/open.h) that calls the policy in its fixed order */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "tests/unit/bundle_fixture.h"
#include "common/bundle/open.h"

static uint8_t sample[300]; /* 5 chunks of 64 bytes, the last one short */

static void fill_sample(void)
{
	for (size_t i = 0; i < sizeof(sample); i++)
		sample[i] = (uint8_t)(i * 7 + 3);
}

static int fixture_setup(void **state)
{
	struct fixture *fx = xmalloc(sizeof(*fx));
	fixture_init(fx, sample, sizeof(sample));
	*state = fx;
	return 0;
}

static int fixture_teardown(void **state)
{
	fixture_free(*state);
	free(*state);
	return 0;
}

/* Open (with check, NULL: none), read the frame and every chunk; CF_OK only when the bytes
 * are the payload. */
static int read_bundle_checked(const struct fixture *fx, const char *path, bundle_file_check check,
			       void *ctx, struct cf_err *e)
{
	struct bundle_input *b = NULL;
	int rc = bundle_open_checked(path, check, ctx, &b, e);
	if (rc == CF_OK)
		rc = bundle_read_frame(b, e);
	if (rc == CF_OK) {
		assert_non_null(bundle_frame(b));
		assert_int_equal(bundle_frame(b)->header_len, strlen("{\"fixture\":true}"));
		struct chunk_plan plan = fixture_plan(fx);
		bundle_begin_payload(b, &plan);
		size_t at = 0;
		for (;;) {
			const uint8_t *data;
			size_t len;
			rc = bundle_next_chunk(b, &data, &len, e);
			if (rc != CF_OK || len == 0)
				break;
			assert_true(at + len <= fx->payload_len);
			assert_memory_equal(data, fx->payload + at, len);
			at += len;
		}
		if (rc == CF_OK)
			assert_int_equal(at, fx->payload_len);
	}
	bundle_close(b);
	return rc;
}

static int read_bundle(const struct fixture *fx, const char *path, struct cf_err *e)
{
	return read_bundle_checked(fx, path, NULL, NULL, e);
}

static void test_plain(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *path = fixture_plain(fx, "a.bundle", NULL);
	assert_int_equal(read_bundle(fx, path, &e), CF_OK);
	struct bundle_input *b;
	assert_int_equal(bundle_open(path, &b, &e), CF_OK);
	assert_int_equal(bundle_is_sfx(b), 0);
	assert_int_equal(bundle_part_count(b), 1);
	assert_int_equal(bundle_size(b), fx->frame_len + sizeof(sample));
	assert_null(bundle_frame(b)); /* nothing read yet */
	assert_null(bundle_contents(b)); /* nothing verified */
	bundle_close(b);
	assert_int_equal(bundle_file_has_sfx_trailer(path), 0);
	free(path);
}

static void test_trailing_bytes_after_the_payload(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *path = fixture_plain(fx, "a.bundle", "x");
	assert_int_equal(read_bundle(fx, path, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "unexpected data after the payload"));
	free(path);
}

static void test_chunk_hash_mismatch(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	fx->payload[2 * FIXTURE_CHUNK + 5] ^= 1; /* the hashes stay those of the original */
	char *path = fixture_plain(fx, "a.bundle", NULL);
	fx->payload[2 * FIXTURE_CHUNK + 5] ^= 1;
	assert_int_equal(read_bundle(fx, path, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "payload chunk 2 "));
	assert_non_null(strstr(e.msg, "does not match its signed SHA-256"));
	free(path);
}

static void test_truncated_payload(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	fx->payload_len -= 10; /* written short; the plan below still wants all of it */
	char *path = fixture_plain(fx, "a.bundle", NULL);
	fx->payload_len += 10;
	assert_int_equal(read_bundle(fx, path, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "payload truncated in chunk 4"));
	free(path);
}

static void test_not_a_bundle(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *path = fixture_path(fx, "junk.bundle");
	fixture_write(path, sample, sizeof(sample));
	assert_int_equal(read_bundle(fx, path, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "no signed header frame"));
	free(path);
	path = fixture_path(fx, "missing.bundle");
	cf_err_clear(&e);
	assert_int_equal(read_bundle(fx, path, &e), CF_USAGE);
	free(path);
}

static void test_split_parts(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	/* cuts inside the frame, inside a chunk and at a chunk boundary */
	size_t cuts[] = { 5, fx->frame_len + 100, fx->frame_len + 192 };
	char *first = fixture_split(fx, "s.bundle", cuts, 4);
	struct bundle_input *b;
	assert_int_equal(bundle_open(first, &b, &e), CF_OK);
	assert_int_equal(bundle_part_count(b), 4);
	assert_int_equal(bundle_size(b), fx->frame_len + sizeof(sample));
	bundle_close(b);
	assert_int_equal(read_bundle(fx, first, &e), CF_OK);
	free(first);
}

/* The caller's check of each file (a kit's index): called with the handle read, for every
 * part as the stream reaches it, in order; its refusal fails the open or the read. */
struct file_checks {
	char seen[4][16]; /* the names' last four characters: ".001" ... */
	int n;
	const char *refuse; /* the suffix refused */
};

static int check_part(void *ctx, const char *path, int fd, struct cf_err *e)
{
	struct file_checks *c = ctx;
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0); /* a live handle of the file */
	const char *tail = path + strlen(path) - 4;
	if (c->n < 4)
		snprintf(c->seen[c->n], sizeof(c->seen[0]), "%s", tail);
	c->n++;
	return c->refuse && strcmp(tail, c->refuse) == 0 ? cf_fail(e, CF_INTEGRITY, "%s refused", tail)
							  : CF_OK;
}

static void test_split_parts_checked(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	size_t cuts[] = { fx->frame_len + 64, fx->frame_len + 200 };
	char *first = fixture_split(fx, "c.bundle", cuts, 3);
	struct file_checks c = { .refuse = NULL };
	assert_int_equal(read_bundle_checked(fx, first, check_part, &c, &e), CF_OK);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.seen[0], ".001");
	assert_string_equal(c.seen[1], ".002");
	assert_string_equal(c.seen[2], ".003");
	/* a later part refused: the read fails with the check's reason (before the payload ends) */
	c = (struct file_checks){ .refuse = ".003" };
	assert_int_equal(read_bundle_checked(fx, first, check_part, &c, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, ".003 refused"));
	/* the first refused: nothing is read, the open fails */
	cf_err_clear(&e);
	c = (struct file_checks){ .refuse = ".001" };
	struct bundle_input *b = NULL;
	assert_int_equal(bundle_open_checked(first, check_part, &c, &b, &e), CF_INTEGRITY);
	assert_int_equal(c.n, 1);
	free(first);
}

static void test_split_missing_part(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	size_t cuts[] = { fx->frame_len + 64, fx->frame_len + 200 };
	char *first = fixture_split(fx, "s.bundle", cuts, 3);
	char *last = fixture_path(fx, "s.bundle.003");
	assert_int_equal(unlink(last), 0);
	assert_int_equal(read_bundle(fx, first, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "s.bundle.003 is missing"));
	free(last);
	free(first);
}

static void test_split_short_part(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	size_t cuts[] = { fx->frame_len + 64, fx->frame_len + 200 };
	char *first = fixture_split(fx, "s.bundle", cuts, 3);
	char *middle = fixture_path(fx, "s.bundle.002");
	assert_int_equal(truncate(middle, 100), 0); /* 136 bytes were written */
	assert_int_equal(read_bundle(fx, first, &e), CF_INTEGRITY);
	/* the bytes after the gap shift: the chunk that spans it no longer matches */
	assert_non_null(strstr(e.msg, "does not match its signed SHA-256"));
	assert_non_null(strstr(e.msg, "s.bundle.002"));
	free(middle);
	free(first);
}

static void test_run(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *path = fixture_run(fx, "a.run", 0);
	assert_int_equal(bundle_file_has_sfx_trailer(path), 1);
	struct bundle_input *b;
	const uint8_t *block;
	assert_int_equal(bundle_open(path, &b, &e), CF_OK);
	assert_int_equal(bundle_is_sfx(b), 1);
	const struct sfx_layout *l = bundle_sfx_layout(b, &block);
	assert_non_null(l);
	assert_int_equal(l->stub_len, 100);
	assert_int_equal(l->bundle_len, fx->frame_len + sizeof(sample));
	assert_memory_equal(block, SFX_BLOCK_TAG, 8);
	uint8_t stub_sha[32], want[32];
	static const uint8_t stub[100] = { 0x7f, 'E', 'L', 'F' };
	sha256_buf(stub, sizeof(stub), want);
	assert_int_equal(bundle_sfx_stub_sha256(b, stub_sha, &e), CF_OK);
	assert_memory_equal(stub_sha, want, 32);
	bundle_close(b);
	/* the block and trailer after the bundle are not "data after the payload" */
	assert_int_equal(read_bundle(fx, path, &e), CF_OK);
	free(path);
}

static void test_run_bad_trailer(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	struct bundle_input *b = NULL;
	char *path = fixture_run(fx, "a.run", -1); /* the parts no longer add up */
	assert_int_equal(bundle_open(path, &b, &e), CF_TRUST);
	assert_null(b);
	assert_non_null(strstr(e.msg, "is not the file's size"));
	free(path);
	/* a program whose trailer is gone (bytes added after it) */
	path = fixture_run(fx, "b.run", 0);
	int fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "zz", 2), 2);
	close(fd);
	assert_int_equal(bundle_file_has_sfx_trailer(path), 0);
	cf_err_clear(&e);
	assert_int_equal(bundle_open(path, &b, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "without a self-extracting trailer"));
	free(path);
}

/* ---- the verified open: the policy's order, and nothing walked unless it all passed ---- */

struct calls {
	int header, stub, contents;
	int header_rc, stub_rc;
	const struct fixture *fx;
	struct manifest_file entry;
};

static int count_header(void *ctx, const struct frame *f, struct cf_err *e)
{
	struct calls *c = ctx;
	assert_int_equal(c->stub + c->contents, 0);
	c->header++;
	return c->header_rc ? cf_fail(e, c->header_rc, "header refused") : CF_OK;
}

static int count_stub(void *ctx, const struct bundle_stub *stub, struct cf_err *e)
{
	struct calls *c = ctx;
	assert_int_equal(c->header, 1);
	assert_int_equal(stub->nsigs, 1);
	uint8_t digest[32];
	sha256_buf(stub->message, sizeof(stub->message), digest);
	assert_memory_equal(digest, stub->digest, 32);
	c->stub++;
	return c->stub_rc ? cf_fail(e, c->stub_rc, "stub refused") : CF_OK;
}

static int give_contents(void *ctx, const struct frame *f, struct bundle_contents *bc,
			 struct cf_err *e)
{
	struct calls *c = ctx;
	c->contents++;
	bc->files = &c->entry;
	bc->nfiles = 1;
	bc->plan = fixture_plan(c->fx);
	return CF_OK;
}

static int open_with(const char *path, struct calls *c, struct cf_err *e)
{
	struct bundle_policy p = { count_header, count_stub, give_contents, c, NULL, NULL };
	struct bundle_input *b = NULL;
	int rc = bundle_open_verified(path, &p, &b, e);
	if (rc != CF_OK && b) {
		/* what was read may be shown, but never walked */
		struct cf_err walk = { 0 };
		assert_int_equal(bundle_walk(b, NULL, NULL, &walk), CF_TRUST);
	}
	if (rc == CF_OK)
		assert_non_null(bundle_contents(b));
	bundle_close(b);
	return rc;
}

static void test_verified_open_order(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *plain = fixture_plain(fx, "a.bundle", NULL), *run = fixture_run(fx, "a.run", 0);
	struct calls c = { .fx = fx };
	assert_int_equal(open_with(plain, &c, &e), CF_OK);
	assert_true(c.header == 1 && c.stub == 0 && c.contents == 1);
	c = (struct calls){ .fx = fx };
	assert_int_equal(open_with(run, &c, &e), CF_OK);
	assert_true(c.header == 1 && c.stub == 1 && c.contents == 1);
	/* a refused header: neither the stub nor the manifest is looked at */
	c = (struct calls){ .fx = fx, .header_rc = CF_TRUST };
	assert_int_equal(open_with(run, &c, &e), CF_TRUST);
	assert_true(c.header == 1 && c.stub == 0 && c.contents == 0);
	/* a refused stub: the manifest is not read */
	cf_err_clear(&e);
	c = (struct calls){ .fx = fx, .stub_rc = CF_TRUST };
	assert_int_equal(open_with(run, &c, &e), CF_TRUST);
	assert_string_equal(e.msg, "stub refused");
	assert_true(c.header == 1 && c.stub == 1 && c.contents == 0);
	free(plain);
	free(run);
}

static void test_unverified_reader_is_not_walked(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	char *path = fixture_plain(fx, "a.bundle", NULL);
	struct bundle_input *b;
	assert_int_equal(bundle_open(path, &b, &e), CF_OK);
	assert_int_equal(bundle_read_frame(b, &e), CF_OK);
	assert_int_equal(bundle_walk(b, NULL, NULL, &e), CF_TRUST);
	assert_int_equal(bundle_walk(NULL, NULL, NULL, &e), CF_TRUST);
	bundle_close(b);
	free(path);
}

/* A stored header (an install's .cuferry/header.bin): handed back only once check passed. */
struct stored_calls {
	int checked;
	int rc;
};

static int check_stored(void *ctx, const struct frame *f, struct cf_err *e)
{
	struct stored_calls *c = ctx;
	c->checked++;
	assert_int_equal(f->header_len, strlen("{\"fixture\":true}"));
	return c->rc ? cf_fail(e, c->rc, "signature refused") : CF_OK;
}

static void test_stored_header_checked_first(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	struct frame f;
	char *path = fixture_path(fx, "header.bin");
	fixture_write(path, fx->frame, fx->frame_len);
	struct stored_calls c = { 0 };
	assert_int_equal(bundle_read_stored_header(path, check_stored, &c, &f, &e), CF_OK);
	assert_int_equal(c.checked, 1);
	assert_memory_equal(f.header, "{\"fixture\":true}", f.header_len);
	frame_free(&f);
	/* refused: nothing of the header comes back to be parsed */
	c = (struct stored_calls){ .rc = CF_TRUST };
	assert_int_equal(bundle_read_stored_header(path, check_stored, &c, &f, &e), CF_TRUST);
	assert_string_equal(e.msg, "signature refused");
	assert_int_equal(c.checked, 1);
	assert_null(f.header);
	/* not a frame, or no file: the check is never reached */
	cf_err_clear(&e);
	fixture_write(path, "{\"format\":\"cuferry-bundle-1\"}", 29);
	c = (struct stored_calls){ 0 };
	assert_int_equal(bundle_read_stored_header(path, check_stored, &c, &f, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "not a bundle header"));
	unlink(path);
	cf_err_clear(&e);
	assert_int_equal(bundle_read_stored_header(path, check_stored, &c, &f, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "cannot read"));
	assert_int_equal(c.checked, 0);
	free(path);
}

/* The split parts as the reader finds them: in order, up to the first missing one. */
static void test_split_parts_listed(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	size_t cuts[] = { 40, 200 };
	char *path = fixture_split(fx, "p.bundle", cuts, 3);
	struct bundle_parts parts;
	assert_int_equal(bundle_split_parts(path, &parts, &e), CF_OK);
	assert_int_equal(parts.count, 3);
	assert_non_null(strstr(parts.stem, "/p.bundle"));
	assert_non_null(strstr(parts.paths[2], "/p.bundle.003"));
	assert_int_equal(parts.sizes[0] + parts.sizes[1] + parts.sizes[2],
			 fx->frame_len + fx->payload_len);
	bundle_parts_free(&parts);
	char *missing = fixture_path(fx, "q.bundle.001");
	assert_int_equal(bundle_split_parts(missing, &parts, &e), CF_USAGE);
	assert_int_equal(parts.count, 0);
	free(missing);
	free(path);
}

/* ---- a name swapped between bundle_open's look at it and its open ----
 * The seam: this test links with -Wl,--wrap=platform_open (TEST_LIBS_test_reader), so the
 * reader's open of swap_path goes through here, where swap() replaces the file first: exactly
 * between the lstat that found a regular file and the open, every time, with no timing. */
int __real_platform_open(const char *path, int flags, unsigned mode);
static const char *swap_path;
static void (*swap)(const char *path);

int __wrap_platform_open(const char *path, int flags, unsigned mode);
int __wrap_platform_open(const char *path, int flags, unsigned mode)
{
	if (swap_path && strcmp(path, swap_path) == 0) {
		swap_path = NULL;
		swap(path);
	}
	return __real_platform_open(path, flags, mode);
}

static char *swap_target; /* what a swapped-in link points at */

static void swap_in_link(const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(swap_target, path), 0);
}

static void swap_in_fifo(const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
}

/* A link swapped in, to a bundle of the same size: not followed (the open refuses it), so a
 * link to a device whose opening acts (/dev/watchdog) is never opened either. */
static void test_link_swapped_in_before_the_open(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	struct bundle_input *b = NULL;
	char *path = fixture_plain(fx, "a.bundle", NULL);
	swap_target = fixture_plain(fx, "elsewhere.bundle", NULL);
	swap_path = path, swap = swap_in_link;
	assert_int_equal(bundle_open(path, &b, &e), CF_USAGE);
	assert_null(swap_path); /* the swap happened */
	assert_null(b);
	assert_non_null(strstr(e.msg, "a.bundle: "));
	free(swap_target);
	free(path);
}

/* A FIFO swapped in for the file: opened without waiting for a writer, and refused by the
 * re-check through the handle, never read as a bundle. */
static void test_fifo_swapped_in_before_the_open(void **state)
{
	struct fixture *fx = *state;
	struct cf_err e = { 0 };
	struct bundle_input *b = NULL;
	char *path = fixture_plain(fx, "a.bundle", NULL);
	swap_path = path, swap = swap_in_fifo;
	assert_int_equal(bundle_open(path, &b, &e), CF_USAGE);
	assert_null(swap_path);
	assert_null(b);
	assert_non_null(strstr(e.msg, "changed while it was opened"));
	free(path);
}

/* every case gets a fresh fixture of the sample payload in its own scratch directory */
#define WITH_FIXTURE(t) cmocka_unit_test_setup_teardown(t, fixture_setup, fixture_teardown)

int main(void)
{
	fill_sample();
	const struct CMUnitTest tests[] = {
		WITH_FIXTURE(test_plain),
		WITH_FIXTURE(test_trailing_bytes_after_the_payload),
		WITH_FIXTURE(test_chunk_hash_mismatch),
		WITH_FIXTURE(test_truncated_payload),
		WITH_FIXTURE(test_not_a_bundle),
		WITH_FIXTURE(test_split_parts),
		WITH_FIXTURE(test_split_parts_checked),
		WITH_FIXTURE(test_split_missing_part),
		WITH_FIXTURE(test_split_short_part),
		WITH_FIXTURE(test_run),
		WITH_FIXTURE(test_run_bad_trailer),
		WITH_FIXTURE(test_verified_open_order),
		WITH_FIXTURE(test_unverified_reader_is_not_walked),
		WITH_FIXTURE(test_stored_header_checked_first),
		WITH_FIXTURE(test_split_parts_listed),
		WITH_FIXTURE(test_link_swapped_in_before_the_open),
		WITH_FIXTURE(test_fifo_swapped_in_before_the_open),
	};
	return cmocka_run_group_tests_name("reader", tests, NULL, NULL);
}
