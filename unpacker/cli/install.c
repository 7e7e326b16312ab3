/* install.c - the install transaction: verify, stage, rename, switch, record, validate;
 * roll back on any failure */
#include "unpacker/cli/install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/log.h"
#include "common/bundle/open.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "unpacker/environment/env.h"
#include "unpacker/target/hostreq.h"
#include "unpacker/environment/environment.h"
#include "common/fault.h"
#include "unpacker/install/journal.h"
#include "unpacker/install/opened.h"
#include "unpacker/install/policy.h"
#include "unpacker/install/prefix.h"
#include "unpacker/install/stage.h"
#include "unpacker/install/repair.h"
#include "unpacker/target/safepath.h"
#include "unpacker/target/state.h"
#include "unpacker/validate/validate.h"

static int commit_install(const struct layout *p, const struct install_options *o,
			  const struct manifest *m, struct state *st, struct journal *j,
			  struct install_result *r, struct cf_err *e)
{
	char *target = layout_under(p, j->target), now[32];
	int rc = CF_OK;
	double t = platform_elapsed_s();
	if (j->target_existed) {
		j->backup = layout_backup_name(j->target, platform_process_id());
		rc = journal_write(p, j, e);
		char *backup = layout_under(p, j->backup);
		if (rc == CF_OK && platform_rename(target, backup) != 0)
			rc = cf_fail(e, CF_INSTALL, "%s: %s", target, platform_strerror(errno));
		free(backup);
	}
	if (rc == CF_OK && platform_rename(j->staging, target) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", target, platform_strerror(errno));
	if (rc == CF_OK)
		rc = install_fault("renamed", e);
	if (rc == CF_OK && !o->keep_current && journal_set_current(p, j->target) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", p->current, platform_strerror(errno));
	if (rc == CF_OK)
		rc = install_fault("switched", e);
	manifest_format_time(platform_time_now(), now);
	struct state_bundle b = { m->bundle_id, j->target, m->product_version, m->cuda_variant,
				  m->created, now, m->counter };
	if (rc == CF_OK) {
		state_record(st, &b);
		state_set_product(st, m->product);
		if (!o->keep_current)
			state_set_current(st, j->target);
		rc = state_save(p->state, st, e);
	}
	if (rc == CF_OK)
		rc = install_fault("state", e);
	r->phase_s[PHASE_SWITCH] = platform_elapsed_s() - t;
	t = platform_elapsed_s();
	if (rc == CF_OK && o->keep_current) {
		r->kept_current = 1;
	} else if (rc == CF_OK && environment_transactional(p, o)) {
		j->env_created = !environment_present(p, o);
		rc = environment_snapshot_save(p, o, e);
		j->env_saved = rc == CF_OK;
		if (rc == CF_OK)
			rc = journal_write(p, j, e);
		if (rc == CF_OK)
			rc = environment_write(p, o, r, e);
	} else if (rc == CF_OK && !o->no_env) {
		char written[512];
		if (o->env_user)
			rc = env_write_user(p, written, sizeof(written), e);
		if (o->env_user)
			environment_note_paths(r, written, "");
		snprintf(r->env_note, sizeof(r->env_note), o->env_user ? "written to %s: source it from ~/.profile"
			 : "not root: add the output of 'unpacker env' to your shell profile, or use --env=user%s",
			 o->env_user ? written : "");
	}
	r->phase_s[PHASE_ENVIRONMENT] = platform_elapsed_s() - t;
	if (rc == CF_OK)
		rc = environment_write_modulefiles(p, o, j->target, r, e);
	if (rc == CF_OK)
		rc = install_fault("env", e);
	free(target);
	return rc;
}

static int transaction(const struct layout *p, const struct install_options *o, struct opened *b,
		       struct state *st, struct install_result *r, struct cf_err *e)
{
	struct journal j = { 0 };
	char *target = layout_under(p, r->dir);
	j.target = xstrdup(r->dir);
	j.target_existed = io_exists(target);
	j.state_existed = io_exists(p->state);
	j.previous_current = st->current ? xstrdup(st->current) : NULL;
	free(target);
	int rc = CF_OK;
	if (j.state_existed && io_copy_file_atomic(p->state, p->state_prev) != 0)
		rc = cf_fail(e, install_write_error(errno), "%s: %s", p->state_prev, platform_strerror(errno));
	char *staging = NULL;
	if (rc == CF_OK)
		rc = stage_extract(p, b, r, o, &staging, e);
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
		char *dir = layout_under(p, j.target);
		char timings[512];
		install_timings_text(r, timings, sizeof(timings));
		struct validate_options vo = { p, environment_validate_mode(p, o), o->require_gpu,
					       o->gpu, o->quick_validate, 1, NULL, timings,
					       r->validation_timings, sizeof(r->validation_timings),
					       &r->validation_report };
		double t = platform_elapsed_s();
		rc = validate_install(&vo, dir, b->m, !o->keep_current, e);
		r->phase_s[PHASE_VALIDATION] = platform_elapsed_s() - t;
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
			char *backup = layout_under(p, j.backup);
			io_rmtree(backup);
			free(backup);
		}
		platform_unlink(p->journal);
		platform_unlink(p->state_prev);
		platform_unlink(p->env_before);
		rc = kept_failed;
	} else {
		struct cf_err rb = { 0 };
		if (journal_rollback(p, &j, &rb) != CF_OK) {
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

/* Re-run of a bundle that is installed: repair what differs, add missing environment; a
 * no-op only when nothing differs. We hold the lock. */
static int rerun_installed(const struct layout *p, const struct install_options *o,
			   struct opened *b, const struct state *st, struct install_result *r,
			   struct cf_err *e)
{
	struct repair_result rr;
	char *dir = layout_under(p, r->dir);
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
	rc = environment_add_missing(p, o, r, e);
	if (rc == CF_OK)
		rc = environment_add_missing_modulefiles(p, o, r->dir, st->current, r, e);
	if (rc == CF_OK && (r->repaired || r->env_added))
		r->noop = 0, r->rerun = 1;
	return rc;
}

/* What an install and its dry run start with: a bundle that trusted keys signed, for this
 * platform, and environment directories that pass the prefix rule. The layout is the
 * bundle's product's (its default prefix, environment files, modulefiles), made here once the
 * manifest names it; p is zeroed first, so that layout_free may always run. */
static int open_for_install(const struct install_options *o, struct layout *p,
			    struct opened *b, struct install_result *r, struct cf_err *e)
{
	memset(r, 0, sizeof(*r));
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < PHASE_COUNT; i++)
		r->phase_s[i] = -1;
	double t = platform_elapsed_s();
	int rc = open_trusted(o, b, r->signers, sizeof(r->signers), e);
	r->phase_s[PHASE_OPEN_VERIFY] = platform_elapsed_s() - t;
	if (rc == CF_OK)
		rc = install_fault("verified", e);
	if (rc == CF_OK && strcmp(b->m->platform, platform_self()->name) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "bundle is for %s, this machine is %s", b->m->platform,
			     platform_self()->name);
	if (rc == CF_OK && o->product_given && b->m->product != o->product)
		rc = cf_fail(e, CF_INCOMPATIBLE, "the bundle is of %s, --product asks for %s",
			     b->m->product->display, o->product->display);
	char why[512];
	if (rc == CF_OK && hostreq_check(o->root, b->m, why, sizeof(why)))
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s", why);
	if (rc == CF_OK)
		layout_init(p, o->root, o->prefix, b->m->product);
	if (rc == CF_OK)
		rc = policy_check_env_dirs(p, o, e);
	if (rc == CF_OK)
		opened_fill_result(r, b->m, p);
	return rc;
}

int install_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e)
{
	struct layout p;
	struct opened b;
	struct state st = { 0 };
	int lock = -1;
	int rc = open_for_install(o, &p, &b, r, e);
	if (rc == CF_OK)
		rc = prefix_open(&p, &lock, &r->recovered, e);
	if (rc == CF_OK)
		rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = state_check_product(&st, b.m->product, p.prefix, e);
	if (rc == CF_OK)
		rc = policy_check(o, b.m, &st, &p, r, e);
	if (rc == CF_OK && r->noop)
		rc = rerun_installed(&p, o, &b, &st, r, e);
	if (rc == CF_OK && !r->noop && !r->rerun)
		rc = policy_check_space(&p, b.m, e);
	if (rc == CF_OK && !r->noop && !r->rerun)
		rc = transaction(&p, o, &b, &st, r, e);
	else if (rc == CF_OK)
		rc = environment_migrate(&p, o, e);
	platform_unlock(lock);
	char timings[512];
	install_timings_text(r, timings, sizeof(timings));
	log_msg(LOG_DEBUG, "install timings (s): %s", timings); /* the log file only */
	state_free(&st);
	opened_close(&b);
	layout_free(&p);
	return rc;
}

/* The nearest directory of path that exists: where a dry run measures the space that the
 * real run, which creates the prefix first, would find. */
static char *existing_dir(const char *path)
{
	char *dir = xstrdup(path);
	for (size_t n = strlen(dir); n > 1 && !io_is_dir(dir);) {
		while (n > 1 && !platform_is_separator(dir[n - 1]))
			n--;
		while (n > 1 && platform_is_separator(dir[n - 1]))
			n--;
		dir[n] = '\0';
	}
	return dir;
}

/* A re-run's dry run: what the re-run would put back or add, looked at only. */
static int rerun_would(const struct layout *p, const struct install_options *o,
		       struct install_result *r, const struct manifest *m, struct cf_err *e)
{
	struct repair_result rr;
	char *dir = layout_under(p, r->dir);
	int rc = repair_tree(dir, NULL, m, o->repair, 0, &rr, e);
	free(dir);
	if (rc != CF_OK)
		return e->code = CF_INSTALL;
	r->repaired = rr.differ;
	snprintf(r->repaired_first, sizeof(r->repaired_first), "%s", rr.first);
	r->env_added = environment_missing(p, o);
	r->would = r->repaired || r->env_added ? "repair" : "nothing";
	return CF_OK;
}

int install_dry_run(const struct install_options *o, struct install_result *r, struct cf_err *e)
{
	struct layout p;
	struct opened b;
	struct state st = { 0 };
	int rc = open_for_install(o, &p, &b, r, e);
	if (rc == CF_OK)
		rc = safepath_check_dir(p.root, p.prefix_sys, "the prefix", e) == CF_OK ? CF_OK : e->code;
	if (rc == CF_OK)
		rc = state_load(p.state, &st, e);
	if (rc == CF_OK)
		rc = state_check_product(&st, b.m->product, p.prefix, e);
	if (rc == CF_OK) {
		r->recovery_pending = io_exists(p.journal);
		snprintf(r->previous_current, sizeof(r->previous_current), "%s", st.current ? st.current : "");
		rc = policy_check(o, b.m, &st, &p, r, e);
	}
	if (rc == CF_OK && r->noop)
		rc = rerun_would(&p, o, r, b.m, e);
	if (rc == CF_OK && !r->noop) {
		struct layout measured = p;
		measured.prefix = existing_dir(p.prefix);
		rc = policy_check_space(&measured, b.m, e);
		free(measured.prefix);
		r->would = "install";
	}
	/* The real run reads the payload to install or repair: its bytes are checked here too. */
	if (rc == CF_OK && strcmp(r->would, "nothing") != 0) {
		struct progress prog;
		progress_start(&prog, "verifying", b.m->compressed_size, o->progress);
		rc = bundle_walk(b.input, NULL, &prog, e);
		progress_end(&prog);
	}
	if (rc == CF_OK) {
		r->files = b.m->nfiles;
		for (size_t i = 0; i < b.m->nfiles; i++)
			r->bytes += b.m->files[i].size;
	}
	state_free(&st);
	opened_close(&b);
	layout_free(&p);
	return rc;
}
