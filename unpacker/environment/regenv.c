/* regenv.c - PATH and the product's variable (its env_var) in the registry for the current install (Windows), and the
 * exact values before, for rollback */
#include "unpacker/environment/regenv.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/environment/env.h"
#include "unpacker/target/state.h"
#include "unpacker/environment/winpath.h"
#include "manifests/product.h"

#define PATH_NAME "PATH"

enum platform_env_scope regenv_scope(int env_user)
{
	return platform_is_admin() && !env_user ? PLATFORM_ENV_MACHINE : PLATFORM_ENV_USER;
}

static const char *scope_name(enum platform_env_scope scope)
{
	return scope == PLATFORM_ENV_MACHINE ? "machine" : "user";
}

static int read_failed(const char *name, enum platform_env_scope scope, struct cf_err *e)
{
	return cf_fail(e, CF_INSTALL, "the %s environment's %s: %s", scope_name(scope), name,
		       platform_strerror(errno));
}

/* The stored value, "" when absent (*present 0); -1 on any other error. */
static int read_value(enum platform_env_scope scope, const char *name, char **value,
		      int *expandable, int *present)
{
	*present = platform_env_read(scope, name, value, expandable) == 0;
	if (*present)
		return 0;
	if (errno != ENOENT)
		return -1;
	*value = xstrdup("");
	*expandable = 1; /* a PATH made from nothing is expandable, as Windows makes it */
	return 0;
}

/* The current install's directory and bin as the system sees them, and the bin directories
 * of every install of the prefix (ours to take out of PATH). */
struct installs {
	char *current, *bin;
	char **bins;
	size_t nbins;
};

static void installs_free(struct installs *in)
{
	free(in->current);
	free(in->bin);
	for (size_t i = 0; i < in->nbins; i++)
		free(in->bins[i]);
	free(in->bins);
	memset(in, 0, sizeof(*in));
}

static int installs_load(const struct layout *l, struct installs *in, struct cf_err *e)
{
	struct state st;
	memset(in, 0, sizeof(*in));
	int rc = state_load(l->state, &st, e);
	if (rc != CF_OK)
		return rc;
	if (st.current) {
		in->current = layout_install_sys(l->prefix_sys, st.current);
		in->bin = layout_install_bin_sys(in->current);
	}
	in->bins = xmalloc((st.nbundles + 1) * sizeof(*in->bins));
	for (size_t i = 0; i < st.nbundles; i++) {
		char *dir = layout_install_sys(l->prefix_sys, st.bundles[i].dir);
		in->bins[in->nbins++] = layout_install_bin_sys(dir);
		free(dir);
	}
	state_free(&st);
	return CF_OK;
}

/* 1 when scope's PATH holds the bin directory of any install of the prefix, or of dir (one
 * being removed, already gone from state.json). */
static int holds_ours(const struct layout *l, enum platform_env_scope scope, const char *dir)
{
	struct installs in;
	struct cf_err ignored = { 0 };
	char *path = NULL;
	int expandable, found = 0;
	if (installs_load(l, &in, &ignored) != CF_OK)
		return 0;
	if (dir) {
		char *install = layout_install_sys(l->prefix_sys, dir);
		in.bins[in.nbins++] = layout_install_bin_sys(install);
		free(install);
	}
	if (platform_env_read(scope, PATH_NAME, &path, &expandable) == 0)
		for (size_t i = 0; i < in.nbins && !found; i++)
			found = winpath_contains(path, in.bins[i]);
	free(path);
	installs_free(&in);
	return found;
}

enum platform_env_scope regenv_scope_in_use(const struct layout *l, int env_user, const char *dir)
{
	enum platform_env_scope scope = regenv_scope(env_user);
	if (scope == PLATFORM_ENV_MACHINE && !holds_ours(l, PLATFORM_ENV_MACHINE, dir) &&
	    holds_ours(l, PLATFORM_ENV_USER, dir))
		return PLATFORM_ENV_USER;
	return scope;
}

