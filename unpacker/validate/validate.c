/* validate.c - running the checks, each library-loading one in a clean child process */
#include "unpacker/validate/validate.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/bundle/frame.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/compat.h"
#include "unpacker/validate/ldconfig.h"
#include "unpacker/install/fault.h"
#include "common/rootpath.h"
#include "unpacker/selfpath.h"
#include "unpacker/validate/probereport.h"
#include "unpacker/validate/proberun.h"
#include "unpacker/trust.h"
#include "unpacker/unlisted.h"
#include "unpacker/validate/gpuapi.h"
#include "unpacker/validate/dllsearch.h"
#include "unpacker/validate/doctor.h"
#include "unpacker/validate/pefile.h"

/* Seconds a probe may take; CUFERRY_VALIDATE_TIMEOUT overrides both (probe_timeout). */
#define PROBE_TIMEOUT 60
#define COMPUTE_TIMEOUT 120
#define MAX_GPUS 64

struct run {
	const struct validate_options *o;
	const char *dir;
	const struct manifest *m;
	char major[16];
	char env_ldpath[4096];
	/* step 4's cuBLASLt, cuBLAS and NVRTC of this host, ':'-separated: the GPU checks load
	 * them by absolute path before cuDNN asks for them by name ("-": none; under --root an
	 * image's files are never loaded) */
	char preload[3 * PATH_MAX + 4];
	json_t *checks;
	json_t *timings;       /* seconds per step, and per GPU for step 6 */
	size_t printed;        /* rows of checks already on the console */
	int gpu_checked;       /* step 6 ran on at least one GPU */
	int failed;
	int incompatible;
	char untrusted[1200]; /* the stored signature failed: why (a trust failure, exit 2) */
	pthread_mutex_t *lock; /* the console, while checks finish in parallel */
};

static void print_row(json_t *c);

/* On a terminal: which step (and GPU) is running now; replaced by the step's row. */
static void progress_note(struct run *r, const char *what)
{
	pthread_mutex_lock(r->lock);
	if (platform_is_terminal(1 /* stdout */)) {
		printf("\r\033[K     ... %s", what);
		fflush(stdout);
	}
	pthread_mutex_unlock(r->lock);
}

/* Print the rows not printed yet: each step's line appears as soon as the step ends. */
static void flush_rows(struct run *r)
{
	pthread_mutex_lock(r->lock);
	if (platform_is_terminal(1 /* stdout */)) {
		printf("\r\033[K");
		fflush(stdout);
	}
	for (; r->printed < json_array_size(r->checks); r->printed++)
		print_row(json_array_get(r->checks, r->printed));
	pthread_mutex_unlock(r->lock);
}

static void timing(struct run *r, const char *name, double since)
{
	json_object_set_new(r->timings, name, json_real(platform_elapsed_s() - since));
}

static json_t *add(struct run *r, int step, const char *check, const char *status, const char *detail)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s}", "step", step, "check", check, "status", status,
			      "detail", detail);
	json_array_append_new(r->checks, o);
	if (strcmp(status, "fail") == 0)
		r->failed = 1;
	return o;
}

/* ---- step 1: files ---- */

struct file_checks {
	struct run *r;
	char (*why)[600];      /* per file: empty, or what is wrong with it */
	uint64_t *bytes;
	size_t next;           /* the next file to take */
	pthread_mutex_t lock;
};

static void check_one_file(const struct run *r, const struct manifest_file *f, char *why, size_t size,
			   uint64_t *bytes)
{
	char *path = xasprintf("%s/%s", r->dir, f->path), target[PATH_MAX];
	struct platform_stat st;
	if (platform_lstat(path, &st) != 0) {
		snprintf(why, size, "%s is missing", f->path);
	} else if (f->type == MF_SYMLINK) {
		if (st.type != PLATFORM_TYPE_LINK || platform_readlink(path, target, sizeof(target)) < 0 ||
		    strcmp(target, f->target))
			snprintf(why, size, "%s is not the link to %s", f->path, f->target);
	} else if (r->o->just_written) {
		/* The install hashed each file as it wrote it, moments ago: check what could
		 * have changed since (presence, type, size), not the bytes again. */
		if (st.type != PLATFORM_TYPE_FILE || st.size != f->size)
			snprintf(why, size, "%s: size differs from the manifest", f->path);
		*bytes = st.size;
	} else {
		uint8_t d[32];
		uint64_t got = 0;
		if (st.type != PLATFORM_TYPE_FILE || sha256_file(path, d, &got) != 0 || got != f->size)
			snprintf(why, size, "%s: size differs from the manifest", f->path);
		else if (!digest_equal(d, f->sha256, 32))
			snprintf(why, size, "%s: SHA-256 differs from the manifest (changed after install)",
				 f->path);
		*bytes = got;
	}
	free(path);
}

/* A worker: files taken one by one, so the largest does not wait behind the others. */
static void *file_worker(void *arg)
{
	struct file_checks *fc = arg;
	for (;;) {
		pthread_mutex_lock(&fc->lock);
		size_t i = fc->next++;
		pthread_mutex_unlock(&fc->lock);
		if (i >= fc->r->m->nfiles)
			return NULL;
		check_one_file(fc->r, &fc->r->m->files[i], fc->why[i], sizeof(fc->why[i]), &fc->bytes[i]);
	}
}

static void check_files(struct run *r)
{
	const struct manifest *m = r->m;
	struct file_checks fc = { .r = r, .why = calloc(m->nfiles + 1, sizeof(*fc.why)),
				  .bytes = calloc(m->nfiles + 1, sizeof(uint64_t)),
				  .lock = PTHREAD_MUTEX_INITIALIZER };
	char why[600] = "";
	uint64_t bytes = 0;
	if (!fc.why || !fc.bytes) {
		add(r, 1, "files", "fail", "out of memory");
		free(fc.why);
		free(fc.bytes);
		return;
	}
	pthread_t threads[8];
	int cpus = platform_cpu_count(), n = 0;
	for (; !r->o->just_written && n < 8 && n < cpus; n++)
		if (pthread_create(&threads[n], NULL, file_worker, &fc) != 0)
			break;
	file_worker(&fc);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	/* The first file in the manifest's order that is wrong, as a sequential check says. */
	for (size_t i = 0; i < m->nfiles && !why[0]; i++) {
		snprintf(why, sizeof(why), "%s", fc.why[i]);
		bytes += fc.bytes[i];
	}
	/* What the manifest does not list (a library planted in lib/) is named too. */
	char **unlisted = why[0] ? NULL : unlisted_entries(r->dir, m), shown[400];
	if (!why[0] && !unlisted)
		snprintf(why, sizeof(why), "the install's directories cannot be read");
	else if (!why[0] && unlisted[0])
		snprintf(why, sizeof(why), "%s: not in the manifest%s (planted or copied in after the "
			 "install; 'unpacker BUNDLE --repair' moves it aside)",
			 log_safe(unlisted[0], shown, sizeof(shown)), unlisted[1] ? ", with others" : "");
	unlisted_free(unlisted);
	int failed = why[0] != '\0';
	if (!failed)
		snprintf(why, sizeof(why), "%zu entries, %.1f MiB, sizes and SHA-256 as in the manifest%s",
			 m->nfiles, (double)bytes / 1048576.0,
			 r->o->just_written ? " (SHA-256 checked while written)" : "");
	free(fc.why);
	free(fc.bytes);
	add(r, 1, "files", failed ? "fail" : "pass", why);
}

