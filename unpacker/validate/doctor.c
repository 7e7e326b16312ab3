/* doctor.c - finding the product's copies that a program could load instead of ours: where each
 * came from, what puts it on the loader's search path, which one wins, and how to remove it.
 * Versions come from file names, headers and conda's metadata; a copy none of them names is
 * asked of the unprivileged probe child on the host, never loaded here. Under --root every file read
 * (ld.so.conf, environment, profile.d, dpkg's lists) is the image's, links resolved inside it. */
#include "unpacker/validate/doctor.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/environment/env.h"
#include "unpacker/target/layout.h"
#include "common/rootpath.h"
#include "unpacker/target/leftovers.h"
#include "manifests/product.h"
#include "unpacker/validate/libname.h"
#include "unpacker/validate/step_gpu.h"
#include "unpacker/validate/proberun.h"
#include "unpacker/validate/windoctor.h"
#include "unpacker/target/state.h"

#define MAX_COPIES 128
#define MAX_ENTRIES 512
#define MAX_OWNED 256
#define VERSION_PROBE_TIMEOUT 60 /* seconds; CUFERRY_VALIDATE_TIMEOUT overrides it */

/* Where a program looks, in the loader's order: LD_LIBRARY_PATH, the ld cache, then the
 * default directories. Login shells get the LD_LIBRARY_PATH of /etc/environment and profile.d. */
enum context { CTX_SHELL, CTX_LOGIN, CTX_CACHE, CTX_DEFAULT, CTX_NONE };

struct entry {
	char dir[PATH_MAX];
	char via[PATH_MAX + 64]; /* the file (or variable) that puts dir on the search path */
	enum context ctx;
};

struct copy {
	char real[PATH_MAX];    /* the file behind the links, as the system sees it */
	char version[64];
	char version_how[640]; /* how version was read when no name, header or metadata says */
	char *origin;           /* deb package X, pip wheel X, conda environment X, … */
	char *fix;              /* the one command that removes it */
	char origin_word[256];  /* a name from metadata that fix holds (a pip wheel's) */
	char vias[2048];        /* every file that puts it on the search path */
	int ours;
};

struct owned {
	char real[PATH_MAX];
	char package[128];
};

struct survey {
	const struct product *product; /* whose copies: the layout's */
	const char *root;
	const char *prefix_sys;
	char soname[32];               /* the current major's library, as programs load it by name */
	struct entry entries[MAX_ENTRIES];
	size_t nentries;
	struct copy copies[MAX_COPIES];
	size_t ncopies;
	struct owned owned[MAX_OWNED]; /* the product's library files that dpkg's lists name */
	size_t nowned;
	char cache_hit[PATH_MAX];      /* `ldconfig -p`'s first copy (no --root) */
};

static const char *const default_dirs[] = { "/lib", "/usr/lib", "/lib64", "/usr/lib64",
					    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    NULL };

/* ---- versions: read without loading anything, else asked of the probe child ---- */

static int version_from_header(const struct product *prod, const char *file, char *out, size_t size)
{
	char *text;
	if (io_read_file(file, 1 << 20, &text, NULL) != 0)
		return 0;
	const struct product_version_source *src = &prod->version;
	const char *macros[] = { src->major, src->minor, src->patch };
	long n[3] = { -1, -1, -1 };
	for (int i = 0; i < 3; i++) {
		char *key = xasprintf("#define %s ", macros[i]);
		const char *p = strstr(text, key);
		if (p)
			n[i] = strtol(p + strlen(key), NULL, 10);
		free(key);
	}
	free(text);
	if (n[0] < 0 || n[1] < 0 || n[2] < 0)
		return 0;
	snprintf(out, size, "%ld.%ld.%ld", n[0], n[1], n[2]);
	return 1;
}

/* The file name (libnccl.so.2.28.9), else the product's version header in ../include
 * beside it. */
static void copy_version(const struct survey *s, struct copy *c)
{
	const char *base = strrchr(c->real, '/') + 1, *v = strstr(base, ".so.");
	if (v && strchr(v + 4, '.')) {
		snprintf(c->version, sizeof(c->version), "%s", v + 4);
		return;
	}
	char *hdr = xasprintf("%s%.*s/../include/%s", s->root, (int)(base - 1 - c->real),
			      c->real, s->product->version.headers[0]);
	if (!version_from_header(s->product, hdr, c->version, sizeof(c->version)))
		snprintf(c->version, sizeof(c->version), "unknown");
	free(hdr);
}

/* 1 when a user other than root could have put or changed real (links resolved): the file is
 * not root's or is writable by others, or a directory above it is not root's or is writable
 * by others (/home/NAME/.local/...). Such a file is never loaded for root, not even by the
 * unprivileged probe: it is still a user's code started by root. why names the reason. */