int regenv_present(const struct layout *l, enum platform_env_scope scope)
{
	struct installs in;
	struct cf_err ignored = { 0 };
	char *path = NULL, *value_of = NULL;
	int expandable, present = 0;
	if (installs_load(l, &in, &ignored) != CF_OK)
		return 0;
	if (in.current && platform_env_read(scope, PATH_NAME, &path, &expandable) == 0 &&
	    platform_env_read(scope, l->product->env_var, &value_of, &expandable) == 0)
		present = winpath_contains(path, in.bin) && strcmp(value_of, in.current) == 0;
	free(path);
	free(value_of);
	installs_free(&in);
	return present;
}

/* PATH becomes new_path unless it is that already; then the product's variable var (its
 * env_var) becomes install, then the broadcast. */
static int store(enum platform_env_scope scope, int path_differs, const char *new_path,
		 int expandable, const char *var, const char *install, struct cf_err *e)
{
	if (path_differs && platform_env_write(scope, PATH_NAME, new_path, expandable) != 0)
		return cf_fail(e, CF_INSTALL, "cannot write the %s PATH: %s", scope_name(scope),
			       platform_strerror(errno));
	char *was = NULL;
	int was_expandable;
	int same = platform_env_read(scope, var, &was, &was_expandable) == 0 &&
		   strcmp(was, install) == 0;
	free(was);
	if (!same && platform_env_write(scope, var, install, 0) != 0)
		return cf_fail(e, CF_INSTALL, "cannot write the %s %s: %s", scope_name(scope),
			       var, platform_strerror(errno));
	if (platform_env_announce() != 0)
		log_msg(LOG_WARN, "running programs were not told of the new environment: new ones "
			"see it");
	return CF_OK;
}

int regenv_write(const struct layout *l, enum platform_env_scope scope, struct cf_err *e)
{
	struct installs in;
	char *path = NULL, *updated = NULL;
	int expandable, present;
	int rc = installs_load(l, &in, e);
	if (rc == CF_OK && !in.current) {
		installs_free(&in);
		return CF_OK; /* nothing current: nothing to point at */
	}
	if (rc == CF_OK && read_value(scope, PATH_NAME, &path, &expandable, &present) != 0)
		rc = read_failed(PATH_NAME, scope, e);
	if (rc == CF_OK) {
		updated = winpath_add(path, in.bin, (const char *const *)in.bins, in.nbins);
		if (!updated)
			rc = cf_fail(e, CF_INSTALL, "%s cannot be one PATH entry: %s", in.bin,
				     platform_strerror(errno));
	}
	if (rc == CF_OK)
		rc = store(scope, !present || strcmp(path, updated) != 0, updated, expandable,
			   l->product->env_var, in.current, e);
	free(path);
	free(updated);
	installs_free(&in);
	return rc;
}

int regenv_remove(const struct layout *l, enum platform_env_scope scope, const char *dir,
		  struct cf_err *e)
{
	char *install = layout_install_sys(l->prefix_sys, dir), *bin = layout_install_bin_sys(install);
	char *path = NULL, *value_of = NULL, *updated = NULL;
	int expandable, present, var_expandable;
	int rc = read_value(scope, PATH_NAME, &path, &expandable, &present) == 0
			 ? CF_OK : read_failed(PATH_NAME, scope, e);
	if (rc == CF_OK && present && !(updated = winpath_remove(path, bin)))
		rc = cf_fail(e, CF_INSTALL, "%s: %s", bin, platform_strerror(errno));
	/* A PATH left empty held only our entry: the install made it from nothing (the value was
	 * absent, as a new user's PATH is), so it goes as it came rather than stay as "". */
	if (rc == CF_OK && present && !*updated && platform_env_delete(scope, PATH_NAME) != 0)
		rc = cf_fail(e, CF_INSTALL, "cannot remove the %s PATH: %s", scope_name(scope),
			     platform_strerror(errno));
	else if (rc == CF_OK && present && *updated && strcmp(path, updated) != 0 &&
		 platform_env_write(scope, PATH_NAME, updated, expandable) != 0)
		rc = cf_fail(e, CF_INSTALL, "cannot write the %s PATH: %s", scope_name(scope),
			     platform_strerror(errno));
	/* The product's variable goes only when it names this install: someone else's value stays.
	 * Compared as PATH's entries are (c:\x and C:\X are one directory), or a prefix given in
	 * another case would take the PATH entry and leave the variable naming a removed
	 * directory. */
	if (rc == CF_OK && platform_env_read(scope, l->product->env_var, &value_of, &var_expandable) == 0 &&
	    winpath_same_dir(value_of, strlen(value_of), install, strlen(install)) &&
	    platform_env_delete(scope, l->product->env_var) != 0)
		rc = cf_fail(e, CF_INSTALL, "cannot remove the %s %s: %s", scope_name(scope),
			     l->product->env_var, platform_strerror(errno));
	if (rc == CF_OK)
		platform_env_announce();
	free(install);
	free(bin);
	free(path);
	free(value_of);
	free(updated);
	return rc;
}

