/* platform_posix_tree.c - a tree written from untrusted names, every step relative to an
 * open directory, no link followed (POSIX) */
#include "common/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"

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
