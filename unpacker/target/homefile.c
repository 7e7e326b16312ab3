/* homefile.c - writing below a user's home as root without following what the user could
 * have planted there (a ~/.config/cuferry that links to /etc) */
#include "unpacker/target/homefile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"

#define MAX_DEPTH 64

/* sshd's StrictModes, with the home's owner beside root: a directory owned by anyone else, or
 * one that others could change (a sticky root-owned one, /tmp, only above the home, where the
 * next name already exists), lets that someone choose what root writes. */
static int judge(const char *shown, const struct platform_stat *st, unsigned long owner,
		 int above_home, struct cf_err *e)
{
	char safe[256];
	log_safe(shown, safe, sizeof(safe));
	if (st->type != PLATFORM_TYPE_DIR)
		return cf_fail(e, CF_INCOMPATIBLE, "--env=user: %s is not a directory", safe);
	if (st->owner != 0 && st->owner != owner)
		return cf_fail(e, CF_INCOMPATIBLE, "--env=user: %s is owned by uid %lu, neither root nor "
			       "the home's owner (uid %lu): refusing to write there as root", safe,
			       st->owner, owner);
	int sticky = (st->mode & PLATFORM_MODE_STICKY) && st->owner == 0 && above_home;
	if ((st->mode & 022) && !sticky)
		return cf_fail(e, CF_INCOMPATIBLE, "--env=user: %s is writable by group or others: "
			       "refusing to write there as root (chmod go-w)", safe);
	return CF_OK;
}

/* Open the directory name below dir without following a link; missing and make set: made
 * (0755, owned by owner:group, both set through the handle: the name is in a directory the
 * home's owner can change meanwhile). A handle, or -1 with errno (ELOOP or ENOTDIR: a link or
 * a file where a directory belongs). */
static int open_dir(int dir, const char *name, int make, unsigned long owner, unsigned long group)
{
	int fd = platform_open_at(dir, name, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	if (fd >= 0 || errno != ENOENT || !make)
		return fd;
	int made = platform_mkdir_at(dir, name, 0700) == 0;
	if (!made && errno != EEXIST)
		return -1;
	fd = platform_open_at(dir, name, PLATFORM_OPEN_READ | PLATFORM_OPEN_DIRECTORY, 0);
	if (fd >= 0 && made &&
	    (platform_set_owner(fd, owner, group) != 0 || platform_set_mode(fd, 0755) != 0)) {
		int saved = errno;
		platform_close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int refuse_open(const char *shown, int err, struct cf_err *e)
{
	char safe[256];
	log_safe(shown, safe, sizeof(safe));
	if (err == ELOOP || err == ENOTDIR)
		return cf_fail(e, CF_INCOMPATIBLE, "--env=user: %s is a link (or not a directory): "
			       "refusing to follow it as root", safe);
	return cf_fail(e, CF_INSTALL, "--env=user: %s: %s", safe, platform_strerror(err));
}

/* The home (resolved) from '/', one component at a time: its directory handle, with its
 * owner and group; every directory on the way judged against that owner. */
static int open_home(const char *home, unsigned long *owner, unsigned long *group, struct cf_err *e)
{
	char real[PATH_MAX], safe[256];
	if (platform_realpath(home, real, sizeof(real)) != 0)
		return cf_fail(e, CF_INSTALL, "--env=user: HOME (%s): %s", log_safe(home, safe, sizeof(safe)),
			       platform_strerror(errno)), -1;
	struct platform_stat st[MAX_DEPTH];
	size_t ends[MAX_DEPTH], n = 0;
	int dir = platform_tree_open("/");
	if (dir < 0 || platform_fstat(dir, &st[n]) != 0)
		return cf_fail(e, CF_INSTALL, "--env=user: /: %s", platform_strerror(errno)), -1;
	ends[n++] = 1;
	for (char *c = real + 1; *c && dir >= 0;) {
		size_t len = strcspn(c, "/");
		char saved = c[len];
		c[len] = '\0';
		int next = n < MAX_DEPTH ? open_dir(dir, c, 0, 0, 0) : (errno = ELOOP, -1);
		int err = errno;
		c[len] = saved;
		platform_close(dir);
		dir = next;
		if (dir < 0 || platform_fstat(dir, &st[n]) != 0) {
			real[c - real + len] = '\0';
			if (dir >= 0)
				platform_close(dir);
			return refuse_open(real, dir < 0 ? err : errno, e), -1;
		}
		ends[n++] = (size_t)(c - real) + len;
		c += len + (saved == '/');
	}
	*owner = st[n - 1].owner;
	*group = st[n - 1].group;
	for (size_t i = 0; i < n; i++) {
		char shown[PATH_MAX];
		snprintf(shown, sizeof(shown), "%.*s", (int)ends[i], real);
		if (judge(shown, &st[i], *owner, i + 1 < n, e) != CF_OK) {
			platform_close(dir);
			return -1;
		}
	}
	return dir;
}

/* text into a fresh file beside name in dir, owned by owner:group, then renamed over name:
 * a link planted as name is replaced, never written through. */
static int write_in(int dir, const char *name, const char *text, unsigned long owner,
		    unsigned long group)
{
	char tmp[300];
	snprintf(tmp, sizeof(tmp), ".%s.cuferry-%ld", name, platform_process_id());
	int fd = platform_open_at(dir, tmp, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_CREATE |
				  PLATFORM_OPEN_EXCL, 0600);
	if (fd < 0)
		return -1;
	size_t len = strlen(text);
	int ok = io_write_all(fd, text, len) == 0 && platform_set_owner(fd, owner, group) == 0 &&
		 platform_set_mode(fd, 0644) == 0 && platform_fsync(fd) == 0;
	ok = platform_close(fd) == 0 && ok;
	if (ok && platform_rename_at(dir, tmp, name) == 0 && platform_fsync(dir) == 0)
		return 0;
	int saved = errno;
	platform_unlink_at(dir, tmp);
	errno = saved;
	return -1;
}

int homefile_write(const char *home, const char *rel, const char *text, struct cf_err *e)
{
	unsigned long owner, group;
	int dir = open_home(home, &owner, &group, e);
	if (dir < 0)
		return e->code;
	char *parts = xstrdup(rel), *name = parts, *shown = xstrdup(home);
	int rc = CF_OK;
	for (char *slash; rc == CF_OK && (slash = strchr(name, '/')) != NULL; name = slash + 1) {
		*slash = '\0';
		char *longer = xasprintf("%s/%s", shown, name);
		free(shown);
		shown = longer;
		struct platform_stat st;
		int next = open_dir(dir, name, 1, owner, group);
		int err = errno;
		platform_close(dir);
		dir = next;
		if (dir < 0)
			rc = refuse_open(shown, err, e);
		else if (platform_fstat(dir, &st) != 0)
			rc = cf_fail(e, CF_INSTALL, "--env=user: %s: %s", shown, platform_strerror(errno));
		else
			rc = judge(shown, &st, owner, 0, e);
	}
	if (rc == CF_OK && write_in(dir, name, text, owner, group) != 0) {
		char safe[256];
		rc = cf_fail(e, CF_INSTALL, "--env=user: %s/%s: %s", log_safe(shown, safe, sizeof(safe)),
			     name, platform_strerror(errno));
	}
	if (dir >= 0)
		platform_close(dir);
	free(parts);
	free(shown);
	return rc;
}