static int users_file(const char *real, char *why, size_t size)
{
	char *path = xstrdup(real);
	int theirs = 0;
	for (int file = 1; !theirs && path[0]; file = 0) {
		struct platform_stat st;
		const char *what = file ? "it" : path;
		if (platform_lstat(path, &st) != 0)
			theirs = snprintf(why, size, "%s cannot be examined", what) > 0;
		else if (st.owner != 0 && file)
			theirs = snprintf(why, size, "owned by uid %lu", st.owner) > 0;
		else if (st.owner != 0)
			theirs = snprintf(why, size, "%s is owned by uid %lu", path, st.owner) > 0;
		else if (st.type != PLATFORM_TYPE_LINK && (st.mode & 0022)) /* a link's mode is no one's */
			theirs = snprintf(why, size, "%s is writable by users other than root", what) > 0;
		char *up = strrchr(path, '/'); /* up to the parent; "" after the top directory */
		*(up ? up : path) = '\0';      /* (or after a relative --root's first name) */
	}
	free(path);
	return theirs;
}

/* users_file for a path as the system sees it (inside --root when one is given): a fix that
 * would run a program from such a tree (its python, pip, a conda environment's scripts) is
 * given as advice, never as a command for root (issue 23 A4). */
static int users_copy(const struct survey *s, const char *path, char *why, size_t size)
{
	char *full = xasprintf("%s%s", s->root, path), inside[PATH_MAX];
	struct platform_stat st;
	int theirs = users_file(full, why, size);
	/* A link (a venv's bin/python3) runs what it points at: that file and its directories
	 * pass the same rule, resolved as the image resolves it. */
	if (!theirs && platform_lstat(full, &st) == 0 && st.type == PLATFORM_TYPE_LINK) {
		char *target = NULL;
		if (rootpath_resolve(s->root, path, inside, sizeof(inside)) != 0)
			theirs = snprintf(why, size, "%s points at nothing", path) > 0;
		else
			theirs = users_file(target = xasprintf("%s%s", s->root, inside), why, size);
		free(target);
	}
	free(full);
	return theirs;
}

/* A copy that no name, header or metadata dates: its version call, asked of the probe child
 * (clean environment, timeout, nobody when run as root) that loads this one file by its
 * absolute path; nothing is loaded in this process. Only a product whose version call the
 * probe knows (step_gpu_reads_version). An image's libraries are never run
 * (DESIGN.md §7): under --root it stays unknown. */
static void version_by_loading(const struct survey *s, struct copy *c)
{
	if (strcmp(c->version, "unknown") != 0 || !step_gpu_reads_version(s->product))
		return;
	if (*s->root) {
		snprintf(c->version_how, sizeof(c->version_how), "unknown (not loaded: inside --root)");
		return;
	}
	char *args[] = { "version", c->real, NULL }, why[512];
	if (users_file(c->real, why, sizeof(why))) {
		snprintf(c->version_how, sizeof(c->version_how), "version unknown (not loaded: %s)", why);
		return;
	}
	json_t *lines;
	if (probe_run(NULL, probe_timeout(VERSION_PROBE_TIMEOUT), args, &lines, why, sizeof(why)) != 0) {
		snprintf(c->version_how, sizeof(c->version_how), "unknown (the unprivileged probe: %s)", why);
	} else {
		json_t *o = json_array_get(lines, 0);
		const char *got = json_string_value(json_object_get(o, "version"));
		const char *call = json_string_value(json_object_get(o, "version_call"));
		if (strcmp(json_string_value(json_object_get(o, "status")), "pass") == 0 && got) {
			snprintf(c->version, sizeof(c->version), "%s", got);
			snprintf(c->version_how, sizeof(c->version_how), "%s, read by loading it unprivileged "
				 "(a probe child as uid %lld: %s)", got,
				 (long long)json_integer_value(json_object_get(o, "probe_uid")),
				 call ? call : "?");
		} else
			snprintf(c->version_how, sizeof(c->version_how), "unknown (the unprivileged probe "
				 "could not load it: %s)", json_string_value(json_object_get(o, "detail")));
	}
	json_decref(lines);
}

/* ---- the copies ---- */

