/* test_platform.c - the platform interface on this system: child processes (environment,
 * capture, exit, crash, deadline), the no-follow staging tree, run-time loaded libraries,
 * locks and links */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/platform.h"

static char *sh_argv[4] = { "sh", "-c", NULL, NULL };

static void run_sh(const char *script, char *const envp[], enum platform_capture capture,
		   int timeout_s, struct platform_child *c)
{
	sh_argv[2] = (char *)script;
	assert_int_equal(platform_run("/bin/sh", sh_argv, envp, capture, timeout_s, c), 0);
}

static void test_run_captures_output_and_exit_code(void **state)
{
	(void)state;
	char *const envp[] = { "GREETING=hello", NULL };
	struct platform_child c;
	run_sh("echo out; echo err >&2; echo \"$GREETING\"; exit 3", envp, PLATFORM_CAPTURE_ALL, 0, &c);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 3);
	assert_false(c.timed_out);
	assert_string_equal(c.output, "out\nerr\nhello\n");
	assert_int_equal(c.output_len, strlen("out\nerr\nhello\n"));
	free(c.output);

	run_sh("echo out; echo err >&2", envp, PLATFORM_CAPTURE_STDOUT, 0, &c);
	assert_string_equal(c.output, "out\n");
	free(c.output);

	run_sh("exit 0", envp, PLATFORM_CAPTURE_NONE, 0, &c);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 0);
	assert_null(c.output);
}

static void test_run_passes_only_the_given_environment(void **state)
{
	(void)state;
	char *const argv[] = { "env", NULL }, *const envp[] = { "ONLY=this", NULL };
	struct platform_child c;
	setenv("CUFERRY_MUST_NOT_LEAK", "1", 1);
	assert_int_equal(platform_run("/usr/bin/env", argv, envp, PLATFORM_CAPTURE_STDOUT, 10, &c), 0);
	assert_string_equal(c.output, "ONLY=this\n");
	free(c.output);
	unsetenv("CUFERRY_MUST_NOT_LEAK");
}

static void test_run_names_a_crash(void **state)
{
	(void)state;
	char *const envp[] = { NULL };
	struct platform_child c;
	run_sh("echo before; kill -SEGV $$", envp, PLATFORM_CAPTURE_ALL, 10, &c);
	assert_false(c.exited);
	assert_false(c.timed_out);
	assert_non_null(strstr(c.crash, "signal 11"));
	assert_string_equal(c.output, "before\n");
	free(c.output);
}

static void test_run_kills_at_the_deadline(void **state)
{
	(void)state;
	char *const envp[] = { NULL };
	struct platform_child c;
	/* Still writing nothing: caught while collecting output. */
	run_sh("exec sleep 30", envp, PLATFORM_CAPTURE_ALL, 1, &c);
	assert_true(c.timed_out);
	assert_false(c.exited);
	/* Output closed early, then still running: caught while waiting. */
	run_sh("exec >&- 2>&-; exec sleep 30", envp, PLATFORM_CAPTURE_ALL, 1, &c);
	assert_true(c.timed_out);
	/* Nothing captured at all. */
	run_sh("exec sleep 30", envp, PLATFORM_CAPTURE_NONE, 1, &c);
	assert_true(c.timed_out);
}

static void test_run_of_a_missing_program(void **state)
{
	(void)state;
	char *const argv[] = { "nope", NULL }, *const envp[] = { NULL };
	struct platform_child c;
	assert_int_equal(platform_run("/nonexistent/nope", argv, envp, PLATFORM_CAPTURE_ALL, 5, &c), 0);
	assert_true(c.exited);
	assert_int_equal(c.exit_code, 127);
}

