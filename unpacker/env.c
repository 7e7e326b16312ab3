/* env.c - environment files that never put an empty element into a search path */
#include "unpacker/env.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"

void env_files_init(struct env_files *f, const char *root)
{
	f->ldconf = xasprintf("%s/etc/ld.so.conf.d/cuferry-cudnn.conf", root);
	f->profile = xasprintf("%s/etc/profile.d/cuferry-cudnn.sh", root);
}

void env_files_free(struct env_files *f)
{
	free(f->ldconf);
	free(f->profile);
}

int env_system_present(const struct env_files *f)
{
	return io_exists(f->ldconf) && io_exists(f->profile);
}

static char *env_sh_base(const char *prefix_sys, int with_ld_library_path);

/* The lines that put DIR (under $CUDNN_PATH) in front of VAR for builders (pkg-config,
 * CMake), only when the install has it (older bundles carry no such files), never
 * twice, never with an empty element. */
static char *builder_lines(const char *var, const char *dir, const char *marker)
{
	return xasprintf("if [ -d \"$CUDNN_PATH/%s\" ]; then\n"
			 "\tcase \":${%s-}:\" in\n"
			 "\t*\":$CUDNN_PATH%s:\"*) ;;\n"
			 "\t*) %s=\"$CUDNN_PATH%s${%s:+:$%s}\"; export %s ;;\n"
			 "\tesac\n"
			 "fi\n",
			 marker, var, dir, var, dir, var, var, var);
}

char *env_sh_snippet(const char *prefix_sys, int with_ld_library_path)
{
	char *pc = builder_lines("PKG_CONFIG_PATH", "/lib/pkgconfig", "lib/pkgconfig");
	char *cmake = builder_lines("CMAKE_PREFIX_PATH", "", "lib/cmake/CUDNN");
	char *text = env_sh_base(prefix_sys, with_ld_library_path);
	char *all = xasprintf("%s%s%s", text, pc, cmake);
	free(pc);
	free(cmake);
	free(text);
	return all;
}

static char *env_sh_base(const char *prefix_sys, int with_ld_library_path)
{
	/* ${VAR:+:$VAR} adds a separator only when VAR is set and not empty: an empty element
	 * would put the current directory on the search path. */
	return xasprintf(
		"# cuDNN installed by cuferry's unpacker; rewritten on install, removed on the last "
		"uninstall\n"
		"CUDNN_PATH=%s/current\n"
		"export CUDNN_PATH\n"
		"if [ -d \"$CUDNN_PATH/bin\" ]; then\n"
		"\tcase \":${PATH-}:\" in\n"
		"\t*\":$CUDNN_PATH/bin:\"*) ;;\n"
		"\t*) PATH=\"$CUDNN_PATH/bin${PATH:+:$PATH}\"; export PATH ;;\n"
		"\tesac\n"
		"fi\n"
		"%s",
		prefix_sys,
		with_ld_library_path
			? "case \":${LD_LIBRARY_PATH-}:\" in\n"
			  "*\":$CUDNN_PATH/lib:\"*) ;;\n"
			  "*) LD_LIBRARY_PATH=\"$CUDNN_PATH/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"; "
			  "export LD_LIBRARY_PATH ;;\n"
			  "esac\n"
			: "");
}

/* ldconfig by absolute path: it is run with a clean environment, never through PATH. */
static const char *ldconfig_path(void)
{
	static const char *const candidates[] = { "/sbin/ldconfig", "/usr/sbin/ldconfig" };
	for (size_t i = 0; i < 2; i++)
		if (access(candidates[i], X_OK) == 0)
			return candidates[i];
	return NULL;
}

static int run_ldconfig(struct cf_err *e)
{
	const char *prog = ldconfig_path();
	if (!prog)
		return cf_fail(e, CF_INSTALL, "ldconfig not found");
	char *const argv[] = { (char *)prog, NULL }, *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	struct platform_child child;
	if (platform_run(prog, argv, envp, PLATFORM_CAPTURE_NONE, 0, &child) != 0 || !child.exited ||
	    child.exit_code != 0)
		return cf_fail(e, CF_INSTALL, "ldconfig failed");
	return CF_OK;
}

