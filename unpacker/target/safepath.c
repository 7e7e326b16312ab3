/* safepath.c - no directory the unpacker writes into as root may be one an unprivileged user
 * controls, or a link that leaves a --root image */
#include "unpacker/target/safepath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/fault.h"

/* The longest prefix: Linux's PATH_MAX / 2, leaving room for what is installed below it. Not
 * the C library's PATH_MAX, which is MAX_PATH (260) with mingw: Windows paths are opened as
 * \\?\ long paths (common/platform_win.c), which have no such limit. */
#define PREFIX_MAX 2048

#define PREFIX_LETTERS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+@-"

/* Windows (DESIGN.md §6): a drive, then components of the same letters plus space and
 * parentheses ("C:\Program Files (x86)\cuferry"), separated by '\' (or '/', normalized by
 * safepath_prefix_native). UNC, \\?\, relative and drive-relative ("C:x") paths are refused:
 * the transaction's renames and the registry PATH need a plain local path. */
static const char *windows_prefix_problem(const char *prefix)
{
	size_t n = strlen(prefix);
	if (!platform_path_is_absolute(prefix))
		return "it must be an absolute path with a drive (C:\\...): not relative, not "
		       "drive-relative, not UNC (\\\\server) or \\\\?\\";
	if (prefix[3 + strspn(prefix + 3, PREFIX_LETTERS " ()\\/")] != '\0')
		return "only letters, digits, space and . _ + @ ( ) - \\ are allowed";
	if (n <= 3)
		return "it must not be a drive's root";
	for (const char *c = prefix + 2; *c;) {
		size_t len = strcspn(c + 1, "\\/");
		if (len == 0 || (len == 1 && c[1] == '.') || (len == 2 && c[1] == '.' && c[2] == '.') ||
		    c[len] == ' ' || c[len] == '.')
			return "it must be normalized (no empty, . or .. component, no trailing "
			       "separator, no name ending in a space or a dot)";
		c += len + 1;
	}
	return n >= PREFIX_MAX ? "it is too long" : NULL;
}

int safepath_prefix_rule(const char *prefix, char *why, size_t size)
{
	return safepath_prefix_rule_as(prefix, "--prefix", why, size);
}

int safepath_prefix_rule_as(const char *prefix, const char *option, char *why, size_t size)
{
	const char *allowed = PREFIX_LETTERS "/";
	size_t n = strlen(prefix);
	const char *bad = NULL;
	if (platform_dir_separator() == '\\')
		bad = windows_prefix_problem(prefix);
	else if (prefix[0] != '/')
		bad = "it must be an absolute path";
	else if (prefix[strspn(prefix, allowed)] != '\0')
		bad = "only letters, digits and . _ + @ / - are allowed";
	else if (strstr(prefix, "//") || strstr(prefix, "/./") || strstr(prefix, "/../") ||
		 (n > 1 && prefix[n - 1] == '/') || (n >= 2 && strcmp(prefix + n - 2, "/.") == 0) ||
		 (n >= 3 && strcmp(prefix + n - 3, "/..") == 0) || n == 1)
		bad = "it must be normalized (no //, ., .. or trailing /) and not / itself";
	else if (n >= PREFIX_MAX)
		bad = "it is too long";
	if (!bad)
		return 0;
	char shown[160];
	/* "--prefix 'X'", "/D='X'": as the switch was written */
	snprintf(why, size, "%s%c'%s': %s", option, option[0] == '/' ? '=' : ' ',
		 log_safe(prefix, shown, sizeof(shown)), bad);
	return -1;
}

char *safepath_prefix_trim(const char *prefix)
{
	char *copy = xstrdup(prefix);
	size_t n = strlen(copy);
	if (n >= 2 && platform_is_separator(copy[n - 1]) && !platform_is_separator(copy[n - 2]) &&
	    copy[n - 2] != ':')
		copy[n - 1] = '\0';
	return copy;
}

/* sshd's StrictModes: root-owned, no write for group or others; a sticky root-owned
 * directory only when the name below it exists already (and passes in turn). */
char *safepath_prefix_native(const char *prefix)
{
	char *copy = xstrdup(prefix), sep = platform_dir_separator();
	for (char *c = copy; *c; c++)
		if (platform_is_separator(*c))
			*c = sep;
	return copy;
}