static void set_text(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_text(char **field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	text[0] = '\0';
	va_start(ap, fmt);
	if (n >= 0)
		vsnprintf(text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	free(*field);
	*field = text;
}

static void append(char *buf, size_t size, const char *sep, const char *text)
{
	if (strstr(buf, text))
		return;
	size_t used = strlen(buf);
	snprintf(buf + used, size - used, "%s%s", used ? sep : "", text);
}

/* The copy DIR/<main library>.so.<major> resolves to, recorded once; NULL when there is none. */
static struct copy *add_copy(struct survey *s, const char *dir, const char *via)
{
	char *path = xasprintf("%s/%s", dir, s->soname), real[PATH_MAX];
	int found = rootpath_resolve(s->root, path, real, sizeof(real)) == 0;
	free(path);
	if (!found)
		return NULL;
	struct copy *c = NULL;
	for (size_t i = 0; i < s->ncopies && !c; i++)
		if (strcmp(s->copies[i].real, real) == 0)
			c = &s->copies[i];
	if (!c && s->ncopies < MAX_COPIES) {
		c = &s->copies[s->ncopies++];
		snprintf(c->real, sizeof(c->real), "%s", real);
	}
	if (c && via)
		append(c->vias, sizeof(c->vias), "; ", via);
	return c;
}

static void add_entry(struct survey *s, const char *dir, enum context ctx, const char *via)
{
	if (s->nentries >= MAX_ENTRIES)
		return;
	struct entry *e = &s->entries[s->nentries++];
	snprintf(e->dir, sizeof(e->dir), "%s", dir);
	snprintf(e->via, sizeof(e->via), "%s", via);
	e->ctx = ctx;
}

static void conf_entry(const char *dir, const char *conf, void *ctx)
{
	struct survey *s = ctx;
	char *shown = xasprintf("%s%s (ld cache)", s->root, conf);
	add_entry(s, dir, CTX_CACHE, shown);
	free(shown);
}

/* A colon list: every element that is an absolute directory. Shell text is cut at the first
 * '$' of an element ("/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"): what an
 * expansion adds is not known without running the script, and is not run. */
static void add_path_list(struct survey *s, const char *list, enum context ctx, const char *via)
{
	char *copy = xstrdup(list), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		d[strcspn(d, "$")] = '\0';
		d += strspn(d, "\"' \t");
		d[strcspn(d, "\"' \t;")] = '\0';
		if (d[0] == '/')
			add_entry(s, d, ctx, via);
	}
	free(copy);
}

/* LD_LIBRARY_PATH=… or export LD_LIBRARY_PATH=… lines of /etc/environment (pam_env's
 * KEY=VALUE) and of profile.d scripts (which are read, never run). */
static void login_file(struct survey *s, const char *file_sys)
{
	char real[PATH_MAX], *text, *save = NULL;
	if (rootpath_resolve(s->root, file_sys, real, sizeof(real)) != 0)
		return;
	char *path = xasprintf("%s%s", s->root, real);
	if (io_read_file(path, 1 << 20, &text, NULL) != 0) {
		free(path);
		return;
	}
	free(path);
	path = xasprintf("%s%s", s->root, file_sys); /* named as the system names it */
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l += strspn(l, " \t");
		if (strncmp(l, "export ", 7) == 0)
			l += 7 + strspn(l + 7, " \t");
		if (strncmp(l, "LD_LIBRARY_PATH=", 16) == 0) {
			char *via = xasprintf("LD_LIBRARY_PATH in %s", path);
			add_path_list(s, l + 16, CTX_LOGIN, via);
			free(via);
		}
	}
	free(text);
	free(path);
}

static void login_match(const char *path, void *ctx)
{
	struct survey *s = ctx;
	login_file(s, path + strlen(s->root));
}

static void read_login_environment(struct survey *s)
{
	login_file(s, "/etc/environment");
	char *pattern = xasprintf("%s" LAYOUT_PROFILE_DIR "/*.sh", s->root);
	platform_glob(pattern, 1, login_match, s);
	free(pattern);
}

static void cache_copy(const char *path, const char *flags, void *ctx)
{
	struct survey *s = ctx;
	(void)flags;
	if (!s->cache_hit[0])
		snprintf(s->cache_hit, sizeof(s->cache_hit), "%s", path);
}

static void copy_match(const char *path, void *ctx)
{
	struct survey *s = ctx;
	add_copy(s, path + strlen(s->root), NULL);
}

static void add_glob(struct survey *s, const char *pattern)
{
	char *full = xasprintf("%s%s", s->root, pattern);
	platform_glob(full, 0, copy_match, s);
	free(full);
}

/* The first match in byte order, into a PATH_MAX buffer that starts empty. */
static void first_match(const char *path, void *ctx)
{
	char *first = ctx;
	if (!first[0])
		snprintf(first, PATH_MAX, "%s", path);
}

