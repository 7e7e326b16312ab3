/* modulefile.c - one Lua and one Tcl modulefile per install, named for its version; the
 * default follows `current`. They point at the install directory itself (not at current),
 * so `module load MODULE/9.19.0.56-cuda13` (the product's module_name) keeps meaning that version after a switch. */
#include "unpacker/environment/modulefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "unpacker/environment/env.h"
#include "manifests/product.h"


char *modulefile_site_dir(const char *root)
{
	char *path = xasprintf("%s/etc/lmod/modulespath", root), *text = NULL, *found = NULL;
	if (io_read_file(path, 1 << 16, &text, NULL) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
			l += strspn(l, " \t");
			l[strcspn(l, " \t#")] = '\0';
			size_t n = strlen(l);
			while (n > 1 && l[n - 1] == '/')
				l[--n] = '\0';
			if (l[0] == '/')
				found = xstrdup(l);
		}
		free(text);
	}
	free(path);
	if (!found) {
		path = xasprintf("%s/usr/share/lmod/lmod", root);
		if (io_is_dir(path))
			found = xstrdup("/usr/share/modulefiles");
		free(path);
	}
	return found;
}

/* The files name these paths inside quotes of two languages: only characters that mean
 * nothing in Lua or Tcl strings (the prefix rule's set) may appear. */
static int plain_path(const char *s)
{
	if (s[0] != '/')
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+@/-", *s))
			return 0;
	return 1;
}

int modulefile_dir_valid(const char *module_dir)
{
	return plain_path(module_dir);
}

/* The install directory less the product's install_stem: STEM-9.19.0.56-cuda13 ->
 * 9.19.0.56-cuda13 (the module name is the product's module_name). */
static const char *module_version(const struct product *p, const char *dir)
{
	const char *stem = p->install_stem;
	size_t n = strlen(stem);
	return strncmp(dir, stem, n) == 0 ? dir + n : dir;
}

/* Which of an install's optional directories it has. */
struct install_parts {
	int bin, pkgconfig, cmake;
};

static void look(const struct layout *c, const char *dir, struct install_parts *l)
{
	char *p;
	p = xasprintf("%s/%s/bin", c->prefix, dir);
	l->bin = io_is_dir(p);
	free(p);
	p = xasprintf("%s/%s/lib/pkgconfig", c->prefix, dir);
	l->pkgconfig = io_is_dir(p);
	free(p);
	p = xasprintf("%s/%s/lib/cmake/%s", c->prefix, dir, c->product->cmake_package);
	l->cmake = io_is_dir(p);
	free(p);
}

static char *lua_text(const struct product *p, const char *version, const char *install,
		      const struct install_parts *l)
{
	return xasprintf(
		"-- %s %s: written by cuferry's unpacker on install, removed by 'unpacker uninstall'.\n"
		"-- The Tcl file beside it (no .lua) is the same for Environment Modules.\n"
		"help([[%s %s, installed in %s]])\n"
		"whatis(\"Name: %s\")\n"
		"whatis(\"Version: %s\")\n"
		"whatis(\"Description: %s\")\n"
		"conflict(\"%s\")\n"
		"local root = \"%s\"\n"
		"setenv(\"%s\", root)\n"
		"setenv(\"%s\", root)\n"
		"prepend_path(\"CPATH\", pathJoin(root, \"include\"))\n"
		"prepend_path(\"LIBRARY_PATH\", pathJoin(root, \"lib\"))\n"
		"prepend_path(\"LD_LIBRARY_PATH\", pathJoin(root, \"lib\"))\n"
		"%s%s%s",
		p->display, version, p->display, version, install, p->display, version,
		p->description, p->module_name, install, p->env_var, p->env_root_var,
		l->pkgconfig ? "prepend_path(\"PKG_CONFIG_PATH\", pathJoin(root, \"lib/pkgconfig\"))\n" : "",
		l->cmake ? "prepend_path(\"CMAKE_PREFIX_PATH\", root)\n" : "",
		l->bin ? "append_path(\"PATH\", pathJoin(root, \"bin\"))\n" : "");
}

