/* test_state.c - PREFIX/.cuferry/state.json (unpacker/target/state.c): a write/read round trip,
 * missing, corrupt, truncated and linked files, unknown fields, and the replay counters that
 * outlive an uninstall */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "unpacker/target/state.h"

struct fixture {
	char dir[64];
	char *path;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/cuferry-state-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->path = xasprintf("%s/state.json", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	io_rmtree(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static int fresh(void **state)
{
	struct fixture *f = *state;
	unlink(f->path);
	return 0;
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(io_write_file_atomic(path, text, strlen(text), 0644), 0);
}

static struct state_bundle bundle(const char *id, const char *dir, uint64_t counter,
				  const char *created)
{
	return (struct state_bundle){ .id = (char *)id, .dir = (char *)dir, .version = "9.19.0.56",
				      .cuda_variant = "13", .created = (char *)created,
				      .installed_at = "2026-12-01T07:00:00Z", .counter = counter };
}

static void test_missing_is_empty(void **state)
{
	struct fixture *f = *state;
	struct state s;
	struct cf_err e = { 0 };
	assert_int_equal(state_load(f->path, &s, &e), CF_OK);
	assert_null(s.current);
	assert_null(s.newest_created);
	assert_int_equal(s.nbundles, 0);
	assert_int_equal(s.nseen, 0);
	state_free(&s);
}

static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct state s = { 0 }, r;
	struct cf_err e = { 0 };
	struct state_bundle a = bundle("cudnn-9.19.0.56-cuda13-linux-x86_64", "cudnn-9.19.0.56-cuda13",
				       (1ull << 53) + 1, "2026-11-30T10:00:00Z");
	struct state_bundle b = bundle("cudnn-9.18.0.1-cuda12-linux-x86_64", "cudnn-9.18.0.1-cuda12",
				       7, "2026-10-01T10:00:00Z");
	b.version = NULL; /* optional fields may be absent */
	b.installed_at = NULL;
	state_record(&s, &a);
	state_record(&s, &b);
	state_set_current(&s, a.dir);
	assert_int_equal(state_save(f->path, &s, &e), CF_OK);
	assert_int_equal(state_load(f->path, &r, &e), CF_OK);
	assert_string_equal(r.current, a.dir);
	assert_string_equal(r.newest_created, "2026-11-30T10:00:00Z");
	assert_int_equal(r.nbundles, 2);
	struct state_bundle *ra = state_find(&r, a.id), *rb = state_find(&r, b.dir);
	assert_non_null(ra);
	assert_non_null(rb);
	assert_string_equal(ra->dir, a.dir);
	assert_string_equal(ra->version, "9.19.0.56");
	assert_string_equal(ra->cuda_variant, "13");
	assert_string_equal(ra->created, a.created);
	assert_string_equal(ra->installed_at, a.installed_at);
	assert_true(ra->counter == (1ull << 53) + 1); /* an integer, not a double */
	assert_null(rb->version);
	assert_null(rb->installed_at);
	assert_int_equal(rb->counter, 7);
	uint64_t c;
	assert_int_equal(state_seen_counter(&r, a.id, &c), 1);
	assert_true(c == (1ull << 53) + 1);
	/* saved again unchanged: the same bytes */
	char *first, *second;
	size_t n1, n2;
	assert_int_equal(io_read_file(f->path, 1 << 20, &first, &n1), 0);
	assert_int_equal(state_save(f->path, &r, &e), CF_OK);
	assert_int_equal(io_read_file(f->path, 1 << 20, &second, &n2), 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(first, second, n1);
	struct stat st;
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	free(first);
	free(second);
	state_free(&s);
	state_free(&r);
	assert_null(r.bundles);
}

/* Anything that is not a whole state of this format is "damaged" (exit 5) and read as
 * nothing: the caller changes nothing. */
static void test_damaged(void **state)
{
	struct fixture *f = *state;
	static const char *const damaged[] = {
		"",
		"{",
		"[]",
		"null",
		"{\"format\":\"cuferry-state-2\",\"bundles\":[],\"seen\":{}}",
		"{\"bundles\":[],\"seen\":{}}",
		"{\"format\":\"cuferry-state-1\",\"seen\":{}}",
		"{\"format\":\"cuferry-state-1\",\"bundles\":{},\"seen\":{}}",
		"{\"format\":\"cuferry-state-1\",\"bundles\":[],\"seen\":[]}",
		"{\"format\":\"cuferry-state-1\",\"bundles\":[{\"dir\":\"d\",\"counter\":1}],\"seen\":{}}",
		"{\"format\":\"cuferry-state-1\",\"bundles\":[{\"id\":\"i\",\"dir\":\"d\"}],\"seen\":{}}",
		"{\"format\":\"cuferry-state-1\",\"bundles\":[{\"id\":\"i\",\"dir\":\"d\",\"counter\":\"1\"}],"
		"\"seen\":{}}",
		/* a key twice: which one would count? */
		"{\"format\":\"cuferry-state-1\",\"bundles\":[],\"seen\":{},\"seen\":{}}",
	};
	for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		struct state s;
		struct cf_err e = { 0 };
		write_text(f->path, damaged[i]);
		assert_int_equal(state_load(f->path, &s, &e), CF_INSTALL);
		assert_non_null(strstr(e.msg, "is damaged; nothing was changed"));
		assert_int_equal(s.nbundles, 0);
		assert_null(s.current);
	}
}

/* Every shorter prefix of a good state is refused, never half read. */
static void test_truncated(void **state)
{
	struct fixture *f = *state;
	struct state s = { 0 };
	struct cf_err e = { 0 };
	struct state_bundle a = bundle("id-a", "dir-a", 5, "2026-11-30T10:00:00Z");
	state_record(&s, &a);
	state_set_current(&s, "dir-a");
	assert_int_equal(state_save(f->path, &s, &e), CF_OK);
	state_free(&s);
	char *text;
	size_t len;
	assert_int_equal(io_read_file(f->path, 1 << 20, &text, &len), 0);
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	for (size_t cut = 0; cut < len; cut++) {
		assert_int_equal(io_write_file_atomic(f->path, text, cut, 0644), 0);
		cf_err_clear(&e);
		assert_int_equal(state_load(f->path, &s, &e), CF_INSTALL);
	}
	free(text);
}

/* A link (or a directory) where state.json belongs is not followed or read. */
static void test_not_a_file(void **state)
{
	struct fixture *f = *state;
	struct state s;
	struct cf_err e = { 0 };
	char *elsewhere = xasprintf("%s/elsewhere.json", f->dir);
	write_text(elsewhere, "{\"format\":\"cuferry-state-1\",\"bundles\":[],\"seen\":{}}");
	assert_int_equal(symlink(elsewhere, f->path), 0);
	assert_int_equal(state_load(f->path, &s, &e), CF_INSTALL);
	unlink(f->path);
	assert_int_equal(mkdir(f->path, 0755), 0);
	cf_err_clear(&e);
	assert_int_equal(state_load(f->path, &s, &e), CF_INSTALL);
	rmdir(f->path);
	free(elsewhere);
}

/* Fields a later version may add are ignored; a "seen" value that is not a number too. */
static void test_unknown_fields(void **state)
{
	struct fixture *f = *state;
	struct state s;
	struct cf_err e = { 0 };
	write_text(f->path,
		   "{\"format\":\"cuferry-state-1\",\"future\":{\"x\":[1,2]},\"current\":\"d\","
		   "\"bundles\":[{\"id\":\"i\",\"dir\":\"d\",\"counter\":3,\"signers\":[\"ab\"],"
		   "\"version\":9}],"
		   "\"seen\":{\"i\":4,\"other\":\"x\",\"gone\":2}}");
	assert_int_equal(state_load(f->path, &s, &e), CF_OK);
	assert_string_equal(s.current, "d");
	assert_int_equal(s.nbundles, 1);
	assert_null(s.bundles[0].version); /* a number where a string belongs: absent */
	uint64_t c;
	assert_int_equal(state_seen_counter(&s, "i", &c), 1);
	assert_int_equal(c, 4); /* what was seen is kept, though the install has 3 */
	assert_int_equal(state_seen_counter(&s, "gone", &c), 1);
	assert_int_equal(c, 2);
	assert_int_equal(state_seen_counter(&s, "other", &c), 0);
	assert_int_equal(c, 0);
	state_free(&s);
}

/* The highest counter per bundle id only rises, and outlives the uninstall. */
static void test_counter(void **state)
{
	struct fixture *f = *state;
	struct state s = { 0 };
	struct cf_err e = { 0 };
	uint64_t c = 99;
	assert_int_equal(state_seen_counter(&s, "x", &c), 0);
	assert_int_equal(c, 0);
	struct state_bundle a = bundle("x", "dir-x", 10, "2026-11-30T10:00:00Z");
	state_record(&s, &a);
	a.counter = 4; /* an older build recorded again (--allow-downgrade): the seen stays 10 */
	state_record(&s, &a);
	assert_int_equal(s.nbundles, 1); /* one entry per directory */
	assert_int_equal(state_find(&s, "dir-x")->counter, 4);
	assert_int_equal(state_seen_counter(&s, "x", &c), 1);
	assert_int_equal(c, 10);
	a.counter = 12;
	state_record(&s, &a);
	assert_int_equal(state_seen_counter(&s, "x", &c), 1);
	assert_int_equal(c, 12);
	state_set_current(&s, "dir-x");
	state_remove(&s, "dir-x");
	state_set_current(&s, NULL);
	state_remove(&s, "nosuch"); /* nothing to remove: nothing changes */
	assert_int_equal(s.nbundles, 0);
	assert_null(state_find(&s, "x"));
	assert_int_equal(state_save(f->path, &s, &e), CF_OK);
	state_free(&s);
	assert_int_equal(state_load(f->path, &s, &e), CF_OK);
	assert_null(s.current);
	assert_int_equal(state_seen_counter(&s, "x", &c), 1);
	assert_int_equal(c, 12);
	state_free(&s);
}

/* newest_created is the latest time, compared as times: a later install of an older build
 * does not move it back. */
static void test_newest_created(void **state)
{
	(void)state;
	struct state s = { 0 };
	struct state_bundle a = bundle("a", "dir-a", 1, "2026-11-30T10:00:00Z");
	struct state_bundle b = bundle("b", "dir-b", 1, "2026-01-05T10:00:00Z");
	struct state_bundle c = bundle("c", "dir-c", 1, "2026-12-01T00:00:00Z");
	state_record(&s, &a);
	state_record(&s, &b);
	assert_string_equal(s.newest_created, "2026-11-30T10:00:00Z");
	state_record(&s, &c);
	assert_string_equal(s.newest_created, "2026-12-01T00:00:00Z");
	state_free(&s);
}

static void test_save_fails_cleanly(void **state)
{
	struct fixture *f = *state;
	struct state s = { 0 };
	struct cf_err e = { 0 };
	char *path = xasprintf("%s/no/such/dir/state.json", f->dir);
	assert_int_equal(state_save(path, &s, &e), CF_INSTALL);
	assert_non_null(strstr(e.msg, path));
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_missing_is_empty, fresh),
		cmocka_unit_test_setup(test_round_trip, fresh),
		cmocka_unit_test_setup(test_damaged, fresh),
		cmocka_unit_test_setup(test_truncated, fresh),
		cmocka_unit_test_setup(test_not_a_file, fresh),
		cmocka_unit_test_setup(test_unknown_fields, fresh),
		cmocka_unit_test_setup(test_counter, fresh),
		cmocka_unit_test_setup(test_newest_created, fresh),
		cmocka_unit_test_setup(test_save_fails_cleanly, fresh),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