/* The fingerprints recorded at install (.cuferry/signers) join t as --trust-fingerprint would:
 * the stored header then verifies with the keys that verified it. Revoked ones stay out
 * (trust.c counts them nowhere). Returns how many were read. */
static size_t add_recorded(struct trust *t, const char *install_dir)
{
	char *path = xasprintf("%s%c%s", install_dir, platform_dir_separator(),
			       layout_install_signers_rel), *text = NULL;
	size_t len, n = 0;
	if (io_read_file_nofollow(path, FRAME_MAX_SIGS * 65 + 1, &text, &len) == 0)
		for (char *line = text; *line && t->nfingerprints < 16;) {
			size_t k = strcspn(line, "\n");
			int more = line[k] == '\n';
			line[k] = '\0';
			if (k == 64 && hex_decode(line, t->fingerprints[t->nfingerprints], 32) == 0)
				t->nfingerprints++, n++;
			line += k + more;
		}
	free(text);
	free(path);
	return n;
}

/* validate: the stored header's signatures, against the keys trusted here now; else, with the
 * keys recorded at install (none configured here, or removed since). Any failure is a trust
 * failure (exit 2), not a validation failure. */
static void check_signature(struct run *r)
{
	char *path = layout_install_header(r->dir), *data = NULL, signers[256] = "", why[1200];
	size_t len = 0;
	struct frame f;
	struct cf_err e = { 0 };
	struct trust *t = xmalloc(sizeof(*t));
	const char *note = "trusted here";
	int rc = io_read_file(path, FRAME_CAP + 8, &data, &len) == 0 ? CF_OK
			 : cf_fail(&e, CF_TRUST, "cannot be read");
	if (rc == CF_OK && frame_prefix((uint8_t *)data, len, NULL) != 0)
		rc = cf_fail(&e, CF_TRUST, "not a bundle header");
	int parsed = rc == CF_OK && (rc = frame_parse((uint8_t *)data + 8, len - 8, &f, &e)) == CF_OK;
	if (rc == CF_OK)
		rc = trust_load(t, r->o->trust, &e);
	int loaded = rc == CF_OK, configured = loaded && (t->nkeys || t->nfingerprints);
	size_t recorded_n = 0;
	if (configured || (loaded && (recorded_n = add_recorded(t, r->dir)) == 0))
		rc = trust_check(t, &f, signers, sizeof(signers), &e); /* none at all: it says so */
	if (loaded && configured && rc != CF_OK)
		recorded_n = add_recorded(t, r->dir);
	if (recorded_n > 0) {
		struct cf_err recorded = { 0 };
		if (trust_check(t, &f, signers, sizeof(signers), &recorded) == CF_OK) {
			rc = CF_OK;
			note = configured ? "recorded at install; that key is no longer trusted here"
					  : "recorded at install (no key is configured here)";
		} else if (!configured || strstr(recorded.msg, "revoked")) {
			rc = cf_fail(&e, CF_TRUST, "%s", recorded.msg);
		}
	}
	if (rc == CF_OK)
		snprintf(why, sizeof(why), "the stored header is signed by %s, %s", signers, note);
	else
		snprintf(why, sizeof(why), "%s: %s", layout_install_header_rel, e.msg);
	add(r, 1, "signature", rc == CF_OK ? "pass" : "fail", why);
	if (rc != CF_OK)
		snprintf(r->untrusted, sizeof(r->untrusted), "%s", why);
	if (parsed)
		frame_free(&f);
	free(t);
	free(data);
	free(path);
}

/* ---- children ---- */

/* One probe that emits one result: copy it into the report as step N. */
static json_t *probe_step(struct run *r, int step, const char *check, int timeout, char *const args[])
{
	json_t *lines;
	char why[512];
	if (probe_run(NULL, probe_timeout(timeout), args, &lines, why, sizeof(why)) != 0) {
		json_decref(lines);
		return add(r, step, check, "fail", why);
	}
	json_t *o = json_array_get(lines, 0);
	json_object_set_new(o, "step", json_integer(step));
	json_object_set_new(o, "check", json_string(check));
	if (strcmp(json_string_value(json_object_get(o, "status")), "fail") == 0)
		r->failed = 1;
	json_array_append(r->checks, o);
	json_decref(lines);
	return o;
}

/* ---- the environment a fresh program gets ---- */

/* The probe's LD_LIBRARY_PATH. Under --root nothing of the image is loaded but the installed
 * cuDNN tree: its own lib/, nothing else of the root (the root's loader configuration is read
 * as files by steps 3 and 4 instead). */
static void compute_env(struct run *r)
{
	const struct validate_options *o = r->o;
	r->env_ldpath[0] = '\0';
	if (*o->layout->root)
		snprintf(r->env_ldpath, sizeof(r->env_ldpath), "%s/lib", r->dir);
	else if (o->env_mode == VALIDATE_ENV_LIBRARY_PATH)
		snprintf(r->env_ldpath, sizeof(r->env_ldpath), "%s/lib", o->layout->current);
}

/* ---- the root's loader search path, read as files (--root) ---- */

struct search {
	const char *root; /* "" for the host's own directories */
	char dirs[64][PATH_MAX];
	size_t n;
};

static void search_add(struct search *s, const char *root, const char *dir)
{
	if (s->n < sizeof(s->dirs) / sizeof(s->dirs[0]) && dir[0] == '/')
		snprintf(s->dirs[s->n++], PATH_MAX, "%s%s", root, dir);
}

static void add_conf_dir(const char *dir, void *ctx)
{
	struct search *s = ctx;
	search_add(s, "", dir); /* completed with the root below */
}

