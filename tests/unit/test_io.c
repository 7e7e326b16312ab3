/* test_io.c - common/io.c where it is not covered end to end: io_copy_fd from several
 * threads at once (the bundler is threaded: no shared buffer), io_rmtree never following a
 * link, io_remove_file, io_mkdirs_noting naming only what it made, and memfind, the portable
 * memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/memfind.h"
#include "common/platform.h"

enum { COPY_LEN = 3 << 20, THREADS = 4 };

struct copy_job {
	int in, out;
	unsigned char fill;
	int rc;
};

static void *copy_main(void *ctx)
{
	struct copy_job *j = ctx;
	j->rc = io_copy_fd(j->in, j->out, UINT64_MAX);
	return NULL;
}

static char *scratch(void)
{
	char *dir = xasprintf("%s/cuferry-io-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_int_equal(platform_private_dir(dir), 0);
	return dir;
}

static void test_copy_fd_from_threads_at_once(void **state)
{
	(void)state;
	char *dir = scratch();
	struct copy_job jobs[THREADS];
	pthread_t threads[THREADS];
	unsigned char *data = xmalloc(COPY_LEN);
	for (int i = 0; i < THREADS; i++) {
		char *in = xasprintf("%s/in%d", dir, i), *out = xasprintf("%s/out%d", dir, i);
		memset(data, 'a' + i, COPY_LEN);
		assert_int_equal(io_write_file_atomic(in, data, COPY_LEN, 0600), 0);
		jobs[i] = (struct copy_job){ platform_open(in, PLATFORM_OPEN_READ, 0),
					     platform_open(out, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE, 0600),
					     (unsigned char)('a' + i), -1 };
		assert_true(jobs[i].in >= 0 && jobs[i].out >= 0);
		free(in);
		free(out);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, copy_main, &jobs[i]), 0);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(jobs[i].rc, 0);
		platform_close(jobs[i].in);
		platform_close(jobs[i].out);
		/* Each output holds its own input's bytes only. */
		char *out = xasprintf("%s/out%d", dir, i), *text;
		size_t len;
		assert_int_equal(io_read_file(out, COPY_LEN, &text, &len), 0);
		assert_int_equal(len, COPY_LEN);
		memset(data, jobs[i].fill, COPY_LEN);
		assert_memory_equal(text, data, COPY_LEN);
		free(text);
		free(out);
	}
	free(data);
	assert_int_equal(io_rmtree(dir), 0);
	free(dir);
}

static void test_copy_fd_of_a_length(void **state)
{
	(void)state;
	char *dir = scratch(), *in = xasprintf("%s/in", dir), *out = xasprintf("%s/out", dir);
	assert_int_equal(io_write_file_atomic(in, "0123456789", 10, 0600), 0);
	int from = platform_open(in, PLATFORM_OPEN_READ, 0);
	int to = platform_open(out, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE, 0600);
	assert_int_equal(io_copy_fd(from, to, 4), 0);
	assert_int_equal(io_copy_fd(from, to, 100), -1); /* only 6 left: a short source is EIO */
	assert_int_equal(errno, EIO);
	platform_close(from);
	platform_close(to);
	char *text;
	assert_int_equal(io_read_file(out, 100, &text, NULL), 0);
	assert_string_equal(text, "0123456789");
	free(text);
	free(in);
	free(out);
	assert_int_equal(io_rmtree(dir), 0);
	free(dir);
}

static void test_rmtree_does_not_follow_links(void **state)
{
	(void)state;
	char *dir = scratch(), *outside = scratch();
	char *keep = xasprintf("%s/keep", outside), *deep = xasprintf("%s/a/b/c", dir);
	char *link = xasprintf("%s/a/link", dir);
	assert_int_equal(io_write_file_atomic(keep, "k", 1, 0600), 0);
	assert_int_equal(io_mkdirs(deep, 0700), 0);
	assert_int_equal(symlink(outside, link), 0);
	assert_int_equal(io_rmtree(dir), 0);
	assert_false(io_exists(dir));
	assert_true(io_exists(keep));
	assert_int_equal(io_rmtree(dir), 0); /* missing is fine */
	assert_int_equal(io_rmtree(outside), 0);
	free(keep);
	free(deep);
	free(link);
	free(dir);
	free(outside);
}

struct made_list {
	char *dirs[4];
	int n;
};

static void note_dir(const char *dir, void *ctx)
{
	struct made_list *m = ctx;
	assert_true(m->n < 4);
	m->dirs[m->n++] = xstrdup(dir);
}

static void made_list_free(struct made_list *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->dirs[i]);
	m->n = 0;
}

/* What a failed bundler run takes back: the directories this call made, outermost first;
 * never one that was there before, nor one reached through "..". */
