/* ncclcheck.c - running NCCL's all-reduce over every GPU and checking its sums */
#include "unpacker/validate/ncclcheck.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/compat.h"
#include "unpacker/validate/gpuapi.h"

const char ncclcheck_name[] = "nccl-allreduce";

#define MAX_GPUS 64
/* 4 MiB of floats per GPU: large enough that NCCL takes its bandwidth path (ring or NVLS
 * chunks over every channel), small enough for any GPU's memory. */
#define COUNT ((size_t)1 << 20)
/* Each value is below this, so that any sum over MAX_GPUS GPUs stays below 2^24: every
 * sum is an integer a float holds exactly, whatever order NCCL adds in. */
#define VALUE_RANGE 4096u

struct peer {
	cu_device dev;
	cu_context ctx;
	int retained;
	cu_ptr send, recv;
};

struct allreduce {
	struct cuda_api cu;
	struct nccl_api nccl;
	int n;
	struct peer peers[MAX_GPUS];
	nccl_comm comms[MAX_GPUS];
	char version[32];
	json_t *phases; /* milliseconds per phase */
	char why[512];
};

/* GPU g's value at element i: distinct per GPU and per element, an exact small integer. */
static float value_at(int g, size_t i)
{
	return (float)((i * 7u + (size_t)g * 131u + (i >> 10)) % VALUE_RANGE);
}

static double now_ms(void)
{
	return platform_elapsed_s() * 1e3;
}

static void phase_done(struct allreduce *ar, const char *name, double since)
{
	json_object_set_new(ar->phases, name, json_real(now_ms() - since));
}