/* Every place a copy is known to live, on a search path or not. */
static void survey_all(struct survey *s)
{
	/* Under --root the caller's environment is this host's, not the image's: the image's own
	 * /etc/environment and profile.d stand for its shells. */
	const char *llp = *s->root ? NULL : getenv("LD_LIBRARY_PATH");
	const char *path = *s->root ? NULL : getenv("PATH");
	if (llp)
		add_path_list(s, llp, CTX_SHELL, "LD_LIBRARY_PATH of this shell");
	read_login_environment(s);
	platform_lib_config_dirs(s->root, conf_entry, s);
	for (size_t i = 0; default_dirs[i]; i++)
		add_entry(s, default_dirs[i], CTX_DEFAULT, "a default library directory");
	if (!*s->root)
		platform_lib_cache_find(s->soname, cache_copy, s);
	for (size_t i = 0; i < s->nentries; i++)
		add_copy(s, s->entries[i].dir, s->entries[i].via);
	if (s->cache_hit[0]) { /* in the cache, though no file read here names its directory */
		char *dir = xstrdup(s->cache_hit);
		*strrchr(dir, '/') = '\0';
		struct copy *c = add_copy(s, dir, NULL);
		if (c && !c->vias[0])
			append(c->vias, sizeof(c->vias), "; ", "the ld cache");
		free(dir);
	}
	if (path) { /* a bin/ on PATH usually has its libraries in ../lib */
		char *copy = xstrdup(path), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *lib = xasprintf("%s/../lib", d), *lib64 = xasprintf("%s/../lib64", d);
			add_copy(s, lib, NULL);
			add_copy(s, lib64, NULL);
			free(lib);
			free(lib64);
		}
		free(copy);
	}
	/* WHEEL: a site-packages directory, the wheel's tree below it; STEM: /opt/ with the
	 * product's prefix stem after it (/opt/nccl*). */
	enum { AS_IS, WHEEL, STEM };
	static const struct { const char *glob; int kind; } places[] = {
		{ "/usr/local/cuda*/lib64", AS_IS }, { "/usr/local/cuda*/lib", AS_IS },
		{ "/usr/local/cuda*/targets/*/lib", AS_IS },
		{ "/opt/cuda*/lib64", AS_IS }, { "/opt/cuda*/targets/*/lib", AS_IS }, { "/opt/", STEM },
		{ "/opt/*/*/lib", AS_IS },
		{ "/usr/lib/python3*/*-packages", WHEEL },
		{ "/usr/local/lib/python3*/*-packages", WHEEL },
		{ "/opt/*/lib/python3*/site-packages", WHEEL },
		{ "/opt/*/.venv/lib/python3*/site-packages", WHEEL },
		{ "/home/*/.local/lib/python3*/site-packages", WHEEL },
		{ "/root/.local/lib/python3*/site-packages", WHEEL },
		{ "/opt/*conda*/lib", AS_IS }, { "/opt/*conda*/envs/*/lib", AS_IS },
		{ "/opt/*conda*/envs/*/lib/python3*/site-packages", WHEEL },
		{ "/home/*/*conda*/lib", AS_IS }, { "/home/*/*conda*/envs/*/lib", AS_IS },
		{ "/root/*conda*/lib", AS_IS }, { "/root/*conda*/envs/*/lib", AS_IS }, { NULL, AS_IS }
	};
	const struct product *p = s->product;
	for (size_t i = 0; places[i].glob; i++) {
		char *glob = places[i].kind == WHEEL ? xasprintf("%s/%s/lib", places[i].glob, p->wheel_dir)
			   : places[i].kind == STEM ? xasprintf("%s%s*/lib*", places[i].glob, p->prefix_stem)
			   : xstrdup(places[i].glob);
		add_glob(s, glob);
		free(glob);
	}
	char *mine = xasprintf("%s/*/lib", s->prefix_sys);
	add_glob(s, mine);
	free(mine);
	const char *home = getenv("HOME");
	if (home && !*s->root) {
		char *user = xasprintf("%s/.local/lib/python3*/site-packages/%s/lib", home, p->wheel_dir);
		add_glob(s, user);
		free(user);
	}
}

/* ---- where each copy came from, and the command that removes it ---- */

/* dpkg's file lists: every file of the product's libraries (lib_stem*) a package owns, with the package's name. */
static void read_dpkg_list(const char *list, void *ctx)
{
	struct survey *s = ctx;
	char *text, *save = NULL;
	if (io_read_file(list, 16 << 20, &text, NULL) != 0)
		return;
	/* Most lists name no such file: one scan of the whole text says so, before any line is
	 * cut (a host has some 200,000 lines in them; inventory must stay fast). */
	if (!strstr(text, s->product->lib_stem)) {
		free(text);
		return;
	}
	const char *base = strrchr(list, '/') + 1;
	size_t n = strcspn(base, ":"); /* libnccl2:amd64.list */
	if (n > strlen(base) - 5)
		n = strlen(base) - 5;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *slash = strrchr(l, '/');
		struct owned *o = &s->owned[s->nowned];
		const char *stem = s->product->lib_stem;
		if (!slash || strncmp(slash + 1, stem, strlen(stem)) != 0 || s->nowned >= MAX_OWNED ||
		    rootpath_resolve(s->root, l, o->real, sizeof(o->real)) != 0)
			continue;
		snprintf(o->package, sizeof(o->package), "%.*s", (int)n, base);
		s->nowned++;
	}
	free(text);
}

static void read_dpkg_lists(struct survey *s)
{
	char *pattern = xasprintf("%s/var/lib/dpkg/info/*.list", s->root);
	platform_glob(pattern, 1, read_dpkg_list, s);
	free(pattern);
}

/* "chroot ROOT " in front of a package manager's command under --root. */
static const char *in_root(const struct survey *s, char *buf, size_t size)
{
	if (*s->root)
		snprintf(buf, size, "chroot %s ", s->root);
	else
		buf[0] = '\0';
	return buf;
}

/* A wheel's dist name as pip spells it: '-' for every '_'. */
static void pip_name(char *name)
{
	for (char *p = name; *p; p++)
		*p = *p == '_' ? '-' : *p;
}

