/* validate.c - running the checks, each library-loading one in a clean child process */
#include "unpacker/validate.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/frame.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/compat.h"
#include "unpacker/env.h"
#include "unpacker/probe.h"
#include "unpacker/selfpath.h"

#define PROBE_TIMEOUT 60
#define COMPUTE_TIMEOUT 600

struct run {
	const struct validate_options *o;
	const char *dir;
	const struct manifest *m;
	char major[16];
	char env_ldpath[4096];
	json_t *checks;
	int failed;
	int incompatible;
};

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

static void check_files(struct run *r)
{
	const struct manifest *m = r->m;
	char why[600] = "";
	uint64_t bytes = 0;
	int failed = 0;
	for (size_t i = 0; i < m->nfiles && !failed; i++) {
		const struct manifest_file *f = &m->files[i];
		char *path = xasprintf("%s/%s", r->dir, f->path), target[PATH_MAX];
		struct stat st;
		if (lstat(path, &st) != 0) {
			failed = snprintf(why, sizeof(why), "%s is missing", f->path);
		} else if (f->type == MF_SYMLINK) {
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			if (!S_ISLNK(st.st_mode) || n < 0 || (target[n] = '\0', strcmp(target, f->target)))
				failed = snprintf(why, sizeof(why), "%s is not the link to %s", f->path, f->target);
		} else if (r->o->just_written) {
			/* The install hashed each file as it wrote it, moments ago: check what could
			 * have changed since (presence, type, size), not the bytes again. */
			if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size)
				failed = snprintf(why, sizeof(why), "%s: size differs from the manifest", f->path);
			bytes += (uint64_t)st.st_size;
		} else {
			uint8_t d[32];
			uint64_t size = 0;
			if (!S_ISREG(st.st_mode) || sha256_file(path, d, &size) != 0 || size != f->size)
				failed = snprintf(why, sizeof(why), "%s: size differs from the manifest", f->path);
			else if (!digest_equal(d, f->sha256, 32))
				failed = snprintf(why, sizeof(why), "%s: SHA-256 differs from the manifest (changed "
					 "after install)", f->path);
			bytes += size;
		}
		free(path);
	}
	if (!failed)
		snprintf(why, sizeof(why), "%zu entries, %.1f MiB, sizes and SHA-256 as in the manifest%s",
			 m->nfiles, (double)bytes / 1048576.0,
			 r->o->just_written ? " (SHA-256 checked while written)" : "");
	add(r, 1, "files", failed ? "fail" : "pass", why);
}

/* ---- children ---- */

