/* environment.c - the environment an install writes besides its files: ld.so.conf.d,
 * profile.d, the user snippet and modulefiles */
#include "unpacker/environment/environment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "unpacker/environment/env.h"
#include "unpacker/environment/modulefile.h"
#include "unpacker/environment/regenv.h"
#include "unpacker/target/safepath.h"

/* Linux keeps the environment in files (ld.so.conf.d, profile.d, the user snippet), Windows in
 * the registry: one backend each, chosen once from the platform row (backend_of); the
 * functions at the end of the file only dispatch. */
struct env_backend {
	int site_modules; /* Lmod's site directory takes modulefiles with the system environment */
	int (*migrate)(const struct layout *p, const struct install_options *o, struct cf_err *e);
	int (*missing)(const struct layout *p, const struct install_options *o);
	int (*add_missing)(const struct layout *p, const struct install_options *o,
			   struct install_result *r, struct cf_err *e);
	int (*transactional)(const struct layout *p, const struct install_options *o);
	int (*present)(const struct layout *p, const struct install_options *o);
	int (*snapshot_save)(const struct layout *p, const struct install_options *o,
			     struct cf_err *e);
	int (*write)(const struct layout *p, const struct install_options *o,
		     struct install_result *r, struct cf_err *e);
	int (*snapshot_restore)(const struct layout *p, struct cf_err *e);
	/* rollback when nothing was saved: what may have been written goes */
	int (*rollback_unsaved)(const struct layout *p, struct cf_err *e);
	int (*remove)(const struct layout *p, const struct install_options *o, const char *dir,
		      struct cf_err *e);
	int (*hand_over)(const struct layout *p, const struct install_options *o, const char *gone,
			 struct cf_err *e);
	int (*follow_current)(const struct layout *p, const struct install_options *o,
			      struct cf_err *e);
};

static const struct env_backend *backend_of(const struct layout *p);

/* Modulefiles: into --modulefiles DIR, or into the site's Lmod directory when Lmod is there
 * and the system environment is written (root, no --no-env); NULL for none. Free it. */
static char *module_dir_of(const struct layout *p, const struct install_options *o)
{
	return o->modulefiles ? xstrdup(o->modulefiles)
	       : backend_of(p)->site_modules && !o->no_env && !o->env_user && platform_is_admin()
		       ? modulefile_site_dir(p->root)
		       : NULL;
}

int environment_check_module_dir(const struct layout *p, const struct install_options *o,
				 struct cf_err *e)
{
	char *module_dir = module_dir_of(p, o);
	int rc = module_dir ? safepath_check_dir(p->root, module_dir, "the modulefiles directory", e)
			    : CF_OK;
	if (rc == CF_OK && module_dir) { /* and DIR/<module>, where the files go (issue 23 A5) */
		char *sub = xasprintf("%s/%s", module_dir, p->product->module_name);
		rc = safepath_check_dir(p->root, sub, "the modulefiles directory", e);
		free(sub);
	}
	free(module_dir);
	return rc;
}

int environment_write_modulefiles(const struct layout *p, const struct install_options *o,
				  const char *dir, struct install_result *r, struct cf_err *e)
{
	char *module_dir = module_dir_of(p, o);
	int rc = CF_OK;
	if (module_dir) {
		/* Again as the files are written: DIR/<module> may have been made since the check. */
		rc = environment_check_module_dir(p, o, e);
		if (rc == CF_OK)
			rc = modulefile_install(p, module_dir, dir, e);
		size_t n = strlen(r->env_note);
		snprintf(r->env_note + n, sizeof(r->env_note) - n, "%smodulefiles in %s%s",
			 n ? "; " : "", p->root, module_dir);
	}
	free(module_dir);
	return rc;
}

int environment_add_missing_modulefiles(const struct layout *p, const struct install_options *o,
					const char *dir, const char *current,
					struct install_result *r, struct cf_err *e)
{
	if (!o->modulefiles || modulefile_present(p, o->modulefiles, dir))
		return CF_OK;
	int rc = environment_write_modulefiles(p, o, dir, r, e);
	/* modulefile_install made `dir` the default: an install beside current leaves it alone. */
	if (rc == CF_OK && (!current || strcmp(current, dir) != 0))
		rc = modulefile_set_default(p, current, e);
	r->env_added |= rc == CF_OK;
	return rc;
}