static int classify_pip(const struct survey *s, struct copy *c, const char *pre)
{
	const struct product *prod = s->product;
	char *tail = xasprintf("-packages/%s/lib/", prod->wheel_dir);
	const char *mark = strstr(c->real, tail);
	free(tail);
	if (!mark)
		return 0;
	char *site = xasprintf("%.*s-packages", (int)(mark - c->real), c->real), name[128],
	     wheel_version[64] = "";
	snprintf(name, sizeof(name), "%s", prod->wheel_dist);
	pip_name(name);
	char *pattern = xasprintf("%s%s/%s*.dist-info", s->root, site, prod->wheel_dist), info[PATH_MAX] = "";
	if (platform_glob(pattern, 1, first_match, info) > 0) {
		const char *base = strrchr(info, '/') + 1, *dash = strchr(base, '-');
		if (dash) {
			snprintf(name, sizeof(name), "%.*s", (int)(dash - base), base);
			pip_name(name);
			snprintf(wheel_version, sizeof(wheel_version), "%.*s",
				 (int)(strlen(dash + 1) - strlen(".dist-info")), dash + 1);
		}
	}
	/* ENV/lib/python3.X/site-packages: that environment's own python runs its pip. */
	const char *lib = strstr(site, "/lib/python");
	char python[PATH_MAX] = "python3";
	if (lib) {
		char *py = xasprintf("%.*s/bin/python3", (int)(lib - site), site), real[PATH_MAX];
		if (rootpath_resolve(s->root, py, real, sizeof(real)) == 0)
			snprintf(python, sizeof(python), "%s", py);
		free(py);
	}
	set_text(&c->origin, "pip wheel %s%s%s in %s", name, *wheel_version ? " " : "",
		 wheel_version, site);
	snprintf(c->origin_word, sizeof(c->origin_word), "%s", name);
	char why[512];
	if (users_copy(s, c->real, why, sizeof(why)) ||
	    (strcmp(python, "python3") != 0 && users_copy(s, python, why, sizeof(why))))
		set_text(&c->fix, "not shown as a command: a user's copy (%s), whose own python or pip "
			 "would run as root: ask its owner to run python3 -m pip uninstall %s, or remove "
			 "%s/%s", why, name, site, s->product->wheel_dir);
	else
		set_text(&c->fix, "%s%s -m pip uninstall %s   (only Python programs that import "
			 "it load it, by path; a package that depends on it, such as torch, needs it "
			 "back)", pre, python, name);
	free(pattern);
	free(site);
	return 1;
}

/* ENV/lib/<main library> with ENV/conda-meta/<conda_name>-<version>-<build>.json. */
static int classify_conda(const struct survey *s, struct copy *c, const char *pre)
{
	char *env = xstrdup(c->real);
	*strrchr(env, '/') = '\0';
	char *lib = strrchr(env, '/');
	int found = 0;
	if (lib && strcmp(lib, "/lib") == 0) {
		*lib = '\0';
		const char *pkg = s->product->conda_name;
		char *pattern = xasprintf("%s%s/conda-meta/%s-[0-9]*.json", s->root, env, pkg),
		     meta[PATH_MAX] = "";
		if (platform_glob(pattern, 1, first_match, meta) > 0) {
			const char *base = strrchr(env, '/');
			int named = base && base - env >= 5 && strncmp(base - 5, "/envs/", 6) == 0;
			set_text(&c->origin, "conda package %s in the %s environment (%s)", pkg,
				 named ? base + 1 : "base", env);
			char why[512];
			if (users_copy(s, env, why, sizeof(why)))
				set_text(&c->fix, "not shown as a command: a user's environment (%s), "
					 "whose own scripts conda would run as root: ask its owner to "
					 "run conda remove -p %s %s", why, env, pkg);
			else
				set_text(&c->fix, "%sconda remove -p %s %s", pre, env, pkg);
			if (strcmp(c->version, "unknown") == 0) {
				const char *v = strrchr(meta, '/') + 1 + strlen(pkg) + 1; /* past "/PKG-" */
				snprintf(c->version, sizeof(c->version), "%.*s", (int)strcspn(v, "-"), v);
			}
			found = 1;
		}
		free(pattern);
	}
	free(env);
	return found;
}

/* A cuferry install, in this prefix or another (PREFIX/NAME/lib with PREFIX/.cuferry). */
static int classify_cuferry(const struct survey *s, struct copy *c)
{
	char *prefix = xstrdup(c->real);
	for (int i = 0; i < 3 && strrchr(prefix, '/'); i++)
		*strrchr(prefix, '/') = '\0';
	char *meta = layout_state_of(s->root, prefix);
	int found = io_exists(meta);
	if (found) {
		const char *name = c->real + strlen(prefix) + 1;
		int len = (int)strcspn(name, "/");
		int same = strcmp(prefix, s->prefix_sys) == 0;
		set_text(&c->origin, "cuferry install %.*s in %s", len, name, prefix);
		set_text(&c->fix, "unpacker uninstall %.*s%s%s%s%s", len, name,
			 same ? "" : " --prefix ", same ? "" : prefix, *s->root ? " --root " : "", s->root);
	}
	free(meta);
	free(prefix);
	return found;
}

