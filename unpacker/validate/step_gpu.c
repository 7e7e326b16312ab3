/* step_gpu.c - steps 5-6: the host's driver and every GPU, each probe in a clean child */
#include "unpacker/validate/step_gpu.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/compat.h"
#include "common/fault.h"
#include "manifests/product.h"
#include "unpacker/validate/cusparseltcheck.h"
#include "unpacker/validate/gpuapi.h"
#include "unpacker/validate/gpucaps.h"
#include "unpacker/validate/gpucheck.h"
#include "unpacker/validate/libname.h"
#include "unpacker/validate/ncclcheck.h"
#include "unpacker/validate/probereport.h"
#include "unpacker/validate/proberun.h"

#define MAX_GPUS 64

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
	int gpu;               /* -1: every GPU in one child (NCCL's), whose rows name their GPU */
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
	j->probe_failed = probe_run(j->visible[0] ? j->visible : NULL, probe_timeout(COMPUTE_TIMEOUT),
				    j->args, &j->lines, j->why, sizeof(j->why)) != 0;
	j->seconds = platform_elapsed_s() - t0;
	size_t k;
	json_t *line;
	pthread_mutex_lock(j->r->lock);
	if (platform_is_terminal(1 /* stdout */))
		printf("\r\033[K");
	if (j->probe_failed) {
		char d[1100];
		if (j->gpu >= 0)
			snprintf(d, sizeof(d), "GPU %d: %s", j->gpu, j->why);
		else
			snprintf(d, sizeof(d), "all GPUs in one child: %s", j->why);
		json_decref(j->lines);
		j->lines = json_array();
		json_array_append_new(j->lines, json_pack("{s:s, s:s, s:s}", "check",
							  j->graph ? "graph" : "compute", "status", "fail",
							  "detail", d));
	}
	json_array_foreach(j->lines, k, line) {
		json_object_set_new(line, "step", json_integer(6));
		report_tag(j->r, line);
		if (j->gpu >= 0)
			json_object_set_new(line, "gpu", json_integer(j->gpu));
		report_print_row(line);
	}
	pthread_mutex_unlock(j->r->lock);
	return NULL;
}

/* A finished job's rows (already printed) and its time, as timing name, into the run. */
static void collect_job(struct run *r, struct gpu_job *j, const char *name)
{
	json_object_set_new(r->timings, name, json_real(j->seconds));
	size_t k;
	json_t *line;
	json_array_foreach(j->lines, k, line) {
		if (strcmp(json_string_value(json_object_get(line, "status")), "fail") == 0)
			r->failed = 1;
		json_array_append(r->checks, line);
	}
	json_decref(j->lines);
	r->printed = json_array_size(r->checks);
}

/* The child of GPU i sees it alone, as its device 0 (CUDA_VISIBLE_DEVICES): the driver of
 * each child started at once initialises one GPU, not all. */
static void see_one_gpu(struct gpu_job *j, size_t i)
{
	snprintf(j->visible, sizeof(j->visible), "CUDA_VISIBLE_DEVICES=%zu", i);
}

/* The jobs of step 6, n of them, each in a thread of its own, all in parallel; what the
 * progress line says while they run. Each job's rows, once joined, go into the run under the
 * timing name compute_gpuK (graph_gpuK for the backend graph's). */
static void run_jobs(struct run *r, struct gpu_job *jobs, size_t n, const char *what)
{
	pthread_t *threads = xcalloc(n ? n : 1, sizeof(*threads));
	int *started = xcalloc(n ? n : 1, sizeof(*started));
	for (size_t i = 0; i < n; i++) {
		started[i] = pthread_create(&threads[i], NULL, gpu_job_run, &jobs[i]) == 0;
		if (!started[i])
			gpu_job_run(&jobs[i]);
	}
	report_progress(r, what);
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		char name[32];
		snprintf(name, sizeof(name), "%s_gpu%d", jobs[i].graph ? "graph" : "compute", jobs[i].gpu);
		collect_job(r, &jobs[i], name);
	}
	r->gpu_checked = n > 0;
	free(threads);
	free(started);
}

/* Step 6 on every selected GPU at once: per GPU one child for the convolutions and one for
 * the backend graph (whose runtime compilation then overlaps the convolutions), all in
 * parallel. */