/* Run the unpacker itself as a probe with a clean environment; collect its JSON lines. */
static int run_probe(struct run *r, int timeout, char *const args[], json_t **lines, char *why,
		     size_t size)
{
	const char *self = platform_self_path();
	char *env[4];
	int nenv = 0;
	*lines = json_array();
	if (!self)
		return snprintf(why, size, "cannot start a probe: %s", strerror(errno)), -1;
	env[nenv++] = "PATH=/usr/bin:/bin";
	char *ldpath = r->env_ldpath[0] ? xasprintf("LD_LIBRARY_PATH=%s", r->env_ldpath) : NULL;
	if (ldpath)
		env[nenv++] = ldpath;
	env[nenv] = NULL;
	char *argv[13];
	int argc = 0;
	/* Started through the dynamic loader (a .run on media without the x bit): so is the probe. */
	const char *loader = selfpath_loader(), *program = selfpath_program();
	argv[argc++] = "unpacker";
	if (loader && program)
		argv[argc++] = (char *)program;
	argv[argc++] = PROBE_FLAG;
	for (int i = 0; args[i] && argc < 12; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	struct platform_child child;
	int started = platform_run(loader && program ? loader : self, argv, env,
				   PLATFORM_CAPTURE_ALL, timeout, &child);
	int saved = errno;
	free(ldpath);
	if (started != 0)
		return snprintf(why, size, "cannot start a probe: %s", strerror(saved)), -1;
	char *save = NULL, *text = NULL;
	for (char *line = child.output ? strtok_r(child.output, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *o = line[0] == '{' ? json_loads(line, 0, NULL) : NULL;
		if (o)
			json_array_append_new(*lines, o);
		else if (!text)
			text = line;
	}
	int rc = 0;
	if (child.timed_out)
		rc = (snprintf(why, size, "timed out after %d s (killed)", timeout), -1);
	else if (!child.exited)
		rc = (snprintf(why, size, "crashed inside the library (%s)", child.crash), -1);
	else if (json_array_size(*lines) == 0)
		rc = (snprintf(why, size, "the probe failed: %s", text ? text : "no output"), -1);
	free(child.output);
	return rc;
}

/* One probe that emits one result: copy it into the report as step N. */
static json_t *probe_step(struct run *r, int step, const char *check, int timeout, char *const args[])
{
	json_t *lines;
	char why[512];
	if (run_probe(r, timeout, args, &lines, why, sizeof(why)) != 0) {
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

static void append_root_dir(const char *dir, void *ctx)
{
	struct run *r = ctx;
	size_t used = strlen(r->env_ldpath);
	snprintf(r->env_ldpath + used, sizeof(r->env_ldpath) - used, "%s%s%s", used ? ":" : "",
		 r->o->root, dir);
}

/* With --root the ld cache is the image's, not ours: use its ld.so.conf.d, in order. */
static void compute_env(struct run *r)
{
	const struct validate_options *o = r->o;
	r->env_ldpath[0] = '\0';
	if (o->env_mode == VALIDATE_ENV_LIBRARY_PATH) {
		snprintf(r->env_ldpath, sizeof(r->env_ldpath), "%s/current/lib", o->prefix);
		return;
	}
	if (*o->root)
		env_ld_conf_dirs(o->root, append_root_dir, r);
}

/* ---- steps 2-4 ---- */

static void check_library(struct run *r)
{
	char *const args[] = { "library", (char *)r->dir, r->major, r->m->cudnn_version,
			       r->m->cuda_variant, NULL };
	probe_step(r, 2, "library", PROBE_TIMEOUT, args);
}

static void check_resolution(struct run *r, int is_current)
{
	char mine[PATH_MAX], why[1024];
	if (!is_current) {
		add(r, 3, "resolution", "skip", "not the current install");
		return;
	}
	char *path = xasprintf("%s/lib/libcudnn.so.%s", r->dir, r->major);
	int ok = realpath(path, mine) != NULL;
	free(path);
	char *const args[] = { "resolve", r->major, NULL };
	json_t *o = probe_step(r, 3, "resolution", PROBE_TIMEOUT, args);
	const char *got = json_string_value(json_object_get(o, "path"));
	if (!ok || !got)
		return;
	if (strcmp(got, mine) == 0) {
		snprintf(why, sizeof(why), "a program loading libcudnn.so.%s gets the install (%s)", r->major, got);
	} else {
		snprintf(why, sizeof(why), "a program loading libcudnn.so.%s gets %s (cuDNN %s), not the "
			 "install: remove that copy or its directory from the ld cache "
			 "(/etc/ld.so.conf.d) or LD_LIBRARY_PATH, then run ldconfig (unpacker doctor "
			 "lists every copy)", r->major, got,
			 json_string_value(json_object_get(o, "version")));
		json_object_set_new(o, "status", json_string("fail"));
		r->failed = 1;
	}
	json_object_set_new(o, "detail", json_string(why));
}

static const char *component_of(const char *lib)
{
	if (strncmp(lib, "libcublas", 9) == 0)
		return "libcublas";
	if (strncmp(lib, "libnvrtc", 8) == 0)
		return "cuda_nvrtc";
	return NULL;
}

static void check_deps(struct run *r)
{
	char *const args[] = { "deps", (char *)r->dir, r->m->cuda_variant, NULL };
	json_t *o = probe_step(r, 4, "dependencies", PROBE_TIMEOUT, args);
	json_t *libs = json_object_get(o, "libraries"), *v;
	const char *name;
	char why[1024] = "";
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

static int find_libcuda(const struct validate_options *o, char *out, size_t size)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu",
					    "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
					    "/usr/lib/wsl/lib", NULL };
	char real[PATH_MAX];
	if (!*o->root) {
		/* The ld cache first: where the driver's installer registered it. */
		out[0] = '\0';
		struct first_native hit = { out, size };
		env_ld_cache_find("libcuda.so.1", first_native, &hit);
		if (out[0])
			return 0;
	}
	for (size_t i = 0; dirs[i]; i++) {
		char *p = xasprintf("%s%s/libcuda.so.1", o->root, dirs[i]);
		int ok = realpath(p, real) != NULL;
		if (ok)
			snprintf(out, size, "%s", p);
		free(p);
		if (ok)
			return 0;
	}
	return -1;
}

/* "580.159.04" from the kernel module, or from the library's file name. */
static void driver_version(const struct validate_options *o, const char *libcuda, char *out, size_t size)
{
	char *path = xasprintf("%s/proc/driver/nvidia/version", o->root), *text, real[PATH_MAX];
	out[0] = '\0';
	if (io_read_file(path, 1 << 16, &text, NULL) == 0) {
		const char *p = strstr(text, "Kernel Module");
		if (p) {
			p += strcspn(p, "0123456789");
			snprintf(out, size, "%.*s", (int)strspn(p, "0123456789."), p);
		}
		free(text);
	}
	free(path);
	if (!out[0] && realpath(libcuda, real)) {
		const char *v = strstr(real, ".so.");
		if (v)
			snprintf(out, size, "%s", v + 4);
	}
}

static void check_driver_and_compute(struct run *r)
{
	char libcuda[PATH_MAX], version[64], why[1024];
	if (find_libcuda(r->o, libcuda, sizeof(libcuda)) != 0) {
		const char *skip = r->o->require_gpu ? "fail" : "skip";
		add(r, 5, "driver", skip, "no NVIDIA driver (libcuda.so.1 not found)");
		add(r, 6, "compute", skip, "no NVIDIA driver");
		r->incompatible |= r->o->require_gpu;
		return;
	}
	driver_version(r->o, libcuda, version, sizeof(version));
	char *const args[] = { "driver", libcuda, NULL };
	json_t *o = probe_step(r, 5, "driver", PROBE_TIMEOUT, args);
	json_t *gpus = json_object_get(o, "gpus");
	json_object_set_new(o, "driver_version", json_string(version));
	json_object_set_new(o, "libcuda", json_string(libcuda));
	if (!gpus) {
		add(r, 6, "compute", "skip", "no usable driver");
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
		snprintf(cc, sizeof(cc), "%lld.%lld", json_integer_value(json_object_get(gpu, "cc_major")),
			 json_integer_value(json_object_get(gpu, "cc_minor")));
		int old = r->m->cc_min && compat_version_cmp_full(cc, r->m->cc_min) < 0;
		used += (size_t)snprintf(why + used, sizeof(why) - used, "; GPU %zu %s, %.0f GiB, sm %s%s", i,
					 json_string_value(json_object_get(gpu, "name")),
					 (double)json_integer_value(json_object_get(gpu, "memory_bytes")) / 1073741824.0,
					 cc, old ? " (not supported by this cuDNN)" : "");
		bad |= old;
		if (used >= sizeof(why))
			used = sizeof(why) - 1;
	}
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
		add(r, 6, "compute", r->o->require_gpu ? "fail" : "skip", "no GPU");
		return;
	}
	json_array_foreach(gpus, i, gpu) {
		if (r->o->gpu >= 0 && (size_t)r->o->gpu != i)
			continue;
		char idx[24];
		snprintf(idx, sizeof(idx), "%zu", i);
		char *const cargs[] = { "compute", libcuda, (char *)r->dir, r->major, idx,
					r->o->quick ? "1" : "0", "1", NULL };
		json_t *lines;
		if (run_probe(r, COMPUTE_TIMEOUT, cargs, &lines, why, sizeof(why)) != 0) {
			char d[1100];
			snprintf(d, sizeof(d), "GPU %zu: %s", i, why);
			add(r, 6, "compute", "fail", d);
		}
		size_t k;
		json_t *line;
		json_array_foreach(lines, k, line) {
			json_object_set_new(line, "step", json_integer(6));
			if (strcmp(json_string_value(json_object_get(line, "status")), "fail") == 0)
				r->failed = 1;
			json_array_append(r->checks, line);
		}
		json_decref(lines);
	}
}

/* ---- report ---- */

static void print_table(const struct run *r)
{
	size_t i;
	json_t *c;
	log_out("%-4s %-13s %-6s %s\n", "step", "check", "result", "detail");
	json_array_foreach(r->checks, i, c) {
		const char *check = json_string_value(json_object_get(c, "check"));
		char label[64];
		json_t *gpu = json_object_get(c, "gpu");
		if (gpu)
			snprintf(label, sizeof(label), "%s gpu%lld", check, json_integer_value(gpu));
		else
			snprintf(label, sizeof(label), "%s", check);
		log_out("%-4lld %-13s %-6s %s%s%s\n", json_integer_value(json_object_get(c, "step")), label,
			json_string_value(json_object_get(c, "status")),
			json_string_value(json_object_get(c, "shape")) ? json_string_value(json_object_get(c, "shape")) : "",
			json_string_value(json_object_get(c, "shape")) ? ": " : "",
			json_string_value(json_object_get(c, "detail")));
		static const char *const kinds[] = { "forward", "backward_data", "backward_filter", "engines" };
		for (size_t k = 0; k < 4; k++) {
			size_t j;
			json_t *a;
			json_array_foreach(json_object_get(c, kinds[k]), j, a) {
				json_t *err = json_object_get(a, "error"), *skip = json_object_get(a, "skipped");
				json_t *ms = json_object_get(a, k < 3 ? "median_ms" : "ms");
				log_out("                        %-15s %s %-3lld %s%s%s%s%.3f ms%s\n", kinds[k],
					k < 3 ? "algo" : "engine",
					json_integer_value(json_object_get(a, k < 3 ? "algo" : "engine")),
					err ? "error: " : "", err ? json_string_value(err) : "",
					skip ? json_string_value(skip) : "", err || skip ? " " : "",
					ms ? json_real_value(ms) : 0.0,
					json_object_get(a, "mismatches") && json_integer_value(json_object_get(a, "mismatches"))
						? "  MISMATCH" : "");
			}
		}
	}
}

static void write_report(const struct run *r, const char *result)
{
	char now[32];
	manifest_format_time((int64_t)time(NULL), now);
	char *path = xasprintf("%s/.cuferry/report.json", r->dir), *text;
	json_t *report = NULL;
	if (io_read_file(path, 16 << 20, &text, NULL) == 0) {
		report = json_loads(text, 0, NULL);
		free(text);
	}
	if (!json_is_object(report)) {
		json_decref(report);
		report = json_object();
	}
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:O}", "validated_at", now, "result", result,
			      "cudnn_version", r->m->cudnn_version, "environment_ld_library_path",
			      r->env_ldpath, "checks", r->checks);
	json_object_set_new(report, "validation", v);
	text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (io_write_file_atomic(path, text, strlen(text), 0644) != 0)
		log_msg(LOG_WARN, "%s: %s", path, strerror(errno));
	free(text);
	free(path);
	json_decref(report);
}

