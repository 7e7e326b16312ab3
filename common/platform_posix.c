/* platform.c - POSIX implementation of the platform interface */
#include "common/platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"

const char *platform_name(void)
{
#if defined(_WIN32)
	return "windows-x86_64";
#elif defined(__aarch64__)
	return "linux-sbsa";
#else
	return "linux-x86_64";
#endif
}

int platform_is_admin(void)
{
	return geteuid() == 0;
}

int platform_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

long platform_process_id(void)
{
	return (long)getpid();
}

static char self_path[PATH_MAX];

static void find_self_path(void)
{
	if (platform_started_file(self_path, sizeof(self_path)) != 0)
		self_path[0] = '\0';
}

const char *platform_self_path(void)
{
	/* Once: validation asks from several threads, and the answer does not change. */
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, find_self_path);
	return self_path[0] ? self_path : NULL;
}

int platform_switch_link(const char *link, const char *target)
{
	char *tmp = xasprintf("%s.new-%ld", link, (long)getpid());
	unlink(tmp);
	if (symlink(target, tmp) != 0) {
		free(tmp);
		return -1;
	}
	/* rename(2) over the old link is the atomic step. */
	return io_replace(tmp, link);
}

int platform_error_is_no_space(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

int platform_free_bytes(const char *path, uint64_t *out)
{
	struct statvfs st;
	if (statvfs(path, &st) != 0)
		return -1;
	*out = (uint64_t)st.f_bavail * (uint64_t)st.f_frsize;
	return 0;
}

int platform_free_inodes(const char *path, uint64_t *out)
{
	struct statvfs st;
	if (statvfs(path, &st) != 0)
		return -1;
	/* File systems without a fixed inode table (btrfs, some network ones) report 0. */
	*out = st.f_files == 0 ? UINT64_MAX : (uint64_t)st.f_favail;
	return 0;
}

int platform_lock(const char *path, int *handle)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int busy = errno == EWOULDBLOCK;
		close(fd);
		return busy ? 1 : -1;
	}
	*handle = fd;
	return 0;
}

void platform_unlock(int handle)
{
	if (handle >= 0)
		close(handle);
}