static void convolutions_all(struct run *r, const char *libcuda, size_t ngpus)
{
	size_t max = 2 * (ngpus < MAX_GPUS ? ngpus : MAX_GPUS), n = 0;
	struct gpu_job *jobs = calloc(max ? max : 1, sizeof(*jobs));
	char what[128];
	report_flush(r);
	for (size_t i = 0; jobs && i < ngpus && i < MAX_GPUS; i++) {
		if (r->o->gpu >= 0 && (size_t)r->o->gpu != i)
			continue;
		for (int graph = 0; graph < 2; graph++) {
			struct gpu_job *j = &jobs[n];
			j->r = r;
			j->gpu = (int)i;
			j->graph = graph;
			char point[32];
			snprintf(point, sizeof(point), "gpu%zu", i);
			see_one_gpu(j, i);
			/* Test build only (CUFERRY_FAULT=gpuK): an ordinal no machine has, for GPU K. */
			snprintf(j->idx, sizeof(j->idx), "%d", install_fault_here(point) ? 999999 : 0);
			/* QUICK: 0 both shapes, 1 the small one, 2 none (the graph job) */
			char *const a[] = { "compute", (char *)libcuda, (char *)r->dir, r->major, j->idx,
					    graph ? "2" : r->o->quick ? "1" : "0", graph ? "1" : "0",
					    r->preload[0] ? r->preload : "-", NULL };
			memcpy(j->args, a, sizeof(a));
			n++;
		}
	}
	snprintf(what, sizeof(what), "step 6 compute on %zu GPU%s", n / 2, n == 2 ? "" : "s in parallel");
	run_jobs(r, jobs, n, what);
	free(jobs);
}

/* Step 6 for cuSPARSELt: one child per selected GPU, all in parallel, each one 2:4 sparse
 * matmul on its GPU (cusparseltcheck.c). */
static void spmma_all(struct run *r, const char *libcuda, size_t ngpus)
{
	size_t n = 0;
	struct gpu_job *jobs = calloc(ngpus ? ngpus : 1, sizeof(*jobs));
	char *lib = libname_main_path(r->product, r->dir, r->major), what[128];
	report_flush(r);
	for (size_t i = 0; jobs && i < ngpus && i < MAX_GPUS; i++) {
		if (r->o->gpu >= 0 && (size_t)r->o->gpu != i)
			continue;
		struct gpu_job *j = &jobs[n++];
		*j = (struct gpu_job){ .r = r, .gpu = (int)i };
		see_one_gpu(j, i);
		char *const a[] = { "spmma", (char *)libcuda, lib, NULL };
		memcpy(j->args, a, sizeof(a));
	}
	snprintf(what, sizeof(what), "step 6 cuSPARSELt 2:4 sparse matmul on %zu GPU%s", n,
		 n == 1 ? "" : "s in parallel");
	run_jobs(r, jobs, n, what);
	free(jobs);
	free(lib);
}

/* Step 6 for NCCL: one child for every GPU, since NCCL's communicators of one process
 * (ncclCommInitAll) must all live in that process; --gpu K gives it GPU K alone. */
static void allreduce_all(struct run *r, const char *libcuda, size_t ngpus)
{
	struct gpu_job j = { .r = r, .gpu = r->o->gpu };
	char *lib = libname_main_path(r->product, r->dir, r->major);
	char *const a[] = { "allreduce", (char *)libcuda, lib, (char *)r->version, NULL };
	memcpy(j.args, a, sizeof(a));
	if (j.gpu >= 0)
		snprintf(j.visible, sizeof(j.visible), "CUDA_VISIBLE_DEVICES=%d", j.gpu);
	char what[128];
	report_flush(r);
	snprintf(what, sizeof(what), "step 6 NCCL all-reduce over %zu GPU%s", j.gpu >= 0 ? 1 : ngpus,
		 j.gpu >= 0 || ngpus == 1 ? "" : "s");
	report_progress(r, what);
	gpu_job_run(&j);
	collect_job(r, &j, "allreduce");
	r->gpu_checked = 1;
	free(lib);
}

/* The GPU checks this unpacker has, by the name a product's descriptor gives its check:
 * what runs step 6 on the driver's ngpus GPUs, and whether step 2's library probe and
 * doctor's version call know the product's library (cuDNN's cudnnGetVersion). */
static const struct gpu_check {
	const char *name;
	void (*run)(struct run *r, const char *libcuda, size_t ngpus);
	int reads_version;
} gpu_checks[] = {
	{ gpucheck_name, convolutions_all, 1 },
	{ ncclcheck_name, allreduce_all, 0 },
	{ cusparseltcheck_name, spmma_all, 0 },
};

static const struct gpu_check *check_of(const struct product *p)
{
	for (size_t i = 0; p->gpu_check && i < sizeof(gpu_checks) / sizeof(gpu_checks[0]); i++)
		if (strcmp(p->gpu_check, gpu_checks[i].name) == 0)
			return &gpu_checks[i];
	return NULL;
}

int step_gpu_has_check(const struct product *p)
{
	return check_of(p) != NULL;
}

int step_gpu_reads_version(const struct product *p)
{
	const struct gpu_check *c = check_of(p);
	return c && c->reads_version;
}

/* Whether any product of r's unit has a GPU check here: else steps 5-6 say so and stop. */
static int unit_has_check(const struct run *r)
{
	size_t n = r->m ? manifest_product_count(r->m) : 1;
	for (size_t i = 0; i < n; i++)
		if (check_of(r->m ? manifest_product_at(r->m, i) : r->product))
			return 1;
	return 0;
}

struct product_check {
	struct run run;
	const char *libcuda;
	size_t ngpus;
};