void environment_note_paths(struct install_result *r, const char *a, const char *b)
{
	snprintf(r->env_paths[0], sizeof(r->env_paths[0]), "%s", a);
	snprintf(r->env_paths[1], sizeof(r->env_paths[1]), "%s", b);
}

/* How a fresh program finds the install: the ld cache (system files written) or the
 * LD_LIBRARY_PATH of the user snippet. */
int environment_validate_mode(const struct layout *p, const struct install_options *o)
{
	int cache = !o->env_user && (env_system_present(p) || (!o->no_env && platform_is_admin()));
	return cache ? VALIDATE_ENV_CACHE : VALIDATE_ENV_LIBRARY_PATH;
}

/* ---- files: ld.so.conf.d and profile.d as root, the user snippet with --env=user ---- */

/* An ld.so.conf.d file under the old name (it sorted after NVIDIA's) takes the new one. */
static int files_migrate(const struct layout *p, const struct install_options *o, struct cf_err *e)
{
	if (o->no_env || o->env_user || !platform_is_admin())
		return CF_OK;
	return env_migrate_legacy(p, e);
}

static int files_missing(const struct layout *p, const struct install_options *o)
{
	if (o->env_user)
		return !env_user_present(p);
	return platform_is_admin() && !env_system_present(p);
}

static int files_write(const struct layout *p, const struct install_options *o,
		       struct install_result *r, struct cf_err *e)
{
	snprintf(r->env_note, sizeof(r->env_note), "%s and %s", p->ldconf, p->profile);
	environment_note_paths(r, p->ldconf, p->profile);
	return env_write_system(p, e);
}

static int files_add_missing(const struct layout *p, const struct install_options *o,
			     struct install_result *r, struct cf_err *e)
{
	if (!o->env_user)
		return files_write(p, o, r, e);
	char written[512];
	int rc = env_write_user(p, written, sizeof(written), e);
	snprintf(r->env_note, sizeof(r->env_note), "written to %.400s: source it from ~/.profile",
		 written);
	environment_note_paths(r, written, "");
	return rc;
}

static int files_transactional(const struct layout *p, const struct install_options *o)
{
	return !o->env_user && platform_is_admin();
}

static int files_present(const struct layout *p, const struct install_options *o)
{
	return env_system_present(p);
}

static int files_snapshot_save(const struct layout *p, const struct install_options *o,
			       struct cf_err *e)
{
	return env_snapshot_save(p, e);
}

static int files_remove(const struct layout *p, const struct install_options *o, const char *dir,
			struct cf_err *e)
{
	return platform_is_admin() ? env_remove_system(p, e) : CF_OK;
}

/* Written again (the old name renamed) and the loader's cache rebuilt, so that it lists the
 * new current's libraries, not the removed one's. */
static int files_hand_over(const struct layout *p, const struct install_options *o,
			   const char *gone, struct cf_err *e)
{
	return !o->env_user && platform_is_admin() && env_system_present(p) ? env_write_system(p, e)
									   : CF_OK;
}

/* The files name PREFIX/current, which the link switch already moved. */
static int files_follow_current(const struct layout *p, const struct install_options *o,
				struct cf_err *e)
{
	return CF_OK;
}

/* ---- the registry: PATH and the product's variable, the machine's or (--env=user) the user's ---- */

static int registry_migrate(const struct layout *p, const struct install_options *o,
			    struct cf_err *e)
{
	return CF_OK;
}

static int registry_present(const struct layout *p, const struct install_options *o)
{
	return regenv_present(p, regenv_scope(o->env_user));
}

static int registry_missing(const struct layout *p, const struct install_options *o)
{
	return !registry_present(p, o);
}

static int registry_write(const struct layout *p, const struct install_options *o,
			  struct install_result *r, struct cf_err *e)
{
	int machine = regenv_scope(o->env_user) == PLATFORM_ENV_MACHINE;
	snprintf(r->env_note, sizeof(r->env_note), "PATH and %s in the %s environment "
		 "(registry)", p->product->env_var, machine ? "machine" : "user");
	environment_note_paths(r, machine ? "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session "
				 "Manager\\Environment" : "HKCU\\Environment", "");
	return regenv_write(p, regenv_scope(o->env_user), e);
}

static int registry_transactional(const struct layout *p, const struct install_options *o)
{
	return 1;
}

static int registry_snapshot_save(const struct layout *p, const struct install_options *o,
				  struct cf_err *e)
{
	return regenv_snapshot_save(p, regenv_scope(o->env_user), e);
}

