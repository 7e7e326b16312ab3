/* install.c - verify, stage, rename, switch, record; roll back on any failure; repair after
 * a crash */
#include "unpacker/install/install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bundlefile.h"
#include "common/frame.h"
#include "common/io.h"
#include "common/log.h"
#include "common/payload.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "common/interrupt.h"
#include "unpacker/env.h"
#include "unpacker/sfxtrust.h"
#include "unpacker/safepath.h"
#include "unpacker/repair.h"
#include "unpacker/modulefile.h"
#include "unpacker/state.h"
#include "unpacker/validate.h"

struct paths {
	const char *root;
	char *prefix_sys; /* /opt/cudnn: what the system sees */
	char *prefix;     /* ROOT/opt/cudnn: where we write */
	char *meta;       /* PREFIX/.cuferry */
	char *state;
	char *state_prev;
	char *journal;
	char *lock;
	char *current;
	char *env_before; /* PREFIX/.cuferry/env-before.json: the environment files before */
};

char *install_default_prefix(const struct install_options *o)
{
	if (o->prefix)
		return xstrdup(o->prefix);
	const char *home = getenv("HOME");
	if (platform_is_admin() || *o->root || !home || !*home)
		return xstrdup("/opt/cudnn");
	return xasprintf("%s/.local/opt/cudnn", home);
}

static void paths_init(struct paths *p, const struct install_options *o)
{
	p->root = o->root;
	p->prefix_sys = install_default_prefix(o);
	p->prefix = xasprintf("%s%s", o->root, p->prefix_sys);
	p->meta = xasprintf("%s/.cuferry", p->prefix);
	p->state = xasprintf("%s/state.json", p->meta);
	p->state_prev = xasprintf("%s/state.prev.json", p->meta);
	p->journal = xasprintf("%s/journal.json", p->meta);
	p->lock = xasprintf("%s/lock", p->meta);
	p->current = xasprintf("%s/current", p->prefix);
	p->env_before = xasprintf("%s/env-before.json", p->meta);
}

static void paths_free(struct paths *p)
{
	free(p->prefix_sys);
	free(p->prefix);
	free(p->meta);
	free(p->state);
	free(p->state_prev);
	free(p->journal);
	free(p->lock);
	free(p->current);
	free(p->env_before);
}

/* Test seam, compiled only into the test build (build/test-bin/unpacker, -DCUFERRY_TEST_SEAMS):
 * CUFERRY_FAULT=step fails there, step:pause stops there so a test can kill -9. The shipped
 * unpacker ignores the variable. Even where present it can only make an install fail. */
static int fault(const char *step, struct cf_err *e)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *f = getenv("CUFERRY_FAULT");
	size_t n = strlen(step);
	if (!f || strncmp(f, step, n) != 0 || (f[n] != '\0' && f[n] != ':'))
		return CF_OK;
	if (strcmp(f + n, ":pause") == 0) {
		fprintf(stderr, "cuferry-fault: paused at %s\n", step);
		raise(SIGSTOP);
		return CF_OK;
	}
	return cf_fail(e, CF_INSTALL, "injected failure at %s (CUFERRY_FAULT)", step);
#else
	(void)step, (void)e;
	return CF_OK;
#endif
}

/* ---- reading and trusting a bundle: nothing is written before this succeeds ---- */

struct opened {
	struct bundle_input *input;
	struct frame frame;
	struct manifest *m;
};

static void opened_close(struct opened *b)
{
	bundle_close(b->input);
	frame_free(&b->frame);
	manifest_free(b->m);
	memset(b, 0, sizeof(*b));
}

static int open_trusted(const struct install_options *o, struct opened *b, char *signers,
			size_t size, struct cf_err *e)
{
	struct trust t;
	memset(b, 0, sizeof(*b));
	int rc = trust_load(&t, &o->trust, e);
	if (rc == CF_OK)
		rc = bundle_open(o->bundle, &b->input, e);
	if (rc == CF_OK)
		rc = bundle_read_frame(b->input, &b->frame, e);
	if (rc == CF_OK)
		rc = trust_check(&t, &b->frame, signers, size, e);
	if (rc == CF_OK)
		rc = sfxtrust_check(&t, b->input, &b->frame, e);
	/* Only now, with the signature good, is the manifest parsed. */
	if (rc == CF_OK)
		rc = manifest_parse((const char *)b->frame.header, b->frame.header_len, &b->m, e);
	return rc;
}

/* A full disk or quota is "no space" (exit 4) with its cause, wherever it strikes; any other
 * write error is an install failure (5). */
static int write_error_code(int err)
{
	return err == ENOSPC || err == EDQUOT ? CF_INCOMPATIBLE : CF_INSTALL;
}

/* ---- the staging writer: a fresh private directory, no symlink ever followed ---- */

struct stage {
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
	if (f->type == MF_SYMLINK)
		ok = platform_tree_symlink(s->rootfd, f->path, f->target) == 0;
	else
		ok = (s->fd = platform_tree_create_file(s->rootfd, f->path)) >= 0;
	/* A name taken already means the bundle listed it twice, or a link made it resolve
	 * somewhere it should not: that is the bundle's fault, not the disk's. */
	if (!ok)
		return cf_fail(e, errno == EEXIST ? CF_INTEGRITY : CF_INSTALL, "'%s': %s", f->path,
			       strerror(errno));
	return CF_OK;
}

