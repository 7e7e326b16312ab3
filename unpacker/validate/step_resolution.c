/* step_resolution.c - step 3: the copy of the product a program gets, read as files */
#include "unpacker/validate/step_resolution.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/validate/dllsearch.h"
#include "unpacker/validate/doctor.h"
#include "manifests/product.h"
#include "unpacker/validate/libname.h"
#include "unpacker/validate/search.h"

/* Step 3 where the system's search is directories of files (Windows: System32, the Windows
 * directory, the registry's PATH): the copy a program loading name gets, read as files. */
static void check_resolution_dirs(struct run *r, const char *name, const char *mine)
{
	struct dll_hit hit = { .source = NULL };
	char got[sizeof(hit.path)], version[64] = "?", why[5 * PATH_MAX];
	if (dllsearch_first(name, &hit) != 0) {
		snprintf(why, sizeof(why), "a program loading %s finds none in System32, the Windows "
			 "directory or on the machine's or the user's PATH: the install's bin\\ is not "
			 "on PATH", name);
		report_add(r, 3, "resolution", "fail", why);
		return;
	}
	if (platform_realpath(hit.path, got, sizeof(got)) != 0)
		snprintf(got, sizeof(got), "%s", hit.path);
	dllsearch_version(got, version, sizeof(version));
	int system = strcmp(hit.source, "HKLM") != 0 && strcmp(hit.source, "HKCU") != 0;
	if (strcmp(got, mine) == 0)
		snprintf(why, sizeof(why), "a program loading %s gets the install (%s, through %s)", name,
			 got, dllsearch_source_text(hit.source));
	else if (system)
		snprintf(why, sizeof(why), "a program loading %s gets %s (version %s) in %s, not the "
			 "install: a copy there always comes before every PATH entry; remove or rename "
			 "it (unpacker doctor lists every copy)", name, got, version,
			 dllsearch_source_text(hit.source));
	else
		snprintf(why, sizeof(why), "a program loading %s gets %s (version %s), which comes "
			 "earlier on %s than the install's bin\\: remove that copy or its PATH entry "
			 "(unpacker doctor lists every copy)", name, got, version,
			 dllsearch_source_text(hit.source));
	json_t *o = report_add(r, 3, "resolution", strcmp(got, mine) == 0 ? "pass" : "fail", why);
	json_object_set_new(o, "path", json_string(got));
	json_object_set_new(o, "version", json_string(version));
}

/* Step 3 where the loader's cache and configuration decide (POSIX): the copy doctor would
 * name (doctor_pick, one function for both), read as files, nothing loaded. */
void step_resolution(struct run *r, int is_current)
{
	char mine[PATH_MAX], why[3 * PATH_MAX + 600], name[64];
	const char *root = r->o->layout->root;
	if (!is_current) {
		report_add(r, 3, "resolution", "skip", "not the current install");
		return;
	}
	char *path = libname_main_path(r->product, r->dir, r->major);
	int ok = search_image_realpath(root, path, mine) != NULL;
	free(path);
	libname_main(r->product, r->major, name, sizeof(name));
	if (!*root && platform_lib_search_is_dirs()) {
		if (ok)
			check_resolution_dirs(r, name, mine);
		else
			report_add(r, 3, "resolution", "fail", "the install's library is missing");
		return;
	}
	struct doctor_pick *p = xcalloc(1, sizeof(*p));
	int system_env = r->o->env_mode == VALIDATE_ENV_CACHE;
	char shown_root[PATH_MAX] = ""; /* the root as the host names it (a relative --root too) */
	if (*root && platform_realpath(root, shown_root, sizeof(shown_root)) != 0)
		snprintf(shown_root, sizeof(shown_root), "%s", root);
	json_t *o;
	if (!ok || doctor_pick(r->o->layout, r->product, r->major, system_env, p) != 0) {
		o = report_add(r, 3, "resolution", "fail", "the install's library is missing");
	} else if (!p->found && !system_env) {
		snprintf(why, sizeof(why), "no system file puts the install on the loader's path (a "
			 "user's install, or --no-env): a program finds %s once it has the environment "
			 "of 'unpacker env' (LD_LIBRARY_PATH=%s/lib)", name, r->o->layout->current);
		o = report_add(r, 3, "resolution", "skip", why);
	} else if (!p->found) {
		snprintf(why, sizeof(why), *root ? "no %s on the image's search path (its ld.so.conf.d "
			 "and default directories)" : "no %s in the ld cache or the default directories: "
			 "run ldconfig", r->product->lib_stem);
		o = report_add(r, 3, "resolution", "fail", why);
	} else if (p->ours) {
		snprintf(why, sizeof(why), "a program loading %s gets the install (%s%s), through %s",
			 name, shown_root, p->path, p->via);
		o = report_add(r, 3, "resolution", "pass", why);
	} else {
		snprintf(why, sizeof(why), "a program loading %s gets %s%s, not the install (%s %s; "
			 "%s, put on the search path by %s); fix: %s (unpacker doctor lists every copy)",
			 name, shown_root, p->path, r->product->display, p->version, p->who, p->via,
			 p->fix);
		/* A user's install (no system files) is reached only once a program has the
		 * environment of 'unpacker env': said, as doctor says it, but not a failed install. */
		if (!system_env)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "; or give programs the "
				 "environment of 'unpacker env' (LD_LIBRARY_PATH=%s/lib first): --no-env wrote "
				 "no system files", r->o->layout->current);
		o = report_add(r, 3, "resolution", system_env ? "fail" : "skip", why);
	}
	if (p->found) {
		char *full = xasprintf("%s%s", shown_root, p->path);
		json_object_set_new(o, "path", json_string(full));
		json_object_set_new(o, "version", json_string(p->version));
		free(full);
	}
	free(p);
}
