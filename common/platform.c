/* platform.c - POSIX implementation of the platform interface */
#include "common/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

int platform_free_bytes(const char *path, uint64_t *out)
{
	struct statvfs st;
	if (statvfs(path, &st) != 0)
		return -1;
	*out = (uint64_t)st.f_bavail * (uint64_t)st.f_frsize;
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
