/* probe.c - child side of validation: load cuDNN and the driver, report what happened */
#include "unpacker/validate/probe.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/compat.h"
#include "unpacker/validate/cusparseltcheck.h"
#include "unpacker/validate/gpucheck.h"
#include "unpacker/validate/gpuapi.h"
#include "unpacker/validate/mapped.h"
#include "unpacker/validate/ncclcheck.h"
#include "unpacker/validate/unprivileged.h"

/* The pipe the parent reads: set by probe_main, never stdout or stderr. */
static int report_fd = -1;

/* Write one result as a JSON line on the report pipe (the parent reads them) and release it. */
static void probe_emit(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	size_t len = s ? strlen(s) : 0, done = 0;
	if (s)
		s[len++] = '\n'; /* replaces the NUL: written by length below */
	while (s && report_fd >= 0 && done < len) {
		ssize_t n = platform_write(report_fd, s + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	free(s);
	json_decref(o);
}

/* A result line: {check, status, detail}. */
static json_t *probe_result(const char *check, const char *status, const char *detail)
{
	return json_pack("{s:s, s:s, s:s}", "check", check, "status", status, "detail", detail);
}

/* 0 when this (unprivileged) process can read path; else emits a failed check naming the
 * directory that blocks it, and -1. */
static int probe_readable(const char *path, const char *check)
{
	char blocker[1024], why[1400];
	if (unprivileged_can_read(path, blocker, sizeof(blocker)) == 0)
		return 0;
	snprintf(why, sizeof(why), "the install is not readable by the unprivileged user the "
		 "check runs as (uid %lu): %s blocks it (make it and its parents o+rx)",
		 platform_user_id(), blocker);
	probe_emit(probe_result(check, "fail", why));
	return -1;
}

static void cudnn_version_text(size_t v, char *out, size_t size)
{
	if (v >= 90000)
		snprintf(out, size, "%zu.%zu.%zu", v / 10000, v % 10000 / 100, v % 100);
	else
		snprintf(out, size, "%zu.%zu.%zu", v / 1000, v % 1000 / 100, v % 100);
}

static void *load_cudnn(const char *path, struct cudnn_api *api, json_t **failure)
{
	char missing[128];
	void *lib = platform_lib_open(path, PLATFORM_LIB_NOW);
	if (!lib) {
		*failure = probe_result("library", "fail", platform_lib_error());
		return NULL;
	}
	if (gpuapi_cudnn(lib, api, missing, sizeof(missing)) != 0) {
		char why[256];
		snprintf(why, sizeof(why), "%s does not export %s", path, missing);
		*failure = probe_result("library", "fail", why);
		return NULL;
	}
	return lib;
}

/* library DIR MAJOR VERSION VARIANT: load by absolute path, versions, sub-libraries' paths. */
static int probe_library(char **a)
{
	const char *dir = a[0], *major = a[1], *want = a[2], *variant = a[3];
	char *path = gpuapi_cudnn_path(dir, major), got[32], why[512];
	char real[PATH_MAX], libdir[PATH_MAX];
	struct cudnn_api api;
	json_t *failure = NULL;
	if (probe_readable(path, "library") != 0)
		return 1;
	if (platform_realpath(dir, real, sizeof(real)) != 0) {
		probe_emit(probe_result("library", "fail", "install directory missing"));
		return 1;
	}
	char *in = gpuapi_cudnn_dir(real);
	snprintf(libdir, sizeof(libdir), "%s%c", in, gpuapi_separator);
	free(in);
	if (!load_cudnn(path, &api, &failure)) {
		probe_emit(failure);
		return 1;
	}
	size_t v = api.GetVersion(), cudart = api.GetCudartVersion();
	cudnn_version_text(v, got, sizeof(got));
	json_t *o = probe_result("library", "pass", "");
	json_object_set_new(o, "probe_uid", json_integer((json_int_t)platform_user_id()));
	char held[640];
	if (platform_privilege_report(held, sizeof(held)) == 0)
		json_object_set_new(o, "probe_rights", json_string(held));
	json_object_set_new(o, gpuapi_version_key, json_string(got));
	json_object_set_new(o, "cudart_version", json_integer((json_int_t)cudart));
	const char *bad = NULL;
	if (compat_version_cmp(got, want) != 0) {
		snprintf(why, sizeof(why), "cudnnGetVersion() says %s, the manifest %s", got, want);
		bad = why;
	} else if ((long)(cudart / 1000) != atol(variant)) {
		snprintf(why, sizeof(why), "cudnnGetCudartVersion() says %zu, not CUDA %s", cudart, variant);
		bad = why;
	}
	/* Load each sub-library too: a missing dependency (zlib) or a copy from elsewhere shows. */
	struct platform_dir *d = platform_dir_open(libdir);
	const char *name;
	while (!bad && d && (name = platform_dir_next(d)) != NULL) {
		if (!gpuapi_cudnn_sublibrary(name, major))
			continue;
		char *sub = xasprintf("%s%s", libdir, name);
		if (!platform_lib_open(sub, PLATFORM_LIB_NOW)) {
			snprintf(why, sizeof(why), "%s does not load: %s", name, platform_lib_error());
			bad = why;
		}
		free(sub);
	}
	if (d)
		platform_dir_close(d);
	static const char *const cudnn_libs[] = { gpuapi_cudnn_files, NULL };
	json_t *libs = mapped_libraries(cudnn_libs, MAPPED_REAL);
	size_t i;
	json_t *p;
	json_array_foreach(libs, i, p) {
		if (!bad && strncmp(json_string_value(p), libdir, strlen(libdir)) != 0) {
			snprintf(why, sizeof(why), "%s was loaded from outside the install",
				 json_string_value(p));
			bad = why;
		}
	}
	json_object_set_new(o, "loaded", libs);
	if (bad) {
		json_object_set_new(o, "status", json_string("fail"));
		json_object_set_new(o, "detail", json_string(bad));
	} else {
		snprintf(why, sizeof(why), "cuDNN %s (CUDA runtime %zu), %zu libraries, all from the "
			 "install", got, cudart, json_array_size(json_object_get(o, "loaded")));
		json_object_set_new(o, "detail", json_string(why));
	}
	probe_emit(o);
	free(path);
	return bad ? 1 : 0;
}

/* What a loaded copy's cudnnGetVersion() says; 0, or -1 when it has none. */
static int loaded_version(void *lib, char *out, size_t size)
{
	size_t (*version)(void) = (size_t(*)(void))platform_lib_symbol(lib, "cudnnGetVersion");
	if (!version)
		return -1;
	cudnn_version_text(version(), out, size);
	return 0;
}

/* load PATH: a product's main library whose version call this probe does not know (NCCL's
 * version is read by its GPU check, step 6), loaded by absolute path with every symbol bound
 * now (a missing dependency shows), nothing called. */
static int probe_load(char **a)
{
	char why[PATH_MAX + 512];
	if (probe_readable(a[0], "library") != 0)
		return 1;
	void *lib = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!lib) {
		snprintf(why, sizeof(why), "%s does not load: %s", a[0], platform_lib_error());
		probe_emit(probe_result("library", "fail", why));
		return 1;
	}
	snprintf(why, sizeof(why), "%s loads (loaded only: its version is not called here)", a[0]);
	json_t *o = probe_result("library", "pass", why);
	json_object_set_new(o, "probe_uid", json_integer((json_int_t)platform_user_id()));
	probe_emit(o);
	return 0;
}

/* version FILE: one copy, loaded by its absolute path (never searched for by name), and what
 * its cudnnGetVersion() says: doctor's version of a copy whose name and headers do not say. */
static int probe_version(char **a)
{
	char got[32], why[PATH_MAX + 64];
	if (a[0][0] != '/') {
		probe_emit(probe_result("library", "fail", "not an absolute path"));
		return 1;
	}
	if (probe_readable(a[0], "library") != 0)
		return 1;
	void *lib = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!lib || loaded_version(lib, got, sizeof(got)) != 0) {
		snprintf(why, sizeof(why), "%s", lib ? "it has no cudnnGetVersion" : platform_lib_error());
		probe_emit(probe_result("library", "fail", why));
		return 1;
	}
	json_t *o = probe_result("library", "pass", a[0]);
	json_object_set_new(o, "probe_uid", json_integer((json_int_t)platform_user_id()));
	json_object_set_new(o, "version", json_string(got));
	json_object_set_new(o, "version_call", json_string("cudnnGetVersion"));
	probe_emit(o);
	return 0;
}