static void test_mkdirs_noting_names_only_what_it_made(void **state)
{
	(void)state;
	char *dir = scratch(), *deep = xasprintf("%s/x/y", dir), *twisty = xasprintf("%s/n/../x/z", dir);
	struct made_list m = { 0 };
	assert_int_equal(io_mkdirs_noting(deep, 0755, note_dir, &m), 0);
	assert_int_equal(m.n, 2);
	char *x = xasprintf("%s/x", dir), *n = xasprintf("%s/n", dir);
	assert_string_equal(m.dirs[0], x);
	assert_string_equal(m.dirs[1], deep);
	made_list_free(&m);
	assert_int_equal(io_mkdirs_noting(deep, 0755, note_dir, &m), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(io_mkdirs_noting(twisty, 0755, note_dir, &m), 0);
	assert_int_equal(m.n, 2); /* n and z; n/.. and n/../x were there */
	assert_string_equal(m.dirs[0], n);
	assert_string_equal(m.dirs[1], twisty);
	made_list_free(&m);
	assert_int_equal(io_rmtree(dir), 0);
	free(x);
	free(n);
	free(twisty);
	free(deep);
	free(dir);
}

static void test_remove_file(void **state)
{
	(void)state;
	char *dir = scratch(), *outside = scratch();
	char *file = xasprintf("%s/f", dir), *link = xasprintf("%s/link", dir);
	assert_int_equal(io_write_file_atomic(file, "f", 1, 0600), 0);
	assert_int_equal(symlink(outside, link), 0);
	assert_int_equal(io_remove_file(file), 0);
	assert_false(io_exists(file));
	assert_int_equal(io_remove_file(file), 0); /* already gone is fine */
	assert_int_equal(io_remove_file(link), 0); /* the link goes, never what it names */
	assert_false(io_exists(link));
	assert_true(io_is_dir(outside));
	assert_int_not_equal(io_remove_file(dir), 0); /* a directory is not a file */
	assert_true(io_is_dir(dir));
	assert_int_equal(io_rmtree(dir), 0);
	assert_int_equal(io_rmtree(outside), 0);
	free(file);
	free(link);
	free(dir);
	free(outside);
}

static void test_read_file_to_its_end(void **state)
{
	(void)state;
	char *text;
	size_t len;
	/* /proc files report size 0 and still have content. */
	assert_int_equal(io_read_file("/proc/self/status", 1 << 20, &text, &len), 0);
	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "Name:"));
	free(text);
	assert_int_equal(io_read_file("/proc/self/status", 8, &text, &len), -2);

	char *dir = scratch(), *path = xasprintf("%s/f", dir);
	assert_int_equal(io_write_file_atomic(path, "12345678", 8, 0600), 0);
	assert_int_equal(io_read_file(path, 8, &text, &len), 0);
	assert_int_equal(len, 8);
	assert_string_equal(text, "12345678");
	free(text);
	assert_int_equal(io_read_file(path, 7, &text, &len), -2);
	assert_int_equal(io_read_file(dir, 100, &text, &len), -1); /* not a regular file */
	assert_int_equal(errno, EINVAL);
	free(path);
	assert_int_equal(io_rmtree(dir), 0);
	free(dir);
}

static void test_memfind(void **state)
{
	(void)state;
	static const char hay[] = "-----BEGIN PUBLIC KEY-----\nabc\n-----END";
	size_t len = sizeof(hay) - 1;
	assert_ptr_equal(memfind(hay, len, "-----BEGIN", 10), hay);
	assert_ptr_equal(memfind(hay, len, "-----END", 8), hay + len - 8);
	assert_ptr_equal(memfind(hay, len, "abc", 3), strstr(hay, "abc"));
	assert_null(memfind(hay, len, "-----END!", 9)); /* would run past the end */
	assert_null(memfind(hay, 5, "---- ", 5));
	assert_ptr_equal(memfind(hay, len, "", 0), hay);
	assert_null(memfind("", 0, "a", 1));
	static const unsigned char bin[] = { 0, 1, 0, 0, 2, 0, 0, 2 };
	static const unsigned char needle[] = { 0, 0, 2 };
	assert_ptr_equal(memfind(bin, sizeof(bin), needle, sizeof(needle)), bin + 2);
	assert_ptr_equal(memfind(bin + 3, sizeof(bin) - 3, needle, sizeof(needle)), bin + 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_fd_from_threads_at_once),
		cmocka_unit_test(test_copy_fd_of_a_length),
		cmocka_unit_test(test_rmtree_does_not_follow_links),
		cmocka_unit_test(test_mkdirs_noting_names_only_what_it_made),
		cmocka_unit_test(test_remove_file),
		cmocka_unit_test(test_read_file_to_its_end),
		cmocka_unit_test(test_memfind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