static int rpm_system(const struct survey *s)
{
	char *a = xasprintf("%s/var/lib/rpm", s->root), *b = xasprintf("%s/usr/lib/sysimage/rpm", s->root);
	int found = io_is_dir(a) || io_is_dir(b);
	free(a);
	free(b);
	return found;
}

static void classify(const struct survey *s, struct copy *c)
{
	char pre[PATH_MAX + 8];
	in_root(s, pre, sizeof(pre));
	copy_version(s, c);
	for (size_t i = 0; i < s->nowned; i++)
		if (strcmp(s->owned[i].real, c->real) == 0) {
			set_text(&c->origin, "deb package %s", s->owned[i].package);
			set_text(&c->fix, "%sapt-get remove %s", pre, s->owned[i].package);
			return;
		}
	if (classify_pip(s, c, pre) || classify_conda(s, c, pre) || classify_cuferry(s, c))
		return;
	char *dir = xstrdup(c->real);
	*strrchr(dir, '/') = '\0';
	if (strncmp(dir, "/usr/local/cuda", 15) == 0 || strncmp(dir, "/opt/cuda", 9) == 0) {
		set_text(&c->origin, "copied into a CUDA toolkit directory (no package "
			 "owns it)");
		char *top = xstrdup(dir);
		*strrchr(top, '/') = '\0';
		set_text(&c->fix, "rm %s%s/%s*   (copied there by hand, as NVIDIA's "
			 "guides say; remove the headers %s%s/include/%s too)", s->root, dir,
			 s->product->lib_stem, s->root, top, s->product->files.headers[0]);
		free(top);
	} else if (rpm_system(s)) {
		/* RHEL's packages of NVIDIA's libraries (libnccl-2.28.9-1+cuda13.0) put them in /usr/lib64:
		 * ask rpm, never rm. */
		set_text(&c->origin, "not in a dpkg list, pip or conda metadata; this "
			 "system keeps an RPM database");
		set_text(&c->fix, "%sdnf remove \"$(%srpm -qf %s)\"   (when no package owns "
			 "it: rm %s%s/%s*)", pre, pre, c->real, s->root, dir, s->product->lib_stem);
	} else {
		set_text(&c->origin, "unknown (no dpkg list, pip or conda metadata "
			 "names it)");
		set_text(&c->fix, "rm %s%s/%s*   (check first what uses it)",
			 s->root, dir, s->product->lib_stem);
	}
	free(dir);
}

/* ---- which copy a program gets ---- */

static struct copy *find_in(struct survey *s, const char *dir)
{
	char *path = xasprintf("%s/%s", dir, s->soname), real[PATH_MAX];
	int found = rootpath_resolve(s->root, path, real, sizeof(real)) == 0;
	free(path);
	for (size_t i = 0; found && i < s->ncopies; i++)
		if (strcmp(s->copies[i].real, real) == 0)
			return &s->copies[i];
	return NULL;
}

/* The first copy along the entries of the given contexts, in order; via names why. */
static struct copy *winner(struct survey *s, const enum context *ctxs, const char **via)
{
	for (const enum context *ctx = ctxs; *ctx != CTX_NONE; ctx++) {
		if (*ctx == CTX_CACHE && s->cache_hit[0]) { /* the real ld cache has the last word */
			char *dir = xstrdup(s->cache_hit);
			*strrchr(dir, '/') = '\0';
			struct copy *c = find_in(s, dir);
			free(dir);
			*via = "the ld cache";
			return c;
		}
		for (size_t i = 0; i < s->nentries; i++) {
			struct copy *c = s->entries[i].ctx == *ctx ? find_in(s, s->entries[i].dir) : NULL;
			if (c) {
				*via = s->entries[i].via;
				return c;
			}
		}
	}
	return NULL;
}

/* The major of the current install (state.json), or the product's soname_major when nothing
 * is installed. A major of 0 is one (cuSPARSELt 0.8: libcusparseLt.so.0). */
static int current_major(const struct layout *l)
{
	struct state st;
	struct cf_err ignored = { 0 };
	int major = l->product->soname_major ? atoi(l->product->soname_major) : 9;
	if (state_load(l->state, &st, &ignored) == CF_OK) {
		const struct state_bundle *b = st.current ? state_find(&st, st.current) : NULL;
		if (b && b->version && isdigit((unsigned char)b->version[0]))
			major = atoi(b->version);
		state_free(&st);
	}
	return major;
}

struct verdict {
	const char *who; /* programs started by the system, login shells, this shell */
	struct copy *c;
	const char *via;
	int counts;      /* whether it decides doctor's exit code */
};

/* The three views (programs the system starts, login shells, this shell) and which of them
 * count: with the system files written every program does; a user's install (or --no-env) is
 * found only through the caller's LD_LIBRARY_PATH, so only that shell's view counts. Returns
 * whether a login environment names directories. */