/* driver LIBCUDA: devices, names, memory and compute capability. */
static int probe_driver(char **a)
{
	struct cuda_api cu;
	char missing[128], why[256];
	void *lib = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!lib || gpuapi_cuda(lib, &cu, missing, sizeof(missing)) != 0) {
		snprintf(why, sizeof(why), "%s: %s", a[0], lib ? missing : platform_lib_error());
		probe_emit(probe_result("driver", "fail", why));
		return 1;
	}
	int rc = cu.Init(0), version = 0, count = 0;
	if (rc != 0) {
		snprintf(why, sizeof(why), "cuInit failed: %s", gpuapi_cuda_error(&cu, rc));
		probe_emit(probe_result("driver", "fail", why));
		return 1;
	}
	cu.DriverGetVersion(&version);
	cu.DeviceGetCount(&count);
	json_t *gpus = json_array();
	for (int i = 0; i < count; i++) {
		cu_device dev;
		char name[256] = "";
		size_t mem = 0;
		int major = 0, minor = 0;
		cu.DeviceGet(&dev, i);
		cu.DeviceGetName(name, sizeof(name), dev);
		cu.DeviceTotalMem(&mem, dev);
		cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		json_array_append_new(gpus, json_pack("{s:i, s:s, s:I, s:i, s:i}", "index", i, "name",
						      name, "memory_bytes", (json_int_t)mem, "cc_major",
						      major, "cc_minor", minor));
	}
	json_t *o = probe_result("driver", "pass", "");
	json_object_set_new(o, "cuda_driver_api", json_integer(version));
	json_object_set_new(o, "gpus", gpus);
	probe_emit(o);
	return 0;
}

