/* io.c - file and memory helpers */
#include "common/io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

static void oom(void) __attribute__((noreturn));
static void oom(void)
{
	fputs("out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return p;
}

ssize_t io_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = platform_read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int io_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = platform_write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_file(const char *path, int flags, size_t max, char **out, size_t *len)
{
	struct platform_stat st;
	int fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK | flags, 0);
	if (fd < 0)
		return -1;
	if (platform_fstat(fd, &st) != 0 || st.type != PLATFORM_TYPE_FILE) {
		platform_close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st.size > max) {
		platform_close(fd);
		return -2;
	}
	/* To the end, whatever the size said: /proc files report 0. One byte more than max
	 * tells a file that grew too big. */
	size_t cap = (size_t)st.size + 1, got = 0;
	char *buf = xmalloc(cap + 1);
	ssize_t n;
	while ((n = io_read_full(fd, buf + got, cap - got)) > 0 && (got += (size_t)n) == cap &&
	       got <= max) {
		cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
		buf = xrealloc(buf, cap + 1);
	}
	int saved = errno;
	platform_close(fd);
	if (n < 0 || got > max) {
		free(buf);
		errno = n < 0 ? saved : EFBIG;
		return n < 0 ? -1 : -2;
	}
	buf[got] = '\0';
	*out = buf;
	if (len)
		*len = got;
	return 0;
}

int io_read_file(const char *path, size_t max, char **out, size_t *len)
{
	return read_file(path, 0, max, out, len);
}

int io_read_file_nofollow(const char *path, size_t max, char **out, size_t *len)
{
	return read_file(path, PLATFORM_OPEN_NOFOLLOW, max, out, len);
}

int io_fsync_dir(const char *path)
{
	int fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	if (fd < 0)
		return -1;
	int rc = platform_fsync(fd);
	platform_close(fd);
	return rc;
}

int io_fsync_parent(const char *path)
{
	char *copy = xstrdup(path);
	char *slash = NULL;
	for (char *c = copy; *c; c++)
		if (platform_is_separator(*c))
			slash = c;
	int rc;
	if (!slash)
		rc = io_fsync_dir(".");
	else if (slash == copy)
		rc = io_fsync_dir("/");
	else {
		*slash = '\0';
		rc = io_fsync_dir(copy);
	}
	free(copy);
	return rc;
}

int io_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = platform_temp_file(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	if (platform_set_mode(fd, mode) != 0 || io_write_all(fd, data, len) != 0 ||
	    platform_fsync(fd) != 0) {
		int saved = errno;
		platform_close(fd);
		platform_unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	platform_close(fd);
	return io_replace(tmp, path);
}

int io_replace(char *tmp, const char *path)
{
	if (platform_rename(tmp, path) != 0) {
		int saved = errno;
		platform_unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	free(tmp);
	return io_fsync_parent(path);
}

int io_mkdirs(const char *path, unsigned mode)
{
	return io_mkdirs_noting(path, mode, NULL, NULL);
}

int io_mkdirs_noting(const char *path, unsigned mode, void (*made)(const char *dir, void *ctx),
		     void *ctx)
{
	char *copy = xstrdup(path);
	/* Windows: "C:\" exists, and mkdir of "C:" would name the drive's current directory. */
	size_t skip = copy[0] && copy[1] == ':' && platform_path_is_absolute(copy) ? 3 : 1;
	if (strlen(copy) < skip)
		skip = strlen(copy);
	for (char *p = copy + skip; ; p++) {
		if (platform_is_separator(*p) || *p == '\0') {
			char saved = *p;
			*p = '\0';
			if (platform_mkdir(copy, mode) == 0) {
				platform_chmod(copy, mode); /* the mode asked for, whatever the umask */
				if (made)
					made(copy, ctx);
			} else if (errno != EEXIST) {
				free(copy);
				return -1;
			}
			*p = saved;
			if (saved == '\0')
				break;
		}
	}
	free(copy);
	return io_is_dir(path) ? 0 : -1;
}

static int rm_entry(const char *path, const struct platform_stat *st, void *ctx)
{
	(void)ctx;
	if (st->type == PLATFORM_TYPE_DIR)
		return platform_rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
	return io_remove_file(path);
}

int io_remove_file(const char *path)
{
	return platform_unlink(path) == 0 || errno == ENOENT ? 0 : -1;
}

int io_rmtree(const char *path)
{
	struct platform_stat st;
	if (platform_lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (st.type != PLATFORM_TYPE_DIR)
		return platform_unlink(path);
	/* Directories we create are 0700 or 0755; make sure we can descend into them. */
	return platform_walk_post(path, rm_entry, NULL);
}

int io_is_dir(const char *path)
{
	struct platform_stat st;
	return platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_DIR;
}

int io_exists(const char *path)
{
	struct platform_stat st;
	return platform_lstat(path, &st) == 0;
}

int io_copy_fd(int in, int out, uint64_t len)
{
	/* One buffer per call, never a static one: the bundler copies from several threads. */
	enum { BUF = 1 << 20 };
	char *buf = xmalloc(BUF);
	int rc = 0;
	while (rc == 0 && len > 0) {
		size_t want = len < BUF ? (size_t)len : BUF;
		ssize_t n = io_read_full(in, buf, want);
		if (n < 0)
			rc = -1;
		else if (n == 0)
			rc = len == UINT64_MAX ? 1 : (errno = EIO, -1);
		else if (io_write_all(out, buf, (size_t)n) != 0)
			rc = -1;
		else if (len != UINT64_MAX)
			len -= (uint64_t)n;
	}
	int saved = errno;
	free(buf);
	errno = saved;
	return rc < 0 ? -1 : 0;
}

int io_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	uint64_t mult = 1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end != '\0' || (v && mult > UINT64_MAX / v))
		return -1;
	*out = v * mult;
	return 0;
}

int io_copy_file_atomic(const char *from, const char *to)
{
	char *data;
	size_t len;
	struct platform_stat st;
	if (platform_stat(from, &st) != 0 || io_read_file(from, 64u << 20, &data, &len) != 0)
		return -1;
	int rc = io_write_file_atomic(to, data, len, st.mode & 0777);
	free(data);
	return rc;
}
