/* io.h - file and memory helpers with safe defaults (no partial writes, no following links) */
#ifndef COMMON_IO_H
#define COMMON_IO_H

#include "common/format.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Out of memory is not recoverable here: these abort with a message instead of returning NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) CF_PRINTF(1, 2);

/* Read up to len bytes, retrying short reads; returns bytes read (< len only at EOF) or -1. */
ssize_t io_read_full(int fd, void *buf, size_t len);
int io_write_all(int fd, const void *buf, size_t len);
/* Read a whole regular file of at most max bytes, NUL-terminated. 0 ok, -1 error, -2 too big. */
int io_read_file(const char *path, size_t max, char **out, size_t *len);
/* The same, but a symbolic link as the last component is an error (ELOOP): for files root
 * reads from a directory it writes (journal, state). A FIFO never blocks either call. */
int io_read_file_nofollow(const char *path, size_t max, char **out, size_t *len);
/* Write path through a temporary sibling, fsync, rename: readers see old or new, never half. */
int io_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);
/* Rename tmp over path (the atomic step), fsync the directory; on failure tmp is removed.
 * Frees tmp either way. */
int io_replace(char *tmp, const char *path);
/* Copy a small file (state, config) through io_write_file_atomic. */
int io_copy_file_atomic(const char *from, const char *to);
/* mkdir -p; existing directories are fine; new ones get mode whatever the umask. */
int io_mkdirs(const char *path, unsigned mode);
/* The same, calling made(dir, ctx) for each directory this call made (outermost first): what
 * a failed run may take back, and only that. */
int io_mkdirs_noting(const char *path, unsigned mode, void (*made)(const char *dir, void *ctx),
		     void *ctx);
/* rm -rf without following symlinks; a missing path is fine. */
int io_rmtree(const char *path);
/* Remove the file or link path (never a directory); one already absent is fine. */
int io_remove_file(const char *path);
int io_fsync_dir(const char *path);
int io_fsync_parent(const char *path);
/* Follows symlinks (a CUDA directory is often a link); io_exists does not. */
int io_is_dir(const char *path);
int io_exists(const char *path);
/* Copy len bytes (or to EOF when len is UINT64_MAX) from one fd to another. */
int io_copy_fd(int in, int out, uint64_t len);
/* Parse a size like 4G, 700M, 1024 (powers of 1024). 0 ok, -1 bad. */
int io_parse_size(const char *s, uint64_t *out);

#endif