/* In the loader's order: LD_LIBRARY_PATH of a user install, ld.so.conf.d, the default dirs. */
static void root_search(const struct run *r, struct search *s)
{
	static const char *const defaults[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
						"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
						"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL };
	struct search conf = { .n = 0 };
	s->n = 0;
	s->root = r->o->layout->root;
	if (r->o->env_mode == VALIDATE_ENV_LIBRARY_PATH)
		snprintf(s->dirs[s->n++], PATH_MAX, "%s/lib", r->o->layout->current);
	ldconfig_dirs(r->o->layout->root, add_conf_dir, &conf);
	for (size_t i = 0; i < conf.n; i++)
		search_add(s, r->o->layout->root, conf.dirs[i]);
	for (size_t i = 0; defaults[i]; i++)
		search_add(s, r->o->layout->root, defaults[i]);
}

/* path (root included) through its links the way the image resolves them, a link's absolute
 * target taken inside the root (rootpath.h), never the host's; then as the host names the
 * result. Without a root, or for a path outside it, the system's (platform_realpath). real,
 * or NULL. */
static char *image_realpath(const char *root, const char *path, char real[PATH_MAX])
{
	size_t n = strlen(root);
	char inside[PATH_MAX];
	if (!n || strncmp(path, root, n) != 0 || path[n] != '/')
		return platform_realpath(path, real, PATH_MAX) == 0 ? real : NULL;
	if (rootpath_resolve(root, path + n, inside, sizeof(inside)) != 0)
		return NULL;
	char *full = xasprintf("%s%s", root, inside);
	int got = platform_realpath(full, real, PATH_MAX) == 0;
	free(full);
	return got ? real : NULL;
}

/* A shared library file for this machine: an ELF of our class and machine. No loading. */
static int elf_library(const char *root, const char *path)
{
	unsigned char h[20];
	char real[PATH_MAX];
	int fd = image_realpath(root, path, real)
			 ? platform_open(real, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK, 0) : -1;
	struct platform_stat st;
	int ok = fd >= 0 && platform_fstat(fd, &st) == 0 && st.type == PLATFORM_TYPE_FILE &&
		 platform_read(fd, h, sizeof(h)) == (ssize_t)sizeof(h);
	if (fd >= 0)
		platform_close(fd);
#if defined(__x86_64__)
	const unsigned machine = 62;
#elif defined(__aarch64__)
	const unsigned machine = 183;
#else
	const unsigned machine = 0;
#endif
	return ok && memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 && h[16] == 3 /* ET_DYN */ &&
	       (unsigned)(h[18] | h[19] << 8) == machine;
}

/* The first file named soname on the search path, as the image's loader would pick it. */
static int search_find(const struct search *s, const char *soname, char *out, size_t size)
{
	for (size_t i = 0; i < s->n; i++) {
		char *p = xasprintf("%s/%s", s->dirs[i], soname);
		int ok = elf_library(s->root, p);
		if (ok)
			snprintf(out, size, "%s", p);
		free(p);
		if (ok)
			return 0;
	}
	return -1;
}

/* ---- steps 2-4 ---- */

static void check_library(struct run *r)
{
	char *const args[] = { "library", (char *)r->dir, r->major, r->m->cudnn_version,
			       r->m->cuda_variant, NULL };
	probe_step(r, 2, "library", PROBE_TIMEOUT, args);
}

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
		add(r, 3, "resolution", "fail", why);
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
	json_t *o = add(r, 3, "resolution", strcmp(got, mine) == 0 ? "pass" : "fail", why);
	json_object_set_new(o, "path", json_string(got));
	json_object_set_new(o, "version", json_string(version));
}

/* Step 3 where the loader's cache and configuration decide (POSIX): the copy doctor would
 * name (doctor_pick, one function for both), read as files, nothing loaded. */
static void check_resolution(struct run *r, int is_current)
{
	char mine[PATH_MAX], why[3 * PATH_MAX + 600], name[64];
	const char *root = r->o->layout->root;
	if (!is_current) {
		add(r, 3, "resolution", "skip", "not the current install");
		return;
	}
	char *path = gpuapi_cudnn_path(r->dir, r->major);
	int ok = image_realpath(root, path, mine) != NULL;
	free(path);
	gpuapi_cudnn_name(r->major, name, sizeof(name));
	if (!*root && platform_lib_search_is_dirs()) {
		if (ok)
			check_resolution_dirs(r, name, mine);
		else
			add(r, 3, "resolution", "fail", "the install's library is missing");
		return;
	}
	struct doctor_pick *p = xcalloc(1, sizeof(*p));
	int system_env = r->o->env_mode == VALIDATE_ENV_CACHE;
	char shown_root[PATH_MAX] = ""; /* the root as the host names it (a relative --root too) */
	if (*root && platform_realpath(root, shown_root, sizeof(shown_root)) != 0)
		snprintf(shown_root, sizeof(shown_root), "%s", root);
	json_t *o;
	if (!ok || doctor_pick(r->o->layout, r->major, system_env, p) != 0) {
		o = add(r, 3, "resolution", "fail", "the install's library is missing");
	} else if (!p->found && !system_env) {
		snprintf(why, sizeof(why), "no system file puts the install on the loader's path (a "
			 "user's install, or --no-env): a program finds %s once it has the environment "
			 "of 'unpacker env' (LD_LIBRARY_PATH=%s/lib)", name, r->o->layout->current);
		o = add(r, 3, "resolution", "skip", why);
	} else if (!p->found) {
		o = add(r, 3, "resolution", "fail", *root ? "no libcudnn on the image's search path "
			"(its ld.so.conf.d and default directories)" : "no libcudnn in the ld cache or the "
			"default directories: run ldconfig");
	} else if (p->ours) {
		snprintf(why, sizeof(why), "a program loading %s gets the install (%s%s), through %s",
			 name, shown_root, p->path, p->via);
		o = add(r, 3, "resolution", "pass", why);
	} else {
		snprintf(why, sizeof(why), "a program loading %s gets %s%s, not the install (cuDNN %s; "
			 "%s, put on the search path by %s); fix: %s (unpacker doctor lists every copy)",
			 name, shown_root, p->path, p->version, p->who, p->via, p->fix);
		/* A user's install (no system files) is reached only once a program has the
		 * environment of 'unpacker env': said, as doctor says it, but not a failed install. */
		if (!system_env)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "; or give programs the "
				 "environment of 'unpacker env' (LD_LIBRARY_PATH=%s/lib first): --no-env wrote "
				 "no system files", r->o->layout->current);
		o = add(r, 3, "resolution", system_env ? "fail" : "skip", why);
	}
	if (p->found) {
		char *full = xasprintf("%s%s", shown_root, p->path);
		json_object_set_new(o, "path", json_string(full));
		json_object_set_new(o, "version", json_string(p->version));
		free(full);
	}
	free(p);
}

