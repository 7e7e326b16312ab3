/* journal.c - what a running install is doing, so that a failure or the next run after a
 * crash can put everything back: the journal, rollback and recovery */
#include "unpacker/install/journal.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "unpacker/environment/env.h"
#include "unpacker/environment/environment.h"
#include "common/fault.h"
#include "unpacker/environment/modulefile.h"
#include "unpacker/target/state.h"

void journal_free(struct journal *j)
{
	free(j->staging);
	free(j->target);
	free(j->backup);
	free(j->previous_current);
	free(j->product);
	memset(j, 0, sizeof(*j));
}

int journal_write(const struct layout *p, const struct journal *j, struct cf_err *e)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:b, s:b, s:b, s:b, s:b}", "product",
			      p->product->name, "staging", j->staging,
			      "target", j->target, "backup", j->backup, "previous_current",
			      j->previous_current, "target_existed", j->target_existed,
			      "state_existed", j->state_existed, "env_created", j->env_created,
			      "env_saved", j->env_saved, "committed", j->committed);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	int rc = io_write_file_atomic(p->journal, text, strlen(text), 0600) == 0
			 ? CF_OK
			 : cf_fail(e, install_write_error(errno), "%s: %s", p->journal, platform_strerror(errno));
	free(text);
	return rc;
}

static int journal_read(const struct layout *p, struct journal *j)
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
	j->product = JSTR("product");
#undef JSTR
	j->target_existed = json_is_true(json_object_get(o, "target_existed"));
	j->state_existed = json_is_true(json_object_get(o, "state_existed"));
	j->env_created = json_is_true(json_object_get(o, "env_created"));
	j->env_saved = json_is_true(json_object_get(o, "env_saved"));
	j->committed = json_is_true(json_object_get(o, "committed"));
	json_decref(o);
	return j->target ? 0 : -2;
}

/* A name recovery may remove: one component directly inside the prefix, nothing else. */
static int plain_name(const char *name, int (*kind)(const char *name))
{
	return name && *name && !strchr(name, '/') && !strchr(name, '\\') && strcmp(name, ".") && strcmp(name, "..") &&
	       !layout_is_meta(name) && (!kind || kind(name));
}

/* The journal is only believed where it names what this program makes: the install
 * directory, ".old-*" and "PREFIX/.staging-*". A planted journal naming anything else
 * (another directory, a path with '/') is refused before a single file is removed. */
static int journal_names_ok(const struct layout *p, struct journal *j)
{
	const char *base = NULL;
	for (const char *c = j->staging; c && *c; c++)
		if (platform_is_separator(*c))
			base = c;
	if (!plain_name(j->target, NULL) || (j->backup && !plain_name(j->backup, layout_is_backup)) ||
	    (j->previous_current && !plain_name(j->previous_current, NULL)) ||
	    (j->staging && (!base || !plain_name(base + 1, layout_is_staging))))
		return 0;
	/* Only the staging directory's name is believed: it is removed from this prefix (the
	 * same one however --root was spelled when the run crashed), never from where it says. */
	if (j->staging) {
		char *inside = layout_under(p, base + 1);
		free(j->staging);
		j->staging = inside;
	}
	return 1;
}

int journal_set_current(const struct layout *p, const char *dir)
{
	char now[1024];
	if (!p->platform->links_allowed)
		return 0; /* no link on this system (Windows): state.json alone says what is current */
	ssize_t n = platform_readlink(p->current, now, sizeof(now));
	if (dir && n > 0 && (size_t)n == strlen(dir) && memcmp(now, dir, (size_t)n) == 0)
		return 0; /* already so: nothing to put back (and nothing to fail on a full disk) */
	if (!dir)
		return io_remove_file(p->current);
	return platform_switch_link(p->current, dir);
}

/* A new install's modulefiles go; the default goes back to the previous current. */
static int modulefiles_rollback(const struct layout *p, const struct journal *j)
{
	struct cf_err ignored = { 0 };
	int rc = j->target_existed ? CF_OK : modulefile_remove(p, j->target, &ignored);
	if (rc == CF_OK)
		rc = modulefile_set_default(p, j->previous_current, &ignored);
	return rc;
}

