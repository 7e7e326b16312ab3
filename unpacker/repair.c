/* repair.c - restoring an installed tree from its bundle. What differs is found first (cheap:
 * sizes, types, modes, link targets; with hashes every byte); only then is the payload
 * streamed, every chunk and file verified as at install, and each differing entry written
 * to a temporary name in its own directory and renamed over the old one. */
#include "unpacker/repair.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/log.h"
#include "common/bundle/open.h"
#include "common/platform.h"
#include "common/progress.h"
#include "common/sha256.h"
#include "unpacker/layout.h"

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
	int tree;
	const unsigned char *todo; /* per manifest entry: restore it */
	const struct manifest *m;
	size_t index;              /* the manifest entry now streamed */
	int dirfd;                 /* its directory, while it is written */
	int fd;                    /* its temporary file */
	const char *name;
	char *tmp;
	size_t restored;
};

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
	s->dirfd = platform_tree_open_parent(s->tree, f->path, &s->name);
	if (s->dirfd < 0)
		return cf_fail(e, CF_INSTALL, "'%s': %s", f->path, strerror(errno));
	s->tmp = xasprintf("%s%s", s->name, layout_repair_suffix);
	platform_unlink_at(s->dirfd, s->tmp); /* left by an interrupted repair */
	int ok;
	if (f->type == MF_SYMLINK)
		ok = platform_symlink_at(s->dirfd, s->tmp, f->target) == 0;
	else
		ok = (s->fd = platform_open_at(s->dirfd, s->tmp, PLATFORM_OPEN_WRITE |
					       PLATFORM_OPEN_CREATE | PLATFORM_OPEN_EXCL, 0600)) >= 0;
	if (!ok) {
		int rc = cf_fail(e, CF_INSTALL, "'%s': %s", f->path, strerror(errno));
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
			       "writing: %s", strerror(errno));
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
		int rc = cf_fail(e, CF_INSTALL, "restoring '%s': %s", f->path, strerror(errno));
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

int repair_tree(const char *dir, struct bundle_input *in, const struct manifest *m, int hashes,
		int progress, struct repair_result *r, struct cf_err *e)
{
	memset(r, 0, sizeof(*r));
	int tree = platform_tree_open(dir);
	if (tree < 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", dir, strerror(errno));
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
		struct restorer s = { .tree = tree, .todo = todo, .m = m, .dirfd = -1, .fd = -1 };
		struct payload_sink sink = { restore_begin, restore_data, restore_end, &s };
		struct progress prog;
		progress_start(&prog, "repairing", m->compressed_size, progress);
		rc = bundle_walk(in, &sink, &prog, e);
		progress_end(&prog);
		drop_tmp(&s);
		r->restored = s.restored;
		if (rc == CF_OK && s.restored != ndiffer)
			rc = cf_fail(e, CF_INSTALL, "repair restored %zu of %zu entries", s.restored, ndiffer);
	}
	free(todo);
	platform_tree_close(tree);
	return rc;
}