static const char *component_of(const char *lib)
{
	if (strncmp(lib, "libcublas", 9) == 0)
		return "libcublas";
	if (strncmp(lib, "libnvrtc", 8) == 0)
		return "cuda_nvrtc";
	return NULL;
}

struct first_native {
	char *out;
	size_t size;
};

/* The first entry for this machine's own architecture (not a 32-bit compat copy). */
static void first_native(const char *path, const char *flags, void *ctx)
{
	struct first_native *h = ctx;
#if defined(__x86_64__)
	const char *arch = "x86-64";
#elif defined(__aarch64__)
	const char *arch = "AArch64";
#else
	const char *arch = "";
#endif
	if (!h->out[0] && strstr(flags, arch))
		snprintf(h->out, h->size, "%s", path);
}

/* Where a program's loader finds soname after cuDNN's RUNPATH ($ORIGIN, the bundle's lib/):
 * LD_LIBRARY_PATH of a user install, then the ld cache (under --root: the image's
 * ld.so.conf.d), then the default directories. Files only: nothing is loaded. */
static int find_dependency(const struct run *r, const struct search *s, const char *soname, char *out,
			   size_t size)
{
	char *bundled = xasprintf("%s/lib/%s", r->dir, soname);
	int ok = elf_library(r->o->layout->root, bundled);
	if (ok)
		snprintf(out, size, "%s", bundled);
	free(bundled);
	if (ok)
		return 0;
	if (!*r->o->layout->root) {
		out[0] = '\0';
		struct first_native hit = { out, size };
		platform_lib_cache_find(soname, first_native, &hit);
		if (out[0])
			return 0;
	}
	return search_find(s, soname, out, size);
}

/* Step 4: the libraries cuDNN opens at run time, of the bundle's CUDA major, as files. */
static json_t *find_dependencies(struct run *r)
{
	char names[4][64], found[PATH_MAX];
	const char *v = r->m->cuda_variant;
	snprintf(names[0], 64, "libcublas.so.%s", v);
	snprintf(names[1], 64, "libcublasLt.so.%s", v);
	snprintf(names[2], 64, "libnvrtc.so.%s", v);
	snprintf(names[3], 64, "libz.so.1");
	struct search *s = xmalloc(sizeof(*s));
	root_search(r, s);
	json_t *libs = json_object();
	int missing = 0;
	for (int i = 0; i < 4; i++) {
		int hit = find_dependency(r, s, names[i], found, sizeof(found)) == 0;
		json_object_set_new(libs, names[i], hit ? json_string(found) : json_null());
		missing += !hit;
	}
	free(s);
	json_t *o = add(r, 4, "dependencies", missing ? "fail" : "pass", "");
	json_object_set_new(o, "libraries", libs);
	json_object_set_new(o, "how", json_string("files the loader would pick (ELF shared objects), not loaded"));
	return o;
}

/* An OS image has system library directories; a bare --root sandbox (tests, a staging tree)
 * has none, and no loader of its own to ask. */
static int root_is_image(const char *root)
{
	static const char *const dirs[] = { "lib", "lib64", "usr/lib", "usr/lib64", NULL };
	for (size_t i = 0; dirs[i]; i++) {
		char *p = xasprintf("%s/%s", root, dirs[i]);
		struct platform_stat st;
		int yes = platform_stat(p, &st) == 0 && st.type == PLATFORM_TYPE_DIR;
		free(p);
		if (yes)
			return 1;
	}
	return 0;
}

/* Where a DLL the install's DLLs import comes from, and what to do when it is missing. */
static void dll_advice(const struct run *r, const char *name, const char *importer, char *out,
		       size_t size)
{
	static const char *const cuda[] = { "cublas64_", "cublasLt64_", "cudart64_", "nvrtc64_",
					    "nvrtc-builtins64_", NULL };
	if (strcasecmp(name, "zlibwapi.dll") == 0) {
		snprintf(out, size, "%s missing (imported by %s): cuDNN 8 needs zlib built for Windows; "
			 "get zlibwapi.dll from NVIDIA's zlib page (cuDNN installation guide) and carry it "
			 "with 'bundler create --add-file zlibwapi.dll'", name, importer);
		return;
	}
	for (size_t i = 0; cuda[i]; i++) {
		size_t n = strlen(cuda[i]);
		if (strncasecmp(name, cuda[i], n) != 0)
			continue;
		int major = atoi(name + n);
		if (major >= 100)
			major /= 10; /* nvrtc64_120_0.dll: CUDA 12.0's naming */
		snprintf(out, size, "%s missing (imported by %s): CUDA %d's %.*s, from the CUDA toolkit "
			 "or a bundle made --with-cuda-libs%s%s", name, importer, major, (int)(n - 3),
			 cuda[i], major != atoi(r->m->cuda_variant) ? "; this bundle is for CUDA " : "",
			 major != atoi(r->m->cuda_variant) ? r->m->cuda_variant : "");
		return;
	}
	snprintf(out, size, "%s missing (imported by %s)", name, importer);
}

struct dll_deps {
	const struct run *r;
	const char *bin;
	char why[2048];
	json_t *libs;
	size_t imports;
};

/* One DLL name: in the install's bin\, else where a program loading it by name gets it, else
 * missing, with what to do (importer: who needs it). */
static void find_dll(struct dll_deps *d, const char *name, const char *importer)
{
	d->imports++;
	char *in_bin = xasprintf("%s%c%s", d->bin, platform_dir_separator(), name), advice[600];
	struct platform_stat st;
	struct dll_hit hit = { .source = NULL };
	if (platform_stat(in_bin, &st) == 0 && st.type == PLATFORM_TYPE_FILE) {
		json_object_set_new(d->libs, name, json_string(in_bin));
	} else if (dllsearch_first(name, &hit) == 0) {
		json_object_set_new(d->libs, name, json_string(hit.path));
	} else {
		json_object_set_new(d->libs, name, json_null());
		dll_advice(d->r, name, importer, advice, sizeof(advice));
		size_t used = strlen(d->why);
		snprintf(d->why + used, sizeof(d->why) - used, "%s%s", used ? "; " : "", advice);
	}
	free(in_bin);
}