static int stage_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	struct stage *s = ctx;
	if (interrupt_pending())
		return interrupt_check(e);
	if (io_write_all(s->fd, buf, len) != 0)
		return cf_fail(e, write_error_code(errno), "writing: %s",
			       strerror(errno));
	s->bytes += len;
	return CF_OK;
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
		return cf_fail(e, write_error_code(errno), "'%s': %s", f->path,
			       strerror(errno));
	int rc = CF_OK;
	if (!s->faulted) {
		s->faulted = 1;
		rc = fault("extract", e);
	}
	return rc;
}

static int write_meta(int rootfd, const struct opened *b, const struct install_result *r,
		      struct cf_err *e)
{
	size_t len;
	uint8_t *frame = frame_encode(b->frame.header, b->frame.header_len, b->frame.sigs,
				      b->frame.nsigs, &len);
	char now[32];
	manifest_format_time((int64_t)time(NULL), now);
	json_t *report = json_pack("{s:s, s:s, s:s, s:I, s:s, s:s, s:I, s:I}", "bundle_id",
				   b->m->bundle_id, "cudnn_version", b->m->cudnn_version,
				   "cuda_variant", b->m->cuda_variant, "counter",
				   (json_int_t)b->m->counter, "installed_at", now, "signers",
				   r->signers, "files", (json_int_t)r->files, "bytes",
				   (json_int_t)r->bytes);
	char *text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(report);
	int ok = platform_tree_mkdir(rootfd, ".cuferry") == 0;
	int hfd = ok ? platform_tree_create_file(rootfd, ".cuferry/header.bin") : -1;
	int jfd = ok ? platform_tree_create_file(rootfd, ".cuferry/report.json") : -1;
	ok = hfd >= 0 && jfd >= 0 && io_write_all(hfd, frame, len) == 0 &&
	     io_write_all(jfd, text, strlen(text)) == 0;
	int saved = errno;
	if (hfd >= 0 && platform_file_finish(hfd, 0644) != 0 && ok)
		ok = 0, saved = errno;
	if (jfd >= 0 && platform_file_finish(jfd, 0644) != 0 && ok)
		ok = 0, saved = errno;
	free(frame);
	free(text);
	return ok ? CF_OK : cf_fail(e, write_error_code(saved), "writing .cuferry: %s", strerror(saved));
}

/* ---- the journal: what a crashed run was doing, so the next run can undo it ---- */

struct journal {
	char *staging;
	char *target;            /* dir name under the prefix */
	char *backup;            /* where an existing target was moved, or NULL */
	char *previous_current;  /* dir name, or NULL */
	int target_existed;
	int state_existed;
	int env_created;
	int env_saved; /* env-before.json holds the environment files as they were */
	int committed;
};

static void journal_free(struct journal *j)
{
	free(j->staging);
	free(j->target);
	free(j->backup);
	free(j->previous_current);
	memset(j, 0, sizeof(*j));
}

static int journal_write(const struct paths *p, const struct journal *j, struct cf_err *e)
{
	json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:b, s:b, s:b, s:b, s:b}", "staging", j->staging,
			      "target", j->target, "backup", j->backup, "previous_current",
			      j->previous_current, "target_existed", j->target_existed,
			      "state_existed", j->state_existed, "env_created", j->env_created,
			      "env_saved", j->env_saved, "committed", j->committed);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	int rc = io_write_file_atomic(p->journal, text, strlen(text), 0600) == 0
			 ? CF_OK
			 : cf_fail(e, write_error_code(errno), "%s: %s", p->journal, strerror(errno));
	free(text);
	return rc;
}

static int journal_read(const struct paths *p, struct journal *j)
{
	char *text;
	size_t len;
	memset(j, 0, sizeof(*j));
	if (io_read_file_nofollow(p->journal, 1 << 20, &text, &len) != 0)
		return -1;
	json_t *o = json_loadb(text, len, 0, NULL);
	free(text);
	const char *s;
	if (!json_is_object(o))
		return json_decref(o), -2;
#define JSTR(k) ((s = json_string_value(json_object_get(o, k))) ? xstrdup(s) : NULL)
	j->staging = JSTR("staging");
	j->target = JSTR("target");
	j->backup = JSTR("backup");
	j->previous_current = JSTR("previous_current");
#undef JSTR
	j->target_existed = json_is_true(json_object_get(o, "target_existed"));
	j->state_existed = json_is_true(json_object_get(o, "state_existed"));
	j->env_created = json_is_true(json_object_get(o, "env_created"));
	j->env_saved = json_is_true(json_object_get(o, "env_saved"));
	j->committed = json_is_true(json_object_get(o, "committed"));
	json_decref(o);
	return j->target ? 0 : -2;
}

static char *under(const struct paths *p, const char *name);

/* A name recovery may remove: one component directly inside the prefix, nothing else. */
static int plain_name(const char *name, const char *starts)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       strcmp(name, ".cuferry") && strncmp(name, starts, strlen(starts)) == 0;
}

/* The journal is only believed where it names what this program makes: the install
 * directory, ".old-*" and "PREFIX/.staging-*". A planted journal naming anything else
 * (another directory, a path with '/') is refused before a single file is removed. */
static int journal_names_ok(const struct paths *p, struct journal *j)
{
	const char *base = j->staging ? strrchr(j->staging, '/') : NULL;
	if (!plain_name(j->target, "") || (j->backup && !plain_name(j->backup, ".old-")) ||
	    (j->previous_current && !plain_name(j->previous_current, "")) ||
	    (j->staging && (!base || !plain_name(base + 1, ".staging-"))))
		return 0;
	/* Only the staging directory's name is believed: it is removed from this prefix (the
	 * same one however --root was spelled when the run crashed), never from where it says. */
	if (j->staging) {
		char *inside = under(p, base + 1);
		free(j->staging);
		j->staging = inside;
	}
	return 1;
}

