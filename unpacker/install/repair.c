/* repair.c - restoring an installed tree from its bundle. What differs is found first (cheap:
 * sizes, types, modes, link targets; with hashes every byte); only then is the payload
 * streamed, every chunk and file verified as at install, and each differing entry written
 * to a temporary name in its own directory and renamed over the old one. */
#include "unpacker/install/repair.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/log.h"
#include "common/bundle/format.h"
#include "common/bundle/write.h"
#include "common/bundle/open.h"
#include "common/platform.h"
#include "common/progress.h"
#include "common/sha256.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/unlisted.h"

/* Why the installed entry differs from the manifest, or NULL when it does not. */
static const char *differs(int tree, const struct manifest_file *f, int hashes)
{
	const char *name;
	struct platform_stat st;
	int dirfd = platform_tree_open_parent(tree, f->path, &name);
	const char *why = NULL;
	if (dirfd < 0)
		return "its directory is missing or not a directory";
	if (platform_stat_at(dirfd, name, &st) != 0) {
		why = "missing";
	} else if (f->type == MF_SYMLINK) {
		char target[4096];
		ssize_t n = st.type == PLATFORM_TYPE_LINK
				    ? platform_readlink_at(dirfd, name, target, sizeof(target))
				    : -1;
		if (n < 0)
			why = "not a symbolic link";
		else if (strcmp(target, f->target) != 0)
			why = "a link to somewhere else";
	} else if (st.type != PLATFORM_TYPE_FILE) {
		why = "not a regular file";
	} else if (st.size != f->size) {
		why = "size differs";
	} else if (st.mode != platform_file_mode_kept(f->mode)) {
		why = "mode differs";
	} else if (hashes) {
		int fd = platform_open_at(dirfd, name, PLATFORM_OPEN_READ, 0);
		uint8_t d[32];
		if (fd < 0 || sha256_fd(fd, d, NULL) != 0)
			why = "unreadable";
		else if (!digest_equal(d, f->sha256, 32))
			why = "content differs (SHA-256)";
		if (fd >= 0)
			platform_close(fd);
	}
	platform_close(dirfd);
	return why;
}

struct restorer {
	const char *dir;           /* the installed tree, as the system names it */
	int tree;
	const unsigned char *todo; /* per manifest entry: restore it */
	const struct manifest *m;
	size_t index;              /* the manifest entry now streamed */
	int dirfd;                 /* its directory, while it is written */
	int fd;                    /* its temporary file */
	const char *name;
	char *tmp;
	size_t restored;
	char **aside;              /* what was moved aside (relative paths), removed at the end */
	size_t naside;
};

/* Rename name (in dirfd, relpath in the tree) to a free NAME[.N].cuferry-aside beside it: a
 * rename moves a link or a directory itself, never what it points at or holds. */
static int set_aside(struct restorer *s, int dirfd, const char *relpath, const char *name,
		     const char *why, struct cf_err *e)
{
	struct platform_stat st;
	char *aside = NULL;
	for (int n = 0; n < 100 && !aside; n++) {
		aside = n ? xasprintf("%s.%d%s", name, n, layout_aside_suffix)
			  : xasprintf("%s%s", name, layout_aside_suffix);
		if (platform_stat_at(dirfd, aside, &st) == 0) {
			free(aside);
			aside = NULL;
		}
	}
	if (!aside || platform_rename_at(dirfd, name, aside) != 0) {
		int rc = cf_fail(e, CF_INSTALL, "'%s' (%s): cannot move it aside: %s", relpath, why,
				 aside ? platform_strerror(errno) : "too many earlier ones");
		free(aside);
		return rc;
	}
	size_t dir_len = strlen(relpath) - strlen(name);
	s->aside = xrealloc(s->aside, (s->naside + 1) * sizeof(*s->aside));
	s->aside[s->naside++] = xasprintf("%.*s%s", (int)dir_len, relpath, aside);
	log_msg(LOG_INFO, "moved '%s' aside (%s)", relpath, why);
	free(aside);
	return CF_OK;
}

/* Make room for the entry relpath: whatever stands where one of its directories belongs (a
 * file, a link, anything but a directory) and a directory standing at relpath itself are
 * moved aside, none of them followed; a missing directory is made. */
