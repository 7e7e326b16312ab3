/* commands.c - list, use, uninstall, validate and env: the commands on what is installed */
#include "unpacker/cli/commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "unpacker/target/progname.h"
#include "unpacker/environment/env.h"
#include "unpacker/environment/environment.h"
#include "unpacker/install/journal.h"
#include "unpacker/install/prefix.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/state.h"
#include "unpacker/target/safepath.h"
#include "unpacker/validate/validate.h"

int list_installed(const struct install_options *o, struct cf_err *e)
{
	struct layout p;
	struct state st;
	layout_init(&p, o->root, o->prefix, o->product);
	int rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = state_check_product(&st, p.product, p.prefix, e);
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
	layout_free(&p);
	return rc;
}

/* An install named on the command line, found in the prefix's state under its lock: what use
 * and uninstall work on, from open_installed_locked to close_installed. */
struct installed {
	struct layout p;
	struct state st;
	struct state_bundle *b; /* ID's entry in st */
	int lock;
};

/* Lock (repairing what an interrupted run left), load the state and find ID in it; the rest of
 * in is set whatever happens, for close_installed. */
static int open_installed_locked(const struct install_options *o, const char *id,
				 struct installed *in, struct cf_err *e)
{
	int recovered;
	memset(in, 0, sizeof(*in));
	in->lock = -1;
	layout_init(&in->p, o->root, o->prefix, o->product);
	int rc = prefix_open(&in->p, &in->lock, &recovered, e);
	if (rc == CF_OK)
		rc = state_load(in->p.state, &in->st, e);
	if (rc == CF_OK)
		rc = state_check_product(&in->st, in->p.product, in->p.prefix, e);
	in->b = rc == CF_OK ? state_find(&in->st, id) : NULL;
	if (rc == CF_OK && !in->b)
		rc = cf_fail(e, CF_USAGE, "'%s' is not installed in %s (see '%s list')", id,
			     in->p.prefix, progname());
	return rc;
}

static void close_installed(struct installed *in)
{
	platform_unlock(in->lock);
	state_free(&in->st);
	layout_free(&in->p);
}