/* The snapshot: {"scope": "machine"|"user", "PATH": {"value": …, "expandable": b} | null,
 * the product's env_var: …}, null = absent. */
static const char *snapshot_name(const struct layout *l, size_t i)
{
	return i == 0 ? PATH_NAME : l->product->env_var;
}

int regenv_snapshot_save(const struct layout *l, enum platform_env_scope scope, struct cf_err *e)
{
	json_t *o = json_pack("{s:s}", "scope", scope_name(scope));
	int rc = CF_OK;
	for (size_t i = 0; i < 2 && rc == CF_OK; i++) {
		char *value;
		int expandable;
		if (platform_env_read(scope, snapshot_name(l, i), &value, &expandable) == 0) {
			json_object_set_new(o, snapshot_name(l, i), json_pack("{s:s, s:b}", "value", value,
									    "expandable", expandable));
			free(value);
		} else if (errno == ENOENT) {
			json_object_set_new(o, snapshot_name(l, i), json_null());
		} else {
			rc = read_failed(snapshot_name(l, i), scope, e);
		}
	}
	char *dump = rc == CF_OK ? json_dumps(o, JSON_SORT_KEYS) : NULL;
	json_decref(o);
	rc = rc == CF_OK ? env_before_save(l, dump, e) : rc;
	free(dump);
	return rc;
}

int regenv_snapshot_restore(const struct layout *l, struct cf_err *e)
{
	char *text;
	size_t len;
	if (io_read_file_nofollow(l->env_before, 1 << 22, &text, &len) != 0)
		return cf_fail(e, CF_ROLLBACK, "%s: %s", l->env_before, platform_strerror(errno));
	json_t *o = json_loadb(text, len, 0, NULL);
	free(text);
	const char *scope_text = json_string_value(json_object_get(o, "scope"));
	int bad = !scope_text || (strcmp(scope_text, "machine") != 0 && strcmp(scope_text, "user") != 0);
	enum platform_env_scope scope = !bad && strcmp(scope_text, "machine") == 0
						? PLATFORM_ENV_MACHINE : PLATFORM_ENV_USER;
	for (size_t i = 0; i < 2 && !bad; i++) {
		json_t *v = json_object_get(o, snapshot_name(l, i));
		const char *value = json_string_value(json_object_get(v, "value"));
		if (json_is_null(v))
			bad |= platform_env_delete(scope, snapshot_name(l, i)) != 0;
		else if (value)
			bad |= platform_env_write(scope, snapshot_name(l, i), value,
						  json_is_true(json_object_get(v, "expandable"))) != 0;
		else
			bad = 1;
	}
	json_decref(o);
	if (bad)
		return cf_fail(e, CF_ROLLBACK, "cannot restore PATH and %s from %s", l->product->env_var,
			       l->env_before);
	platform_env_announce();
	return CF_OK;
}