static char *scratch(void)
{
	char *dir = xasprintf("%s/cuferry-platform-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_int_equal(platform_private_dir(dir), 0);
	return dir;
}

static unsigned mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static void test_tree_writes_without_following_links(void **state)
{
	(void)state;
	char *root = scratch(), *outside = scratch();
	assert_int_equal(mode_of(root), 0700);
	int tree = platform_tree_open(root);
	assert_true(tree >= 0);

	int fd = platform_tree_create_file(tree, "lib/sub/file.so");
	assert_true(fd >= 0);
	assert_int_equal(io_write_all(fd, "abc", 3), 0);
	assert_int_equal(platform_file_finish(fd, 0640), 0);
	char *path = xasprintf("%s/lib/sub/file.so", root);
	assert_int_equal(mode_of(path), 0640);
	free(path);

	/* A taken name is EEXIST, whatever holds it. */
	assert_int_equal(platform_tree_create_file(tree, "lib/sub/file.so"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(platform_tree_symlink(tree, "lib/link", outside), 0);
	assert_int_equal(platform_tree_create_file(tree, "lib/link"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(platform_tree_symlink(tree, "lib/link", "elsewhere"), -1);
	assert_int_equal(errno, EEXIST);

	/* A link as a parent directory is never followed: nothing lands outside. */
	assert_int_equal(platform_tree_create_file(tree, "lib/link/escaped"), -1);
	assert_int_equal(platform_tree_symlink(tree, "lib/link/escaped", "x"), -1);
	assert_int_equal(platform_tree_mkdir(tree, "lib/link/escaped"), -1);
	char *escaped = xasprintf("%s/escaped", outside);
	assert_false(io_exists(escaped));
	free(escaped);

	assert_int_equal(platform_tree_mkdir(tree, ".meta"), 0);
	assert_int_equal(platform_tree_mkdir(tree, ".meta"), -1);
	assert_int_equal(errno, EEXIST);

	assert_int_equal(platform_tree_commit(tree), 0);
	assert_int_equal(mode_of(root), 0755);
	platform_tree_close(tree);
	char *const argv[] = { "rm", "-rf", root, outside, NULL }, *const envp[] = { NULL };
	struct platform_child c;
	assert_int_equal(platform_run("/bin/rm", argv, envp, PLATFORM_CAPTURE_NONE, 30, &c), 0);
	free(root);
	free(outside);
}

static void find_libz(const char *path, void *ctx)
{
	if (strstr(path, "libz.so"))
		*(int *)ctx = 1;
}

static void find_anl(const char *path, void *ctx)
{
	if (strstr(path, "libanl.so"))
		*(int *)ctx = 1;
}

static void test_libraries_load_by_name_and_path(void **state)
{
	(void)state;
	void *z = platform_lib_open("libz.so.1", PLATFORM_LIB_NOW);
	assert_non_null(z);
	assert_non_null(platform_lib_symbol(z, "zlibVersion"));
	assert_null(platform_lib_symbol(z, "no_such_symbol_here"));
	char path[PATH_MAX];
	assert_int_equal(platform_lib_path(z, path, sizeof(path)), 0);
	assert_true(path[0] == '/');
	assert_non_null(strstr(path, "libz.so.1"));
	/* By its absolute path, the same library. */
	assert_true(platform_lib_open(path, PLATFORM_LIB_LAZY) == z);
	int seen = 0;
	platform_loaded_libs(find_libz, &seen);
	assert_true(seen);

	assert_null(platform_lib_open("/nonexistent/libnothing.so", PLATFORM_LIB_NOW));
	assert_non_null(strstr(platform_lib_error(), "libnothing"));
}

/* A library opened and closed again while watched is seen, though nothing shows it after. */
static void test_watch_sees_a_library_that_came_and_went(void **state)
{
	(void)state;
	struct platform_lib_watch *w = platform_lib_watch_start("libanl.so");
	assert_non_null(w);
	void *lib = platform_lib_open("libanl.so.1", PLATFORM_LIB_NOW);
	assert_non_null(lib);
	const struct timespec hold = { 0, 20 * 1000 * 1000 };
	nanosleep(&hold, NULL);
	assert_int_equal(dlclose(lib), 0);
	int seen = 0;
	platform_loaded_libs(find_anl, &seen);
	assert_false(seen); /* gone again: only the watch can tell */
	char path[PATH_MAX];
	assert_int_equal(platform_lib_watch_end(w, path, sizeof(path)), 0);
	assert_non_null(strstr(path, "libanl.so"));

	w = platform_lib_watch_start("libnot-a-library-anyone-loads");
	assert_int_equal(platform_lib_watch_end(w, path, sizeof(path)), -1);
}

static void test_process_facts(void **state)
{
	(void)state;
	assert_true(platform_cpu_count() >= 1);
	assert_int_equal(platform_process_id(), (long)getpid());
	const char *self = platform_self_path();
	assert_non_null(self);
	assert_true(self[0] == '/');
	assert_non_null(strstr(self, "test_platform"));
}

static void test_lock_and_switch_link(void **state)
{
	(void)state;
	char *dir = scratch(), *lockfile = xasprintf("%s/lock", dir), *link = xasprintf("%s/current", dir);
	int first, second;
	assert_int_equal(platform_lock(lockfile, &first), 0);
	assert_int_equal(platform_lock(lockfile, &second), 1);
	platform_unlock(first);
	assert_int_equal(platform_lock(lockfile, &second), 0);
	platform_unlock(second);

	char target[64];
	assert_int_equal(platform_switch_link(link, "a"), 0);
	assert_int_equal(platform_switch_link(link, "b"), 0);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	assert_int_equal(n, 1);
	assert_int_equal(target[0], 'b');
	char *const argv[] = { "rm", "-rf", dir, NULL }, *const envp[] = { NULL };
	struct platform_child c;
	assert_int_equal(platform_run("/bin/rm", argv, envp, PLATFORM_CAPTURE_NONE, 30, &c), 0);
	free(dir);
	free(lockfile);
	free(link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_captures_output_and_exit_code),
		cmocka_unit_test(test_run_passes_only_the_given_environment),
		cmocka_unit_test(test_run_names_a_crash),
		cmocka_unit_test(test_run_kills_at_the_deadline),
		cmocka_unit_test(test_run_of_a_missing_program),
		cmocka_unit_test(test_tree_writes_without_following_links),
		cmocka_unit_test(test_libraries_load_by_name_and_path),
		cmocka_unit_test(test_watch_sees_a_library_that_came_and_went),
		cmocka_unit_test(test_process_facts),
		cmocka_unit_test(test_lock_and_switch_link),
	};
	return cmocka_run_group_tests_name("platform", tests, NULL, NULL);
}