/* NCCL's version code: MAJOR*1000+MINOR*100+PATCH up to 2.8, MAJOR*10000+... since 2.9. */
static void version_text(int v, char *out, size_t size)
{
	if (v >= 20900)
		snprintf(out, size, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
	else
		snprintf(out, size, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
}

static int open_libraries(struct allreduce *ar, char **a, const char *want)
{
	char missing[128];
	void *cuda = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!cuda || gpuapi_cuda(cuda, &ar->cu, missing, sizeof(missing)) != 0)
		return snprintf(ar->why, sizeof(ar->why), "driver: %s", cuda ? missing : platform_lib_error()), -1;
	void *nccl = platform_lib_open(a[1], PLATFORM_LIB_NOW);
	if (!nccl || gpuapi_nccl(nccl, &ar->nccl, missing, sizeof(missing)) != 0)
		return snprintf(ar->why, sizeof(ar->why), "NCCL: %s", nccl ? missing : platform_lib_error()), -1;
	int v = 0;
	if (ar->nccl.GetVersion(&v) != NCCL_SUCCESS)
		return snprintf(ar->why, sizeof(ar->why), "ncclGetVersion failed"), -1;
	version_text(v, ar->version, sizeof(ar->version));
	/* The version the manifest states (from nccl.h or NVIDIA's JSON): a library of another release
	 * beside the headers is a mixed install even when it would sum correctly. */
	if (compat_version_cmp(ar->version, want) != 0)
		return snprintf(ar->why, sizeof(ar->why), "ncclGetVersion() says %s, the manifest %s",
				ar->version, want), -1;
	return 0;
}

/* Every GPU's primary context (the one NCCL's runtime uses) and its two buffers, the send
 * buffer filled with that GPU's data. */
static int upload(struct allreduce *ar)
{
	float *host = xmalloc(COUNT * sizeof(float));
	int rc = 0;
	for (int g = 0; g < ar->n && rc == 0; g++) {
		struct peer *p = &ar->peers[g];
		rc = ar->cu.DeviceGet(&p->dev, g);
		rc = rc ? rc : ar->cu.DevicePrimaryCtxRetain(&p->ctx, p->dev);
		p->retained = rc == 0;
		rc = rc ? rc : ar->cu.CtxSetCurrent(p->ctx);
		rc = rc ? rc : ar->cu.MemAlloc(&p->send, COUNT * sizeof(float));
		rc = rc ? rc : ar->cu.MemAlloc(&p->recv, COUNT * sizeof(float));
		for (size_t i = 0; rc == 0 && i < COUNT; i++)
			host[i] = value_at(g, i);
		rc = rc ? rc : ar->cu.MemcpyHtoD(p->send, host, COUNT * sizeof(float));
		if (rc)
			snprintf(ar->why, sizeof(ar->why), "GPU %d: its buffers: %s", g, gpuapi_cuda_error(&ar->cu, rc));
	}
	free(host);
	return rc ? -1 : 0;
}

/* One all-reduce per communicator, fused in one group (one thread drives every GPU), then
 * every GPU's default stream waited for. */
static int all_reduce(struct allreduce *ar)
{
	int rc = ar->nccl.GroupStart();
	for (int g = 0; g < ar->n && rc == NCCL_SUCCESS; g++)
		rc = ar->nccl.AllReduce((const void *)ar->peers[g].send, (void *)ar->peers[g].recv, COUNT,
					NCCL_FLOAT32, NCCL_SUM, ar->comms[g], NULL);
	int end = ar->nccl.GroupEnd();
	rc = rc ? rc : end;
	if (rc != NCCL_SUCCESS)
		return snprintf(ar->why, sizeof(ar->why), "ncclAllReduce over %d GPU%s: %s (ncclResult %d)",
				ar->n, ar->n == 1 ? "" : "s", gpuapi_nccl_error(&ar->nccl, rc), rc), -1;
	for (int g = 0; g < ar->n; g++) {
		int sync = ar->cu.CtxSetCurrent(ar->peers[g].ctx);
		sync = sync ? sync : ar->cu.CtxSynchronize();
		if (sync)
			return snprintf(ar->why, sizeof(ar->why), "GPU %d: after the all-reduce: %s", g,
					gpuapi_cuda_error(&ar->cu, sync)), -1;
	}
	return 0;
}

/* Each GPU's result against the CPU's sum, every element, exactly: one row per GPU, handed
 * to emit once all are copied back (the rows carry every phase's time). */
static int compare(struct allreduce *ar, void (*emit)(json_t *), const char *shape)
{
	float *sum = xmalloc(COUNT * sizeof(float)), *got = xmalloc(COUNT * sizeof(float));
	json_t *rows = json_array();
	int failed = 0;
	for (size_t i = 0; i < COUNT; i++) {
		unsigned long total = 0;
		for (int g = 0; g < ar->n; g++)
			total += (unsigned long)value_at(g, i);
		sum[i] = (float)total;
	}
	double copying = 0;
	for (int g = 0; g < ar->n; g++) {
		char detail[512];
		size_t bad = 0, first = 0;
		double t0 = now_ms();
		int copied = ar->cu.CtxSetCurrent(ar->peers[g].ctx) == 0 &&
			     ar->cu.MemcpyDtoH(got, ar->peers[g].recv, COUNT * sizeof(float)) == 0;
		copying += now_ms() - t0;
		for (size_t i = COUNT; copied && i-- > 0;)
			if (got[i] != sum[i]) {
				bad++;
				first = i;
			}
		if (!copied)
			bad = COUNT, snprintf(detail, sizeof(detail), "the result could not be copied back");
		else if (bad)
			snprintf(detail, sizeof(detail), "%zu of %zu elements differ from the CPU sum (element "
				 "%zu: %.9g, CPU sum %.9g)", bad, COUNT, first, (double)got[first],
				 (double)sum[first]);
		else
			snprintf(detail, sizeof(detail), "every element equals the CPU sum (communicators "
				 "%.1f ms, all-reduce %.2f ms)",
				 json_real_value(json_object_get(ar->phases, "init")),
				 json_real_value(json_object_get(ar->phases, "allreduce")));
		json_array_append_new(rows, json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I, s:s, s:O}",
						      "check", "compute", "gpu", g, "shape", shape,
						      "status", bad ? "fail" : "pass", "detail", detail,
						      "elements", (json_int_t)COUNT, "mismatches",
						      (json_int_t)bad, "nccl_version", ar->version,
						      "phases_ms", ar->phases));
		failed |= bad > 0;
	}
	json_object_set_new(ar->phases, "copy_back", json_real(copying));
	for (size_t i = 0; i < json_array_size(rows); i++)
		emit(json_incref(json_array_get(rows, i)));
	json_decref(rows);
	free(sum);
	free(got);
	return failed;
}