void env_ld_conf_dirs(const char *root, void (*fn)(const char *dir, void *ctx), void *ctx)
{
	glob_t g;
	char *pattern = xasprintf("%s/etc/ld.so.conf.d/*.conf", root);
	if (glob(pattern, 0, NULL, &g) == 0) { /* sorted: the order ldconfig reads them in */
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char *text, *save = NULL;
			if (io_read_file(g.gl_pathv[i], 1 << 20, &text, NULL) != 0)
				continue;
			for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				if (l[0] == '/')
					fn(l, ctx);
			free(text);
		}
		globfree(&g);
	}
	free(pattern);
}

int env_ld_cache_find(const char *soname, void (*fn)(const char *path, const char *flags, void *ctx),
		      void *ctx)
{
	const char *prog = ldconfig_path();
	char *const argv[] = { "ldconfig", "-p", NULL }, *const envp[] = { NULL };
	struct platform_child child;
	if (!prog || platform_run(prog, argv, envp, PLATFORM_CAPTURE_STDOUT, 30, &child) != 0)
		return -1;
	/* "\tlibcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9" */
	size_t n = strlen(soname);
	char *save = NULL;
	for (char *line = child.output ? strtok_r(child.output, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		char *arrow = strstr(line, " => ");
		if (strncmp(line, soname, n) != 0 || line[n] != ' ' || !arrow)
			continue;
		*arrow = '\0';
		fn(arrow + 4, line + n + 1, ctx);
	}
	free(child.output);
	return child.exited && child.exit_code == 0 ? 0 : -1;
}

int env_write_file(const char *path, const char *text, struct cf_err *e)
{
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	int ok = io_mkdirs(dir, 0755) == 0 &&
		 io_write_file_atomic(path, text, strlen(text), 0644) == 0;
	free(dir);
	return ok ? CF_OK : cf_fail(e, CF_INSTALL, "%s: %s", path, strerror(errno));
}

int env_write_system(const struct env_files *f, const char *root, const char *prefix_sys,
		     struct cf_err *e)
{
	char *conf = xasprintf("# cuDNN installed by cuferry's unpacker\n%s/current/lib\n", prefix_sys);
	char *sh = env_sh_snippet(prefix_sys, 0);
	int rc = env_write_file(f->ldconf, conf, e);
	if (rc == CF_OK)
		rc = env_write_file(f->profile, sh, e);
	free(conf);
	free(sh);
	if (rc == CF_OK && !*root)
		rc = run_ldconfig(e);
	else if (rc == CF_OK)
		log_msg(LOG_DEBUG, "--root given: ldconfig not run (the image's first boot or ldconfig -r "
			"does that)");
	return rc;
}

int env_remove_system(const struct env_files *f, const char *root, struct cf_err *e)
{
	if ((unlink(f->ldconf) != 0 && errno != ENOENT) || (unlink(f->profile) != 0 && errno != ENOENT))
		return cf_fail(e, CF_INSTALL, "cannot remove environment files: %s", strerror(errno));
	return *root ? CF_OK : run_ldconfig(e);
}

int env_write_user(const char *prefix_sys, char *written, size_t size, struct cf_err *e)
{
	const char *home = getenv("HOME");
	if (!home || !*home)
		return cf_fail(e, CF_INSTALL, "HOME is not set: cannot write the user environment");
	char *path = xasprintf("%s/.config/cuferry/cudnn.sh", home);
	char *sh = env_sh_snippet(prefix_sys, 1);
	int rc = env_write_file(path, sh, e);
	snprintf(written, size, "%s", path);
	free(path);
	free(sh);
	return rc;
}

int env_print(const char *prefix_sys, const char *shell, struct cf_err *e)
{
	if (!shell || strcmp(shell, "sh") == 0) {
		char *sh = env_sh_snippet(prefix_sys, 1);
		log_out("%s", sh);
		free(sh);
	} else if (strcmp(shell, "ps") == 0) {
		log_out("$env:CUDNN_PATH = \"%s\\current\"\n"
			"if (Test-Path \"$env:CUDNN_PATH\\bin\") { $env:PATH = \"$env:CUDNN_PATH\\bin;\" + "
			"$env:PATH }\n", prefix_sys);
	} else if (strcmp(shell, "cmd") == 0) {
		log_out("set \"CUDNN_PATH=%s\\current\"\n"
			"if exist \"%%CUDNN_PATH%%\\bin\" set \"PATH=%%CUDNN_PATH%%\\bin;%%PATH%%\"\n", prefix_sys);
	} else {
		return cf_fail(e, CF_USAGE, "--shell must be sh, ps or cmd");
	}
	return CF_OK;
}