static char *tcl_text(const struct product *p, const char *version, const char *install,
		      const struct install_parts *l)
{
	return xasprintf(
		"#%%Module1.0\n"
		"## %s %s: written by cuferry's unpacker on install, removed by 'unpacker uninstall'.\n"
		"## The .lua file beside it is the same for Lmod.\n"
		"proc ModulesHelp { } { puts stderr \"%s %s, installed in %s\" }\n"
		"module-whatis \"%s %s (%s)\"\n"
		"conflict %s\n"
		"set root \"%s\"\n"
		"setenv %s $root\n"
		"setenv %s $root\n"
		"prepend-path CPATH $root/include\n"
		"prepend-path LIBRARY_PATH $root/lib\n"
		"prepend-path LD_LIBRARY_PATH $root/lib\n"
		"%s%s%s",
		p->display, version, p->display, version, install, p->display, version,
		p->description, p->module_name, install, p->env_var, p->env_root_var,
		l->pkgconfig ? "prepend-path PKG_CONFIG_PATH $root/lib/pkgconfig\n" : "",
		l->cmake ? "prepend-path CMAKE_PREFIX_PATH $root\n" : "",
		l->bin ? "append-path PATH $root/bin\n" : "");
}

/* ROOT/DIR/MODULE and every directory above it up to ROOT must be real directories, checked
 * before anything is made: a planted link would carry the files elsewhere. */
static int no_links(const char *root, const char *path_sys, struct cf_err *e)
{
	char *path = xasprintf("%s%s", root, path_sys);
	int rc = CF_OK;
	for (char *p = path + strlen(root) + 1; rc == CF_OK; p++) {
		char saved = *p;
		if (saved != '/' && saved != '\0')
			continue;
		*p = '\0';
		struct platform_stat st;
		if (platform_lstat(path, &st) == 0 && st.type != PLATFORM_TYPE_DIR)
			rc = cf_fail(e, CF_INSTALL, "%s is not a real directory (a symbolic link?): no "
				     "modulefiles written through it", path);
		*p = saved;
		if (saved == '\0')
			break;
	}
	free(path);
	return rc;
}

static int module_subdir(const struct layout *c, const char *module_dir, char **out,
			 struct cf_err *e)
{
	char *sys = xasprintf("%s/%s", module_dir, c->product->module_name);
	*out = xasprintf("%s%s", c->root, sys);
	int rc = no_links(c->root, sys, e);
	if (rc == CF_OK && io_mkdirs(*out, 0755) != 0)
		rc = cf_fail(e, CF_INSTALL, "%s: %s", *out, platform_strerror(errno));
	if (rc == CF_OK)
		rc = no_links(c->root, sys, e); /* made meanwhile by someone else? */
	free(sys);
	return rc;
}

/* The recorded directories, one per line (as the system sees them). */
char **modulefile_recorded(const struct layout *c, size_t *n)
{
	char *path = xstrdup(c->modulefiles), *text = NULL, *save = NULL;
	char **dirs = NULL;
	*n = 0;
	if (io_read_file(path, 1 << 16, &text, NULL) == 0) {
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (plain_path(l)) {
				dirs = xrealloc(dirs, (*n + 1) * sizeof(*dirs));
				dirs[(*n)++] = xstrdup(l);
			}
		free(text);
	}
	free(path);
	return dirs;
}