static int decide(struct survey *s, int system_env, struct verdict v[3])
{
	static const enum context cache[] = { CTX_CACHE, CTX_DEFAULT, CTX_NONE },
				  login[] = { CTX_LOGIN, CTX_CACHE, CTX_DEFAULT, CTX_NONE },
				  shell[] = { CTX_SHELL, CTX_CACHE, CTX_DEFAULT, CTX_NONE };
	const char *llp = *s->root ? NULL : getenv("LD_LIBRARY_PATH");
	/* Without an LD_LIBRARY_PATH (none set, or under --root, where the caller's is the
	 * host's) that view is a program without the install's environment: say so, never "its
	 * LD_LIBRARY_PATH" for one that has none (the trial of issue 25). */
	const char *shell_who = llp && *llp ? "this shell (its LD_LIBRARY_PATH)"
			      : "a program without the install's environment (no LD_LIBRARY_PATH)";
	int has_login = 0;
	for (size_t i = 0; i < s->nentries; i++)
		has_login |= s->entries[i].ctx == CTX_LOGIN;
	const struct verdict views[3] = {
		{ "a program started by the system (ld cache)", NULL, NULL, system_env },
		{ "a login shell (LD_LIBRARY_PATH set in /etc/environment or profile.d)", NULL, NULL,
		  system_env && has_login },
		{ shell_who, NULL, NULL, !system_env || (llp && *llp) },
	};
	memcpy(v, views, sizeof(views));
	v[0].c = winner(s, cache, &v[0].via);
	v[1].c = winner(s, login, &v[1].via);
	v[2].c = winner(s, shell, &v[2].via);
	return has_login;
}

/* The first view that counts and gets another copy than the install, or NULL. */
static const struct verdict *shadowing(const struct verdict v[3])
{
	for (int i = 0; i < 3; i++)
		if (v[i].counts && v[i].c && !v[i].c->ours)
			return &v[i];
	return NULL;
}

/* The survey of copies under l's root for the product's main library of MAJOR, each classified and dated from
 * names, headers and metadata (nothing loaded); ours set on the install's own copy. */
/* The copies of product's library (the layout's own, or a --with product of its current
 * unit, whose files are in the same install). */
static struct survey *survey_copies(const struct layout *l, const struct product *product,
				    const char *major, char *ours, int *installed)
{
	struct survey *s = xcalloc(1, sizeof(*s));
	char *current_sys = layout_current_sys(l->prefix_sys, '/');
	s->product = product;
	s->root = l->root;
	s->prefix_sys = l->prefix_sys;
	libname_main(s->product, major, s->soname, sizeof(s->soname));
	char *current = libname_main_path(s->product, current_sys, major);
	*installed = rootpath_resolve(s->root, current, ours, PATH_MAX) == 0;
	survey_all(s);
	read_dpkg_lists(s);
	for (size_t i = 0; i < s->ncopies; i++) {
		struct copy *c = &s->copies[i];
		c->ours = *installed && strcmp(c->real, ours) == 0;
		classify(s, c);
		if (c->ours)
			set_text(&c->origin, "this install (%s)", current_sys);
	}
	free(current);
	free(current_sys);
	return s;
}

static void survey_free(struct survey *s)
{
	for (size_t i = 0; i < s->ncopies; i++) {
		free(s->copies[i].origin);
		free(s->copies[i].fix);
	}
	free(s);
}

int doctor_pick(const struct layout *l, const struct product *product, const char *major,
		int system_env, struct doctor_pick *p)
{
	char ours[PATH_MAX];
	int installed;
	struct survey *s = survey_copies(l, product, major, ours, &installed);
	struct verdict v[3];
	decide(s, system_env, v);
	const struct verdict *lost = shadowing(v), *got = lost;
	for (int i = 0; i < 3 && !got; i++)
		if (v[i].counts && v[i].c)
			got = &v[i];
	memset(p, 0, sizeof(*p));
	if (got) {
		p->found = 1;
		p->ours = !lost;
		snprintf(p->path, sizeof(p->path), "%s", got->c->real);
		snprintf(p->version, sizeof(p->version), "%s", got->c->version);
		snprintf(p->who, sizeof(p->who), "%s", got->who);
		snprintf(p->via, sizeof(p->via), "%s", got->via);
		snprintf(p->fix, sizeof(p->fix), "%s", got->c->fix && !p->ours ? got->c->fix : "");
	}
	survey_free(s);
	return installed ? 0 : -1;
}

