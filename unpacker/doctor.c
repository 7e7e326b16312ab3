/* doctor.c - finding the cuDNN copies that a program could load instead of ours */
#include "unpacker/doctor.h"

#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/env.h"
#include "unpacker/leftovers.h"
#include "unpacker/state.h"

#define MAX_COPIES 128
#define MAX_DIRS 256

struct copy {
	char real[PATH_MAX];  /* the file behind the links */
	char seen[PATH_MAX];  /* the libcudnn.so.<major> name where it was found */
	char where[64];       /* LD_LIBRARY_PATH, ld cache, CUDA toolkit, … */
	char version[64];
};

struct survey {
	const char *root;
	struct copy copies[MAX_COPIES];
	size_t ncopies;
	char cache_dirs[MAX_DIRS][PATH_MAX]; /* directories in ld cache order */
	size_t ncache;
	char cache_hit[PATH_MAX];            /* what ldconfig -p names for the soname */
	int major;
};

/* Version from the file name (libcudnn.so.9.14.0) or from ../include/cudnn_version.h. */
static void copy_version(const char *real, char *out, size_t size)
{
	const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	const char *v = strstr(base, ".so.");
	if (v && strchr(v + 4, '.')) {
		snprintf(out, size, "%s", v + 4);
		return;
	}
	char *dir = xstrdup(real), *text;
	*strrchr(dir, '/') = '\0';
	char *hdr = xasprintf("%s/../include/cudnn_version.h", dir);
	snprintf(out, size, "unknown");
	if (io_read_file(hdr, 1 << 20, &text, NULL) == 0) {
		const char *keys[] = { "#define CUDNN_MAJOR ", "#define CUDNN_MINOR ",
				       "#define CUDNN_PATCHLEVEL " };
		long n[3] = { -1, -1, -1 };
		for (int i = 0; i < 3; i++) {
			const char *p = strstr(text, keys[i]);
			if (p)
				n[i] = strtol(p + strlen(keys[i]), NULL, 10);
		}
		if (n[0] >= 0 && n[1] >= 0 && n[2] >= 0)
			snprintf(out, size, "%ld.%ld.%ld", n[0], n[1], n[2]);
		free(text);
	}
	free(hdr);
	free(dir);
}

static void add_copy(struct survey *s, const char *dir, const char *where)
{
	char *path = xasprintf("%s%s/libcudnn.so.%d", s->root, dir, s->major), real[PATH_MAX];
	if (realpath(path, real)) {
		int dup = 0;
		for (size_t i = 0; i < s->ncopies; i++)
			dup |= strcmp(s->copies[i].real, real) == 0;
		if (!dup && s->ncopies < MAX_COPIES) {
			struct copy *c = &s->copies[s->ncopies++];
			snprintf(c->real, sizeof(c->real), "%s", real);
			snprintf(c->seen, sizeof(c->seen), "%s", path);
			snprintf(c->where, sizeof(c->where), "%s", where);
			copy_version(real, c->version, sizeof(c->version));
		}
	}
	free(path);
}

static void add_glob(struct survey *s, const char *pattern, const char *where)
{
	glob_t g;
	char *full = xasprintf("%s%s", s->root, pattern);
	if (glob(full, GLOB_NOSORT, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			add_copy(s, g.gl_pathv[i] + strlen(s->root), where);
		globfree(&g);
	}
	free(full);
}

static void add_path_list(struct survey *s, const char *list, const char *where, int parent_libs)
{
	if (!list)
		return;
	char *copy = xstrdup(list), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (!parent_libs) {
			add_copy(s, d, where);
			continue;
		}
		char *lib = xasprintf("%s/../lib", d), *lib64 = xasprintf("%s/../lib64", d);
		add_copy(s, lib, where);
		add_copy(s, lib64, where);
		free(lib);
		free(lib64);
	}
	free(copy);
}

static void cache_copy(const char *path, const char *flags, void *ctx)
{
	struct survey *s = ctx;
	(void)flags;
	if (!s->cache_hit[0])
		snprintf(s->cache_hit, sizeof(s->cache_hit), "%s", path);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	add_copy(s, dir, "ld cache");
	free(dir);
}

static void conf_copy(const char *dir, void *ctx)
{
	struct survey *s = ctx;
	add_copy(s, dir, "ld cache");
	char *file = xasprintf("%s%s/libcudnn.so.%d", s->root, dir, s->major), real[PATH_MAX];
	if (!s->cache_hit[0] && realpath(file, real))
		snprintf(s->cache_hit, sizeof(s->cache_hit), "%s", file);
	free(file);
}

/* The ld cache as the loader sees it: `ldconfig -p` on the real system, the conf files under
 * --root otherwise. */
static void read_ld_cache(struct survey *s)
{
	if (!*s->root) {
		char soname[32];
		snprintf(soname, sizeof(soname), "libcudnn.so.%d", s->major);
		env_ld_cache_find(soname, cache_copy, s);
		return;
	}
	env_ld_conf_dirs(s->root, conf_copy, s);
}

static const char *const default_dirs[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64",
					    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    NULL };