static char *under(const struct paths *p, const char *name)
{
	return xasprintf("%s/%s", p->prefix, name);
}

static int set_current(const struct paths *p, const char *dir)
{
	char now[1024];
	ssize_t n = readlink(p->current, now, sizeof(now) - 1);
	if (dir && n > 0 && (size_t)n == strlen(dir) && memcmp(now, dir, (size_t)n) == 0)
		return 0; /* already so: nothing to put back (and nothing to fail on a full disk) */
	if (!dir)
		return unlink(p->current) == 0 || errno == ENOENT ? 0 : -1;
	return platform_switch_link(p->current, dir);
}

static void modulefile_ctx_init(struct modulefile_ctx *c, const struct paths *p)
{
	c->root = p->root;
	c->prefix_sys = p->prefix_sys;
	c->prefix = p->prefix;
}

/* A new install's modulefiles go; the default goes back to the previous current. */
static int modulefiles_rollback(const struct paths *p, const struct journal *j)
{
	struct modulefile_ctx c;
	struct cf_err ignored = { 0 };
	modulefile_ctx_init(&c, p);
	int rc = j->target_existed ? CF_OK : modulefile_remove(&c, j->target, &ignored);
	if (rc == CF_OK)
		rc = modulefile_set_default(&c, j->previous_current, &ignored);
	return rc;
}

/* Modulefiles: into --modulefiles DIR, or into the site's Lmod directory when Lmod is there
 * and the system environment is written (root, no --no-env). */
static int write_modulefiles(const struct paths *p, const struct install_options *o,
			     const char *dir, struct install_result *r, struct cf_err *e)
{
	char *module_dir = o->modulefiles ? xstrdup(o->modulefiles)
			   : !o->no_env && !o->env_user && platform_is_admin() ? modulefile_site_dir(p->root)
									      : NULL;
	int rc = CF_OK;
	if (module_dir) {
		struct modulefile_ctx c;
		modulefile_ctx_init(&c, p);
		rc = modulefile_install(&c, module_dir, dir, e);
		size_t n = strlen(r->env_note);
		snprintf(r->env_note + n, sizeof(r->env_note) - n, "%smodulefiles in %s%s",
			 n ? "; " : "", p->root, module_dir);
	}
	free(module_dir);
	return rc;
}

/* Put everything back as the journal says it was. Every step is safe to repeat. */
static int rollback(const struct paths *p, const struct journal *j, struct cf_err *e)
{
	int bad = 0;
	char *target = under(p, j->target);
	bad |= set_current(p, j->previous_current) != 0;
	if (j->backup) {
		char *backup = under(p, j->backup);
		if (io_exists(backup)) {
			bad |= io_rmtree(target) != 0;
			bad |= rename(backup, target) != 0;
		}
		free(backup);
	} else if (!j->target_existed) {
		bad |= io_rmtree(target) != 0;
	}
	free(target);
	if (j->staging)
		bad |= io_rmtree(j->staging) != 0;
	if (j->state_existed) {
		if (io_exists(p->state_prev))
			bad |= rename(p->state_prev, p->state) != 0;
	} else {
		bad |= unlink(p->state) != 0 && errno != ENOENT;
	}
	if (j->env_saved || j->env_created) {
		struct env_files f;
		struct cf_err ignored = { 0 };
		env_files_init(&f, p->root);
		/* Exactly what was there: names (the old ld.so.conf.d one too) and contents. */
		if (j->env_saved && io_exists(p->env_before))
			bad |= env_snapshot_restore(&f, p->root, p->env_before, &ignored) != CF_OK;
		else if (!j->env_saved)
			bad |= env_remove_system(&f, p->root, &ignored) != CF_OK;
		env_files_free(&f);
	}
	bad |= modulefiles_rollback(p, j) != CF_OK;
	if (!bad)
		unlink(p->env_before);
	if (bad)
		return cf_fail(e, CF_ROLLBACK, "rollback incomplete: check %s (journal kept at %s); "
			       "re-run the unpacker to retry, or restore by hand", p->prefix, p->journal);
	unlink(p->journal);
	io_fsync_dir(p->meta);
	return CF_OK;
}

/* Staging directories of crashed runs: we hold the lock, so nobody else is using them. */
static void remove_stale_staging(const struct paths *p)
{
	DIR *d = opendir(p->prefix);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, ".staging-", 9) == 0 || strncmp(de->d_name, ".old-", 5) == 0) {
			char *path = under(p, de->d_name);
			log_msg(LOG_INFO, "removing %s left by an interrupted run", de->d_name);
			io_rmtree(path);
			free(path);
		}
	closedir(d);
}

/* Finish or undo what a crashed run left, before anything else happens. */
static int recover(const struct paths *p, int *recovered, struct cf_err *e)
{
	struct journal j;
	int r = journal_read(p, &j);
	*recovered = 0;
	if (r == -1)
		return errno == ENOENT ? (remove_stale_staging(p), CF_OK)
				       : cf_fail(e, CF_INSTALL, "%s: %s", p->journal, strerror(errno));
	if (r == 0 && !journal_names_ok(p, &j)) {
		journal_free(&j);
		return cf_fail(e, CF_ROLLBACK, "%s names paths this program never makes: refusing to "
			       "remove anything; inspect %s by hand", p->journal, p->prefix);
	}
	if (r == -2) {
		journal_free(&j);
		return cf_fail(e, CF_ROLLBACK, "%s is damaged: the last run was interrupted and its "
			       "state cannot be told; inspect %s", p->journal, p->prefix);
	}
	int rc;
	if (j.committed) {
		log_msg(LOG_WARN, "completing an install of %s that was interrupted after it was "
			"committed", j.target);
		unlink(p->env_before);
		unlink(p->journal);
		rc = CF_OK;
	} else {
		log_msg(LOG_WARN, "rolling back an install of %s that was interrupted", j.target);
		rc = rollback(p, &j, e);
	}
	journal_free(&j);
	if (rc == CF_OK) {
		remove_stale_staging(p);
		unlink(p->state_prev);
		*recovered = 1;
	}
	return rc;
}