static int owner_ok(const char *dir, const struct platform_stat *st, int next_exists,
		    int system_group_ok, const char *what, struct cf_err *e)
{
	if (st->type != PLATFORM_TYPE_DIR)
		return cf_fail(e, CF_INCOMPATIBLE, "%s: %s is not a directory", what, dir);
	if (st->owner != 0)
		return cf_fail(e, CF_INCOMPATIBLE, "%s: %s is owned by uid %u, not root: its owner could "
			       "change what root installs (chown root, chmod go-w)", what, dir,
			       (unsigned)st->owner);
	/* The log only: a parent writable by a system group (Ubuntu's /var/log, root:syslog 0775)
	 * is tolerated; the log's own directory never is, and the file is opened O_NOFOLLOW. */
	int system_group = system_group_ok && (st->mode & 022) == 020 && st->group < 1000;
	int sticky = (st->mode & PLATFORM_MODE_STICKY) != 0;
	if ((st->mode & 022) && !(sticky && next_exists) && !system_group)
		return cf_fail(e, CF_INCOMPATIBLE, "%s: %s is writable by group or others%s (chmod go-w, "
			       "or choose a directory only root can write)", what, dir,
			       sticky ? " and the name below it does not exist yet" : "");
	return CF_OK;
}

/* Walk path from '/' component by component. Links before image_from (the host's own) are
 * resolved and the walk starts again on the resolved path; a link at or after image_from
 * (inside --root) is refused. When last_is_file, path names a file that exists: its
 * directory is then asked as the parent of an existing name (a sticky /tmp passes, as in
 * sshd), and the file's own metadata is its caller's to check on the descriptor it read. */
static int walk(char **pathp, size_t image_from, const char *what, int system_group_ok,
		int last_is_file, struct cf_err *e)
{
	int admin = platform_is_admin();
	for (int restarts = 0; restarts < 40; restarts++) {
		char *path = *pathp;
		size_t n = strlen(path), prev_end = 0;
		struct platform_stat prev, st;
		int have_prev = 0, restarted = 0;
		for (size_t end = 1; end <= n; end++) {
			if (end < n && path[end] != '/')
				continue;
			if (end > 1 && path[end - 1] == '/')
				continue; /* "//" */
			char saved = path[end];
			path[end] = '\0';
			int r = platform_lstat(path, &st);
			int err = errno;
			char *here = xstrdup(path);
			path[end] = saved;
			if (r != 0) {
				free(here);
				if (err == ENOENT)
					break; /* created later, by us, 0755 */
				return cf_fail(e, CF_INCOMPATIBLE, "%s: %s", what, platform_strerror(err));
			}
			if (have_prev && admin) {
				char saved_prev = path[prev_end];
				path[prev_end] = '\0';
				int rc = owner_ok(prev_end ? path : "/", &prev, 1, system_group_ok, what, e);
				path[prev_end] = saved_prev;
				if (rc != CF_OK)
					return free(here), rc;
			}
			if (st.type == PLATFORM_TYPE_LINK) {
				/* A link in a sticky world-writable directory is its owner's to replace. */
				if (admin && st.owner != 0 && have_prev && (prev.mode & 022)) {
					int rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s is a symbolic link owned by uid "
							 "%u in a directory others can write", what, here,
							 (unsigned)st.owner);
					return free(here), rc;
				}
				if (end > image_from) {
					int rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s is a symbolic link inside the "
							 "--root image: refusing to follow it out of the root", what,
							 here);
					return free(here), rc;
				}
				char resolved[PATH_MAX];
				if (platform_realpath(here, resolved, sizeof(resolved)) != 0) {
					int rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s: %s", what, here, platform_strerror(errno));
					return free(here), rc;
				}
				char *next = xasprintf("%s%s", strcmp(resolved, "/") ? resolved : "", path + end);
				if (image_from != (size_t)-1)
					image_from = image_from + strlen(resolved) - end;
				free(here);
				free(path);
				*pathp = next; /* walk the resolved path from '/' again */
				restarted = 1;
				break;
			}
			free(here);
			prev = st;
			prev_end = end == 1 ? 0 : end;
			have_prev = 1;
		}
		if (restarted)
			continue;
		if (last_is_file && have_prev && prev_end == n)
			return CF_OK;
		if (have_prev && admin) {
			int is_target = prev_end == n || (prev_end == 0 && n == 1);
			path[prev_end] = '\0';
			return owner_ok(prev_end ? path : "/", &prev, 0, system_group_ok && !is_target, what, e);
		}
		return CF_OK;
	}
	return cf_fail(e, CF_INCOMPATIBLE, "%s: too many symbolic links", what);
}

/* dir's own directory ends at end: only separators follow. */
static int is_last_component(const char *dir, size_t end)
{
	return dir[end + strspn(dir + end, "\\/")] == '\0';
}

