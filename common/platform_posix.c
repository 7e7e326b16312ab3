/* platform_posix.c - the machine and its file systems: names, ids, links, locks, space,
 * ownership (POSIX) */
#include "common/platform.h"

#include <errno.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/io.h"

const char *platform_libc_version(void)
{
#ifdef __GLIBC__
	return gnu_get_libc_version();
#else
	return NULL;
#endif
}

const char *platform_windows_version(void)
{
	return NULL; /* a Linux bundle's floor is its libraries' glibc version */
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

const char *platform_strerror(int err)
{
	return strerror(err);
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

int platform_is_admin_guarded(const char *path)
{
	return platform_is_admin_owned(path); /* POSIX has no create-only right */
}
