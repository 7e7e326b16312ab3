/* test_payload.c - the payload walk (common/bundle/payload.h): a real zstd tar made at run
 * time, checked entry by entry against the signed entry list; the sink sees only entries
 * that are listed, in order, and hears the end of a file only once its size and hash match */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>

#include "tests/unit/bundle_fixture.h"
#include "common/bundle/payload.h"

struct tar_item {
	const char *path;
	int type; /* MF_FILE or MF_SYMLINK */
	unsigned mode;
	const char *data; /* files; symlinks: the target */
};

/* A pax tar compressed with zstd, as the bundler makes it. Caller frees. */
static uint8_t *make_tar_zst(const struct tar_item *items, size_t n, size_t *len)
{
	size_t cap = 1 << 20;
	uint8_t *buf = xmalloc(cap);
	struct archive *a = archive_write_new();
	assert_int_equal(archive_write_add_filter_zstd(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, buf, cap, len), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *ent = archive_entry_new();
		archive_entry_set_pathname(ent, items[i].path);
		if (items[i].type == MF_SYMLINK) {
			archive_entry_set_filetype(ent, AE_IFLNK);
			archive_entry_set_perm(ent, 0777);
			archive_entry_set_symlink(ent, items[i].data);
		} else {
			archive_entry_set_filetype(ent, AE_IFREG);
			archive_entry_set_perm(ent, items[i].mode);
			archive_entry_set_size(ent, (la_int64_t)strlen(items[i].data));
		}
		assert_int_equal(archive_write_header(a, ent), ARCHIVE_OK);
		if (items[i].type == MF_FILE)
			archive_write_data(a, items[i].data, strlen(items[i].data));
		archive_entry_free(ent);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	return buf;
}

/* The signed list that matches items (sorted input: the payload's order). */
static void list_of(const struct tar_item *items, size_t n, struct manifest_file *files)
{
	memset(files, 0, n * sizeof(*files));
	for (size_t i = 0; i < n; i++) {
		files[i].path = (char *)items[i].path;
		files[i].type = items[i].type;
		if (items[i].type == MF_SYMLINK) {
			files[i].target = (char *)items[i].data;
			continue;
		}
		files[i].mode = items[i].mode;
		files[i].size = strlen(items[i].data);
		sha256_buf(items[i].data, strlen(items[i].data), files[i].sha256);
	}
}

struct seen {
	char paths[16][64];
	size_t begun, ended;
	size_t bytes;
};

static int sink_begin(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct seen *s = ctx;
	assert_true(s->begun < 16);
	snprintf(s->paths[s->begun++], sizeof(s->paths[0]), "%s", f->path);
	return CF_OK;
}

static int sink_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	struct seen *s = ctx;
	s->bytes += len;
	return CF_OK;
}

static int sink_end(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct seen *s = ctx;
	s->ended++;
	return CF_OK;
}

/* Write the tar of items as a bundle and walk it against files. */
static int walk(const struct tar_item *items, size_t nitems, const struct manifest_file *files,
		size_t nfiles, struct seen *seen, struct cf_err *e)
{
	size_t len;
	uint8_t *tar = make_tar_zst(items, nitems, &len);
	struct fixture fx;
	fixture_init(&fx, tar, len);
	free(tar);
	char *path = fixture_plain(&fx, "p.bundle", NULL);
	struct bundle_input *b;
	assert_int_equal(bundle_open(path, &b, e), CF_OK);
	assert_int_equal(bundle_read_frame(b, e), CF_OK);
	struct bundle_contents c = { .files = files, .nfiles = nfiles, .plan = fixture_plan(&fx) };
	struct payload_sink sink = { sink_begin, sink_data, sink_end, seen };
	memset(seen, 0, sizeof(*seen));
	int rc = payload_walk(b, &c, &sink, NULL, e);
	bundle_close(b);
	free(path);
	fixture_free(&fx);
	return rc;
}

static const struct tar_item good[] = {
	{ "include/cudnn.h", MF_FILE, 0644, "#define CUDNN_MAJOR 9\n" },
	{ "lib/libcudnn.so", MF_SYMLINK, 0, "libcudnn.so.9" },
	{ "lib/libcudnn.so.9", MF_FILE, 0755, "not really a library, but bytes all the same" },
};
#define NGOOD (sizeof(good) / sizeof(good[0]))