int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e)
{
	struct run r = { .o = o, .dir = install_dir, .m = m, .checks = json_array() };
	snprintf(r.major, sizeof(r.major), "%.*s", (int)strcspn(m->cudnn_version, "."), m->cudnn_version);
	compute_env(&r);
	log_msg(LOG_INFO, "validating %s", install_dir);
	check_files(&r);
	check_library(&r);
	check_resolution(&r, is_current);
	check_deps(&r);
	check_driver_and_compute(&r);
	print_table(&r);
	write_report(&r, r.failed ? "fail" : "pass");
	json_decref(r.checks);
	if (r.incompatible)
		return cf_fail(e, CF_INCOMPATIBLE, "validation: the driver or GPU cannot run this cuDNN "
			       "(or no GPU with --require-gpu); see the table above");
	if (r.failed)
		return cf_fail(e, CF_VALIDATION, "validation failed; see the table above and %s/.cuferry/report.json",
			       install_dir);
	return CF_OK;
}

int validate_load_manifest(const char *install_dir, struct manifest **m, struct cf_err *e)
{
	char *path = xasprintf("%s/.cuferry/header.bin", install_dir), *data = NULL;
	size_t len;
	struct frame f;
	int rc = io_read_file(path, FRAME_CAP + 8, &data, &len) == 0 ? CF_OK
			 : cf_fail(e, CF_VALIDATION, "%s: cannot read", path);
	if (rc == CF_OK && (len < 8 || frame_le32((uint8_t *)data) != FRAME_MAGIC))
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