int use_installed(const struct install_options *o, const char *id, struct cf_err *e)
{
	struct installed in;
	int rc = open_installed_locked(o, id, &in, e);
	if (rc == CF_OK && journal_set_current(&in.p, in.b->dir) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", in.p.current, platform_strerror(errno));
	if (rc == CF_OK) {
		state_set_current(&in.st, in.b->dir);
		rc = state_save(in.p.state, &in.st, e);
		if (rc == CF_OK)
			rc = modulefile_set_default(&in.p, in.b->dir, e);
		if (rc == CF_OK)
			log_out("%s%s\n", layout_current_label(), in.b->dir);
	}
	if (rc == CF_OK)
		rc = environment_migrate(&in.p, o, e);
	if (rc == CF_OK)
		rc = environment_follow_current(&in.p, o, e);
	if (rc == CF_OK && o->env_user && !o->no_env && !in.p.registry && !env_user_present(&in.p)) {
		char written[512];
		rc = env_write_user(&in.p, written, sizeof(written), e);
		if (rc == CF_OK)
			log_out("wrote %s: source it from ~/.profile\n", written);
	}
	close_installed(&in);
	return rc;
}

/* A file under the install that a running program holds (Windows refuses to delete a loaded
 * DLL, and to open it for writing: that open is the question asked, nothing is written). */
static int file_in_use(const char *path, const struct platform_stat *st, void *ctx)
{
	if (st->type != PLATFORM_TYPE_FILE)
		return 0;
	int fd = platform_open(path, PLATFORM_OPEN_WRITE | PLATFORM_OPEN_NOFOLLOW |
					   PLATFORM_OPEN_NONBLOCK, 0);
	if (fd >= 0) {
		platform_close(fd);
		return 0;
	}
	if (errno != EBUSY)
		return 0; /* read-only or not ours: the removal itself says so */
	*(char **)ctx = xstrdup(path);
	return 1;
}

/* Take the install directory out of the way before anything else changes: it is renamed to
 * a backup name beside it (the next run that takes the lock removes such a name), so a
 * program holding one of its files stops the uninstall with nothing changed. */
static int move_aside(const char *dir, const char *backup, struct cf_err *e)
{
	char *busy = NULL;
	if (!io_exists(dir))
		return CF_OK; /* already gone (removed by hand): only the records are left to go */
	platform_walk_post(dir, file_in_use, &busy);
	int rc = CF_OK;
	if (busy)
		rc = cf_fail(e, CF_INSTALL, "%s is in use by a running program: close it and run "
			     "again (nothing was changed)", busy);
	else if (platform_rename(dir, backup) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s (in use by a running program? close it and run "
			     "again; nothing was changed)", dir, platform_strerror(errno));
	free(busy);
	return rc;
}

/* The install that takes over when the current one is uninstalled with --force: the newest
 * version left (the latest installed among equals), or NULL when none is left. */
static const char *successor(const struct state *st, const char *leaving)
{
	const struct state_bundle *best = NULL;
	for (size_t i = 0; i < st->nbundles; i++) {
		const struct state_bundle *b = &st->bundles[i];
		if (strcmp(b->dir, leaving) == 0)
			continue;
		int cmp = best ? manifest_version_compare(b->version, best->version) : 1;
		if (cmp > 0 || (cmp == 0 && strcmp(b->installed_at ? b->installed_at : "",
						   best->installed_at ? best->installed_at : "") > 0))
			best = b;
	}
	return best ? best->dir : NULL;
}

int uninstall_installed(const struct install_options *o, const char *id, struct cf_err *e)
{
	struct installed in;
	int rc = open_installed_locked(o, id, &in, e);
	int is_current = rc == CF_OK && in.st.current && strcmp(in.st.current, in.b->dir) == 0;
	if (rc == CF_OK && is_current && !o->force)
		rc = cf_fail(e, CF_USAGE, "'%s' is the current %s; '%s use' another first, or "
			     "--force", in.b->dir, in.p.product->display, progname());
	if (rc == CF_OK) {
		char *name = xstrdup(in.b->dir), *dir = layout_under(&in.p, name);
		char *backup_name = layout_backup_name(name, platform_process_id());
		char *backup = layout_under(&in.p, backup_name);
		/* --force of the current one: the newest left takes over, as 'use' would make it. */
		const char *next_found = is_current ? successor(&in.st, name) : NULL;
		char *next = next_found ? xstrdup(next_found) : NULL;
		rc = move_aside(dir, backup, e);
		int moved = rc == CF_OK;
		/* Then current (a removed tree must never be current) and the state. */
		if (rc == CF_OK && is_current && journal_set_current(&in.p, next) != 0)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", in.p.current, platform_strerror(errno));
		if (rc == CF_OK) {
			state_remove(&in.st, name);
			if (is_current)
				state_set_current(&in.st, next);
			rc = state_save(in.p.state, &in.st, e);
		}
		if (rc != CF_OK && moved) {
			/* Nothing was forgotten yet: the install goes back where it was. */
			platform_rename(backup, dir);
			if (is_current)
				journal_set_current(&in.p, name);
		}
		if (rc == CF_OK && is_current && !next)
			rc = environment_remove(&in.p, o, name, e);
		if (rc == CF_OK)
			rc = modulefile_remove(&in.p, name, e);
		if (rc == CF_OK && is_current)
			rc = modulefile_set_default(&in.p, next, e);
		if (rc == CF_OK && next)
			rc = environment_hand_over(&in.p, o, name, e);
		if (rc == CF_OK && io_rmtree(backup) != 0)
			log_msg(LOG_WARN, "could not remove all of %s (%s): '%s doctor' lists it, the "
				"next run removes it", backup, platform_strerror(errno), progname());
		if (rc == CF_OK && next)
			log_out("removed %s; %s%s (the newest left; the environment and modulefiles "
				"follow it)\n", name, layout_current_label(), next);
		else if (rc == CF_OK && is_current)
			log_out("removed %s; no other install is left: nothing is current now\n", name);
		else if (rc == CF_OK)
			log_out("removed %s\n", name);
		free(next);
		free(backup);
		free(backup_name);
		free(dir);
		free(name);
	}
	close_installed(&in);
	return rc;
}

int validate_command(const struct install_options *o, const char *id, struct install_result *r,
		     struct cf_err *e)
{
	struct layout p;
	struct state st = { 0 };
	struct manifest *m = NULL;
	layout_init(&p, o->root, o->prefix, o->product);
	/* validate writes as root (report.json, failed/) and its probe loads the install: a prefix
	 * or --root image that another user owns is refused as the other verbs refuse it, before
	 * anything of it is read (issue 23 A10, A3). Linux only for now: Wine shows no ACL, so the
	 * Windows walk (which install runs) would refuse every prefix of the Wine tests. */
	int rc = platform_dir_separator() == '/' ? safepath_check_dir(p.root, p.prefix_sys, "the prefix", e)
						 : CF_OK;
	if (rc == CF_OK)
		rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = state_check_product(&st, p.product, p.prefix, e);
	const char *want = id ? id : st.current;
	struct state_bundle *b = rc == CF_OK && want ? state_find(&st, want) : NULL;
	if (rc == CF_OK && !b)
		rc = id ? cf_fail(e, CF_USAGE, "'%s' is not installed in %s (see '%s list')", id, p.prefix,
				  progname())
			: cf_fail(e, CF_USAGE, "nothing is current in %s", p.prefix);
	char *dir = b ? layout_under(&p, b->dir) : NULL;
	struct validate_signature sig = { 0 };
	if (rc == CF_OK && dir)
		rc = validate_load_manifest(p.root, dir, &o->trust, &m, &sig, e);
	if (rc == CF_TRUST && sig.failed) { /* reported as step 1, with the report written */
		cf_err_clear(e);
		rc = CF_OK;
		sig.bundle_id = b->id;
		sig.version = b->version;
	}
	if (rc == CF_OK && b && dir) {
		struct validate_options vo = { &p, environment_validate_mode(&p, o), o->require_gpu,
					       o->gpu, o->quick_validate, 0, &sig, NULL, NULL, 0,
					       &r->validation_report };
		int is_current = st.current && strcmp(st.current, b->dir) == 0;
		rc = validate_install(&vo, dir, m, is_current, e); /* prints its own summary */
	}
	manifest_free(m);
	free(dir);
	state_free(&st);
	layout_free(&p);
	return rc;
}

int env_command(const struct install_options *o, const char *shell, struct cf_err *e)
{
	struct layout p;
	struct state st = { 0 };
	layout_init(&p, o->root, o->prefix, o->product);
	int rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = state_check_product(&st, p.product, p.prefix, e);
	/* Lines pointing at a current that does not exist would look like a working setup. */
	if (rc == CF_OK && !st.current)
		rc = cf_fail(e, CF_USAGE, "nothing is installed in %s: install a bundle first (or give "
			     "--prefix)", p.prefix);
	if (rc == CF_OK && o->env_user && !p.registry) {
		char written[512];
		rc = env_write_user(&p, written, sizeof(written), e);
		if (rc == CF_OK)
			log_out("wrote %s: source it from ~/.profile\n", written);
	} else if (rc == CF_OK) {
		char *current = state_current_install(p.root, p.prefix_sys);
		rc = current ? env_print(p.product, current, shell, e)
			     : cf_fail(e, CF_USAGE, "nothing is current in %s", p.prefix);
		free(current);
	}
	state_free(&st);
	layout_free(&p);
	return rc;
}