static void release(struct allreduce *ar)
{
	for (int g = 0; g < ar->n; g++) {
		struct peer *p = &ar->peers[g];
		if (p->retained && ar->cu.CtxSetCurrent(p->ctx) == 0) {
			if (p->send)
				ar->cu.MemFree(p->send);
			if (p->recv)
				ar->cu.MemFree(p->recv);
		}
		if (p->retained)
			ar->cu.DevicePrimaryCtxRelease(p->dev);
	}
}

/* The GPUs this process sees: 0, or -1 with why. */
static int count_gpus(struct allreduce *ar)
{
	int rc = ar->cu.Init(0);
	rc = rc ? rc : ar->cu.DeviceGetCount(&ar->n);
	if (rc)
		return snprintf(ar->why, sizeof(ar->why), "cuInit: %s", gpuapi_cuda_error(&ar->cu, rc)), -1;
	if (ar->n <= 0 || ar->n > MAX_GPUS)
		return snprintf(ar->why, sizeof(ar->why), "%d GPUs: NCCL's check runs on 1 to %d", ar->n,
				MAX_GPUS), -1;
	return 0;
}

/* One process, every GPU: ncclCommInitAll makes the n communicators of one clique. */
static int init_comms(struct allreduce *ar)
{
	int st = ar->nccl.CommInitAll(ar->comms, ar->n, NULL);
	if (st != NCCL_SUCCESS)
		return snprintf(ar->why, sizeof(ar->why), "ncclCommInitAll over %d GPU%s: %s (ncclResult %d)",
				ar->n, ar->n == 1 ? "" : "s", gpuapi_nccl_error(&ar->nccl, st), st), -1;
	return 0;
}

int ncclcheck_run(char **a, void (*emit)(json_t *result))
{
	struct allreduce *ar = calloc(1, sizeof(*ar));
	if (!ar)
		return 1;
	ar->phases = json_object();
	snprintf(ar->version, sizeof(ar->version), "?");
	int rc = open_libraries(ar, a, a[2]);
	rc = rc ? rc : count_gpus(ar);
	char shape[160];
	snprintf(shape, sizeof(shape), "NCCL %s all-reduce (sum) of %zu floats (%zu MiB) on each of %d GPU%s",
		 ar->version, COUNT, COUNT * sizeof(float) >> 20, ar->n, ar->n == 1 ? "" : "s");
	double t0 = now_ms();
	rc = rc ? rc : init_comms(ar);
	int inited = rc == 0;
	phase_done(ar, "init", t0);
	t0 = now_ms();
	rc = rc ? rc : upload(ar);
	phase_done(ar, "upload", t0);
	t0 = now_ms();
	rc = rc ? rc : all_reduce(ar);
	phase_done(ar, "allreduce", t0);
	t0 = now_ms();
	for (int g = 0; inited && g < ar->n; g++)
		ar->nccl.CommDestroy(ar->comms[g]);
	phase_done(ar, "destroy", t0);
	int failed = 1;
	if (rc == 0)
		failed = compare(ar, emit, shape);
	else
		emit(json_pack("{s:s, s:s, s:s, s:s, s:O}", "check", "compute", "shape", shape, "status",
			       "fail", "detail", ar->why, "phases_ms", ar->phases));
	release(ar);
	json_decref(ar->phases);
	free(ar);
	return failed;
}