void modulefile_recorded_free(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

static int record(const struct layout *c, const char *module_dir, struct cf_err *e)
{
	size_t n;
	char **dirs = modulefile_recorded(c, &n);
	char *text = xstrdup("");
	int known = 0;
	for (size_t i = 0; i < n; i++) {
		known |= strcmp(dirs[i], module_dir) == 0;
		char *next = xasprintf("%s%s\n", text, dirs[i]);
		free(text);
		text = next;
	}
	int rc = CF_OK;
	if (!known) {
		char *next = xasprintf("%s%s\n", text, module_dir), *path = xstrdup(c->modulefiles);
		rc = env_write_file(path, next, e);
		free(next);
		free(path);
	}
	free(text);
	modulefile_recorded_free(dirs, n);
	return rc;
}

int modulefile_install(const struct layout *c, const char *module_dir, const char *dir,
		       struct cf_err *e)
{
	char *install = xasprintf("%s/%s", c->prefix_sys, dir), *sub = NULL;
	if (!plain_path(module_dir) || !plain_path(install)) {
		int rc = cf_fail(e, CF_USAGE, "modulefiles: '%s' or '%s' has characters other than "
				 "[A-Za-z0-9._+@/-] or is not absolute", module_dir, install);
		free(install);
		return rc;
	}
	struct install_parts l;
	look(c, dir, &l);
	int rc = module_subdir(c, module_dir, &sub, e);
	const char *version = module_version(c->product, dir);
	if (rc == CF_OK) {
		char *path = xasprintf("%s/%s.lua", sub, version), *text = lua_text(c->product, version, install, &l);
		rc = env_write_file(path, text, e);
		free(path);
		free(text);
	}
	if (rc == CF_OK) {
		char *path = xasprintf("%s/%s", sub, version), *text = tcl_text(c->product, version, install, &l);
		rc = env_write_file(path, text, e);
		free(path);
		free(text);
	}
	if (rc == CF_OK)
		rc = record(c, module_dir, e);
	if (rc == CF_OK)
		rc = modulefile_set_default(c, dir, e);
	if (rc == CF_OK)
		log_msg(LOG_INFO, "modulefiles %s/%s written to %s%s", c->product->module_name,
			version, c->root, module_dir);
	free(sub);
	free(install);
	return rc;
}

int modulefile_present(const struct layout *c, const char *module_dir, const char *dir)
{
	int n = 0;
	for (int lua = 0; lua < 2; lua++) {
		char *path = xasprintf("%s%s/%s/%s%s", c->root, module_dir,
				       c->product->module_name, module_version(c->product, dir),
				       lua ? ".lua" : "");
		n += io_exists(path);
		free(path);
	}
	return n == 2;
}

int modulefile_is_default(const struct layout *c, const char *module_dir, const char *dir)
{
	char *path = xasprintf("%s%s/%s/.version", c->root, module_dir, c->product->module_name);
	char *text = NULL, *want = xasprintf("\"%s\"", module_version(c->product, dir));
	int is = io_read_file(path, 1 << 16, &text, NULL) == 0 && strstr(text, want) != NULL;
	free(text);
	free(want);
	free(path);
	return is;
}

static int remove_file(const char *path, struct cf_err *e)
{
	if (platform_unlink(path) != 0 && errno != ENOENT)
		return cf_fail(e, CF_INSTALL, "%s: %s", path, platform_strerror(errno));
	return CF_OK;
}

/* Run fn on ROOT/DIR/MODULE of every recorded directory (checked for links, made if needed). */
static int each_recorded(const struct layout *c, const char *dir,
			 int (*fn)(const struct product *p, const char *sub, const char *dir,
				   struct cf_err *e),
			 struct cf_err *e)
{
	size_t n;
	char **dirs = modulefile_recorded(c, &n);
	int rc = CF_OK;
	for (size_t i = 0; i < n && rc == CF_OK; i++) {
		char *sub = NULL;
		rc = module_subdir(c, dirs[i], &sub, e);
		if (rc == CF_OK)
			rc = fn(c->product, sub, dir, e);
		free(sub);
	}
	modulefile_recorded_free(dirs, n);
	return rc;
}

static int set_default_in(const struct product *p, const char *sub, const char *dir,
			  struct cf_err *e)
{
	char *path = xasprintf("%s/.version", sub);
	int rc;
	if (dir) {
		/* .version is read by both Lmod and Environment Modules. */
		char *text = xasprintf("#%%Module1.0\n## the current %s, kept by cuferry's unpacker\n"
				       "set ModulesVersion \"%s\"\n", p->display,
				       module_version(p, dir));
		rc = env_write_file(path, text, e);
		free(text);
	} else {
		rc = remove_file(path, e);
	}
	free(path);
	return rc;
}

static int remove_in(const struct product *p, const char *sub, const char *dir, struct cf_err *e)
{
	int rc = CF_OK;
	for (int lua = 0; lua < 2 && rc == CF_OK; lua++) {
		char *path = xasprintf("%s/%s%s", sub, module_version(p, dir), lua ? ".lua" : "");
		rc = remove_file(path, e);
		free(path);
	}
	return rc;
}

int modulefile_set_default(const struct layout *c, const char *dir, struct cf_err *e)
{
	return each_recorded(c, dir, set_default_in, e);
}

int modulefile_remove(const struct layout *c, const char *dir, struct cf_err *e)
{
	return each_recorded(c, dir, remove_in, e);
}
