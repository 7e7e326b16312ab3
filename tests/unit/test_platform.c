/* test_platform.c - the platform interface on this system: child processes (environment,
 * capture, exit, crash, deadline), the no-follow staging tree, run-time loaded libraries,
 * locks and links, files through handles, metadata, paths, directories, time, interrupts,
 * the probe child's pipe and handles, the privilege drop, the loader's configuration and
 * cache, and this process as the system sees it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static char *join(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void remove_scratch(char *dir)
{
	assert_int_equal(io_rmtree(dir), 0);
	assert_false(io_exists(dir));
	free(dir);
}

static void test_files_through_handles(void **state)
{
	(void)state;
	char *dir = scratch(), *file = join(dir, "f"), *link = join(dir, "l");
	int h = platform_open(file, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0600);
	assert_true(h >= 0);
	assert_true(platform_handle_valid(h));
	assert_false(platform_is_terminal(h));
	assert_int_equal(platform_write(h, "hello world", 11), 11);
	assert_int_equal(platform_set_mode(h, 0640), 0);
	assert_int_equal(platform_fsync(h), 0);
	struct platform_stat st;
	assert_int_equal(platform_fstat(h, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_FILE);
	assert_int_equal(st.size, 11);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(st.owner, (unsigned long)geteuid());
	assert_int_equal(platform_close(h), 0);
	assert_false(platform_handle_valid(h));
	/* EXCL: the name is taken */
	assert_int_equal(platform_open(file, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0600), -1);
	assert_int_equal(errno, EEXIST);

	h = platform_open(file, PLATFORM_OPEN_READ, 0);
	char buf[16] = "";
	assert_int_equal(platform_pread(h, buf, 5, 6), 5);
	assert_memory_equal(buf, "world", 5);
	assert_int_equal(platform_pread(h, buf, sizeof(buf), 6), 5); /* short at the end */
	assert_int_equal(platform_read(h, buf, 5), 5); /* pread did not move the position */
	assert_memory_equal(buf, "hello", 5);
	platform_close(h);

	/* A link as the last component: followed by default, refused with NOFOLLOW. */
	assert_int_equal(symlink("f", link), 0);
	h = platform_open(link, PLATFORM_OPEN_READ, 0);
	assert_true(h >= 0);
	platform_close(h);
	assert_int_equal(platform_open(link, PLATFORM_OPEN_READ | PLATFORM_OPEN_NOFOLLOW, 0), -1);
	assert_int_equal(errno, ELOOP);
	struct platform_stat via_link, of_link;
	assert_int_equal(platform_stat(link, &via_link), 0);
	assert_int_equal(platform_lstat(link, &of_link), 0);
	assert_int_equal(via_link.type, PLATFORM_TYPE_FILE);
	assert_int_equal(of_link.type, PLATFORM_TYPE_LINK);
	assert_int_equal(via_link.inode, st.inode);
	assert_int_equal(via_link.device, st.device);
	assert_true(of_link.inode != st.inode);

	/* Appending and truncating */
	h = platform_open(file, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_APPEND, 0);
	assert_int_equal(platform_write(h, "!", 1), 1);
	platform_close(h);
	assert_int_equal(platform_stat(file, &st), 0);
	assert_int_equal(st.size, 12);
	h = platform_open(file, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_TRUNC, 0);
	platform_close(h);
	assert_int_equal(platform_stat(file, &st), 0);
	assert_int_equal(st.size, 0);

	/* A FIFO opened NONBLOCK does not wait for a writer, and reads do not block. */
	char *fifo = join(dir, "fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	h = platform_open(fifo, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK, 0);
	assert_true(h >= 0);
	assert_int_equal(platform_fstat(h, &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_OTHER);
	platform_close(h);
	int ends[2];
	assert_int_equal(pipe(ends), 0);
	assert_int_equal(platform_set_nonblocking(ends[0]), 0);
	assert_int_equal(platform_read(ends[0], buf, 1), -1);
	assert_int_equal(errno, EAGAIN);
	close(ends[0]);
	close(ends[1]);

	/* A directory opened for fsync */
	h = platform_open(dir, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	assert_true(h >= 0);
	assert_int_equal(platform_fsync(h), 0);
	platform_close(h);
	assert_int_equal(platform_open(file, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0), -1);

	/* Temporary files: fresh names, this user's only */
	char *t1 = join(dir, "tmp.XXXXXX"), *t2 = join(dir, "tmp.XXXXXX");
	int a = platform_temp_file(t1), b = platform_temp_file(t2);
	assert_true(a >= 0 && b >= 0);
	assert_string_not_equal(t1, t2);
	assert_int_equal(platform_fstat(a, &st), 0);
	assert_int_equal(st.mode, 0600);
	platform_close(a);
	platform_close(b);
	free(t1);
	free(t2);
	free(fifo);
	free(file);
	free(link);
	remove_scratch(dir);
}

static void test_paths(void **state)
{
	(void)state;
	char *dir = scratch(), *sub = join(dir, "sub"), *moved = join(dir, "moved"), *link = join(dir, "l");
	char out[PATH_MAX], cwd[PATH_MAX];
	assert_int_equal(platform_mkdir(sub, 0700), 0);
	assert_int_equal(platform_mkdir(sub, 0700), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(platform_chmod(sub, 0750), 0);
	assert_int_equal(mode_of(sub), 0750);
	assert_int_equal(platform_access(sub, PLATFORM_CAN_EXECUTE), 0);
	assert_int_equal(platform_access(sub, PLATFORM_CAN_READ), 0);
	assert_int_equal(platform_rename(sub, moved), 0);
	assert_int_equal(platform_access(sub, PLATFORM_CAN_EXIST), -1);
	assert_int_equal(errno, ENOENT);

	/* Links: read back, resolved, too long for the buffer */
	assert_int_equal(symlink("moved/../moved", link), 0);
	assert_int_equal(platform_readlink(link, out, sizeof(out)), 14);
	assert_string_equal(out, "moved/../moved");
	char small[8];
	assert_int_equal(platform_readlink(link, small, sizeof(small)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(platform_readlink(moved, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	char real_dir[PATH_MAX];
	assert_non_null(realpath(dir, real_dir));
	assert_int_equal(platform_realpath(link, out, sizeof(out)), 0);
	char *want = join(real_dir, "moved");
	assert_string_equal(out, want);
	assert_int_equal(platform_realpath(link, small, sizeof(small)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	free(want);

	assert_int_equal(platform_current_dir(cwd, sizeof(cwd)), 0);
	assert_non_null(getcwd(out, sizeof(out)));
	assert_string_equal(cwd, out);
	assert_true(platform_name_max() >= 255);
	assert_true(platform_error_is_no_space(ENOSPC));
	assert_true(platform_error_is_no_space(EDQUOT));
	assert_false(platform_error_is_no_space(EIO));

	assert_int_equal(platform_unlink(link), 0);
	assert_int_equal(platform_unlink(link), -1);
	assert_int_equal(platform_rmdir(moved), 0);
	free(sub);
	free(moved);
	free(link);
	remove_scratch(dir);
}

static void touch(const char *dir, const char *name)
{
	char *path = join(dir, name);
	assert_int_equal(io_write_file_atomic(path, "x", 1, 0644), 0);
	free(path);
}

static int count_name(const char *name, void *ctx)
{
	assert_string_not_equal(name, ".");
	assert_string_not_equal(name, "..");
	(*(int *)ctx)++;
	return strcmp(name, "stop") == 0 ? 7 : 0;
}

struct walk_log {
	char seen[8][256];
	enum platform_file_type types[8];
	int n;
};

static int log_walk(const char *path, const struct platform_stat *st, void *ctx)
{
	struct walk_log *w = ctx;
	assert_true(w->n < 8);
	snprintf(w->seen[w->n], sizeof(w->seen[0]), "%s", strrchr(path, '/') + 1);
	w->types[w->n++] = st->type;
	return 0;
}

static int walk_index(const struct walk_log *w, const char *name)
{
	for (int i = 0; i < w->n; i++)
		if (strcmp(w->seen[i], name) == 0)
			return i;
	return -1;
}

static void collect_glob(const char *path, void *ctx)
{
	char *all = ctx;
	strcat(all, strrchr(path, '/') + 1);
	strcat(all, " ");
}

static void test_directories(void **state)
{
	(void)state;
	char *dir = scratch(), *outside = scratch(), *sub = join(dir, "sub"), *link = join(dir, "out");
	touch(outside, "precious");
	assert_int_equal(platform_mkdir(sub, 0755), 0);
	touch(dir, "b.conf");
	touch(dir, "a.conf");
	touch(sub, "deep");
	assert_int_equal(symlink(outside, link), 0);

	struct platform_dir *d = platform_dir_open(dir);
	assert_non_null(d);
	int n = 0;
	for (const char *name; (name = platform_dir_next(d)) != NULL; n++)
		assert_true(strcmp(name, ".") && strcmp(name, ".."));
	platform_dir_close(d);
	assert_int_equal(n, 4);
	assert_null(platform_dir_open(outside + 1 /* relative, not there */));
	n = 0;
	assert_int_equal(platform_dir_list(dir, count_name, &n), 0);
	assert_int_equal(n, 4);
	touch(sub, "stop");
	n = 0;
	assert_int_equal(platform_dir_list(sub, count_name, &n), 7); /* fn's value stops it */
	assert_int_equal(platform_dir_list("/nonexistent/dir", count_name, &n), -1);

	/* The walk: a directory after its contents, the link reported, not followed. */
	struct walk_log w = { .n = 0 };
	assert_int_equal(platform_walk_post(dir, log_walk, &w), 0);
	assert_int_equal(w.n, 7); /* dir, sub, deep, stop, a.conf, b.conf, out */
	assert_true(walk_index(&w, "deep") < walk_index(&w, "sub"));
	assert_int_equal(walk_index(&w, strrchr(dir, '/') + 1), 6);
	assert_int_equal(w.types[walk_index(&w, "out")], PLATFORM_TYPE_LINK);
	assert_int_equal(w.types[walk_index(&w, "sub")], PLATFORM_TYPE_DIR);
	assert_int_equal(walk_index(&w, "precious"), -1);

	char all[256] = "", *pattern = join(dir, "*.conf");
	assert_int_equal(platform_glob(pattern, 1, collect_glob, all), 2);
	assert_string_equal(all, "a.conf b.conf ");
	free(pattern);
	pattern = join(dir, "*/deep");
	all[0] = '\0';
	assert_int_equal(platform_glob(pattern, 0, collect_glob, all), 1);
	assert_string_equal(all, "deep ");
	free(pattern);
	pattern = join(dir, "*.none");
	assert_int_equal(platform_glob(pattern, 1, collect_glob, all), 0);
	free(pattern);

	/* rm -rf through the walk: the link goes, what it points at stays. */
	char *precious = join(outside, "precious");
	free(sub);
	free(link);
	remove_scratch(dir);
	assert_true(io_exists(precious));
	free(precious);
	remove_scratch(outside);
}

static void test_inside_an_open_directory(void **state)
{
	(void)state;
	char *dir = scratch(), *outside = scratch();
	int tree = platform_tree_open(dir);
	const char *name;
	int at = platform_tree_open_parent(tree, "lib/x.so", &name);
	assert_true(at >= 0);
	assert_string_equal(name, "x.so");
	int h = platform_open_at(at, "x.so.tmp", PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE |
				 PLATFORM_OPEN_EXCL, 0600);
	assert_true(h >= 0);
	assert_int_equal(platform_write(h, "abc", 3), 3);
	platform_close(h);
	assert_int_equal(platform_rename_at(at, "x.so.tmp", "x.so"), 0);
	struct platform_stat st;
	assert_int_equal(platform_stat_at(at, "x.so", &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_FILE);
	assert_int_equal(st.size, 3);
	assert_int_equal(platform_stat_at(at, "x.so.tmp", &st), -1);
	assert_int_equal(errno, ENOENT);

	/* A link inside is described and read, never followed. */
	assert_int_equal(platform_symlink_at(at, "x.so.1", outside), 0);
	assert_int_equal(platform_stat_at(at, "x.so.1", &st), 0);
	assert_int_equal(st.type, PLATFORM_TYPE_LINK);
	char target[PATH_MAX];
	assert_int_equal(platform_readlink_at(at, "x.so.1", target, sizeof(target)), (ssize_t)strlen(outside));
	assert_string_equal(target, outside);
	assert_int_equal(platform_open_at(at, "x.so.1", PLATFORM_OPEN_READ, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(platform_unlink_at(at, "x.so.1"), 0);
	assert_int_equal(platform_stat_at(at, "x.so.1", &st), -1);
	platform_close(at);
	platform_tree_close(tree);
	remove_scratch(dir);
	remove_scratch(outside);
}

static void test_utc_time(void **state)
{
	(void)state;
	int64_t t = 0;
	assert_int_equal(platform_parse_utc("2026-01-05T03:04:05Z", &t), 0);
	assert_int_equal(t, 1767582245);
	assert_int_equal(platform_parse_utc("1970-01-01T00:00:00Z", &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(platform_parse_utc("2026-01-05T03:04:05Z trailing", &t), -1);
	assert_int_equal(platform_parse_utc("2026-01-05", &t), -1);
	assert_int_equal(platform_parse_utc("", &t), -1);
	assert_int_equal(platform_parse_utc(NULL, &t), -1);
	struct tm tm;
	assert_int_equal(platform_utc_time(1767582245, &tm), 0);
	assert_int_equal(tm.tm_year, 126);
	assert_int_equal(tm.tm_mon, 0);
	assert_int_equal(tm.tm_mday, 5);
	assert_int_equal(tm.tm_hour, 3);
	assert_int_equal(tm.tm_min, 4);
	assert_int_equal(tm.tm_sec, 5);
}

static void test_clocks(void **state)
{
	(void)state;
	/* The wall clock is the C library's, read between two of its readings; the other only
	 * goes forward. */
	int64_t before = (int64_t)time(NULL);
	int64_t now = platform_time_now();
	int64_t after = (int64_t)time(NULL);
	assert_true(before <= now && now <= after);
	double first = platform_elapsed_s();
	double second = platform_elapsed_s();
	assert_true(first >= 0 && second >= first);
}

static volatile sig_atomic_t last_interrupt;

static void note_interrupt(int kind)
{
	last_interrupt = kind;
}

static void test_interrupts_and_crashes(void **state)
{
	(void)state;
	platform_on_interrupt(note_interrupt);
	raise(SIGTERM);
	assert_int_equal(last_interrupt, PLATFORM_INTERRUPT_TERM);
	raise(SIGINT);
	assert_int_equal(last_interrupt, PLATFORM_INTERRUPT_INT);
	raise(SIGHUP);
	assert_int_equal(last_interrupt, PLATFORM_INTERRUPT_HUP);
	/* The handler has no SA_RESTART: a blocked read is interrupted. */
	struct sigaction sa;
	assert_int_equal(sigaction(SIGTERM, NULL, &sa), 0);
	assert_int_equal(sa.sa_flags & SA_RESTART, 0);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);

	signal(SIGSEGV, note_interrupt);
	signal(SIGABRT, note_interrupt);
	platform_crash_default();
	assert_int_equal(sigaction(SIGSEGV, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_int_equal(sigaction(SIGABRT, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
}

static void test_child_pipe_and_handles(void **state)
{
	(void)state;
	int r, w;
	assert_int_equal(platform_child_pipe(&r, &w, 1 << 20), 0);
	assert_true(fcntl(w, F_GETFD) == 0);          /* inherited */
	assert_true(fcntl(r, F_GETFD) & FD_CLOEXEC);  /* not */
	assert_true(fcntl(r, F_GETPIPE_SZ) >= 1 << 20);
	char *script = xasprintf("echo report >&%d; [ -e /proc/self/fd/%d ] && echo leaked", w, r);
	struct platform_child c;
	char *const envp[] = { NULL };
	run_sh(script, envp, PLATFORM_CAPTURE_ALL, 10, &c);
	assert_true(c.exited);
	assert_null(c.output); /* the read end was not there */
	close(w);
	char buf[16] = "";
	assert_int_equal(io_read_full(r, buf, sizeof(buf) - 1), 7);
	assert_string_equal(buf, "report\n");
	close(r);
	free(script);
	free(c.output);

	/* In a child: every handle but the standard ones and keep is closed. */
	int keep = open("/dev/null", O_RDONLY), other = open("/dev/null", O_RDONLY);
	pid_t pid = fork();
	if (pid == 0) {
		platform_close_other_handles(keep);
		_exit(platform_handle_valid(keep) && !platform_handle_valid(other) &&
		      platform_handle_valid(2) ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(keep);
	close(other);
	assert_int_equal(platform_user_id(), (unsigned long)getuid());
}

static void test_privileges_dropped_for_good(void **state)
{
	(void)state;
	pid_t pid = fork();
	if (pid == 0) {
		char why[256] = "";
		if (platform_drop_privileges(why, sizeof(why)) != 0)
			_exit(2);
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			_exit(3);
		/* No way back to root, whoever we were. */
		_exit(getuid() != 0 && geteuid() != 0 && setuid(0) != 0 ? 0 : 4);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

struct conf_log {
	char text[512];
};

static void log_conf(const char *dir, const char *source, void *ctx)
{
	struct conf_log *l = ctx;
	size_t used = strlen(l->text);
	snprintf(l->text + used, sizeof(l->text) - used, "%s<%s ", dir, source);
}

static void write_text(const char *root, const char *name, const char *text)
{
	char *path = join(root, name);
	assert_int_equal(io_write_file_atomic(path, text, strlen(text), 0644), 0);
	free(path);
}

/* The driver line of every NVIDIA module flavour, under a root standing for a machine. */
static void test_driver_version(void **state)
{
	(void)state;
	char *root = scratch(), *dir = join(root, "proc/driver/nvidia"), v[32];
	assert_int_equal(platform_driver_version(root, v, sizeof(v)), -1); /* no driver */
	assert_int_equal(io_mkdirs(dir, 0755), 0);
	static const struct {
		const char *text, *version;
	} lines[] = {
		{ "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:14 UTC "
		  "2025\nGCC version: gcc 12.2\n", "580.65.06" },
		{ "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  "
		  "(dvs-builder@U16)\n", "550.54.15" },
		{ "NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.86.10  Wed Jan 22\n", "570.86.10" },
		/* Only the first line counts; no version there is no driver. */
		{ "NVRM version: unknown\nGCC version: gcc 12.2.0\n", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		write_text(root, "proc/driver/nvidia/version", lines[i].text);
		int rc = platform_driver_version(root, v, sizeof(v));
		assert_int_equal(rc, lines[i].version ? 0 : -1);
		if (lines[i].version)
			assert_string_equal(v, lines[i].version);
	}
	free(dir);
	remove_scratch(root);
}

static void test_loader_configuration(void **state)
{
	(void)state;
	char *root = scratch(), *etc = join(root, "etc/ld.so.conf.d"), *tree = join(root, "opt");
	assert_int_equal(io_mkdirs(etc, 0755), 0);
	assert_int_equal(io_mkdirs(tree, 0755), 0);
	/* Includes are read in byte order where they stand; comments, hwcap lines and trailing
	 * slashes go; a directory listed twice is reported twice. */
	write_text(root, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n/opt/main/ # after\n");
	write_text(root, "etc/ld.so.conf.d/b.conf", "/opt/b\nhwcap 0 nosegneg\n/opt/a\n");
	write_text(root, "etc/ld.so.conf.d/a.conf", "  /opt/a\t\n# only a comment\nrelative/ignored\n");
	write_text(root, "etc/ld.so.conf.d/skipped.txt", "/opt/never\n");
	struct conf_log l = { "" };
	platform_lib_config_dirs(root, log_conf, &l);
	assert_string_equal(l.text, "/opt/a</etc/ld.so.conf.d/a.conf /opt/b</etc/ld.so.conf.d/b.conf "
			    "/opt/a</etc/ld.so.conf.d/b.conf /opt/main</etc/ld.so.conf ");
	/* No ld.so.conf: the .conf files of ld.so.conf.d, as if included. */
	char *main_conf = join(root, "etc/ld.so.conf");
	assert_int_equal(platform_unlink(main_conf), 0);
	l.text[0] = '\0';
	platform_lib_config_dirs(root, log_conf, &l);
	assert_string_equal(l.text, "/opt/a</etc/ld.so.conf.d/a.conf /opt/b</etc/ld.so.conf.d/b.conf "
			    "/opt/a</etc/ld.so.conf.d/b.conf ");
	free(main_conf);
	free(etc);
	free(tree);
	remove_scratch(root);
}

static void count_cache_hit(const char *path, const char *flags, void *ctx)
{
	assert_true(path[0] == '/');
	assert_true(flags[0] == '(');
	(*(int *)ctx)++;
}

static void only_unversioned_libc(const char *path, const char *flags, void *ctx)
{
	(void)flags;
	(void)ctx;
	assert_null(strstr(path, "libc.so.6"));
}

static void test_loader_cache(void **state)
{
	(void)state;
	int hits = 0;
	int found = platform_lib_cache_find("libc.so.6", count_cache_hit, &hits);
	if (found < 0)
		skip(); /* no ldconfig on this system */
	assert_true(found >= 1);
	assert_int_equal(found, hits);
	hits = 0;
	assert_int_equal(platform_lib_cache_find("libcuferry-nonexistent.so.1", count_cache_hit, &hits), 0);
	assert_int_equal(hits, 0);
	/* The whole name: "libc.so" is a prefix of "libc.so.6", whose entry it must not match. */
	assert_true(platform_lib_cache_find("libc.so", only_unversioned_libc, NULL) >= 0);
	/* Found cache, so found program: by absolute path, never through PATH. */
	const char *prog = platform_lib_cache_program();
	assert_non_null(prog);
	assert_true(prog[0] == '/');
	assert_int_equal(platform_access(prog, PLATFORM_CAN_EXECUTE), 0);
}

static void test_this_process(void **state)
{
	(void)state;
	char path[PATH_MAX], started[PATH_MAX];
	uint64_t device, inode;
	assert_int_equal(platform_mapped_file((const void *)&test_this_process, path, sizeof(path),
					      &device, &inode), 0);
	assert_non_null(strstr(path, "test_platform"));
	struct platform_stat st;
	assert_int_equal(platform_stat(path, &st), 0);
	assert_int_equal(st.device, device);
	assert_int_equal(st.inode, inode);
	/* libc's code is in libc's file, not ours */
	assert_int_equal(platform_mapped_file((const void *)&strlen, path, sizeof(path), &device, &inode), 0);
	assert_null(strstr(path, "test_platform"));
	assert_int_equal(platform_started_file(started, sizeof(started)), 0);
	assert_string_equal(started, platform_self_path());
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
		cmocka_unit_test(test_files_through_handles),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_directories),
		cmocka_unit_test(test_inside_an_open_directory),
		cmocka_unit_test(test_utc_time),
		cmocka_unit_test(test_clocks),
		cmocka_unit_test(test_interrupts_and_crashes),
		cmocka_unit_test(test_child_pipe_and_handles),
		cmocka_unit_test(test_privileges_dropped_for_good),
		cmocka_unit_test(test_driver_version),
		cmocka_unit_test(test_loader_configuration),
		cmocka_unit_test(test_loader_cache),
		cmocka_unit_test(test_this_process),
	};
	return cmocka_run_group_tests_name("platform", tests, NULL, NULL);
}
