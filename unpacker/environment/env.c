/* env.c - environment files that never put an empty element into a search path */
#include "unpacker/environment/env.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/target/layout.h"
#include "manifests/product.h"
#include "unpacker/target/homefile.h"

/* The ld.so.conf.d file under the product's older name is there (none when it had none). */
static int legacy_present(const struct layout *l)
{
	return l->ldconf_legacy && io_exists(l->ldconf_legacy);
}

int env_system_present(const struct layout *l)
{
	return (io_exists(l->ldconf) || legacy_present(l)) && io_exists(l->profile);
}

/* A value quoted for the shell that reads it: sh and PowerShell in single quotes (a quote
 * inside doubled the shell's way), cmd inside "set "NAME=VALUE"" where only '"' and '%'
 * could escape. The prefix rule already allows none of these; this is belt and braces,
 * so no prefix can ever be split or run as code in a login shell. */
static char *shell_quote(const char *value, const char *shell)
{
	size_t n = strlen(value), used = 0;
	char *out = xmalloc(4 * n + 3);
	int cmd = strcmp(shell, "cmd") == 0, ps = strcmp(shell, "ps") == 0;
	if (!cmd)
		out[used++] = '\'';
	for (const char *c = value; *c; c++) {
		if (*c == '\'' && ps) {
			memcpy(out + used, "''", 2), used += 2;
		} else if (*c == '\'' && !cmd) {
			memcpy(out + used, "'\\''", 4), used += 4;
		} else if (cmd && (*c == '"' || *c == '%')) {
			continue; /* cannot be quoted inside set "…": dropped (the prefix rule forbids them) */
		} else {
			out[used++] = *c;
		}
	}
	if (!cmd)
		out[used++] = '\'';
	out[used] = '\0';
	return out;
}

static char *env_sh_base(const struct product *p, const char *install_path, int with_ld_library_path);

/* The lines that put DIR (under the product's variable, its env_var) in front of VAR for
 * builders (pkg-config, CMake), only when the install has it (older bundles carry no such
 * files), never twice, never with an empty element. */
static char *builder_lines(const struct product *p, const char *var, const char *dir,
			   const char *marker)
{
	const char *path = p->env_var;
	return xasprintf("if [ -d \"$%s/%s\" ]; then\n"
			 "\tcase \":${%s-}:\" in\n"
			 "\t*\":$%s%s:\"*) ;;\n"
			 "\t*) %s=\"$%s%s${%s:+:$%s}\"; export %s ;;\n"
			 "\tesac\n"
			 "fi\n",
			 path, marker, var, path, dir, var, path, dir, var, var, var);
}

/* The snippet for the product's variable = install_path (PREFIX/current on Linux). */
static char *sh_snippet_at(const struct product *p, const char *install_path,
			   int with_ld_library_path)
{
	char *pc = builder_lines(p, "PKG_CONFIG_PATH", "/lib/pkgconfig", "lib/pkgconfig");
	char *cmake_dir = xasprintf("lib/cmake/%s", p->cmake_package);
	char *cmake = builder_lines(p, "CMAKE_PREFIX_PATH", "", cmake_dir);
	free(cmake_dir);
	char *text = env_sh_base(p, install_path, with_ld_library_path);
	char *all = xasprintf("%s%s%s", text, pc, cmake);
	free(pc);
	free(cmake);
	free(text);
	return all;
}

char *env_sh_snippet(const struct layout *l, int with_ld_library_path)
{
	char *current = layout_current_sys(l->prefix_sys, '/');
	char *text = sh_snippet_at(l->product, current, with_ld_library_path);
	free(current);
	return text;
}

static char *env_sh_base(const struct product *p, const char *install_path, int with_ld_library_path)
{
	char *quoted = shell_quote(install_path, "sh");
	const char *v = p->env_var;
	/* ${VAR:+:$VAR} adds a separator only when VAR is set and not empty: an empty element
	 * would put the current directory on the search path. bin/ goes last on PATH: every
	 * login shell reads this file, and a program in a bundle's bin/ must never be found
	 * before the system's own of that name (a bundled `sudo` or `ls`). */
	char *ld = with_ld_library_path
		? xasprintf("case \":${LD_LIBRARY_PATH-}:\" in\n"
			    "*\":$%s/lib:\"*) ;;\n"
			    "*) LD_LIBRARY_PATH=\"$%s/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"; "
			    "export LD_LIBRARY_PATH ;;\n"
			    "esac\n", v, v)
		: xstrdup("");
	char *text = xasprintf(
		"# %s installed by cuferry's unpacker; rewritten on install, removed on the last "
		"uninstall\n"
		"%s=%s\n"
		"export %s\n"
		"if [ -d \"$%s/bin\" ]; then\n"
		"\tcase \":${PATH-}:\" in\n"
		"\t*\":$%s/bin:\"*) ;;\n"
		"\t*) PATH=\"${PATH:+$PATH:}$%s/bin\"; export PATH ;;\n"
		"\tesac\n"
		"fi\n"
		"%s",
		p->display, v, quoted, v, v, v, v, ld);
	free(ld);
	free(quoted);
	return text;
}