/* One DLL of the install's bin\: each import found in bin\, System32 or on PATH. */
static int dll_imports(const char *file, void *ctx)
{
	struct dll_deps *d = ctx;
	size_t n = strlen(file);
	if (n < 4 || strcasecmp(file + n - 4, ".dll") != 0)
		return 0;
	char *path = xasprintf("%s%c%s", d->bin, platform_dir_separator(), file), pe_why[256];
	struct pe_info info;
	if (pe_parse_file(path, &info, pe_why, sizeof(pe_why)) != 0) {
		size_t used = strlen(d->why);
		snprintf(d->why + used, sizeof(d->why) - used, "%s%s: %s", used ? "; " : "", file, pe_why);
		json_object_set_new(d->libs, file, json_null());
		free(path);
		return 0;
	}
	for (size_t i = 0; i < info.import_count; i++) {
		const char *name = info.imports[i].name;
		if (json_object_get(d->libs, name))
			continue;
		/* api-ms-win-… and ext-ms-…: API sets the system maps to its own DLLs */
		if (strncasecmp(name, "api-ms-", 7) == 0 || strncasecmp(name, "ext-ms-", 7) == 0)
			continue;
		find_dll(d, name, file);
	}
	pe_info_free(&info);
	free(path);
	return 0;
}

/* cuDNN 9 imports no cuBLAS or NVRTC: it loads them by name when a graph needs them, from
 * where a program loading them by name would (its own bin\, System32, PATH), as on Linux. */
static void runtime_dlls(struct dll_deps *d)
{
	if (atoi(d->r->major) < 9)
		return; /* cuDNN 8 imports what it needs: the import tables said it all */
	const char *v = d->r->m->cuda_variant;
	char names[3][64];
	snprintf(names[0], sizeof(names[0]), "cublas64_%s.dll", v);
	snprintf(names[1], sizeof(names[1]), "cublasLt64_%s.dll", v);
	snprintf(names[2], sizeof(names[2]), "nvrtc64_%s0_0.dll", v);
	for (size_t i = 0; i < 3; i++) {
		if (!json_object_get(d->libs, names[i]))
			find_dll(d, names[i], "cuDNN, at run time");
	}
}

/* Step 4 where DLLs are found as files (Windows): the installed DLLs' import tables, and the
 * DLLs cuDNN 9 loads by name. */
static void check_deps_dirs(struct run *r)
{
	struct dll_deps d = { .r = r, .bin = gpuapi_cudnn_dir(r->dir), .libs = json_object() };
	platform_dir_list(d.bin, dll_imports, &d);
	runtime_dlls(&d);
	char pass[256];
	snprintf(pass, sizeof(pass), "every DLL the install's DLLs import or cuDNN loads (%zu) is in "
		 "its bin\\, System32 or on PATH", d.imports);
	json_t *o = add(r, 4, "dependencies", d.why[0] ? "fail" : "pass", d.why[0] ? d.why : pass);
	json_object_set_new(o, "libraries", d.libs);
	json_object_set_new(o, "how", json_string("the DLLs' import tables and what cuDNN 9 loads by name, each found as a file, not loaded"));
	free((char *)d.bin);
}

static void check_deps(struct run *r)
{
	if (!*r->o->layout->root && platform_lib_search_is_dirs()) {
		check_deps_dirs(r);
		return;
	}
	if (*r->o->layout->root && !root_is_image(r->o->layout->root)) {
		add(r, 4, "dependencies", "skip", "not checked: the root has no system library directories "
		    "(lib, usr/lib): it is not an OS image whose loader could be asked");
		return;
	}
	json_t *o = find_dependencies(r);
	json_t *libs = json_object_get(o, "libraries"), *v;
	const char *name;
	char why[1024] = "";
	const char *const *loaded_by_cudnn = product_default()->cuda_libs_opened;
	for (size_t i = 0; !*r->o->layout->root && loaded_by_cudnn[i]; i++)
		json_object_foreach(libs, name, v) {
			size_t used = strlen(r->preload);
			if (json_is_string(v) && strncmp(name, loaded_by_cudnn[i], strlen(loaded_by_cudnn[i])) == 0)
				snprintf(r->preload + used, sizeof(r->preload) - used, "%s%s", used ? ":" : "",
					 json_string_value(v));
		}
	json_object_foreach(libs, name, v) {
		size_t used = strlen(why);
		if (!json_is_null(v))
			continue;
		const char *comp = component_of(name);
		const struct manifest_component *c = NULL;
		for (size_t i = 0; comp && i < r->m->ncomponents; i++)
			if (strcmp(r->m->components[i].name, comp) == 0)
				c = &r->m->components[i];
		if (c)
			snprintf(why + used, sizeof(why) - used, "%s%s missing (CUDA component %s %s, %s)",
				 used ? "; " : "", name, c->name, c->version,
				 c->included ? "in the bundle" : "not in the bundle: rebuild with --with-cuda-libs or install it");
		else
			snprintf(why + used, sizeof(why) - used, "%s%s missing (%s)", used ? "; " : "", name,
				 comp ? comp : "zlib: install the system's zlib (Debian: zlib1g)");
	}
	if (why[0])
		json_object_set_new(o, "detail", json_string(why));
	else if (libs)
		json_object_set_new(o, "detail", json_string("cuBLAS, cuBLASLt, NVRTC and zlib found"));
}

/* ---- steps 5-6 ---- */

/* The host's driver, also under --root (the GPU and its kernel module are the host's, and
 * nothing of an image is loaded): CUFERRY_LIBCUDA names it where the ld cache does not. */
static int find_libcuda(char *out, size_t size)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu",
					    "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
					    "/usr/lib/wsl/lib", NULL };
	char real[PATH_MAX], system[PATH_MAX - 32];
	const char *named = getenv("CUFERRY_LIBCUDA");
	/* Where the driver installs its library among the system's own (Windows: System32's
	 * nvcuda.dll), that copy and no other. */
	if (platform_system_lib_dir(system, sizeof(system)) == 0) {
		snprintf(out, size, "%s%c%s", system, gpuapi_separator, gpuapi_driver_name);
		return platform_realpath(out, real, sizeof(real));
	}
	if (named && named[0] == '/') {
		snprintf(out, size, "%s", named);
		return platform_realpath(named, real, sizeof(real));
	}
	out[0] = '\0';
	struct first_native hit = { out, size };
	platform_lib_cache_find("libcuda.so.1", first_native, &hit);
	if (out[0])
		return 0;
	struct search *s = xmalloc(sizeof(*s));
	s->n = 0;
	s->root = "";
	for (size_t i = 0; dirs[i]; i++)
		search_add(s, "", dirs[i]);
	int rc = search_find(s, "libcuda.so.1", out, size);
	free(s);
	return rc;
}

/* "580.159.04" from the driver itself, or from the library's file name. */
static void driver_version(const char *libcuda, char *out, size_t size)
{
	char real[PATH_MAX];
	if (platform_driver_version("", out, size) != 0)
		out[0] = '\0';
	if (!out[0] && platform_realpath(libcuda, real, sizeof(real)) == 0) {
		const char *v = strstr(real, ".so.");
		if (v)
			snprintf(out, size, "%s", v + 4);
	}
}