size_t doctor_copies(const struct layout *l, struct doctor_copy **out, int *surveyed)
{
	*out = NULL;
	*surveyed = *l->root || !platform_lib_search_is_dirs();
	if (!*surveyed)
		return 0;
	char ours[PATH_MAX] = "", major[16];
	int installed;
	snprintf(major, sizeof(major), "%d", current_major(l));
	struct survey *s = survey_copies(l, l->product, major, ours, &installed);
	struct verdict v[3];
	decide(s, env_system_present(l), v);
	struct doctor_copy *copies = xcalloc(s->ncopies + 1, sizeof(*copies));
	for (size_t i = 0; i < s->ncopies; i++) {
		const struct copy *c = &s->copies[i];
		struct doctor_copy *d = &copies[i];
		snprintf(d->path, sizeof(d->path), "%s", c->real);
		snprintf(d->version, sizeof(d->version), "%s", c->version);
		snprintf(d->origin, sizeof(d->origin), "%s", c->origin ? c->origin : "");
		snprintf(d->vias, sizeof(d->vias), "%s", c->vias);
		d->ours = c->ours;
		for (int k = 0; k < 3; k++)
			d->wins |= v[k].counts && v[k].c == c;
		d->shadows = installed && d->wins && !c->ours;
	}
	size_t n = s->ncopies;
	survey_free(s);
	*out = copies;
	return n;
}

/* Whether a path or name can stand in a command printed for root to paste: nothing a shell
 * would read as more than a word (a user names the directories doctor finds under /home). */
static int shell_plain(const char *t)
{
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
		      strchr("/._+-@%=:,", *t)))
			return 0;
	return 1;
}

static void print_copies(const struct survey *s, const struct copy *main_winner)
{
	if (*s->root)
		log_out("%s copies that provide %s in the image at %s (its own loader "
			"configuration, environment and package lists read, not this host's):\n",
			s->product->display, s->soname, s->root);
	else
		log_out("%s copies that provide %s on this machine:\n", s->product->display,
			s->soname);
	if (s->ncopies == 0)
		log_out("  (none)\n");
	for (size_t i = 0; i < s->ncopies; i++) {
		const struct copy *c = &s->copies[i];
		char real[PATH_MAX * 4], origin[PATH_MAX * 4], version[256];
		/* The version may come from a name a user chose (conda-meta/cudnn-VER-*.json). */
		log_out("  %s %-10s %s%s\n", c == main_winner ? "=>" : "  ",
			log_escape(c->version, version, sizeof(version)), s->root,
			log_escape(c->real, real, sizeof(real)));
		log_out("                from: %s\n", log_escape(c->origin ? c->origin : "", origin,
								   sizeof(origin)));
		if (c->version_how[0])
			log_out("                version: %s\n",
				log_escape(c->version_how, origin, sizeof(origin)));
		log_out("                on the search path through: %s\n",
			c->vias[0] ? c->vias : "nothing (a program that loads it by name does not find it)");
		if (!c->ours && c->fix && (!shell_plain(c->real) || !shell_plain(c->origin_word)))
			log_out("                fix: not shown: its path or name holds characters a "
				"shell would read as more than a name; remove it by hand\n");
		else if (!c->ours && c->fix)
			log_out("                fix: %s\n", c->fix);
	}
}

int doctor_run(const struct install_options *o, struct cf_err *e)
{
	/* Where DLLs are found as files along System32 and PATH (Windows): no ld cache, no
	 * LD_LIBRARY_PATH, no package lists; that survey is its own. */
	if (!*o->root && platform_lib_search_is_dirs())
		return windoctor_run(o, e);
	struct layout l;
	layout_init(&l, o->root, o->prefix, o->product);
	char ours[PATH_MAX] = "", major[16];
	snprintf(major, sizeof(major), "%d", current_major(&l));
	int installed, system_env = env_system_present(&l);
	struct survey *s = survey_copies(&l, l.product, major, ours, &installed);
	for (size_t i = 0; i < s->ncopies; i++)
		version_by_loading(s, &s->copies[i]);
	struct verdict v[3];
	int has_login = decide(s, system_env, v);
	print_copies(s, system_env ? v[0].c : v[2].c);
	int rc = CF_OK, any = 0;
	const struct verdict *lost = shadowing(v);
	for (int i = 0; i < 3; i++) {
		if (i > 0 && !v[i].counts && !(i == 1 && has_login))
			continue;
		any |= v[i].c != NULL;
		if (!v[i].c)
			log_out("%s finds no %s\n", v[i].who, s->soname);
		else
			log_out("%s gets %s%s (%s %s, through %s)\n", v[i].who, s->root, v[i].c->real,
				s->product->display, v[i].c->version, v[i].via);
	}
	if (!installed) {
		log_out("nothing is installed as current in %s%s\n", o->root, l.prefix_sys);
	} else if (lost) {
		rc = cf_fail(e, CF_VALIDATION, "the installed %s (%s%s) is shadowed by %s%s (%s %s, %s) "
			     "for %s, put on the search path by %s; fix: %s", s->product->display,
			     s->root, ours, s->root, lost->c->real, s->product->display,
			     lost->c->version, lost->c->origin, lost->who, lost->via, lost->c->fix);
	} else if (any) {
		log_out("the installed copy wins: nothing shadows it\n");
	} else {
		rc = cf_fail(e, CF_VALIDATION, "the installed %s is not on the loader's path: run "
			     "ldconfig, or use the environment from 'unpacker env'", s->product->display);
	}
	leftovers_report(&l);
	survey_free(s);
	layout_free(&l);
	return rc;
}