/* Not saved: the registry was not written yet (the save comes first). */
static int registry_rollback_unsaved(const struct layout *p, struct cf_err *e)
{
	return CF_OK;
}

static int registry_remove(const struct layout *p, const struct install_options *o,
			   const char *dir, struct cf_err *e)
{
	return regenv_remove(p, regenv_scope_in_use(p, o->env_user, dir), dir, e);
}

static int registry_hand_over(const struct layout *p, const struct install_options *o,
			      const char *gone, struct cf_err *e)
{
	/* Asked before anything changes: afterwards no PATH holds an install of the prefix. */
	enum platform_env_scope scope = regenv_scope_in_use(p, o->env_user, gone);
	int rc = regenv_remove(p, scope, gone, e);
	return rc == CF_OK ? regenv_write(p, scope, e) : rc;
}

static int registry_follow_current(const struct layout *p, const struct install_options *o,
				   struct cf_err *e)
{
	return regenv_write(p, regenv_scope_in_use(p, o->env_user, NULL), e);
}

static const struct env_backend files_backend = {
	.site_modules = 1, .migrate = files_migrate, .missing = files_missing,
	.add_missing = files_add_missing, .transactional = files_transactional,
	.present = files_present, .snapshot_save = files_snapshot_save, .write = files_write,
	.snapshot_restore = env_snapshot_restore, .rollback_unsaved = env_remove_system,
	.remove = files_remove, .hand_over = files_hand_over, .follow_current = files_follow_current,
};

static const struct env_backend registry_backend = {
	.site_modules = 0, .migrate = registry_migrate, .missing = registry_missing,
	.add_missing = registry_write, .transactional = registry_transactional,
	.present = registry_present, .snapshot_save = registry_snapshot_save, .write = registry_write,
	.snapshot_restore = regenv_snapshot_restore, .rollback_unsaved = registry_rollback_unsaved,
	.remove = registry_remove, .hand_over = registry_hand_over,
	.follow_current = registry_follow_current,
};

/* The one choice between the two: the platform row's. */
static const struct env_backend *backend_of(const struct layout *p)
{
	return p->platform->env_store == PLATFORM_ENV_IN_REGISTRY ? &registry_backend : &files_backend;
}

/* ---- the dispatch: what holds for both, then the backend ---- */

int environment_migrate(const struct layout *p, const struct install_options *o, struct cf_err *e)
{
	return backend_of(p)->migrate(p, o, e);
}

/* The environment the options ask for, written when it is missing (a re-run with --env=user
 * after an install without it). */
int environment_missing(const struct layout *p, const struct install_options *o)
{
	return !o->no_env && backend_of(p)->missing(p, o);
}

int environment_add_missing(const struct layout *p, const struct install_options *o,
			    struct install_result *r, struct cf_err *e)
{
	if (!environment_missing(p, o))
		return CF_OK;
	int rc = backend_of(p)->add_missing(p, o, r, e);
	r->env_added = rc == CF_OK;
	return rc;
}

int environment_transactional(const struct layout *p, const struct install_options *o)
{
	return !o->no_env && backend_of(p)->transactional(p, o);
}

int environment_present(const struct layout *p, const struct install_options *o)
{
	return backend_of(p)->present(p, o);
}

int environment_snapshot_save(const struct layout *p, const struct install_options *o,
			      struct cf_err *e)
{
	return backend_of(p)->snapshot_save(p, o, e);
}

int environment_write(const struct layout *p, const struct install_options *o,
		      struct install_result *r, struct cf_err *e)
{
	return backend_of(p)->write(p, o, r, e);
}

int environment_rollback(const struct layout *p, int saved, struct cf_err *e)
{
	if (saved && io_exists(p->env_before))
		return backend_of(p)->snapshot_restore(p, e);
	return saved ? CF_OK : backend_of(p)->rollback_unsaved(p, e);
}

int environment_remove(const struct layout *p, const struct install_options *o, const char *dir,
		       struct cf_err *e)
{
	return o->no_env ? CF_OK : backend_of(p)->remove(p, o, dir, e);
}

int environment_hand_over(const struct layout *p, const struct install_options *o,
			  const char *gone, struct cf_err *e)
{
	return o->no_env ? CF_OK : backend_of(p)->hand_over(p, o, gone, e);
}

/* After 'use' (Linux: nothing to do, the current link did it). */
int environment_follow_current(const struct layout *p, const struct install_options *o,
			       struct cf_err *e)
{
	return o->no_env ? CF_OK : backend_of(p)->follow_current(p, o, e);
}