/* Windows: every existing directory from below the drive's root down to dir, never a reparse
 * point (a link or junction could send the write anywhere), and, for an Administrator,
 * owned by Administrators, SYSTEM or TrustedInstaller. dir itself must be admin-owned: nobody
 * else may write to it at all. A directory above it may also let others create entries
 * (%ProgramData% lets every user add files and folders, as /tmp does), but never delete,
 * rename or re-permission what is there (platform_is_admin_guarded): such a user can add a
 * sibling, but cannot replace the next component, and a component they create first is theirs
 * and is refused by the owner check (the walk runs again once our directories are made). The
 * drive's root is not asked: what matters is that nothing below it is theirs. A directory that
 * does not exist yet is created by us (with its own protected DACL, platform_mkdir), under
 * one that passed. */
static int walk_windows(const char *dir, const char *what, struct cf_err *e)
{
	int admin = platform_is_admin() && !install_fault_here("no-acl");
	char *path = xstrdup(dir);
	int rc = CF_OK;
	for (size_t end = 3, n = strlen(path); rc == CF_OK && end <= n; end++) {
		if (end < n && !platform_is_separator(path[end]))
			continue;
		char saved = path[end];
		path[end] = '\0';
		struct platform_stat st;
		if (platform_lstat(path, &st) != 0) {
			if (errno != ENOENT)
				rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s: %s", what, path, platform_strerror(errno));
			break;
		}
		if (st.type == PLATFORM_TYPE_LINK)
			rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s is a link or junction: refusing to write "
				     "through it", what, path);
		else if (st.type != PLATFORM_TYPE_DIR)
			rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s is not a directory", what, path);
		else if (admin && (is_last_component(dir, end) ? platform_is_admin_owned(path)
							       : platform_is_admin_guarded(path)) != 0)
			rc = cf_fail(e, CF_INCOMPATIBLE, "%s: %s is not owned by Administrators or SYSTEM, "
				     "or others may write to it: they could change what an Administrator "
				     "installs (choose a directory only Administrators can write)", what, path);
		path[end] = saved;
	}
	free(path);
	return rc;
}

static int check_path(const char *root, const char *sys_dir, const char *what,
		      int system_group_ok, int last_is_file, struct cf_err *e)
{
	if (platform_dir_separator() == '\\')
		return walk_windows(sys_dir, what, e); /* no --root on Windows */
	char *abs_root;
	if (!*root) {
		abs_root = xstrdup("");
	} else if (root[0] == '/') {
		abs_root = xstrdup(root);
	} else {
		char cwd[PATH_MAX];
		if (platform_current_dir(cwd, sizeof(cwd)) != 0)
			return cf_fail(e, CF_INSTALL, "current directory: %s", platform_strerror(errno));
		abs_root = xasprintf("%s/%s", cwd, root);
	}
	size_t len = strlen(abs_root);
	while (len > 1 && abs_root[len - 1] == '/')
		abs_root[--len] = '\0';
	char *path = xasprintf("%s%s", abs_root, sys_dir);
	size_t image_from = *root ? len : (size_t)-1;
	free(abs_root);
	int rc = walk(&path, image_from, what, system_group_ok, last_is_file, e);
	free(path);
	return rc;
}

static int check_dir(const char *root, const char *sys_dir, const char *what, int system_group_ok,
		     struct cf_err *e)
{
	return check_path(root, sys_dir, what, system_group_ok, 0, e);
}

int safepath_check_dir(const char *root, const char *sys_dir, const char *what, struct cf_err *e)
{
	return check_dir(root, sys_dir, what, 0, e);
}

int safepath_check_log_dir(const char *root, const char *sys_dir, struct cf_err *e)
{
	return check_dir(root, sys_dir, "the log directory", 1, e);
}

static char *absolute_host_path(const char *file, struct cf_err *e)
{
	char cwd[PATH_MAX];
	if (platform_path_is_absolute(file))
		return xstrdup(file);
	if (platform_current_dir(cwd, sizeof(cwd)) != 0) {
		cf_fail(e, CF_INSTALL, "current directory: %s", platform_strerror(errno));
		return NULL;
	}
	return xasprintf("%s%c%s", cwd, platform_dir_separator(), file);
}

int safepath_check_file_dir(const char *file, const char *what, int log_rule, struct cf_err *e)
{
	char *dir = absolute_host_path(file, e);
	if (!dir)
		return CF_INSTALL;
	char *slash = NULL;
	for (char *at = dir; *at; at++)
		if (platform_is_separator(*at))
			slash = at;
	if (slash)
		slash[slash == dir] = '\0'; /* "/k.pub": the directory is "/" */
	int rc = check_dir("", dir, what, log_rule, e);
	free(dir);
	return rc;
}

int safepath_check_existing_file(const char *file, const char *what, struct cf_err *e)
{
	char *path = absolute_host_path(file, e);
	if (!path)
		return CF_INSTALL;
	int rc = platform_dir_separator() == '\\' ? CF_OK : check_path("", path, what, 0, 1, e);
	free(path);
	return rc;
}