struct gpu_job {
	struct run *r;
	char *args[9];
	char idx[24];
	char visible[48]; /* CUDA_VISIBLE_DEVICES=K: the child's driver sets up its one GPU only */
	int gpu;
	int graph;             /* the backend graph (NVRTC, cuBLASLt), else the convolutions */
	json_t *lines;
	char why[1024];
	int probe_failed;
	double seconds;
};

/* One GPU's step 6 in its own child; its rows are printed as soon as it ends. */
static void *gpu_job_run(void *arg)
{
	struct gpu_job *j = arg;
	double t0 = platform_elapsed_s();
	j->probe_failed = probe_run(j->visible, probe_timeout(COMPUTE_TIMEOUT), j->args,
				    &j->lines, j->why, sizeof(j->why)) != 0;
	j->seconds = platform_elapsed_s() - t0;
	size_t k;
	json_t *line;
	pthread_mutex_lock(j->r->lock);
	if (platform_is_terminal(1 /* stdout */))
		printf("\r\033[K");
	if (j->probe_failed) {
		char d[1100];
		snprintf(d, sizeof(d), "GPU %d: %s", j->gpu, j->why);
		json_decref(j->lines);
		j->lines = json_array();
		json_array_append_new(j->lines, json_pack("{s:s, s:i, s:s, s:s}", "check",
							  j->graph ? "graph" : "compute", "gpu", j->gpu,
							  "status", "fail", "detail", d));
	}
	json_array_foreach(j->lines, k, line) {
		json_object_set_new(line, "step", json_integer(6));
		json_object_set_new(line, "gpu", json_integer(j->gpu));
		print_row(line);
	}
	pthread_mutex_unlock(j->r->lock);
	return NULL;
}

/* Step 6 on every selected GPU at once: per GPU one child for the convolutions and one for
 * the backend graph (whose runtime compilation then overlaps the convolutions), all in
 * parallel. */
static void compute_all(struct run *r, const char *libcuda, size_t ngpus)
{
	size_t max = 2 * (ngpus < MAX_GPUS ? ngpus : MAX_GPUS), n = 0;
	struct gpu_job *jobs = calloc(max ? max : 1, sizeof(*jobs));
	pthread_t *threads = calloc(max ? max : 1, sizeof(*threads));
	int *started = calloc(max ? max : 1, sizeof(*started));
	char what[128];
	flush_rows(r);
	for (size_t i = 0; jobs && threads && started && i < ngpus && i < MAX_GPUS; i++) {
		if (r->o->gpu >= 0 && (size_t)r->o->gpu != i)
			continue;
		for (int graph = 0; graph < 2; graph++) {
			struct gpu_job *j = &jobs[n];
			j->r = r;
			j->gpu = (int)i;
			j->graph = graph;
			char point[32];
			snprintf(point, sizeof(point), "gpu%zu", i);
			/* The child sees GPU i alone, as its device 0: the driver of each of the 2N
			 * children started at once initialises one GPU, not all N. Test build only
			 * (CUFERRY_FAULT=gpuK): an ordinal no machine has, for GPU K. */
			snprintf(j->visible, sizeof(j->visible), "CUDA_VISIBLE_DEVICES=%zu", i);
			snprintf(j->idx, sizeof(j->idx), "%d", install_fault_here(point) ? 999999 : 0);
			/* QUICK: 0 both shapes, 1 the small one, 2 none (the graph job) */
			char *const a[] = { "compute", (char *)libcuda, (char *)r->dir, r->major, j->idx,
					    graph ? "2" : r->o->quick ? "1" : "0", graph ? "1" : "0",
					    r->preload[0] ? r->preload : "-", NULL };
			memcpy(j->args, a, sizeof(a));
			started[n] = pthread_create(&threads[n], NULL, gpu_job_run, j) == 0;
			if (!started[n])
				gpu_job_run(j);
			n++;
		}
	}
	snprintf(what, sizeof(what), "step 6 compute on %zu GPU%s", n / 2, n == 2 ? "" : "s in parallel");
	progress_note(r, what);
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		char name[32];
		snprintf(name, sizeof(name), "%s_gpu%d", jobs[i].graph ? "graph" : "compute", jobs[i].gpu);
		json_object_set_new(r->timings, name, json_real(jobs[i].seconds));
		size_t k;
		json_t *line;
		json_array_foreach(jobs[i].lines, k, line) {
			if (strcmp(json_string_value(json_object_get(line, "status")), "fail") == 0)
				r->failed = 1;
			json_array_append(r->checks, line);
		}
		json_decref(jobs[i].lines);
	}
	/* rows already printed by the jobs */
	r->printed = json_array_size(r->checks);
	r->gpu_checked = n > 0;
	free(jobs);
	free(threads);
	free(started);
}