/* Step 6 of one product of the unit: its check, or a row saying it has none. */
static void *product_check_run(void *arg)
{
	struct product_check *pc = arg;
	struct run *r = &pc->run;
	const struct gpu_check *check = check_of(r->product);
	if (check) {
		check->run(r, pc->libcuda, pc->ngpus);
		return NULL;
	}
	char why[256];
	snprintf(why, sizeof(why), "no GPU check for %s in this unpacker", r->product->display);
	report_add(r, 6, "compute", r->o->require_gpu ? "fail" : "skip", why);
	r->incompatible |= r->o->require_gpu;
	report_flush(r);
	return NULL;
}

/* Step 6 of every product of the unit at once: the --with products' checks (NCCL's child over
 * every GPU) beside the unit's own (cuDNN's children per GPU), each in a thread of its own. */
static void unit_checks(struct run *r, const char *libcuda, size_t ngpus)
{
	size_t n = r->m ? manifest_product_count(r->m) - 1 : 0;
	struct product_check *pcs = xcalloc(n ? n : 1, sizeof(*pcs));
	pthread_t *threads = xcalloc(n ? n : 1, sizeof(*threads));
	int *started = xcalloc(n ? n : 1, sizeof(*started));
	for (size_t i = 0; i < n; i++) {
		report_run_for(r, i + 1, &pcs[i].run);
		pcs[i].libcuda = libcuda;
		pcs[i].ngpus = ngpus;
		started[i] = pthread_create(&threads[i], NULL, product_check_run, &pcs[i]) == 0;
	}
	struct product_check own = { .run = *r, .libcuda = libcuda, .ngpus = ngpus };
	product_check_run(&own);
	*r = own.run;
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		else
			product_check_run(&pcs[i]);
		report_merge_product(r, &pcs[i].run);
	}
	free(pcs);
	free(threads);
	free(started);
}

void step_gpu(struct run *r)
{
	char libcuda[PATH_MAX], version[64], why[1024];
	if (!unit_has_check(r)) {
		const char *skip = r->o->require_gpu ? "fail" : "skip";
		snprintf(why, sizeof(why), "no GPU check for %s in this unpacker", r->product->display);
		report_add(r, 5, "driver", skip, why);
		report_add(r, 6, "compute", skip, why);
		r->incompatible |= r->o->require_gpu;
		return;
	}
	if (gpucaps_find_libcuda(libcuda, sizeof(libcuda)) != 0) {
		const char *skip = r->o->require_gpu ? "fail" : "skip";
		char none[128];
		snprintf(none, sizeof(none), "no NVIDIA driver (%s not found): the GPU was not checked",
			 gpuapi_driver_name);
		report_add(r, 5, "driver", skip, none);
		report_add(r, 6, "compute", skip, "no NVIDIA driver: the GPU was not checked");
		r->incompatible |= r->o->require_gpu;
		return;
	}
	driver_version(libcuda, version, sizeof(version));
	char *const args[] = { "driver", libcuda, NULL };
	double t0 = platform_elapsed_s();
	json_t *o = report_probe(r, 5, "driver", PROBE_TIMEOUT, args);
	report_timing(r, "driver", t0);
	json_t *gpus = json_object_get(o, "gpus");
	json_object_set_new(o, "driver_version", json_string(version));
	json_object_set_new(o, "libcuda", json_string(libcuda));
	if (!gpus) {
		report_add(r, 6, "compute", "skip", "no usable driver: the GPU was not checked");
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
	char cc_min[16];
	compat_cc_floor(r->product, r->version, r->m->cuda_variant, r->m->platform,
			r->m->cc_min, cc_min, sizeof(cc_min));
	size_t i;
	json_t *gpu;
	json_array_foreach(gpus, i, gpu) {
		char cc[16];
		if (used >= sizeof(why))
			used = sizeof(why) - 1;
		snprintf(cc, sizeof(cc), "%lld.%lld", json_integer_value(json_object_get(gpu, "cc_major")),
			 json_integer_value(json_object_get(gpu, "cc_minor")));
		int old = cc_min[0] && compat_version_cmp_full(cc, cc_min) < 0;
		used += (size_t)snprintf(why + used, sizeof(why) - used, "; GPU %zu %s, %.0f GiB, sm %s%s%s%s", i,
					 json_string_value(json_object_get(gpu, "name")),
					 (double)json_integer_value(json_object_get(gpu, "memory_bytes")) / 1073741824.0,
					 cc, old ? " (not supported by this " : "",
					 old ? r->product->display : "", old ? ")" : "");
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
		report_add(r, 6, "compute", r->o->require_gpu ? "fail" : "skip", "no GPU: the GPU was not checked");
		return;
	}
	if (r->o->gpu >= 0 && (size_t)r->o->gpu >= json_array_size(gpus)) {
		snprintf(why, sizeof(why), "--gpu %d: there is no such GPU (%zu found)", r->o->gpu,
			 json_array_size(gpus));
		report_add(r, 6, "compute", "fail", why);
		return;
	}
	unit_checks(r, libcuda, json_array_size(gpus));
}