static int clear_way(struct restorer *s, const char *relpath, struct cf_err *e)
{
	char *path = xstrdup(relpath);
	int rc = CF_OK;
	for (char *slash = path;; *slash = '/') {
		slash = strchr(slash + (slash != path), '/');
		if (slash)
			*slash = '\0';
		const char *name;
		struct platform_stat st;
		int dirfd = platform_tree_open_parent(s->tree, path, &name);
		if (dirfd < 0) {
			rc = cf_fail(e, CF_INSTALL, "'%s': %s", path, platform_strerror(errno));
			break;
		}
		if (platform_stat_at(dirfd, name, &st) == 0) {
			if (slash && st.type != PLATFORM_TYPE_DIR)
				rc = set_aside(s, dirfd, path, name, "where a directory belongs", e);
			else if (!slash && st.type == PLATFORM_TYPE_DIR)
				rc = set_aside(s, dirfd, path, name, "a directory where the bundle has a file", e);
		}
		platform_close(dirfd);
		if (rc != CF_OK || !slash)
			break;
	}
	free(path);
	return rc;
}

/* After every entry is back: what was moved aside goes (a link is removed, not followed). */
static void remove_aside(struct restorer *s)
{
	for (size_t i = 0; i < s->naside; i++) {
		char *full = xasprintf("%s/%s", s->dir, s->aside[i]);
		if (io_rmtree(full) != 0)
			log_msg(LOG_WARN, "could not remove %s (%s): remove it by hand", full, platform_strerror(errno));
		free(full);
	}
}

static void drop_tmp(struct restorer *s)
{
	if (s->fd >= 0)
		platform_close(s->fd);
	if (s->dirfd >= 0 && s->tmp)
		platform_unlink_at(s->dirfd, s->tmp);
	if (s->dirfd >= 0)
		platform_close(s->dirfd);
	free(s->tmp);
	s->fd = s->dirfd = -1;
	s->tmp = NULL;
}

static int restore_begin(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct restorer *s = ctx;
	while (s->index < s->m->nfiles && &s->m->files[s->index] != f &&
	       strcmp(s->m->files[s->index].path, f->path) != 0)
		s->index++;
	if (s->index >= s->m->nfiles || !s->todo[s->index])
		return CF_OK;
	int rc = clear_way(s, f->path, e);
	if (rc != CF_OK)
		return rc;
	s->dirfd = platform_tree_open_parent(s->tree, f->path, &s->name);
	if (s->dirfd < 0)
		return cf_fail(e, CF_INSTALL, "'%s': %s", f->path, platform_strerror(errno));
	s->tmp = xasprintf("%s%s", s->name, layout_repair_suffix);
	platform_unlink_at(s->dirfd, s->tmp); /* left by an interrupted repair */
	int ok;
	if (f->type == MF_SYMLINK)
		ok = platform_symlink_at(s->dirfd, s->tmp, f->target) == 0;
	else
		ok = (s->fd = platform_open_at(s->dirfd, s->tmp, PLATFORM_OPEN_WRITE |
					       PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0600)) >= 0;
	if (!ok) {
		rc = cf_fail(e, CF_INSTALL, "'%s': %s", f->path, platform_strerror(errno));
		free(s->tmp);
		s->tmp = NULL;
		return rc;
	}
	return CF_OK;
}

static int restore_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	struct restorer *s = ctx;
	if (interrupt_pending())
		return interrupt_check(e);
	if (s->fd >= 0 && io_write_all(s->fd, buf, len) != 0)
		return cf_fail(e, platform_error_is_no_space(errno) ? CF_INCOMPATIBLE : CF_INSTALL,
			       "writing '%s' into %s: %s", s->m->files[s->index].path, s->dir,
			       platform_strerror(errno));
	return CF_OK;
}

/* Called after the entry's size and SHA-256 matched: only now does it replace the old one. */
static int restore_end(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct restorer *s = ctx;
	if (!s->tmp)
		return CF_OK;
	int ok = 1;
	if (s->fd >= 0) {
		int fd = s->fd;
		s->fd = -1;
		ok = platform_fsync(fd) == 0 && platform_file_finish(fd, f->mode) == 0;
	}
	if (ok)
		ok = platform_rename_at(s->dirfd, s->tmp, s->name) == 0;
	if (!ok) {
		int rc = cf_fail(e, CF_INSTALL, "restoring '%s': %s", f->path, platform_strerror(errno));
		drop_tmp(s);
		return rc;
	}
	platform_fsync(s->dirfd);
	free(s->tmp);
	s->tmp = NULL;
	platform_close(s->dirfd);
	s->dirfd = -1;
	s->restored++;
	log_msg(LOG_INFO, "restored %s", f->path);
	return CF_OK;
}

