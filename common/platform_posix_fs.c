/* platform_posix_fs.c - files through handles, their metadata, and paths (POSIX) */
#include "common/platform_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_flags(int flags)
{
	int how = flags & PLATFORM_OPEN_WRITE ? (flags & PLATFORM_OPEN_READ ? O_RDWR : O_WRONLY)
					      : O_RDONLY;
	how |= O_CLOEXEC;
	how |= flags & PLATFORM_OPEN_CREATE ? O_CREAT : 0;
	how |= flags & PLATFORM_OPEN_EXCL ? O_EXCL : 0;
	how |= flags & PLATFORM_OPEN_TRUNC ? O_TRUNC : 0;
	how |= flags & PLATFORM_OPEN_APPEND ? O_APPEND : 0;
	how |= flags & PLATFORM_OPEN_NOFOLLOW ? O_NOFOLLOW : 0;
	how |= flags & PLATFORM_OPEN_NONBLOCK ? O_NONBLOCK : 0;
	how |= flags & PLATFORM_OPEN_DIRECTORY ? O_DIRECTORY : 0;
	return how;
}

int platform_open(const char *path, int flags, unsigned mode)
{
	return open(path, open_flags(flags), (mode_t)mode);
}

int platform_open_at(int dir, const char *name, int flags, unsigned mode)
{
	return openat(dir, name, open_flags(flags | PLATFORM_OPEN_NOFOLLOW), (mode_t)mode);
}

ssize_t platform_read(int handle, void *buf, size_t len)
{
	return read(handle, buf, len);
}

ssize_t platform_pread(int handle, void *buf, size_t len, uint64_t offset)
{
	return pread(handle, buf, len, (off_t)offset);
}

ssize_t platform_write(int handle, const void *buf, size_t len)
{
	return write(handle, buf, len);
}

int platform_fsync(int handle)
{
	return fsync(handle);
}

int platform_close(int handle)
{
	return close(handle);
}

int platform_set_mode(int handle, unsigned mode)
{
	return fchmod(handle, (mode_t)mode);
}

int platform_set_owner(int handle, unsigned long owner, unsigned long group)
{
	return fchown(handle, (uid_t)owner, (gid_t)group);
}

int platform_set_nonblocking(int handle)
{
	int flags = fcntl(handle, F_GETFL);
	return flags < 0 ? -1 : fcntl(handle, F_SETFL, flags | O_NONBLOCK);
}

int platform_handle_valid(int handle)
{
	return handle >= 0 && fcntl(handle, F_GETFD) >= 0;
}

int platform_is_terminal(int handle)
{
	return isatty(handle);
}

int platform_temp_file(char *template)
{
	return mkostemp(template, O_CLOEXEC);
}

void platform_posix_fill_stat(const struct stat *in, struct platform_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->type = S_ISREG(in->st_mode)   ? PLATFORM_TYPE_FILE
		    : S_ISDIR(in->st_mode) ? PLATFORM_TYPE_DIR
		    : S_ISLNK(in->st_mode) ? PLATFORM_TYPE_LINK
					   : PLATFORM_TYPE_OTHER;
	out->mode = (unsigned)(in->st_mode & 07777);
	out->size = (uint64_t)in->st_size;
	out->mtime = (int64_t)in->st_mtime;
	out->device = (uint64_t)in->st_dev;
	out->inode = (uint64_t)in->st_ino;
	out->owner = (unsigned long)in->st_uid;
	out->group = (unsigned long)in->st_gid;
	out->links = (unsigned long)in->st_nlink;
}

/* One shape for every stat call: the POSIX result converted, or -1. */
static int converted(int rc, const struct stat *in, struct platform_stat *out)
{
	if (rc != 0)
		return -1;
	platform_posix_fill_stat(in, out);
	return 0;
}

int platform_stat(const char *path, struct platform_stat *st)
{
	struct stat raw;
	return converted(stat(path, &raw), &raw, st);
}

int platform_lstat(const char *path, struct platform_stat *st)
{
	struct stat raw;
	return converted(lstat(path, &raw), &raw, st);
}

int platform_fstat(int handle, struct platform_stat *st)
{
	struct stat raw;
	return converted(fstat(handle, &raw), &raw, st);
}

int platform_stat_at(int dir, const char *name, struct platform_stat *st)
{
	struct stat raw;
	return converted(fstatat(dir, name, &raw, AT_SYMLINK_NOFOLLOW), &raw, st);
}

int platform_access(const char *path, enum platform_access what)
{
	return access(path, what == PLATFORM_CAN_READ ? R_OK : what == PLATFORM_CAN_EXECUTE ? X_OK : F_OK);
}

int platform_realpath(const char *path, char *out, size_t size)
{
	char *real = realpath(path, NULL);
	if (!real)
		return -1;
	int fits = strlen(real) < size;
	if (fits)
		memcpy(out, real, strlen(real) + 1);
	free(real);
	return fits ? 0 : (errno = ENAMETOOLONG, -1);
}

/* readlink's result as a string: the length, or -1 (also when it does not fit). */
static ssize_t link_text(ssize_t n, char *out, size_t size)
{
	if (n < 0)
		return -1;
	if ((size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[n] = '\0';
	return n;
}

ssize_t platform_readlink(const char *path, char *out, size_t size)
{
	return size ? link_text(readlink(path, out, size), out, size) : (errno = EINVAL, -1);
}

ssize_t platform_readlink_at(int dir, const char *name, char *out, size_t size)
{
	return size ? link_text(readlinkat(dir, name, out, size), out, size) : (errno = EINVAL, -1);
}

int platform_mkdir(const char *path, unsigned mode)
{
	return mkdir(path, (mode_t)mode);
}

int platform_rmdir(const char *path)
{
	return rmdir(path);
}

int platform_unlink(const char *path)
{
	return unlink(path);
}

int platform_unlink_at(int dir, const char *name)
{
	return unlinkat(dir, name, 0);
}

int platform_rename(const char *from, const char *to)
{
	return rename(from, to);
}

int platform_mkdir_at(int dir, const char *name, unsigned mode)
{
	return mkdirat(dir, name, (mode_t)mode);
}

int platform_rename_at(int dir, const char *from, const char *to)
{
	return renameat(dir, from, dir, to);
}

int platform_symlink_at(int dir, const char *name, const char *target)
{
	return symlinkat(target, dir, name);
}

int platform_chmod(const char *path, unsigned mode)
{
	return chmod(path, (mode_t)mode);
}

int platform_current_dir(char *out, size_t size)
{
	return getcwd(out, size) ? 0 : -1;
}

size_t platform_name_max(void)
{
	return NAME_MAX;
}