/* The loader's order for a program without RPATH: LD_LIBRARY_PATH, the cache, default dirs. */
static int resolve_winner(struct survey *s, char *out, size_t size)
{
	const char *llp = getenv("LD_LIBRARY_PATH");
	char real[PATH_MAX];
	if (llp && *llp) {
		char *copy = xstrdup(llp), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *f = xasprintf("%s%s/libcudnn.so.%d", s->root, d, s->major);
			int hit = realpath(f, real) != NULL;
			free(f);
			if (hit) {
				snprintf(out, size, "%s", real);
				free(copy);
				return 1;
			}
		}
		free(copy);
	}
	if (s->cache_hit[0] && realpath(s->cache_hit, real)) {
		snprintf(out, size, "%s", real);
		return 1;
	}
	for (size_t i = 0; default_dirs[i]; i++) {
		char *f = xasprintf("%s%s/libcudnn.so.%d", s->root, default_dirs[i], s->major);
		int hit = realpath(f, real) != NULL;
		free(f);
		if (hit) {
			snprintf(out, size, "%s", real);
			return 1;
		}
	}
	return 0;
}

static void survey_all(struct survey *s, const char *prefix_sys)
{
	const char *home = getenv("HOME");
	read_ld_cache(s);
	add_path_list(s, getenv("LD_LIBRARY_PATH"), "LD_LIBRARY_PATH", 0);
	add_path_list(s, getenv("PATH"), "PATH (../lib)", 1);
	add_glob(s, "/usr/local/cuda*/lib64", "CUDA toolkit");
	add_glob(s, "/usr/local/cuda*/lib", "CUDA toolkit");
	add_glob(s, "/usr/local/cuda*/targets/*/lib", "CUDA toolkit");
	add_glob(s, "/opt/cuda*/lib64", "CUDA toolkit");
	for (size_t i = 0; default_dirs[i]; i++)
		add_copy(s, default_dirs[i], "system library directory");
	char *mine = xasprintf("%s/*/lib", prefix_sys);
	add_glob(s, mine, "cuferry prefix");
	free(mine);
	add_glob(s, "/opt/cudnn*/lib*", "other prefix");
	add_glob(s, "/usr/lib/python3*/*-packages/nvidia/cudnn/lib", "Python wheel");
	add_glob(s, "/usr/local/lib/python3*/*-packages/nvidia/cudnn/lib", "Python wheel");
	add_glob(s, "/opt/*/.venv/lib/python3*/site-packages/nvidia/cudnn/lib", "Python wheel");
	if (home && !*s->root) {
		char *user = xasprintf("%s/.local/lib/python3*/site-packages/nvidia/cudnn/lib", home);
		add_glob(s, user, "Python wheel (user)");
		free(user);
	}
}

/* The major of the current install (state.json), or 9 when nothing is installed. */
static int current_major(const char *root, const char *prefix_sys)
{
	struct state st;
	struct cf_err ignored = { 0 };
	char *path = xasprintf("%s%s/.cuferry/state.json", root, prefix_sys);
	int major = 9;
	if (state_load(path, &st, &ignored) == CF_OK) {
		const struct state_bundle *b = st.current ? state_find(&st, st.current) : NULL;
		if (b && b->version && atoi(b->version) > 0)
			major = atoi(b->version);
		state_free(&st);
	}
	free(path);
	return major;
}

int doctor_run(const struct install_options *o, struct cf_err *e)
{
	struct survey *s = xcalloc(1, sizeof(*s));
	char *prefix_sys = install_default_prefix(o), ours[PATH_MAX] = "", winner[PATH_MAX] = "";
	s->root = o->root;
	s->major = current_major(o->root, prefix_sys);
	char *current = xasprintf("%s%s/current/lib/libcudnn.so.%d", o->root, prefix_sys, s->major);
	int installed = realpath(current, ours) != NULL;
	survey_all(s, prefix_sys);
	log_out("cuDNN copies that provide libcudnn.so.%d on this machine:\n", s->major);
	if (s->ncopies == 0)
		log_out("  (none)\n");
	int found_winner = resolve_winner(s, winner, sizeof(winner));
	for (size_t i = 0; i < s->ncopies; i++) {
		const struct copy *c = &s->copies[i];
		int wins = found_winner && strcmp(c->real, winner) == 0;
		log_out("  %s %-10s %-26s %s\n", wins ? "=>" : "  ", c->version, c->where, c->real);
	}
	int rc = CF_OK;
	if (!found_winner)
		log_out("a program loading libcudnn.so.%d finds no copy\n", s->major);
	else
		log_out("a program loading libcudnn.so.%d gets %s\n", s->major, winner);
	if (!installed) {
		log_out("nothing is installed as current in %s%s\n", o->root, prefix_sys);
	} else if (found_winner && strcmp(winner, ours) != 0) {
		rc = cf_fail(e, CF_VALIDATION, "the installed cuDNN (%s) is shadowed by %s: remove that "
			     "copy, or take its directory out of LD_LIBRARY_PATH or the ld cache "
			     "(/etc/ld.so.conf.d), then run ldconfig", ours, winner);
	} else if (found_winner) {
		log_out("the installed copy wins: nothing shadows it\n");
	} else {
		rc = cf_fail(e, CF_VALIDATION, "the installed cuDNN is not on the loader's path: run "
			     "ldconfig, or use the environment from 'unpacker env'");
	}
	leftovers_report(o->root, prefix_sys);
	free(current);
	free(prefix_sys);
	free(s);
	return rc;
}
