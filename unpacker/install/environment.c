/* environment.c - the environment an install writes besides its files: ld.so.conf.d,
 * profile.d, the user snippet and modulefiles */
#include "unpacker/install/environment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/env.h"
#include "unpacker/modulefile.h"
#include "unpacker/regenv.h"
#include "unpacker/safepath.h"
#include "unpacker/validate/validate.h"

/* Windows keeps the environment in the registry (p->registry), Linux in files: every choice
 * between the two is made here, in the functions below. */

/* Modulefiles: into --modulefiles DIR, or into the site's Lmod directory when Lmod is there
 * and the system environment is written (root, no --no-env); NULL for none. Free it. */
static char *module_dir_of(const struct layout *p, const struct install_options *o)
{
	return o->modulefiles ? xstrdup(o->modulefiles)
	       : !p->registry && !o->no_env && !o->env_user && platform_is_admin()
		       ? modulefile_site_dir(p->root)
		       : NULL;
}

int environment_check_module_dir(const struct layout *p, const struct install_options *o,
				 struct cf_err *e)
{
	char *module_dir = module_dir_of(p, o);
	int rc = module_dir ? safepath_check_dir(p->root, module_dir, "the modulefiles directory", e)
			    : CF_OK;
	if (rc == CF_OK && module_dir) { /* and DIR/cudnn, where the files go (issue 23 A5) */
		char *sub = xasprintf("%s/cudnn", module_dir);
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
		/* Again as the files are written: DIR/cudnn may have been made since the check. */
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

/* An ld.so.conf.d file under the old name (it sorted after NVIDIA's) takes the new one. */
int environment_migrate(const struct layout *p, const struct install_options *o, struct cf_err *e)
{
	if (p->registry || o->no_env || o->env_user || !platform_is_admin())
		return CF_OK;
	return env_migrate_legacy(p, e);
}

/* The environment the options ask for, written when it is missing (a re-run with --env=user
 * after an install without it). */
int environment_missing(const struct layout *p, const struct install_options *o)
{
	if (o->no_env)
		return 0;
	if (o->env_user && !p->registry)
		return !env_user_present();
	if (p->registry)
		return !environment_present(p, o);
	return platform_is_admin() && !env_system_present(p);
}

int environment_add_missing(const struct layout *p, const struct install_options *o,
			    struct install_result *r, struct cf_err *e)
{
	if (!environment_missing(p, o))
		return CF_OK;
	int rc;
	if (o->env_user && !p->registry) {
		char written[512];
		rc = env_write_user(p->prefix_sys, written, sizeof(written), e);
		snprintf(r->env_note, sizeof(r->env_note), "written to %.400s: source it from ~/.profile",
			 written);
		environment_note_paths(r, written, "");
	} else if (p->registry) {
		rc = environment_write(p, o, r, e);
	} else {
		rc = env_write_system(p, e);
		snprintf(r->env_note, sizeof(r->env_note), "%s and %s", p->ldconf, p->profile);
		environment_note_paths(r, p->ldconf, p->profile);
	}
	r->env_added = rc == CF_OK;
	return rc;
}

int environment_transactional(const struct layout *p, const struct install_options *o)
{
	return !o->no_env && (p->registry || (!o->env_user && platform_is_admin()));
}

int environment_present(const struct layout *p, const struct install_options *o)
{
	return p->registry ? regenv_present(p, regenv_scope(o->env_user)) : env_system_present(p);
}

int environment_snapshot_save(const struct layout *p, const struct install_options *o,
			      struct cf_err *e)
{
	return p->registry ? regenv_snapshot_save(p, regenv_scope(o->env_user), e)
			   : env_snapshot_save(p, e);
}

int environment_write(const struct layout *p, const struct install_options *o,
		      struct install_result *r, struct cf_err *e)
{
	if (p->registry) {
		int machine = regenv_scope(o->env_user) == PLATFORM_ENV_MACHINE;
		snprintf(r->env_note, sizeof(r->env_note), "PATH and CUDNN_PATH in the %s environment "
			 "(registry)", machine ? "machine" : "user");
		environment_note_paths(r, machine ? "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session "
					 "Manager\\Environment" : "HKCU\\Environment", "");
		return regenv_write(p, regenv_scope(o->env_user), e);
	}
	snprintf(r->env_note, sizeof(r->env_note), "%s and %s", p->ldconf, p->profile);
	environment_note_paths(r, p->ldconf, p->profile);
	return env_write_system(p, e);
}

int environment_rollback(const struct layout *p, int saved, struct cf_err *e)
{
	if (saved && io_exists(p->env_before))
		return p->registry ? regenv_snapshot_restore(p, e) : env_snapshot_restore(p, e);
	/* Not saved: the registry was not written yet (the save comes first); the files may be. */
	return saved || p->registry ? CF_OK : env_remove_system(p, e);
}

int environment_remove(const struct layout *p, const struct install_options *o, const char *dir,
		       struct cf_err *e)
{
	if (o->no_env)
		return CF_OK;
	if (p->registry)
		return regenv_remove(p, regenv_scope_in_use(p, o->env_user, dir), dir, e);
	return platform_is_admin() ? env_remove_system(p, e) : CF_OK;
}

int environment_hand_over(const struct layout *p, const struct install_options *o,
			  const char *gone, struct cf_err *e)
{
	if (o->no_env)
		return CF_OK;
	/* Linux: written again (the old name renamed) and the loader's cache rebuilt, so that it
	 * lists the new current's libraries, not the removed one's. */
	if (!p->registry)
		return !o->env_user && platform_is_admin() && env_system_present(p) ? env_write_system(p, e)
										 : CF_OK;
	/* Asked before anything changes: afterwards no PATH holds an install of the prefix. */
	enum platform_env_scope scope = regenv_scope_in_use(p, o->env_user, gone);
	int rc = regenv_remove(p, scope, gone, e);
	return rc == CF_OK ? regenv_write(p, scope, e) : rc;
}

int environment_follow_current(const struct layout *p, const struct install_options *o,
			       struct cf_err *e)
{
	/* Linux: the files name PREFIX/current, which the link switch already moved. */
	return p->registry && !o->no_env ? regenv_write(p, regenv_scope_in_use(p, o->env_user, NULL), e)
					 : CF_OK;
}
