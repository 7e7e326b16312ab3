/* stage.c - the staging writer: the verified stream into a fresh private directory, no
 * symlink ever followed, with the install's own records (.cuferry) beside it */
#include "unpacker/install/stage.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/bundle/open.h"
#include "common/bundle/write.h"
#include "common/platform.h"
#include "signing/verify.h"
#include "common/fault.h"
#include "manifests/shadow.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/productline.h"

struct stage {
	const char *dir;     /* the staging directory, for messages */
	const char *path;    /* the entry being written */
	int rootfd;
	int fd;
	uint64_t files;
	uint64_t bytes;
	int faulted;
};

static int stage_begin(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct stage *s = ctx;
	int ok;
	s->path = f->path;
	if (f->type == MF_SYMLINK)
		ok = platform_tree_symlink(s->rootfd, f->path, f->target) == 0;
	else
		ok = (s->fd = platform_tree_create_file(s->rootfd, f->path)) >= 0;
	/* A name taken already means the bundle listed it twice, or a link made it resolve
	 * somewhere it should not: that is the bundle's fault, not the disk's. */
	if (!ok)
		return cf_fail(e, errno == EEXIST ? CF_INTEGRITY : CF_INSTALL, "'%s': %s", f->path,
			       platform_strerror(errno));
	return CF_OK;
}

static int stage_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	struct stage *s = ctx;
	if (interrupt_pending())
		return interrupt_check(e);
	/* Name the file and where it went: "No space left on device" alone says neither. */
	if (io_write_all(s->fd, buf, len) != 0)
		return cf_fail(e, install_write_error(errno), "writing '%s' into %s: %s", s->path,
			       s->dir, platform_strerror(errno));
	s->bytes += len;
	return CF_OK;
}

/* ldconfig files a library under its DT_SONAME whatever it is called: the staged file's soname
 * passes the manifest's name rules too, so that a bundle signed by an older or a compromised
 * bundler cannot slip libc.so.6 or libz.so.1 into the loader's cache under an innocent name.
 * Read back from the staging tree (private to this process), before anything is current. */
static int check_soname(struct stage *s, const struct manifest_file *f, struct cf_err *e)
{
	const char *name;
	char why[256];
	int dir = platform_tree_open_parent(s->rootfd, f->path, &name);
	int fd = dir >= 0 ? platform_open_at(dir, name, PLATFORM_OPEN_READ, 0) : -1;
	int saved = errno;
	if (dir >= 0)
		platform_close(dir);
	if (fd < 0)
		return cf_fail(e, CF_INSTALL, "reading back '%s' in %s: %s", f->path, s->dir,
			       platform_strerror(saved));
	int bad = shadow_check_soname(fd, why, sizeof(why));
	platform_close(fd);
	return bad ? cf_fail(e, CF_INTEGRITY, "'%s' may not be installed: %s", f->path, why) : CF_OK;
}

static int stage_end(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct stage *s = ctx;
	s->files++;
	if (f->type != MF_FILE)
		return CF_OK;
	int fd = s->fd;
	s->fd = -1;
	if (platform_file_finish(fd, f->mode) != 0)
		return cf_fail(e, install_write_error(errno), "writing '%s' into %s: %s", f->path,
			       s->dir, platform_strerror(errno));
	int rc = check_soname(s, f, e);
	if (rc == CF_OK && !s->faulted) {
		s->faulted = 1;
		rc = install_fault("extract", e);
	}
	return rc;
}

static int write_meta(int rootfd, const struct opened *b, const struct install_result *r,
		      struct cf_err *e)
{
	size_t len;
	const struct frame *f = bundle_frame(b->input);
	uint8_t *frame = frame_encode(f->header, f->header_len, f->sigs, f->nsigs, &len);
	char now[32];
	manifest_format_time(platform_time_now(), now);
	char key[64];
	productline_version_key(b->m->product, key, sizeof(key));
	json_t *report = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:I, s:I}", "bundle_id",
				   b->m->bundle_id, key, b->m->product_version,
				   "cuda_variant", b->m->cuda_variant, "counter",
				   (json_int_t)b->m->counter, "installed_at", now, "signers",
				   r->signers, "files", (json_int_t)r->files, "bytes",
				   (json_int_t)r->bytes);
	char *text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(report);
	char fps[FRAME_MAX_SIGS * 65 + 1] = "";
	for (unsigned i = 0; i < b->nsigner_ids; i++) {
		sig_fingerprint(b->signer_ids[i], fps + strlen(fps));
		strcat(fps, "\n");
	}
	int ok = platform_tree_mkdir(rootfd, layout_install_meta_rel) == 0;
	int hfd = ok ? platform_tree_create_file(rootfd, layout_install_header_rel) : -1;
	int jfd = ok ? platform_tree_create_file(rootfd, layout_install_report_rel) : -1;
	int sfd = ok ? platform_tree_create_file(rootfd, layout_install_signers_rel) : -1;
	ok = hfd >= 0 && jfd >= 0 && sfd >= 0 && io_write_all(hfd, frame, len) == 0 &&
	     io_write_all(jfd, text, strlen(text)) == 0 && io_write_all(sfd, fps, strlen(fps)) == 0;
	int saved = errno;
	if (hfd >= 0 && platform_file_finish(hfd, 0644) != 0 && ok)
		ok = 0, saved = errno;
	if (jfd >= 0 && platform_file_finish(jfd, 0644) != 0 && ok)
		ok = 0, saved = errno;
	if (sfd >= 0 && platform_file_finish(sfd, 0644) != 0 && ok)
		ok = 0, saved = errno;
	free(frame);
	free(text);
	return ok ? CF_OK : cf_fail(e, install_write_error(saved), "writing %s: %s", layout_install_meta_rel,
				   platform_strerror(saved));
}

int stage_extract(const struct layout *p, struct opened *b, struct install_result *r,
		  const struct install_options *o, char **staging, struct cf_err *e)
{
	*staging = layout_staging_template(p);
	if (platform_private_dir(*staging) != 0) {
		int rc = cf_fail(e, install_write_error(errno), "%s: %s", p->prefix, platform_strerror(errno));
		free(*staging);
		*staging = NULL; /* nothing was made: nothing for the rollback to remove */
		return rc;
	}
	struct stage s = { .dir = *staging, .fd = -1 };
	s.rootfd = platform_tree_open(*staging);
	if (s.rootfd < 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", *staging, platform_strerror(errno));
	struct payload_sink sink = { stage_begin, stage_data, stage_end, &s };
	struct progress prog;
	progress_start(&prog, "installing", b->m->compressed_size, o->progress);
	double t = platform_elapsed_s();
	int rc = bundle_walk(b->input, &sink, &prog, e);
	progress_end(&prog);
	if (s.fd >= 0)
		platform_close(s.fd);
	r->files = s.files;
	r->bytes = s.bytes;
	if (rc == CF_OK)
		rc = write_meta(s.rootfd, b, r, e);
	r->phase_s[PHASE_EXTRACT] = platform_elapsed_s() - t;
	t = platform_elapsed_s();
	if (rc == CF_OK && platform_tree_commit(s.rootfd) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", *staging, platform_strerror(errno));
	r->phase_s[PHASE_SYNC] = platform_elapsed_s() - t;
	platform_tree_close(s.rootfd);
	return rc;
}