static void check_driver_and_compute(struct run *r)
{
	char libcuda[PATH_MAX], version[64], why[1024];
	if (find_libcuda(libcuda, sizeof(libcuda)) != 0) {
		const char *skip = r->o->require_gpu ? "fail" : "skip";
		char none[128];
		snprintf(none, sizeof(none), "no NVIDIA driver (%s not found): the GPU was not checked",
			 gpuapi_driver_name);
		add(r, 5, "driver", skip, none);
		add(r, 6, "compute", skip, "no NVIDIA driver: the GPU was not checked");
		r->incompatible |= r->o->require_gpu;
		return;
	}
	driver_version(libcuda, version, sizeof(version));
	char *const args[] = { "driver", libcuda, NULL };
	double t0 = platform_elapsed_s();
	json_t *o = probe_step(r, 5, "driver", PROBE_TIMEOUT, args);
	timing(r, "driver", t0);
	json_t *gpus = json_object_get(o, "gpus");
	json_object_set_new(o, "driver_version", json_string(version));
	json_object_set_new(o, "libcuda", json_string(libcuda));
	if (!gpus) {
		add(r, 6, "compute", "skip", "no usable driver: the GPU was not checked");
		r->incompatible |= r->o->require_gpu;
		return;
	}
	int bad = 0;
	size_t used = (size_t)snprintf(why, sizeof(why), "driver %s", version[0] ? version : "?");
	if (r->m->driver_min && version[0] && compat_version_cmp_full(version, r->m->driver_min) < 0) {
		used += (size_t)snprintf(why + used, sizeof(why) - used, " is older than %s, which CUDA %s "
					 "needs", r->m->driver_min, r->m->cuda_variant);
		bad = 1;
	} else {
		used += (size_t)snprintf(why + used, sizeof(why) - used, " (>= %s)",
					 r->m->driver_min ? r->m->driver_min : "?");
	}
	size_t i;
	json_t *gpu;
	json_array_foreach(gpus, i, gpu) {
		char cc[16];
		if (used >= sizeof(why))
			used = sizeof(why) - 1;
		snprintf(cc, sizeof(cc), "%lld.%lld", json_integer_value(json_object_get(gpu, "cc_major")),
			 json_integer_value(json_object_get(gpu, "cc_minor")));
		int old = r->m->cc_min && compat_version_cmp_full(cc, r->m->cc_min) < 0;
		used += (size_t)snprintf(why + used, sizeof(why) - used, "; GPU %zu %s, %.0f GiB, sm %s%s", i,
					 json_string_value(json_object_get(gpu, "name")),
					 (double)json_integer_value(json_object_get(gpu, "memory_bytes")) / 1073741824.0,
					 cc, old ? " (not supported by this cuDNN)" : "");
		bad |= old;
	}
	if (used >= sizeof(why))
		used = sizeof(why) - 1;
	if (json_array_size(gpus) == 0) {
		snprintf(why + used, sizeof(why) - used, "; no GPU");
		r->incompatible |= r->o->require_gpu;
	}
	json_object_set_new(o, "detail", json_string(why));
	if (bad) {
		json_object_set_new(o, "status", json_string("fail"));
		r->failed = r->incompatible = 1;
		return;
	}
	if (json_array_size(gpus) == 0) {
		add(r, 6, "compute", r->o->require_gpu ? "fail" : "skip", "no GPU: the GPU was not checked");
		return;
	}
	if (r->o->gpu >= 0 && (size_t)r->o->gpu >= json_array_size(gpus)) {
		snprintf(why, sizeof(why), "--gpu %d: there is no such GPU (%zu found)", r->o->gpu,
			 json_array_size(gpus));
		add(r, 6, "compute", "fail", why);
		return;
	}
	compute_all(r, libcuda, json_array_size(gpus));
}

/* ---- report ---- */

/* The per-algorithm (per-engine) records of a compute (graph) row. */
static const char *const record_kinds[] = { "forward", "backward_data", "backward_filter", "engines" };

/* fn on each record of row c until it returns non-zero. */
static void each_record(json_t *c, int (*fn)(size_t kind, json_t *a, void *ctx), void *ctx)
{
	for (size_t k = 0; k < sizeof(record_kinds) / sizeof(record_kinds[0]); k++) {
		size_t j;
		json_t *a;
		json_array_foreach(json_object_get(c, record_kinds[k]), j, a)
			if (fn(k, a, ctx))
				return;
	}
}

static int print_record(size_t k, json_t *a, void *ctx)
{
	json_t *err = json_object_get(a, "error"), *skip = json_object_get(a, "skipped");
	json_t *ms = json_object_get(a, k < 3 ? "median_ms" : "ms");
	json_t *at = json_object_get(a, "mismatch_at");
	log_out("                        %-15s %s %-3lld %s%s%s%s%.3f ms%s%s%s\n", record_kinds[k],
		k < 3 ? "algo" : "engine", json_integer_value(json_object_get(a, k < 3 ? "algo" : "engine")),
		err ? "error: " : "", err ? json_string_value(err) : "", skip ? json_string_value(skip) : "",
		err || skip ? " " : "", ms ? json_number_value(ms) : 0.0,
		json_integer_value(json_object_get(a, "mismatches")) ? "  MISMATCH" : "", at ? " " : "",
		at ? json_string_value(at) : "");
	return 0;
}

struct failure_text {
	char *out;
	size_t size;
};

/* The first wrong or failing record, named after the row's text. */
static int name_record(size_t k, json_t *a, void *ctx)
{
	struct failure_text *f = ctx;
	json_t *err = json_object_get(a, "error");
	if (json_integer_value(json_object_get(a, "mismatches")) <= 0 && !err &&
	    !json_is_false(json_object_get(a, "passed")))
		return 0;
	size_t used = strlen(f->out);
	snprintf(f->out + used, f->size - used, " (%s %s %lld%s%s)", record_kinds[k], k < 3 ? "algo" : "engine",
		 json_integer_value(json_object_get(a, k < 3 ? "algo" : "engine")), err ? ": " : " wrong",
		 err ? json_string_value(err) : "");
	return 1;
}

static void print_row(json_t *c)
{
	const char *check = json_string_value(json_object_get(c, "check"));
	const char *shape = json_string_value(json_object_get(c, "shape"));
	char label[64];
	json_t *gpu = json_object_get(c, "gpu");
	if (gpu)
		snprintf(label, sizeof(label), "%s gpu%lld", check, json_integer_value(gpu));
	else
		snprintf(label, sizeof(label), "%s", check);
	log_out("%-4lld %-13s %-6s %s%s%s\n", json_integer_value(json_object_get(c, "step")), label,
		json_string_value(json_object_get(c, "status")), shape ? shape : "", shape ? ": " : "",
		json_string_value(json_object_get(c, "detail")));
	each_record(c, print_record, NULL);
}

/* The first failed check, for the one error line: "step 6 compute gpu2: ...". */
static void first_failure(const struct run *r, char *out, size_t size)
{
	size_t i;
	json_t *c;
	snprintf(out, size, "a check failed");
	json_array_foreach(r->checks, i, c) {
		if (strcmp(json_string_value(json_object_get(c, "status")), "fail") != 0)
			continue;
		json_t *gpu = json_object_get(c, "gpu");
		char where[32] = "";
		if (gpu)
			snprintf(where, sizeof(where), " gpu%lld", json_integer_value(gpu));
		snprintf(out, size, "step %lld %s%s: %.300s", json_integer_value(json_object_get(c, "step")),
			 json_string_value(json_object_get(c, "check")), where,
			 json_string_value(json_object_get(c, "detail")));
		/* A named algorithm or engine says more than "outside the tolerance". */
		struct failure_text f = { out, size };
		each_record(c, name_record, &f);
		return;
	}
}