int platform_is_admin_owned(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return -1;
	if (S_ISLNK(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return -1;
	return 0;
}

/* ---- the no-follow tree: every step is relative to an open directory, with O_NOFOLLOW ---- */

int platform_private_dir(char *template)
{
	return mkdtemp(template) ? 0 : -1;
}

int platform_tree_open(const char *dir)
{
	return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Open (creating) the parent directory of relpath under tree; *name is its last part. */
static int open_parent(int tree, const char *relpath, const char **name)
{
	char *copy = xstrdup(relpath), *p = copy, *slash;
	int dirfd = dup(tree);
	while (dirfd >= 0 && (slash = strchr(p, '/')) != NULL) {
		*slash = '\0';
		int next = -1, made = mkdirat(dirfd, p, 0755) == 0;
		if (made || errno == EEXIST)
			next = openat(dirfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (made && next >= 0 && fchmod(next, 0755) != 0) { /* 0755 whatever the umask */
			close(next);
			next = -1;
		}
		int saved = errno;
		close(dirfd);
		errno = saved;
		dirfd = next;
		p = slash + 1;
	}
	*name = relpath + (p - copy);
	free(copy);
	return dirfd;
}

int platform_tree_open_parent(int tree, const char *relpath, const char **name)
{
	return open_parent(tree, relpath, name);
}

enum tree_entry { TREE_FILE, TREE_SYMLINK, TREE_DIR };

/* Create one new entry at relpath; for a file, the open descriptor. */
static int tree_create(int tree, const char *relpath, enum tree_entry kind, const char *target)
{
	const char *name;
	int dirfd = open_parent(tree, relpath, &name), rc;
	if (dirfd < 0)
		return -1;
	if (kind == TREE_FILE)
		rc = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	else if (kind == TREE_SYMLINK)
		rc = symlinkat(target, dirfd, name);
	else if ((rc = mkdirat(dirfd, name, 0755)) == 0)
		rc = fchmodat(dirfd, name, 0755, 0); /* inside the private staging tree: no race */
	int saved = errno;
	close(dirfd);
	errno = saved;
	return rc;
}

int platform_tree_create_file(int tree, const char *relpath)
{
	return tree_create(tree, relpath, TREE_FILE, NULL);
}

int platform_tree_symlink(int tree, const char *relpath, const char *target)
{
	return tree_create(tree, relpath, TREE_SYMLINK, target);
}

int platform_tree_mkdir(int tree, const char *relpath)
{
	return tree_create(tree, relpath, TREE_DIR, NULL);
}

int platform_file_finish(int fd, unsigned mode)
{
	int rc = fchmod(fd, (mode_t)mode);
	int saved = errno;
	/* Start writing the file out now, while the next one is decompressed: the flush before
	 * the rename (platform_tree_commit) then has little left to wait for. */
	sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	if (close(fd) != 0 && rc == 0)
		return -1;
	errno = saved;
	return rc;
}

int platform_tree_commit(int tree)
{
	return syncfs(tree) == 0 && fchmod(tree, 0755) == 0 ? 0 : -1;
}

void platform_tree_close(int tree)
{
	if (tree >= 0)
		close(tree);
}

/* ---- run-time loaded libraries ---- */

void *platform_lib_open(const char *path_or_name, enum platform_lib_binding binding)
{
	return dlopen(path_or_name, (binding == PLATFORM_LIB_LAZY ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL);
}

void *platform_lib_symbol(void *lib, const char *name)
{
	return dlsym(lib, name);
}

const char *platform_lib_error(void)
{
	const char *why = dlerror();
	return why ? why : "unknown loader error";
}

int platform_lib_path(void *lib, char *out, size_t size)
{
	struct link_map *map = NULL;
	char real[PATH_MAX];
	if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map || !realpath(map->l_name, real))
		return -1;
	snprintf(out, size, "%s", real);
	return 0;
}

struct loaded_walk {
	void (*fn)(const char *path, void *ctx);
	void *ctx;
};

static int loaded_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct loaded_walk *w = ctx;
	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		w->fn(info->dlpi_name, w->ctx);
	return 0;
}

void platform_loaded_libs(void (*fn)(const char *path, void *ctx), void *ctx)
{
	struct loaded_walk w = { fn, ctx };
	dl_iterate_phdr(loaded_one, &w);
}

struct platform_lib_watch {
	const char *name;
	pthread_t thread;
	int running;
	int stop;
	char seen[PATH_MAX];
};

static void watch_one(const char *path, void *ctx)
{
	struct platform_lib_watch *w = ctx;
	if (!w->seen[0] && strstr(path, w->name))
		snprintf(w->seen, sizeof(w->seen), "%s", path);
}

static void *watch_main(void *ctx)
{
	struct platform_lib_watch *w = ctx;
	const struct timespec pause = { 0, 200 * 1000 }; /* 0.2 ms: a library loaded for a
							   * compile stays far longer */
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && !w->seen[0]) {
		platform_loaded_libs(watch_one, w);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

struct platform_lib_watch *platform_lib_watch_start(const char *name)
{
	struct platform_lib_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->name = name;
	w->running = pthread_create(&w->thread, NULL, watch_main, w) == 0;
	return w;
}

int platform_lib_watch_end(struct platform_lib_watch *w, char *path, size_t size)
{
	if (!w)
		return -1;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	if (w->running)
		pthread_join(w->thread, NULL);
	platform_loaded_libs(watch_one, w); /* and what is mapped now */
	int found = w->seen[0] ? 0 : -1;
	if (found == 0)
		snprintf(path, size, "%s", w->seen);
	free(w);
	return found;
}

/* ---- child processes ---- */

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Collect from fd until end of file or the deadline (0: none); 0 on end of file. */
static int collect_output(int fd, int64_t deadline, struct platform_child *c)
{
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		int64_t left = deadline ? deadline - now_ms() : -1;
		if (deadline && left <= 0)
			return -1;
		int ready = poll(&p, 1, left < 0 ? -1 : (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		char buf[4096];
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		c->output = xrealloc(c->output, c->output_len + (size_t)got + 1);
		memcpy(c->output + c->output_len, buf, (size_t)got);
		c->output_len += (size_t)got;
		c->output[c->output_len] = '\0';
	}
}

/* Wait for pid until the deadline (0: none); 0 when it ended, with *status set. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, deadline ? WNOHANG : 0);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		if (deadline && now_ms() >= deadline)
			return -1;
		if (deadline) {
			struct timespec pause = { 0, 20 * 1000 * 1000 };
			nanosleep(&pause, NULL);
		}
	}
}

int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *c)
{
	int fds[2] = { -1, -1 };
	memset(c, 0, sizeof(*c));
	if (capture != PLATFORM_CAPTURE_NONE && pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (capture != PLATFORM_CAPTURE_NONE)
			dup2(fds[1], 1);
		if (capture == PLATFORM_CAPTURE_ALL)
			dup2(fds[1], 2);
		execve(prog, argv, envp);
		_exit(127);
	}
	int saved = errno;
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid < 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		errno = saved;
		return -1;
	}
	int64_t deadline = timeout_s > 0 ? now_ms() + (int64_t)timeout_s * 1000 : 0;
	int status = 0;
	if ((fds[0] >= 0 && collect_output(fds[0], deadline, c) != 0) ||
	    wait_until(pid, deadline, &status) != 0) {
		c->timed_out = 1;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	if (c->timed_out)
		return 0;
	if (WIFEXITED(status)) {
		c->exited = 1;
		c->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		snprintf(c->crash, sizeof(c->crash), "signal %d, %s", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	}
	return 0;
}