/* compute LIBCUDA DIR MAJOR GPU SHAPES GRAPH PRELOAD: the GPU checks (gpucheck.h), once the
 * unprivileged user is known to be able to read the library they load. PRELOAD: the CUDA
 * libraries cuDNN opens by name (cuBLASLt, cuBLAS, NVRTC), ':'-separated absolute paths
 * found as files by step 4, loaded first so that cuDNN's request by name gets these very
 * files ("-": none). */
static int probe_compute(char **a)
{
	char *lib = gpuapi_cudnn_path(a[1], a[2]);
	int readable = probe_readable(lib, "compute") == 0;
	free(lib);
	char *list = xstrdup(a[6]), *save = NULL;
	for (char *p = strtok_r(list, ":", &save); readable && p; p = strtok_r(NULL, ":", &save))
		if (p[0] == '/')
			platform_lib_open(p, PLATFORM_LIB_NOW); /* a failure shows where cuDNN needs it */
	free(list);
	return readable ? gpucheck_run(a, probe_emit) : 1;
}

/* allreduce LIBCUDA LIBNCCL: NCCL's check over every GPU this child sees (ncclcheck.h), once
 * the unprivileged user is known to be able to read the library it loads. */
static int probe_allreduce(char **a)
{
	if (a[1][0] != '/') {
		probe_emit(probe_result("compute", "fail", "not an absolute path"));
		return 1;
	}
	return probe_readable(a[1], "compute") == 0 ? ncclcheck_run(a, probe_emit) : 1;
}

/* spmma LIBCUDA LIBCUSPARSELT: cuSPARSELt's 2:4 sparse matmul on this child's one GPU
 * (cusparseltcheck.h), once the unprivileged user is known to be able to read the library. */
static int probe_spmma(char **a)
{
	if (a[1][0] != '/') {
		probe_emit(probe_result("compute", "fail", "not an absolute path"));
		return 1;
	}
	return probe_readable(a[1], "compute") == 0 ? cusparseltcheck_run(a, probe_emit) : 1;
}

int probe_main(int argc, char **argv)
{
	/* A crash inside a library must kill this child by its signal, so the parent can name
	 * it: no handler (a sanitizer's included) may turn it into an ordinary exit. */
	platform_crash_default();
	static const struct {
		const char *kind, *check;
		int nargs;
		int (*run)(char **);
	} kinds[] = {
		{ "library", "library", 4, probe_library }, { "driver", "driver", 1, probe_driver },
		{ "version", "library", 1, probe_version }, { "compute", "compute", 7, probe_compute },
		{ "load", "library", 1, probe_load }, { "allreduce", "compute", 3, probe_allreduce },
		{ "spmma", "compute", 2, probe_spmma },
	};
	int fd = argc >= 2 ? platform_inherited_handle(argv[0]) : -1;
	if (fd < 0) {
		fprintf(stderr, "unpacker: bad internal probe\n");
		return 2;
	}
	report_fd = fd;
	/* Only the report pipe and the standard streams stay open: a library in this child must
	 * not reach the parent's files or another probe's pipe. */
	platform_close_other_handles(report_fd);
	argc--, argv++;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[0], kinds[i].kind) != 0 || argc - 1 != kinds[i].nargs)
			continue;
		/* Before anything is loaded: no vendor code ever runs as root. */
		char why[256];
		if (platform_drop_privileges(why, sizeof(why)) != 0) {
			probe_emit(probe_result(kinds[i].check, "fail", why));
			return 1;
		}
		return kinds[i].run(argv + 1);
	}
	fprintf(stderr, "unpacker: bad internal probe\n");
	return 2;
}