static int write_report(const struct run *r, const char *result, char *failed_copy, size_t size)
{
	char now[32];
	manifest_format_time((int64_t)time(NULL), now);
	char *path = layout_install_report(r->dir), *text;
	json_t *report = NULL;
	failed_copy[0] = '\0';
	if (io_read_file(path, 16 << 20, &text, NULL) == 0) {
		report = json_loads(text, 0, NULL);
		free(text);
	}
	if (!json_is_object(report)) {
		json_decref(report);
		report = json_object();
	}
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:O, s:O}", "validated_at", now,
			      "result", result, "gpu", r->gpu_checked ? "checked" : "not checked",
			      "install", r->dir, "bundle_id", r->m->bundle_id, "cudnn_version",
			      r->m->cudnn_version, "environment_ld_library_path", r->env_ldpath,
			      "timings_s", r->timings, "checks", r->checks);
	if (r->o->report_out)
		*r->o->report_out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *phases = r->o->install_timings ? json_loads(r->o->install_timings, 0, NULL) : NULL;
	if (phases)
		json_object_set_new(report, "install_timings_s", phases);
	json_object_set_new(report, "validation", v);
	text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (io_write_file_atomic(path, text, strlen(text), 0644) != 0)
		log_msg(LOG_WARN, "%s: %s", path, strerror(errno));
	/* A failed install is rolled back and its directory removed: keep the report beside it. */
	if (strcmp(result, "fail") == 0) {
		const char *base = strrchr(r->dir, '/');
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;
		if (platform_utc_time((int64_t)t, &tm) != 0)
			memset(&tm, 0, sizeof(tm));
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		char *dir = layout_failed_dir(r->o->layout, base ? base + 1 : r->dir, stamp);
		char *copy = layout_failed_report(dir);
		if (io_mkdirs(dir, 0755) == 0 && io_write_file_atomic(copy, text, strlen(text), 0644) == 0)
			snprintf(failed_copy, size, "%s", copy);
		else
			log_msg(LOG_WARN, "%s: %s", copy, strerror(errno));
		free(copy);
		free(dir);
	}
	free(text);
	free(path);
	json_decref(report);
	return 0;
}

/* Steps 5-6 need only the files: they run beside steps 2-4, in a run of their own. */
static void *gpu_steps(void *arg)
{
	struct run *g = arg;
	check_driver_and_compute(g);
	flush_rows(g);
	return NULL;
}

/* Fold the GPU steps' run into the main one (rows already printed). */
static void merge(struct run *r, struct run *g)
{
	json_array_extend(r->checks, g->checks);
	r->printed = json_array_size(r->checks);
	json_object_update(r->timings, g->timings);
	r->failed |= g->failed;
	r->incompatible |= g->incompatible;
	r->gpu_checked |= g->gpu_checked;
	json_decref(g->checks);
	json_decref(g->timings);
}

int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { .o = o, .dir = install_dir, .m = m, .checks = json_array(),
			 .timings = json_object(), .lock = &lock };
	snprintf(r.major, sizeof(r.major), "%.*s", (int)strcspn(m->cudnn_version, "."), m->cudnn_version);
	compute_env(&r);
	log_msg(LOG_INFO, "validating %s", install_dir);
	log_out("%-4s %-13s %-6s %s\n", "step", "check", "result", "detail");
	double t0 = platform_elapsed_s(), t = t0;
	progress_note(&r, "step 1 files");
	if (o->trust)
		check_signature(&r);
	check_files(&r);
	timing(&r, "files", t);
	flush_rows(&r);
	if (!r.failed) { /* a modified install is never loaded */
		struct run g = r;
		g.checks = json_array();
		g.timings = json_object();
		g.printed = 0;
		pthread_t gpu_thread;
		int threaded = pthread_create(&gpu_thread, NULL, gpu_steps, &g) == 0;
		t = platform_elapsed_s();
		progress_note(&r, "steps 2-6");
		check_library(&r);
		timing(&r, "library", t);
		flush_rows(&r);
		t = platform_elapsed_s();
		check_resolution(&r, is_current);
		timing(&r, "resolution", t);
		flush_rows(&r);
		t = platform_elapsed_s();
		check_deps(&r);
		timing(&r, "dependencies", t);
		flush_rows(&r);
		if (threaded)
			pthread_join(gpu_thread, NULL);
		else
			gpu_steps(&g);
		merge(&r, &g);
	} else {
		add(&r, 2, "library", "skip", "not loaded: step 1 failed");
		flush_rows(&r);
	}
	timing(&r, "total", t0);
	const char *result = r.failed ? "fail" : r.gpu_checked ? "pass" : "pass-without-gpu";
	char kept[PATH_MAX + 32], first[512], times[512];
	write_report(&r, result, kept, sizeof(kept));
	char *tt = json_dumps(r.timings, JSON_COMPACT | JSON_REAL_PRECISION(3));
	log_msg(LOG_DEBUG, "validation timings (s): %s", tt ? tt : "?"); /* the log file only */
	if (o->timings_out && tt && strlen(tt) < o->timings_out_size)
		snprintf(o->timings_out, o->timings_out_size, "%s", tt);
	free(tt);
	snprintf(times, sizeof(times), "%.2f s", json_real_value(json_object_get(r.timings, "total")));
	first_failure(&r, first, sizeof(first));
	json_decref(r.checks);
	json_decref(r.timings);
	const char *see = kept[0] ? kept : "the log";
	if (r.untrusted[0])
		return cf_fail(e, CF_TRUST, "%s; report: %s", r.untrusted, see);
	if (r.incompatible)
		return cf_fail(e, CF_INCOMPATIBLE, "validation: the driver or GPU cannot run this cuDNN "
			       "(or no GPU with --require-gpu): %s; report: %s", first, see);
	if (r.failed)
		return cf_fail(e, CF_VALIDATION, "validation failed: %s; report: %s", first, see);
	if (r.gpu_checked)
		log_out("validation: all checks passed in %s\n", times);
	else
		log_out("validation: passed WITHOUT a GPU check (no NVIDIA driver or GPU: steps 5-6 "
			"not run; --require-gpu makes this an error) in %s\n", times);
	return CF_OK;
}

int validate_load_manifest(const char *install_dir, struct manifest **m, struct cf_err *e)
{
	char *path = layout_install_header(install_dir), *data = NULL;
	size_t len;
	struct frame f;
	int rc = io_read_file(path, FRAME_CAP + 8, &data, &len) == 0 ? CF_OK
			 : cf_fail(e, CF_VALIDATION, "%s: cannot read", path);
	if (rc == CF_OK && frame_prefix((uint8_t *)data, len, NULL) != 0)
		rc = cf_fail(e, CF_VALIDATION, "%s: not a bundle header", path);
	if (rc == CF_OK)
		rc = frame_parse((uint8_t *)data + 8, len - 8, &f, e);
	if (rc == CF_OK) {
		rc = manifest_parse((const char *)f.header, f.header_len, m, e);
		frame_free(&f);
	}
	if (rc != CF_OK && rc != CF_VALIDATION)
		e->code = rc = CF_VALIDATION;
	free(data);
	free(path);
	return rc;
}