static int run_ldconfig(struct cf_err *e)
{
	const char *prog = platform_lib_cache_program();
	if (!prog)
		return cf_fail(e, CF_INSTALL, "ldconfig not found");
	char *const argv[] = { (char *)prog, NULL }, *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct platform_child child;
	if (platform_run(prog, argv, envp, PLATFORM_CAPTURE_NONE, 0, &child) != 0 || !child.exited ||
	    child.exit_code != 0)
		return cf_fail(e, CF_INSTALL, "ldconfig failed");
	return CF_OK;
}

int env_write_file(const char *path, const char *text, struct cf_err *e)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int ok = io_mkdirs(dir, 0755) == 0 &&
		 io_write_file_atomic(path, text, strlen(text), 0644) == 0;
	free(dir);
	return ok ? CF_OK : cf_fail(e, CF_INSTALL, "%s: %s", path, platform_strerror(errno));
}

/* One rename: the install's directory is on the search path under one name or the other at
 * every moment. When both names exist the old one only goes. */
static int rename_legacy(const struct layout *l, struct cf_err *e)
{
	if (!legacy_present(l))
		return CF_OK;
	int ok = io_exists(l->ldconf) ? platform_unlink(l->ldconf_legacy) == 0
					 : platform_rename(l->ldconf_legacy, l->ldconf) == 0;
	if (!ok || io_fsync_parent(l->ldconf) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", l->ldconf_legacy, platform_strerror(errno));
	return CF_OK;
}

int env_write_system(const struct layout *l, struct cf_err *e)
{
	char *lib = layout_current_lib_sys(l->prefix_sys);
	char *conf = xasprintf("# %s installed by cuferry's unpacker\n%s\n", l->product->display, lib);
	char *sh = env_sh_snippet(l, 0);
	free(lib);
	int rc = rename_legacy(l, e);
	if (rc == CF_OK)
		rc = env_write_file(l->ldconf, conf, e);
	if (rc == CF_OK)
		rc = env_write_file(l->profile, sh, e);
	free(conf);
	free(sh);
	if (rc == CF_OK && !*l->root)
		rc = run_ldconfig(e);
	else if (rc == CF_OK)
		log_msg(LOG_DEBUG, "--root given: ldconfig not run (the image's first boot or ldconfig -r "
			"does that)");
	return rc;
}

int env_remove_system(const struct layout *l, struct cf_err *e)
{
	int legacy_left = l->ldconf_legacy && io_remove_file(l->ldconf_legacy) != 0;
	if (io_remove_file(l->ldconf) != 0 || legacy_left || io_remove_file(l->profile) != 0)
		return cf_fail(e, CF_INSTALL, "cannot remove environment files: %s", platform_strerror(errno));
	return *l->root ? CF_OK : run_ldconfig(e);
}

int env_migrate_legacy(const struct layout *l, struct cf_err *e)
{
	if (!legacy_present(l))
		return CF_OK;
	int rc = rename_legacy(l, e);
	if (rc == CF_OK)
		log_msg(LOG_INFO, "%s renamed to %s: it now sorts ahead of NVIDIA's files",
			l->ldconf_legacy, l->ldconf);
	return rc == CF_OK && !*l->root ? run_ldconfig(e) : rc;
}

int env_before_save(const struct layout *l, const char *text, struct cf_err *e)
{
	if (!text || io_write_file_atomic(l->env_before, text, strlen(text), 0600) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", l->env_before, platform_strerror(errno));
	return CF_OK;
}

/* The snapshot: {"ldconf": text|null, "ldconf_legacy": …, "profile": …}, null = absent (a
 * product without an older name has no ldconf_legacy path: its role is always absent). */
static const char *snapshot_roles[] = { "ldconf", "ldconf_legacy", "profile" };

static char *const *snapshot_paths(const struct layout *l, char *paths[3])
{
	paths[0] = l->ldconf, paths[1] = l->ldconf_legacy, paths[2] = l->profile;
	return paths;
}

int env_snapshot_save(const struct layout *l, struct cf_err *e)
{
	char *paths[3];
	json_t *o = json_object();
	int rc = CF_OK;
	snapshot_paths(l, paths);
	for (int i = 0; i < 3 && rc == CF_OK; i++) {
		char *text;
		size_t len;
		if (!paths[i]) {
			json_object_set_new(o, snapshot_roles[i], json_null());
		} else if (io_read_file(paths[i], 1 << 20, &text, &len) == 0) {
			json_object_set_new(o, snapshot_roles[i], json_stringn(text, len));
			free(text);
		} else if (errno == ENOENT) {
			json_object_set_new(o, snapshot_roles[i], json_null());
		} else {
			rc = cf_fail(e, CF_INSTALL, "%s: %s", paths[i], platform_strerror(errno));
		}
	}
	char *dump = rc == CF_OK ? json_dumps(o, JSON_SORT_KEYS) : NULL;
	if (rc == CF_OK)
		rc = env_before_save(l, dump, e);
	free(dump);
	json_decref(o);
	return rc;
}

int env_snapshot_restore(const struct layout *l, struct cf_err *e)
{
	char *paths[3], *text;
	size_t len;
	if (io_read_file(l->env_before, 1 << 22, &text, &len) != 0)
		return cf_fail(e, CF_ROLLBACK, "%s: %s", l->env_before, platform_strerror(errno));
	json_t *o = json_loadb(text, len, 0, NULL);
	free(text);
	if (!json_is_object(o))
		return json_decref(o), cf_fail(e, CF_ROLLBACK, "%s is damaged", l->env_before);
	int bad = 0;
	snapshot_paths(l, paths);
	for (int i = 0; i < 3; i++) {
		json_t *v = json_object_get(o, snapshot_roles[i]);
		if (!paths[i])
			bad |= !json_is_null(v);
		else if (json_is_string(v))
			bad |= env_write_file(paths[i], json_string_value(v), e) != CF_OK;
		else if (json_is_null(v))
			bad |= io_remove_file(paths[i]) != 0;
		else
			bad = 1;
	}
	json_decref(o);
	if (bad)
		return cf_fail(e, CF_ROLLBACK, "cannot restore the environment files from %s", l->env_before);
	return *l->root ? CF_OK : run_ldconfig(e);
}

int env_write_user(const struct layout *l, char *written, size_t size, struct cf_err *e)
{
	const char *home = getenv("HOME");
	if (!home || !*home)
		return cf_fail(e, CF_INSTALL, "HOME is not set: cannot write the user environment");
	char *path = layout_user_env(home, l->product), *rel = layout_user_env_rel(l->product);
	char *sh = env_sh_snippet(l, 1);
	/* As root, nothing the user planted below their home is followed (homefile.h); a user
	 * writes only what they could write anyway. */
	int rc = platform_is_admin() && platform_dir_separator() == '/'
			 ? homefile_write(home, rel, sh, e) : env_write_file(path, sh, e);
	snprintf(written, size, "%s", path);
	free(rel);
	free(path);
	free(sh);
	return rc;
}

int env_user_present(const struct layout *l)
{
	const char *home = getenv("HOME");
	if (!home || !*home)
		return 0;
	char *path = layout_user_env(home, l->product);
	struct platform_stat st;
	int present = platform_lstat(path, &st) == 0 && st.type == PLATFORM_TYPE_FILE;
	free(path);
	return present;
}

/* The path's own directory separator: never a Windows one glued to a Linux path. */
static char path_separator(const char *path)
{
	return strchr(path, '\\') ? '\\' : '/';
}

int env_print(const struct product *p, const char *install_path, const char *shell,
	      struct cf_err *e)
{
	/* No --shell: the shell of the install's own system (cmd for a Windows path), never sh
	 * lines with LD_LIBRARY_PATH for a Command Prompt. */
	if (!shell)
		shell = path_separator(install_path) == '\\' ? "cmd" : "sh";
	if (strcmp(shell, "sh") == 0) {
		char *sh = sh_snippet_at(p, install_path, 1);
		log_out("%s", sh);
		free(sh);
	} else if (strcmp(shell, "ps") == 0) {
		/* PowerShell runs on Linux too: the path's own separator, and the platform's
		 * PATH separator, never a Windows one glued to a Linux path. A Linux bin/ goes
		 * last, as in profile.d; a Windows bin\ first, as the registry PATH has it, since
		 * there PATH is where programs find the DLLs. */
		char sep = path_separator(install_path), *q = shell_quote(install_path, "ps");
		const char *v = p->env_var;
		log_out("$env:%s = %s\n", v, q);
		if (sep == '/')
			log_out("if (Test-Path \"$env:%s/bin\") { $env:PATH = $env:PATH + "
				"[IO.Path]::PathSeparator + \"$env:%s/bin\" }\n", v, v);
		else
			log_out("if (Test-Path \"$env:%s\\bin\") { $env:PATH = "
				"\"$env:%s\\bin\" + [IO.Path]::PathSeparator + $env:PATH }\n", v, v);
		free(q);
	} else if (strcmp(shell, "cmd") == 0) {
		char sep = path_separator(install_path), *q = shell_quote(install_path, "cmd");
		const char *v = p->env_var;
		log_out("set \"%s=%s\"\n"
			"if exist \"%%%s%%%cbin\" set \"PATH=%%%s%%%cbin;%%PATH%%\"\n", v, q,
			v, sep, v, sep);
		free(q);
	} else {
		return cf_fail(e, CF_USAGE, "--shell must be sh, ps or cmd");
	}
	return CF_OK;
}