/* Lock, then repair: every command that changes the prefix starts here. */
static int prefix_open(const struct paths *p, int *lock, int *recovered, struct cf_err *e)
{
	/* DESIGN §6: checked before anything is written, and again once the missing directories
	 * exist (one planted between the two checks is caught by the second). */
	if (safepath_check_dir(p->root, p->prefix_sys, "the prefix", e) != CF_OK)
		return e->code;
	if (io_mkdirs(p->meta, 0755) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->meta, strerror(errno));
	if (safepath_check_dir(p->root, p->prefix_sys, "the prefix", e) != CF_OK)
		return e->code;
	/* A planted link (two-step attack) would carry the lock, the journal and state.json
	 * somewhere else: the prefix and its .cuferry must be real directories. */
	const char *dirs[] = { p->prefix, p->meta };
	for (int i = 0; i < 2; i++) {
		struct stat st;
		if (lstat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			return cf_fail(e, CF_INSTALL, "%s is not a real directory (a symbolic link?): "
				       "refusing to write through it", dirs[i]);
	}
	int r = platform_lock(p->lock, lock);
	if (r == 1)
		return cf_fail(e, CF_BUSY, "another unpacker holds %s", p->lock);
	if (r != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->lock, strerror(errno));
	int rc = recover(p, recovered, e);
	if (rc != CF_OK) {
		platform_unlock(*lock);
		*lock = -1;
	}
	return rc;
}

/* ---- policy: replay, downgrade, expiry, clock, platform, space ---- */

static int check_policy(const struct install_options *o, const struct manifest *m,
			const struct state *st, const struct paths *p, struct install_result *r,
			struct cf_err *e)
{
	int64_t now = (int64_t)time(NULL);
	uint64_t seen;
	char nowstr[32];
	manifest_format_time(now, nowstr);
	if (st->newest_created && now < manifest_parse_time(st->newest_created))
		return cf_fail(e, CF_POLICY, "the system clock (%s) is earlier than the creation of a "
			       "bundle already installed (%s): fix the clock first", nowstr,
			       st->newest_created);
	if (m->expires && manifest_parse_time(m->expires) < now && !o->allow_expired)
		return cf_fail(e, CF_POLICY, "bundle expired on %s (--allow-expired to install anyway)",
			       m->expires);
	if (state_seen_counter(st, m->bundle_id, &seen)) {
		const struct state_bundle *b = state_find(st, r->dir);
		char *dir = under(p, r->dir);
		int present = io_is_dir(dir);
		free(dir);
		if (m->counter == seen && b && b->counter == seen && present) {
			r->noop = 1;
			return CF_OK;
		}
		if (m->counter < seen && !o->allow_downgrade)
			return cf_fail(e, CF_POLICY, "bundle counter %llu is lower than %llu already seen for "
				       "%s: replay or downgrade refused (--allow-downgrade)",
				       (unsigned long long)m->counter, (unsigned long long)seen,
				       m->bundle_id);
	}
	/* The counter is per bundle id, and the id names the version: an old but validly signed
	 * release is a different id. What decides is the cuDNN version against current's. */
	const struct state_bundle *cur = st->current ? state_find(st, st->current) : NULL;
	if (cur && cur->version && cur->cuda_variant && strcmp(cur->cuda_variant, m->cuda_variant) == 0 &&
	    manifest_version_compare(m->cudnn_version, cur->version) < 0 && !o->allow_downgrade &&
	    !o->keep_current)
		return cf_fail(e, CF_POLICY, "cuDNN %s is older than the current %s for CUDA %s: downgrade "
			       "refused (--allow-downgrade to switch to it, --keep-current to install it "
			       "beside)", m->cudnn_version, cur->version, m->cuda_variant);
	return CF_OK;
}

/* Under --root, and as root on the host, the environment's directories are checked like
 * the prefix before anything is written. */
static int check_env_dirs(const struct paths *p, const struct install_options *o, struct cf_err *e)
{
	static const char *const dirs[] = { "/etc/ld.so.conf.d", "/etc/profile.d" };
	if (o->no_env || o->env_user || !platform_is_admin())
		return CF_OK;
	for (size_t i = 0; i < 2; i++)
		if (safepath_check_dir(p->root, dirs[i], "the environment directory", e) != CF_OK)
			return e->code;
	return CF_OK;
}

/* Bytes and inodes: a file system out of inodes fails as surely as a full one, and must be
 * told before anything is written, with that cause (exit 4), not as a failed rollback. */
static int check_space(const struct paths *p, const struct manifest *m, struct cf_err *e)
{
	uint64_t free_bytes, free_inodes, need = 16u << 20, inodes = 16; /* .cuferry, staging, temps */
	for (size_t i = 0; i < m->nfiles; i++) {
		const char *path = m->files[i].path, *slash = strrchr(path, '/');
		const char *prev = i ? m->files[i - 1].path : "", *prev_slash = strrchr(prev, '/');
		size_t n = slash ? (size_t)(slash - path) : 0, pn = prev_slash ? (size_t)(prev_slash - prev) : 0;
		need += m->files[i].size + 4096;
		inodes += 1 + (n && (n != pn || strncmp(path, prev, n) != 0)); /* a new directory */
	}
	if (platform_free_bytes(p->prefix, &free_bytes) != 0 ||
	    platform_free_inodes(p->prefix, &free_inodes) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->prefix, strerror(errno));
	if (free_bytes < need)
		return cf_fail(e, CF_INCOMPATIBLE, "no space: not enough space in %s: %llu MiB free, "
			       "%llu MiB needed", p->prefix, (unsigned long long)(free_bytes >> 20),
			       (unsigned long long)(need >> 20));
	if (free_inodes < inodes)
		return cf_fail(e, CF_INCOMPATIBLE, "no space: not enough inodes in %s: %llu free, %llu "
			       "needed (files and directories)", p->prefix,
			       (unsigned long long)free_inodes, (unsigned long long)inodes);
	return CF_OK;
}

/* ---- the transaction ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void install_timings_text(const struct install_result *r, char *out, size_t size)
{
	static const char *const names[PHASE_COUNT] = { "open_verify", "extract", "sync", "switch",
							 "environment", "validation" };
	size_t used = (size_t)snprintf(out, size, "{");
	for (int i = 0; i < PHASE_COUNT && used < size; i++)
		if (r->phase_s[i] >= 0)
			used += (size_t)snprintf(out + used, size - used, "%s\"%s\": %.3f", used > 1 ? ", " : "",
						 names[i], r->phase_s[i]);
	if (used < size)
		snprintf(out + used, size - used, "}");
}

static int extract_to_staging(const struct paths *p, struct opened *b, struct install_result *r,
			      const struct install_options *o, char **staging, struct cf_err *e)
{
	*staging = xasprintf("%s/.staging-XXXXXX", p->prefix);
	if (platform_private_dir(*staging) != 0) {
		int rc = cf_fail(e, write_error_code(errno), "%s: %s", p->prefix, strerror(errno));
		free(*staging);
		*staging = NULL; /* nothing was made: nothing for the rollback to remove */
		return rc;
	}
	struct stage s = { .fd = -1 };
	s.rootfd = platform_tree_open(*staging);
	if (s.rootfd < 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", *staging, strerror(errno));
	struct payload_sink sink = { stage_begin, stage_data, stage_end, &s };
	struct progress prog;
	progress_start(&prog, "installing", b->m->compressed_size, o->progress);
	double t = now_s();
	int rc = payload_walk(b->input, b->m, &sink, &prog, e);
	progress_end(&prog);
	if (s.fd >= 0)
		close(s.fd);
	r->files = s.files;
	r->bytes = s.bytes;
	if (rc == CF_OK)
		rc = write_meta(s.rootfd, b, r, e);
	r->phase_s[PHASE_EXTRACT] = now_s() - t;
	t = now_s();
	if (rc == CF_OK && platform_tree_commit(s.rootfd) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", *staging, strerror(errno));
	r->phase_s[PHASE_SYNC] = now_s() - t;
	platform_tree_close(s.rootfd);
	return rc;
}

static void note_env_paths(struct install_result *r, const char *a, const char *b)
{
	snprintf(r->env_paths[0], sizeof(r->env_paths[0]), "%s", a);
	snprintf(r->env_paths[1], sizeof(r->env_paths[1]), "%s", b);
}

static int commit_install(const struct paths *p, const struct install_options *o,
			  const struct manifest *m, struct state *st, struct journal *j,
			  struct install_result *r, struct cf_err *e)
{
	char *target = under(p, j->target), now[32];
	int rc = CF_OK;
	double t = now_s();
	if (j->target_existed) {
		j->backup = xasprintf(".old-%s-%ld", j->target, platform_process_id());
		rc = journal_write(p, j, e);
		char *backup = under(p, j->backup);
		if (rc == CF_OK && rename(target, backup) != 0)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", target, strerror(errno));
		free(backup);
	}
	if (rc == CF_OK && rename(j->staging, target) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", target, strerror(errno));
	if (rc == CF_OK)
		rc = fault("renamed", e);
	if (rc == CF_OK && !o->keep_current && platform_switch_link(p->current, j->target) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", p->current, strerror(errno));
	if (rc == CF_OK)
		rc = fault("switched", e);
	manifest_format_time((int64_t)time(NULL), now);
	struct state_bundle b = { m->bundle_id, j->target, m->cudnn_version, m->cuda_variant,
				  m->created, now, m->counter };
	if (rc == CF_OK) {
		state_record(st, &b);
		if (!o->keep_current)
			state_set_current(st, j->target);
		rc = state_save(p->state, st, e);
	}
	if (rc == CF_OK)
		rc = fault("state", e);
	r->phase_s[PHASE_SWITCH] = now_s() - t;
	t = now_s();
	struct env_files f;
	env_files_init(&f, p->root);
	if (rc == CF_OK && o->keep_current) {
		r->kept_current = 1;
	} else if (rc == CF_OK && !o->no_env && !o->env_user && platform_is_admin()) {
		j->env_created = !env_system_present(&f);
		rc = env_snapshot_save(&f, p->env_before, e);
		j->env_saved = rc == CF_OK;
		if (rc == CF_OK)
			rc = journal_write(p, j, e);
		if (rc == CF_OK)
			rc = env_write_system(&f, p->root, p->prefix_sys, e);
		snprintf(r->env_note, sizeof(r->env_note), "%s and %s", f.ldconf, f.profile);
		note_env_paths(r, f.ldconf, f.profile);
	} else if (rc == CF_OK && !o->no_env) {
		char written[512];
		if (o->env_user)
			rc = env_write_user(p->prefix_sys, written, sizeof(written), e);
		if (o->env_user)
			note_env_paths(r, written, "");
		snprintf(r->env_note, sizeof(r->env_note), o->env_user ? "written to %s: source it from ~/.profile"
			 : "not root: add the output of 'unpacker env' to your shell profile, or use --env=user%s",
			 o->env_user ? written : "");
	}
	env_files_free(&f);
	r->phase_s[PHASE_ENVIRONMENT] = now_s() - t;
	if (rc == CF_OK)
		rc = write_modulefiles(p, o, j->target, r, e);
	if (rc == CF_OK)
		rc = fault("env", e);
	free(target);
	return rc;
}

/* How a fresh program finds the install: the ld cache (system files written) or the
 * LD_LIBRARY_PATH of the user snippet. */
static int validate_env_mode(const struct paths *p, const struct install_options *o)
{
	struct env_files f;
	env_files_init(&f, p->root);
	int cache = !o->env_user && (env_system_present(&f) || (!o->no_env && platform_is_admin()));
	env_files_free(&f);
	return cache ? VALIDATE_ENV_CACHE : VALIDATE_ENV_LIBRARY_PATH;
}

static int transaction(const struct paths *p, const struct install_options *o, struct opened *b,
		       struct state *st, struct install_result *r, struct cf_err *e)
{
	struct journal j = { 0 };
	char *target = under(p, r->dir);
	j.target = xstrdup(r->dir);
	j.target_existed = io_exists(target);
	j.state_existed = io_exists(p->state);
	j.previous_current = st->current ? xstrdup(st->current) : NULL;
	free(target);
	int rc = CF_OK;
	if (j.state_existed && io_copy_file_atomic(p->state, p->state_prev) != 0)
		rc = cf_fail(e, write_error_code(errno), "%s: %s", p->state_prev, strerror(errno));
	char *staging = NULL;
	if (rc == CF_OK)
		rc = extract_to_staging(p, b, r, o, &staging, e);
	j.staging = staging;
	if (rc == CF_OK)
		rc = interrupt_check(e);
	if (rc == CF_OK)
		rc = journal_write(p, &j, e);
	if (rc == CF_OK)
		rc = commit_install(p, o, b->m, st, &j, r, e);
	int kept_failed = 0;
	if (rc == CF_OK && !o->no_validate) {
		/* After the switch: resolution is checked as programs will see it. */
		char *dir = under(p, j.target);
		char timings[512];
		install_timings_text(r, timings, sizeof(timings));
		struct validate_options vo = { p->root, p->prefix, validate_env_mode(p, o), o->require_gpu,
					       o->gpu, o->quick_validate, 1, NULL, timings,
					       r->validation_timings, sizeof(r->validation_timings) };
		double t = now_s();
		rc = validate_install(&vo, dir, b->m, !o->keep_current, e);
		r->phase_s[PHASE_VALIDATION] = now_s() - t;
		free(dir);
		if (rc != CF_OK && o->keep_failed) {
			kept_failed = rc;
			log_msg(LOG_WARN, "keeping the install although validation failed (--keep-failed)");
			rc = CF_OK;
		}
	}
	/* A SIGTERM/SIGHUP/SIGINT that came during the switch or validation: roll back here. */
	if (rc == CF_OK)
		rc = interrupt_check(e);
	if (rc == CF_OK) {
		j.committed = 1;
		rc = journal_write(p, &j, e);
	}
	if (rc == CF_OK) {
		if (j.backup) {
			char *backup = under(p, j.backup);
			io_rmtree(backup);
			free(backup);
		}
		unlink(p->journal);
		unlink(p->state_prev);
		unlink(p->env_before);
		rc = kept_failed;
	} else {
		struct cf_err rb = { 0 };
		if (rollback(p, &j, &rb) != CF_OK) {
			cf_err_clear(e);
			rc = cf_fail(e, CF_ROLLBACK, "%s", rb.msg);
		} else {
			log_msg(LOG_INFO, "previous state restored");
			if (rc != CF_INTEGRITY && rc != CF_INCOMPATIBLE && rc != CF_TRUST &&
			    rc != CF_VALIDATION)
				rc = CF_INSTALL;
			e->code = rc;
		}
	}
	journal_free(&j);
	return rc;
}

/* An ld.so.conf.d file under the old name (it sorted after NVIDIA's) takes the new one. */
static int migrate_env(const struct paths *p, const struct install_options *o, struct cf_err *e)
{
	if (o->no_env || o->env_user || !platform_is_admin())
		return CF_OK;
	struct env_files f;
	env_files_init(&f, p->root);
	int rc = env_migrate_legacy(&f, p->root, e);
	env_files_free(&f);
	return rc;
}

static void fill_result(struct install_result *r, const struct manifest *m, const struct paths *p)
{
	char *dir = manifest_install_name(m);
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(r->bundle_id, sizeof(r->bundle_id), "%s", m->bundle_id);
	snprintf(r->version, sizeof(r->version), "%s", m->cudnn_version);
	snprintf(r->cuda_variant, sizeof(r->cuda_variant), "%s", m->cuda_variant);
	snprintf(r->prefix, sizeof(r->prefix), "%s", p->prefix);
	r->counter = m->counter;
	free(dir);
}

/* The environment the options ask for, written when it is missing (a re-run with --env=user
 * after an install without it). */
static int add_missing_env(const struct paths *p, const struct install_options *o,
			   struct install_result *r, struct cf_err *e)
{
	if (o->no_env)
		return CF_OK;
	int rc = CF_OK;
	if (o->env_user) {
		char written[512];
		if (env_user_present())
			return CF_OK;
		rc = env_write_user(p->prefix_sys, written, sizeof(written), e);
		snprintf(r->env_note, sizeof(r->env_note), "written to %.400s: source it from ~/.profile",
			 written);
		note_env_paths(r, written, "");
	} else if (platform_is_admin()) {
		struct env_files f;
		env_files_init(&f, p->root);
		if (!env_system_present(&f)) {
			rc = env_write_system(&f, p->root, p->prefix_sys, e);
			snprintf(r->env_note, sizeof(r->env_note), "%s and %s", f.ldconf, f.profile);
			note_env_paths(r, f.ldconf, f.profile);
			r->env_added = rc == CF_OK;
		}
		env_files_free(&f);
		return rc;
	} else {
		return CF_OK;
	}
	r->env_added = rc == CF_OK;
	return rc;
}

/* Re-run of a bundle that is installed: repair what differs, add missing environment; a
 * no-op only when nothing differs. We hold the lock. */
static int rerun_installed(const struct paths *p, const struct install_options *o,
			   struct opened *b, struct install_result *r, struct cf_err *e)
{
	struct repair_result rr;
	char *dir = under(p, r->dir);
	int rc = repair_tree(dir, b->input, b->m, o->repair, o->progress, &rr, e);
	free(dir);
	r->repaired = rr.restored;
	snprintf(r->repaired_first, sizeof(r->repaired_first), "%s", rr.first);
	if (rc != CF_OK) {
		if (rc != CF_INTEGRITY && rc != CF_INCOMPATIBLE && rc != CF_TRUST)
			rc = CF_INSTALL;
		e->code = rc;
		return rc;
	}
	rc = add_missing_env(p, o, r, e);
	if (rc == CF_OK && (r->repaired || r->env_added))
		r->noop = 0, r->rerun = 1;
	return rc;
}

int install_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e)
{
	struct paths p;
	struct opened b;
	struct state st = { 0 };
	int lock = -1;
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < PHASE_COUNT; i++)
		r->phase_s[i] = -1;
	paths_init(&p, o);
	double t = now_s();
	int rc = open_trusted(o, &b, r->signers, sizeof(r->signers), e);
	r->phase_s[PHASE_OPEN_VERIFY] = now_s() - t;
	if (rc == CF_OK)
		rc = fault("verified", e);
	if (rc == CF_OK && strcmp(b.m->platform, platform_name()) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "bundle is for %s, this machine is %s", b.m->platform,
			     platform_name());
	if (rc == CF_OK)
		rc = check_env_dirs(&p, o, e);
	if (rc == CF_OK) {
		fill_result(r, b.m, &p);
		rc = prefix_open(&p, &lock, &r->recovered, e);
	}
	if (rc == CF_OK)
		rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = check_policy(o, b.m, &st, &p, r, e);
	if (rc == CF_OK && r->noop)
		rc = rerun_installed(&p, o, &b, r, e);
	if (rc == CF_OK && !r->noop && !r->rerun)
		rc = check_space(&p, b.m, e);
	if (rc == CF_OK && !r->noop && !r->rerun)
		rc = transaction(&p, o, &b, &st, r, e);
	else if (rc == CF_OK)
		rc = migrate_env(&p, o, e);
	platform_unlock(lock);
	char timings[512];
	install_timings_text(r, timings, sizeof(timings));
	log_msg(LOG_DEBUG, "install timings (s): %s", timings); /* the log file only */
	state_free(&st);
	opened_close(&b);
	paths_free(&p);
	return rc;
}

int verify_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e)
{
	struct paths p;
	struct opened b;
	memset(r, 0, sizeof(*r));
	paths_init(&p, o);
	int rc = open_trusted(o, &b, r->signers, sizeof(r->signers), e);
	if (rc == CF_OK) {
		struct progress prog;
		fill_result(r, b.m, &p);
		progress_start(&prog, "verifying", b.m->compressed_size, o->progress);
		rc = payload_walk(b.input, b.m, NULL, &prog, e);
		progress_end(&prog);
		for (size_t i = 0; i < b.m->nfiles; i++)
			r->bytes += b.m->files[i].size;
		r->files = b.m->nfiles;
	}
	opened_close(&b);
	paths_free(&p);
	return rc;
}