/* .cuferry/header.bin is what 'validate' re-checks the install against: damaged, it fails for
 * good (review item 4). The bundle's frame, verified with the trusted keys before any repair,
 * is written back byte for byte as the install wrote it (stage.c), through a temporary name. */
static int restore_header(int tree, const char *dir, const struct frame *f, struct repair_result *r,
			  struct cf_err *e)
{
	size_t len, have_len = 0;
	uint8_t *frame = frame_encode(f->header, f->header_len, f->sigs, f->nsigs, &len);
	char *path = layout_install_header(dir), *have = NULL;
	int rc = CF_OK, read = io_read_file_nofollow(path, FRAME_CAP + 16, &have, &have_len);
	if (read != 0 || have_len != len || memcmp(have, frame, len) != 0) {
		const char *why = read != 0 ? "missing or unreadable" : "differs from the bundle's signed header";
		log_msg(LOG_INFO, "%s: %s", layout_install_header_rel, why);
		if (r->restored == 0)
			snprintf(r->first, sizeof(r->first), "%s: %s", layout_install_header_rel, why);
		if (platform_tree_mkdir(tree, layout_install_meta_rel) != 0 && errno != EEXIST)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", layout_install_meta_rel, platform_strerror(errno));
		else if (io_write_file_atomic(path, frame, len, 0644) != 0)
			rc = cf_fail(e, CF_INSTALL, "restoring %s: %s", path, platform_strerror(errno));
		else
			r->restored++, log_msg(LOG_INFO, "restored %s", layout_install_header_rel);
	}
	free(have);
	free(path);
	free(frame);
	return rc;
}

int repair_tree(const char *dir, struct bundle_input *in, const struct manifest *m, int hashes,
		int progress, struct repair_result *r, struct cf_err *e)
{
	memset(r, 0, sizeof(*r));
	int tree = platform_tree_open(dir);
	if (tree < 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", dir, platform_strerror(errno));
	unsigned char *todo = xcalloc(m->nfiles ? m->nfiles : 1, 1);
	size_t ndiffer = 0;
	for (size_t i = 0; i < m->nfiles; i++, r->checked++) {
		const char *why = differs(tree, &m->files[i], hashes);
		if (!why)
			continue;
		todo[i] = 1;
		if (ndiffer++ == 0)
			snprintf(r->first, sizeof(r->first), "%s: %s", m->files[i].path, why);
		log_msg(LOG_INFO, "%s: %s", m->files[i].path, why);
	}
	int rc = CF_OK;
	r->differ = ndiffer;
	if (ndiffer > 0 && in) {
		struct restorer s = { .dir = dir, .tree = tree, .todo = todo, .m = m, .dirfd = -1,
				      .fd = -1 };
		struct payload_sink sink = { restore_begin, restore_data, restore_end, &s };
		struct progress prog;
		progress_start(&prog, "repairing", m->compressed_size, progress);
		rc = bundle_walk(in, &sink, &prog, e);
		progress_end(&prog);
		drop_tmp(&s);
		r->restored = s.restored;
		if (rc == CF_OK && s.restored != ndiffer)
			rc = cf_fail(e, CF_INSTALL, "repair restored %zu of %zu entries", s.restored, ndiffer);
		/* Kept after a failure: doctor names them, as it names the repair's temporaries. */
		if (rc == CF_OK)
			remove_aside(&s);
		for (size_t i = 0; i < s.naside; i++)
			free(s.aside[i]);
		free(s.aside);
	}
	/* Given no bundle (a dry run) it only looks: nothing is put back or moved. */
	if (rc == CF_OK && in)
		rc = restore_header(tree, dir, bundle_frame(in), r, e);
	free(todo);
	platform_tree_close(tree);
	size_t aside = 0; /* --repair: what the manifest does not list goes too */
	if (rc == CF_OK && in && hashes && (rc = unlisted_move_aside(dir, m, &aside, e)) == CF_OK &&
	    aside) {
		if (!r->first[0])
			snprintf(r->first, sizeof(r->first), "%zu entries not in the manifest moved aside", aside);
		r->restored += aside;
	}
	return rc;
}