/* Put everything back as the journal says it was. Every step is safe to repeat. */
int journal_rollback(const struct layout *p, const struct journal *j, struct cf_err *e)
{
	int bad = 0;
	char *target = layout_under(p, j->target);
	bad |= journal_set_current(p, j->previous_current) != 0;
	if (j->backup) {
		char *backup = layout_under(p, j->backup);
		if (io_exists(backup)) {
			bad |= io_rmtree(target) != 0;
			bad |= platform_rename(backup, target) != 0;
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
			bad |= platform_rename(p->state_prev, p->state) != 0;
	} else {
		bad |= io_remove_file(p->state) != 0;
	}
	if (j->env_saved || j->env_created) {
		struct cf_err ignored = { 0 };
		/* Exactly what was there: names (the old ld.so.conf.d one too) and contents; on
		 * Windows PATH and the product's variable, their type, or their absence. */
		bad |= environment_rollback(p, j->env_saved, &ignored) != CF_OK;
	}
	bad |= modulefiles_rollback(p, j) != CF_OK;
	if (!bad)
		platform_unlink(p->env_before);
	if (bad)
		return cf_fail(e, CF_ROLLBACK, "rollback incomplete: check %s (journal kept at %s); "
			       "re-run the unpacker to retry, or restore by hand", p->prefix, p->journal);
	platform_unlink(p->journal);
	io_fsync_dir(p->meta);
	return CF_OK;
}

/* An uninstall moves the install to .old-DIR-PID before state.json forgets it: killed in
 * between, DIR is gone while state.json still lists it, and the backup is the install. Its
 * path to put back then (and current again where state.json says it is), else NULL. */
static char *interrupted_uninstall(const struct layout *p, const char *name)
{
	char *dir = layout_backup_of(name), *target = dir ? layout_under(p, dir) : NULL;
	struct state st;
	struct cf_err ignored = { 0 };
	int listed = 0;
	if (target && !io_exists(target) && state_load(p->state, &st, &ignored) == CF_OK) {
		listed = state_find(&st, dir) != NULL;
		if (listed && st.current && strcmp(st.current, dir) == 0)
			journal_set_current(p, dir);
		state_free(&st);
	}
	free(dir);
	if (!listed) {
		free(target);
		return NULL;
	}
	return target;
}

/* Staging directories of crashed runs: we hold the lock, so nobody else is using them. */
static void remove_stale_staging(const struct layout *p)
{
	struct platform_dir *d = platform_dir_open(p->prefix);
	const char *name;
	if (!d)
		return;
	while ((name = platform_dir_next(d)) != NULL)
		if (layout_is_staging(name) || layout_is_backup(name)) {
			char *path = layout_under(p, name);
			char *target = layout_is_backup(name) ? interrupted_uninstall(p, name) : NULL;
			if (target) {
				log_msg(LOG_WARN, "putting back %s, moved aside by an uninstall that was "
					"interrupted", target);
				platform_rename(path, target);
			} else {
				log_msg(LOG_INFO, "removing %s left by an interrupted run", name);
				io_rmtree(path);
			}
			free(target);
			free(path);
		}
	platform_dir_close(d);
}

/* Finish or undo what a crashed run left, before anything else happens. */
int journal_recover(const struct layout *p, int *recovered, struct cf_err *e)
{
	struct journal j;
	int r = journal_read(p, &j);
	*recovered = 0;
	if (r == -1) {
		if (errno != ENOENT)
			return cf_fail(e, CF_INSTALL, "%s: %s", p->journal, platform_strerror(errno));
		/* A run killed while it staged (before its journal) changed nothing else but the
		 * copy of state.json it keeps for a rollback. */
		remove_stale_staging(p);
		platform_unlink(p->state_prev);
		return CF_OK;
	}
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
	/* Its environment files are that product's: a run of another would restore them under
	 * its own names (a journal without the key is the first product's). */
	const struct product *of = j.product ? product_find(j.product) : product_default();
	if (of != p->product) {
		int rc = cf_fail(e, CF_INCOMPATIBLE, "%s: an interrupted run of %s waits to be undone "
				 "there; nothing was changed (a command with --product %s recovers it)",
				 p->prefix, of ? of->display : j.product, of ? of->name : j.product);
		journal_free(&j);
		return rc;
	}
	int rc;
	if (j.committed) {
		log_msg(LOG_WARN, "completing an install of %s that was interrupted after it was "
			"committed", j.target);
		platform_unlink(p->env_before);
		platform_unlink(p->journal);
		rc = CF_OK;
	} else {
		log_msg(LOG_WARN, "rolling back an install of %s that was interrupted", j.target);
		rc = journal_rollback(p, &j, e);
	}
	journal_free(&j);
	if (rc == CF_OK) {
		remove_stale_staging(p);
		platform_unlink(p->state_prev);
		*recovered = 1;
	}
	return rc;
}