/* ---- list, use, uninstall, env ---- */

int list_installed(const struct install_options *o, struct cf_err *e)
{
	struct paths p;
	struct state st;
	paths_init(&p, o);
	int rc = state_load(p.state, &st, e);
	if (rc == CF_OK) {
		if (st.nbundles == 0)
			log_out("nothing installed in %s\n", p.prefix);
		for (size_t i = 0; i < st.nbundles; i++) {
			const struct state_bundle *b = &st.bundles[i];
			int cur = st.current && strcmp(st.current, b->dir) == 0;
			log_out("%s %-28s %-40s counter %-12llu created %s\n", cur ? "*" : " ", b->dir, b->id,
				(unsigned long long)b->counter, b->created ? b->created : "?");
		}
	}
	state_free(&st);
	paths_free(&p);
	return rc;
}

/* Lock, repair, load the state and find ID in it: the start of use and uninstall. */
static int open_installed(const struct paths *p, const char *id, int *lock, struct state *st,
			  struct state_bundle **b, struct cf_err *e)
{
	int recovered;
	int rc = prefix_open(p, lock, &recovered, e);
	if (rc == CF_OK)
		rc = state_load(p->state, st, e);
	*b = rc == CF_OK ? state_find(st, id) : NULL;
	if (rc == CF_OK && !*b)
		rc = cf_fail(e, CF_USAGE, "'%s' is not installed in %s (see 'unpacker list')", id, p->prefix);
	return rc;
}