static void test_exact_payload(void **state)
{
	(void)state;
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	list_of(good, NGOOD, files);
	assert_int_equal(walk(good, NGOOD, files, NGOOD, &s, &e), CF_OK);
	assert_int_equal(s.begun, 3);
	assert_int_equal(s.ended, 3);
	assert_string_equal(s.paths[1], "lib/libcudnn.so");
	assert_int_equal(s.bytes, strlen(good[0].data) + strlen(good[2].data));
}

static void test_entry_not_in_the_manifest(void **state)
{
	(void)state;
	struct tar_item items[NGOOD + 1];
	memcpy(items, good, sizeof(good));
	items[NGOOD] = (struct tar_item){ "lib/zz-extra.so", MF_FILE, 0644, "extra" };
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	list_of(good, NGOOD, files);
	assert_int_equal(walk(items, NGOOD + 1, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_string_equal(e.msg, "entry 'lib/zz-extra.so': not listed in the signed manifest");
	assert_int_equal(s.begun, 3); /* the extra entry never reached the sink */
}

static void test_unsafe_paths(void **state)
{
	(void)state;
	static const char *const unsafe[] = { "../escape", "/etc/passwd", "include/../../x" };
	for (size_t i = 0; i < 3; i++) {
		struct tar_item items[NGOOD];
		memcpy(items, good, sizeof(good));
		items[0].path = unsafe[i]; /* the manifest still lists include/cudnn.h */
		struct manifest_file files[NGOOD];
		struct seen s;
		struct cf_err e = { 0 };
		list_of(good, NGOOD, files);
		assert_int_equal(walk(items, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
		assert_non_null(strstr(e.msg, "not listed in the signed manifest"));
		assert_int_equal(s.begun, 0);
	}
}

static void test_missing_entry(void **state)
{
	(void)state;
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	list_of(good, NGOOD, files);
	/* the payload ends before the last listed file */
	assert_int_equal(walk(good, NGOOD - 1, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_string_equal(e.msg, "entry 'lib/libcudnn.so.9': missing from the payload");
	/* one in the middle is left out */
	const struct tar_item gap[] = { good[0], good[2] };
	cf_err_clear(&e);
	assert_int_equal(walk(gap, 2, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "missing from the payload (or out of order)"));
}

static void test_size_mismatch(void **state)
{
	(void)state;
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	list_of(good, NGOOD, files);
	files[2].size++;
	assert_int_equal(walk(good, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_string_equal(e.msg, "entry 'lib/libcudnn.so.9': size differs from the manifest");
	assert_int_equal(s.ended, 2); /* the file of the wrong size never ended well */
}

static void test_hash_mismatch(void **state)
{
	(void)state;
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	list_of(good, NGOOD, files);
	files[0].sha256[31] ^= 1;
	assert_int_equal(walk(good, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_string_equal(e.msg, "entry 'include/cudnn.h': SHA-256 differs from the signed "
			    "manifest");
	assert_int_equal(s.ended, 0);
}

static void test_type_mode_and_target(void **state)
{
	(void)state;
	struct manifest_file files[NGOOD];
	struct seen s;
	struct cf_err e = { 0 };
	struct tar_item items[NGOOD];
	memcpy(items, good, sizeof(good));
	items[2].mode = 04755; /* set-id bits */
	list_of(good, NGOOD, files);
	assert_int_equal(walk(items, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "mode differs from the manifest"));
	memcpy(items, good, sizeof(good));
	items[1].data = "../../etc/shadow";
	cf_err_clear(&e);
	assert_int_equal(walk(items, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_string_equal(e.msg, "entry 'lib/libcudnn.so': symlink target differs from the "
			    "manifest");
	memcpy(items, good, sizeof(good));
	items[1] = (struct tar_item){ "lib/libcudnn.so", MF_FILE, 0644, "x" };
	cf_err_clear(&e);
	assert_int_equal(walk(items, NGOOD, files, NGOOD, &s, &e), CF_INTEGRITY);
	assert_non_null(strstr(e.msg, "manifest says symlink"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_payload),
		cmocka_unit_test(test_entry_not_in_the_manifest),
		cmocka_unit_test(test_unsafe_paths),
		cmocka_unit_test(test_missing_entry),
		cmocka_unit_test(test_size_mismatch),
		cmocka_unit_test(test_hash_mismatch),
		cmocka_unit_test(test_type_mode_and_target),
	};
	return cmocka_run_group_tests_name("payload", tests, NULL, NULL);
}