int use_installed(const struct install_options *o, const char *id, struct cf_err *e)
{
	struct paths p;
	struct state st = { 0 };
	struct state_bundle *b;
	int lock = -1;
	paths_init(&p, o);
	int rc = open_installed(&p, id, &lock, &st, &b, e);
	if (rc == CF_OK && platform_switch_link(p.current, b->dir) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", p.current, strerror(errno));
	if (rc == CF_OK) {
		state_set_current(&st, b->dir);
		rc = state_save(p.state, &st, e);
		struct modulefile_ctx mc;
		modulefile_ctx_init(&mc, &p);
		if (rc == CF_OK)
			rc = modulefile_set_default(&mc, b->dir, e);
		if (rc == CF_OK)
			log_out("current -> %s\n", b->dir);
	}
	if (rc == CF_OK)
		rc = migrate_env(&p, o, e);
	if (rc == CF_OK && o->env_user && !o->no_env && !env_user_present()) {
		char written[512];
		rc = env_write_user(p.prefix_sys, written, sizeof(written), e);
		if (rc == CF_OK)
			log_out("wrote %s: source it from ~/.profile\n", written);
	}
	platform_unlock(lock);
	state_free(&st);
	paths_free(&p);
	return rc;
}

int uninstall_installed(const struct install_options *o, const char *id, struct cf_err *e)
{
	struct paths p;
	struct state st = { 0 };
	struct state_bundle *b;
	int lock = -1;
	paths_init(&p, o);
	int rc = open_installed(&p, id, &lock, &st, &b, e);
	int is_current = rc == CF_OK && st.current && strcmp(st.current, b->dir) == 0;
	if (rc == CF_OK && is_current && !o->force)
		rc = cf_fail(e, CF_USAGE, "'%s' is the current cuDNN; 'unpacker use' another first, or "
			     "--force", b->dir);
	if (rc == CF_OK) {
		char *dir = under(&p, b->dir), *name = xstrdup(b->dir);
		/* Unlink current first: a half-removed tree must never be current. */
		if (is_current && set_current(&p, NULL) != 0)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", p.current, strerror(errno));
		if (rc == CF_OK) {
			state_remove(&st, name);
			if (is_current)
				state_set_current(&st, NULL);
			rc = state_save(p.state, &st, e);
		}
		if (rc == CF_OK && io_rmtree(dir) != 0)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", dir, strerror(errno));
		if (rc == CF_OK && is_current && platform_is_admin() && !o->no_env) {
			struct env_files f;
			env_files_init(&f, p.root);
			rc = env_remove_system(&f, p.root, e);
			env_files_free(&f);
		}
		struct modulefile_ctx mc;
		modulefile_ctx_init(&mc, &p);
		if (rc == CF_OK)
			rc = modulefile_remove(&mc, name, e);
		if (rc == CF_OK && is_current)
			rc = modulefile_set_default(&mc, NULL, e);
		if (rc == CF_OK)
			log_out("removed %s\n", name);
		free(dir);
		free(name);
	}
	platform_unlock(lock);
	state_free(&st);
	paths_free(&p);
	return rc;
}

int validate_command(const struct install_options *o, const char *id, struct cf_err *e)
{
	struct paths p;
	struct state st = { 0 };
	struct manifest *m = NULL;
	paths_init(&p, o);
	int rc = state_load(p.state, &st, e);
	const char *want = id ? id : st.current;
	struct state_bundle *b = rc == CF_OK && want ? state_find(&st, want) : NULL;
	if (rc == CF_OK && !b)
		rc = cf_fail(e, CF_USAGE, id ? "'%s' is not installed in %s (see 'unpacker list')"
					     : "%snothing is current in %s", id ? id : "", p.prefix);
	char *dir = b ? under(&p, b->dir) : NULL;
	if (rc == CF_OK && dir)
		rc = validate_load_manifest(dir, &m, e);
	if (rc == CF_OK && b && dir) {
		struct validate_options vo = { p.root, p.prefix, validate_env_mode(&p, o), o->require_gpu,
					       o->gpu, o->quick_validate, 0, &o->trust, NULL, NULL, 0 };
		int is_current = st.current && strcmp(st.current, b->dir) == 0;
		rc = validate_install(&vo, dir, m, is_current, e); /* prints its own summary */
	}
	manifest_free(m);
	free(dir);
	state_free(&st);
	paths_free(&p);
	return rc;
}

int env_command(const struct install_options *o, const char *shell, struct cf_err *e)
{
	struct paths p;
	struct state st = { 0 };
	paths_init(&p, o);
	int rc = state_load(p.state, &st, e);
	/* Lines pointing at a current that does not exist would look like a working setup. */
	if (rc == CF_OK && !st.current)
		rc = cf_fail(e, CF_USAGE, "nothing is installed in %s: install a bundle first (or give "
			     "--prefix)", p.prefix);
	if (rc == CF_OK && o->env_user) {
		char written[512];
		rc = env_write_user(p.prefix_sys, written, sizeof(written), e);
		if (rc == CF_OK)
			log_out("wrote %s: source it from ~/.profile\n", written);
	} else if (rc == CF_OK) {
		rc = env_print(p.prefix_sys, shell, e);
	}
	state_free(&st);
	paths_free(&p);
	return rc;
}
