/* cusparseltcheck.c - one 2:4 structured-sparse matmul through cuSPARSELt, checked on the CPU.
 * The calls follow NVIDIA's own sample (NVIDIA/CUDALibrarySamples, cuSPARSELt/matmul):
 * descriptors, matmul descriptor, prune, prune check, algorithm selection, plan, compress,
 * matmul; the constants and the opaque objects are gpuapi.h's. */
#include "unpacker/validate/cusparseltcheck.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"
#include "unpacker/validate/gpuapi.h"

const char cusparseltcheck_name[] = "cusparselt-spmma";

/* D (M x N) = A (M x K, 2:4 sparse along K) * B (K x N), all row-major FP16: small, and every
 * dimension a multiple of the 16-element tiles cuSPARSELt's sparse kernels work in. */
enum { M = 64, N = 64, K = 64, ALIGN = 16 };

/* The sparse tensor cores that 2:4 sparsity runs on came with Ampere. */
#define SM_MIN_MAJOR 8

struct spmma {
	struct cuda_api cu;
	struct cusparselt_api lt;
	cu_device dev;
	cu_context ctx;
	int retained;
	struct cusparselt_opaque handle, mat_a, mat_b, mat_c, matmul, alg, plan;
	int inited, descs, alg_made, plan_made;
	cu_ptr a, b, c, valid, compressed, buffer, workspace;
	char version[32];
	json_t *phases;
	char why[512];
};

/* Half precision of the small integers the matrices hold, and back: exact both ways. */
static uint16_t to_half(float f)
{
	if (f == 0)
		return 0;
	uint16_t sign = f < 0 ? 0x8000 : 0;
	float a = fabsf(f);
	int e = 0;
	while (a >= 2.0f)
		a /= 2.0f, e++;
	while (a < 1.0f)
		a *= 2.0f, e--;
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)((a - 1.0f) * 1024.0f));
}

static float from_half(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	float m = (float)(h & 0x3ff);
	float v = e == 0 ? m / 1024.0f * 2.0f / 32768.0f : (1.0f + m / 1024.0f) * ldexpf(1.0f, e - 15);
	return h & 0x8000 ? -v : v;
}

/* Distinct, non-zero small integers (-3..3 without 0): every product and sum of K of them is an
 * integer FP16 holds exactly, so the GPU's result must equal the CPU's. */
static float a_at(size_t i) { float v = (float)((i * 5 + 1) % 6) - 2.5f; return v < 0 ? v - 0.5f : v + 0.5f; }
static float b_at(size_t i) { return (float)((i * 7 + 3) % 5) - 2.0f; }

static double now_ms(void)
{
	return platform_elapsed_s() * 1e3;
}

static void phase_done(struct spmma *s, const char *name, double since)
{
	json_object_set_new(s->phases, name, json_real(now_ms() - since));
}

/* A cuSPARSELt status: 0, or -1 with what failed. */
static int lt(struct spmma *s, int status, const char *what)
{
	if (status == CUSPARSE_STATUS_SUCCESS)
		return 0;
	snprintf(s->why, sizeof(s->why), "%s: %s (cusparseStatus_t %d)", what,
		 gpuapi_cusparselt_error(&s->lt, status), status);
	return -1;
}

static int cu(struct spmma *s, int status, const char *what)
{
	if (status == 0)
		return 0;
	snprintf(s->why, sizeof(s->why), "%s: %s", what, gpuapi_cuda_error(&s->cu, status));
	return -1;
}

static int open_libraries(struct spmma *s, char **a)
{
	char missing[128];
	void *cuda = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!cuda || gpuapi_cuda(cuda, &s->cu, missing, sizeof(missing)) != 0)
		return snprintf(s->why, sizeof(s->why), "driver: %s", cuda ? missing : platform_lib_error()), -1;
	void *lib = platform_lib_open(a[1], PLATFORM_LIB_NOW);
	if (!lib || gpuapi_cusparselt(lib, &s->lt, missing, sizeof(missing)) != 0)
		return snprintf(s->why, sizeof(s->why), "cuSPARSELt: %s", lib ? missing : platform_lib_error()), -1;
	int major = -1, minor = -1, patch = -1;
	if (s->lt.GetProperty && s->lt.GetProperty(CUSPARSELT_PROPERTY_MAJOR, &major) == 0 &&
	    s->lt.GetProperty(CUSPARSELT_PROPERTY_MINOR, &minor) == 0 &&
	    s->lt.GetProperty(CUSPARSELT_PROPERTY_PATCH, &patch) == 0)
		snprintf(s->version, sizeof(s->version), "%d.%d.%d", major, minor, patch);
	return 0;
}

/* The child's device 0: its compute capability, then its primary context (the one
 * cuSPARSELt's runtime uses) made current. 1 when the GPU is below sm 8.0. */
static int open_gpu(struct spmma *s, char *cc, size_t size)
{
	int major = 0, minor = 0;
	if (cu(s, s->cu.Init(0), "cuInit") || cu(s, s->cu.DeviceGet(&s->dev, 0), "cuDeviceGet") ||
	    cu(s, s->cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s->dev),
	       "its compute capability") ||
	    cu(s, s->cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s->dev),
	       "its compute capability"))
		return -1;
	snprintf(cc, size, "%d.%d", major, minor);
	if (major < SM_MIN_MAJOR)
		return 1;
	if (cu(s, s->cu.DevicePrimaryCtxRetain(&s->ctx, s->dev), "its context"))
		return -1;
	s->retained = 1;
	return cu(s, s->cu.CtxSetCurrent(s->ctx), "its context");
}

static int upload(struct spmma *s)
{
	uint16_t host[M * K > K * N ? M * K : K * N];
	if (cu(s, s->cu.MemAlloc(&s->a, M * K * 2), "cuMemAlloc") ||
	    cu(s, s->cu.MemAlloc(&s->b, K * N * 2), "cuMemAlloc") ||
	    cu(s, s->cu.MemAlloc(&s->c, M * N * 2), "cuMemAlloc") ||
	    cu(s, s->cu.MemAlloc(&s->valid, sizeof(int)), "cuMemAlloc"))
		return -1;
	for (size_t i = 0; i < M * K; i++)
		host[i] = to_half(a_at(i));
	if (cu(s, s->cu.MemcpyHtoD(s->a, host, M * K * 2), "A to the GPU"))
		return -1;
	for (size_t i = 0; i < K * N; i++)
		host[i] = to_half(b_at(i));
	if (cu(s, s->cu.MemcpyHtoD(s->b, host, K * N * 2), "B to the GPU"))
		return -1;
	memset(host, 0, M * N * 2);
	return cu(s, s->cu.MemcpyHtoD(s->c, host, M * N * 2), "C to the GPU");
}

/* The handle and the descriptors of A (structured), B, C (dense) and of the matmul. */
static int describe(struct spmma *s)
{
	const struct cusparselt_api *l = &s->lt;
	if (lt(s, l->Init(&s->handle), "cusparseLtInit"))
		return -1;
	s->inited = 1;
	if (lt(s, l->StructuredDescriptorInit(&s->handle, &s->mat_a, M, K, K, ALIGN, CUDA_R_16F,
					      CUSPARSE_ORDER_ROW, CUSPARSELT_SPARSITY_50_PERCENT),
	       "cusparseLtStructuredDescriptorInit (A)"))
		return -1;
	s->descs = 1;
	if (lt(s, l->DenseDescriptorInit(&s->handle, &s->mat_b, K, N, N, ALIGN, CUDA_R_16F,
					 CUSPARSE_ORDER_ROW), "cusparseLtDenseDescriptorInit (B)"))
		return -1;
	s->descs = 2;
	if (lt(s, l->DenseDescriptorInit(&s->handle, &s->mat_c, M, N, N, ALIGN, CUDA_R_16F,
					 CUSPARSE_ORDER_ROW), "cusparseLtDenseDescriptorInit (C)"))
		return -1;
	s->descs = 3;
	return lt(s, l->MatmulDescriptorInit(&s->handle, &s->matmul, CUSPARSE_OPERATION_NON_TRANSPOSE,
					     CUSPARSE_OPERATION_NON_TRANSPOSE, &s->mat_a, &s->mat_b,
					     &s->mat_c, &s->mat_c, CUSPARSE_COMPUTE_32F),
		  "cusparseLtMatmulDescriptorInit");
}

/* A pruned in place to 2:4 by cuSPARSELt, which must then find it valid; the pruned A comes
 * back for the CPU, which checks the 2:4 pattern itself (at most two non-zeros in each four
 * along K). */
static int prune(struct spmma *s, float *pruned)
{
	uint16_t host[M * K];
	int valid = -1;
	if (lt(s, s->lt.SpMMAPrune(&s->handle, &s->matmul, (const void *)s->a, (void *)s->a,
				   CUSPARSELT_PRUNE_SPMMA_TILE, NULL), "cusparseLtSpMMAPrune") ||
	    lt(s, s->lt.SpMMAPruneCheck(&s->handle, &s->matmul, (const void *)s->a, (int *)s->valid, NULL),
	       "cusparseLtSpMMAPruneCheck") ||
	    cu(s, s->cu.CtxSynchronize(), "after pruning") ||
	    cu(s, s->cu.MemcpyDtoH(&valid, s->valid, sizeof(valid)), "the prune check's result") ||
	    cu(s, s->cu.MemcpyDtoH(host, s->a, sizeof(host)), "the pruned A"))
		return -1;
	if (valid != 0)
		return snprintf(s->why, sizeof(s->why), "cusparseLtSpMMAPruneCheck finds the matrix "
				"cusparseLtSpMMAPrune pruned not 2:4 (%d)", valid), -1;
	for (size_t i = 0; i < M * K; i += 4) {
		int nonzero = 0;
		for (size_t j = i; j < i + 4; j++)
			nonzero += (pruned[j] = from_half(host[j])) != 0;
		if (nonzero > 2)
			return snprintf(s->why, sizeof(s->why), "the pruned A is not 2:4: row %zu, columns "
					"%zu-%zu hold %d non-zeros", i / K, i % K, i % K + 3, nonzero), -1;
	}
	return 0;
}

/* The plan, A compressed for it, the matmul (alpha 1, beta 0) and a wait for it. */
static int multiply(struct spmma *s, size_t *compressed_size)
{
	const struct cusparselt_api *l = &s->lt;
	size_t workspace = 0, buffer = 0;
	if (lt(s, l->MatmulAlgSelectionInit(&s->handle, &s->alg, &s->matmul,
					    CUSPARSELT_MATMUL_ALG_DEFAULT),
	       "cusparseLtMatmulAlgSelectionInit"))
		return -1;
	s->alg_made = 1;
	if (lt(s, l->MatmulPlanInit(&s->handle, &s->plan, &s->matmul, &s->alg), "cusparseLtMatmulPlanInit"))
		return -1;
	s->plan_made = 1;
	if (lt(s, l->MatmulGetWorkspace(&s->handle, &s->plan, &workspace), "cusparseLtMatmulGetWorkspace") ||
	    lt(s, l->SpMMACompressedSize(&s->handle, &s->plan, compressed_size, &buffer),
	       "cusparseLtSpMMACompressedSize") ||
	    cu(s, s->cu.MemAlloc(&s->compressed, *compressed_size ? *compressed_size : 1), "cuMemAlloc") ||
	    cu(s, s->cu.MemAlloc(&s->buffer, buffer ? buffer : 1), "cuMemAlloc") ||
	    cu(s, s->cu.MemAlloc(&s->workspace, workspace ? workspace : 1), "cuMemAlloc") ||
	    lt(s, l->SpMMACompress(&s->handle, &s->plan, (const void *)s->a, (void *)s->compressed,
				   (void *)s->buffer, NULL), "cusparseLtSpMMACompress"))
		return -1;
	float alpha = 1.0f, beta = 0.0f;
	cu_stream streams[1] = { NULL };
	if (lt(s, l->Matmul(&s->handle, &s->plan, &alpha, (const void *)s->compressed,
			    (const void *)s->b, &beta, (const void *)s->c, (void *)s->c,
			    (void *)s->workspace, streams, 0), "cusparseLtMatmul"))
		return -1;
	return cu(s, s->cu.CtxSynchronize(), "after the matmul");
}

/* D against the CPU's product of the pruned A and B: how many elements differ, the first in
 * *first. */
static size_t compare(struct spmma *s, const float *pruned, size_t *first, float *got_first,
		      float *want_first)
{
	uint16_t host[M * N];
	size_t bad = 0;
	if (cu(s, s->cu.MemcpyDtoH(host, s->c, sizeof(host)), "D from the GPU"))
		return (size_t)-1;
	for (size_t i = M * N; i-- > 0;) {
		float want = 0;
		for (size_t k = 0; k < K; k++)
			want += pruned[i / N * K + k] * b_at(k * N + i % N);
		float got = from_half(host[i]);
		if (fabsf(got - want) > 1e-3f * (1.0f + fabsf(want))) {
			bad++;
			*first = i, *got_first = got, *want_first = want;
		}
	}
	return bad;
}

static void release(struct spmma *s)
{
	const struct cusparselt_api *l = &s->lt;
	if (s->plan_made)
		l->MatmulPlanDestroy(&s->plan);
	if (s->alg_made && l->MatmulAlgSelectionDestroy)
		l->MatmulAlgSelectionDestroy(&s->alg);
	const struct cusparselt_opaque *descs[] = { &s->mat_a, &s->mat_b, &s->mat_c };
	for (int i = 0; i < s->descs; i++)
		l->MatDescriptorDestroy(descs[i]);
	if (s->inited)
		l->Destroy(&s->handle);
	cu_ptr bufs[] = { s->a, s->b, s->c, s->valid, s->compressed, s->buffer, s->workspace };
	for (size_t i = 0; s->retained && i < sizeof(bufs) / sizeof(bufs[0]); i++)
		if (bufs[i])
			s->cu.MemFree(bufs[i]);
	if (s->retained)
		s->cu.DevicePrimaryCtxRelease(s->dev);
}

/* Every step in order, each phase timed: 0 passed, 1 failed, 2 skipped (below sm 8.0);
 * detail says which. */
static int run(struct spmma *s, char **a, char *detail, size_t size, size_t *mismatches)
{
	char cc[16] = "?";
	float *pruned = calloc(M * K, sizeof(float));
	size_t compressed = 0, first = 0;
	float got = 0, want = 0;
	int rc = pruned ? open_libraries(s, a) : -1;
	double t0 = now_ms();
	int gpu = rc ? -1 : open_gpu(s, cc, sizeof(cc));
	phase_done(s, "init", t0);
	if (gpu == 1) {
		free(pruned);
		snprintf(detail, size, "not supported on sm %s: cuSPARSELt's 2:4 sparse tensor cores "
			 "need sm %d.0 or newer", cc, SM_MIN_MAJOR);
		return 2;
	}
	t0 = now_ms();
	rc = gpu != 0 || upload(s) || describe(s) || prune(s, pruned);
	phase_done(s, "prune", t0);
	t0 = now_ms();
	rc = rc || multiply(s, &compressed);
	phase_done(s, "matmul", t0);
	*mismatches = rc ? M * N : compare(s, pruned, &first, &got, &want);
	free(pruned);
	if (rc || *mismatches == (size_t)-1) {
		*mismatches = M * N;
		snprintf(detail, size, "%s", s->why[0] ? s->why : "out of memory");
		return 1;
	}
	if (*mismatches)
		snprintf(detail, size, "%zu of %d elements differ from the CPU product of the pruned A "
			 "(row %zu, column %zu: %.9g, CPU %.9g)", *mismatches, M * N, first / N,
			 first % N, (double)got, (double)want);
	else
		snprintf(detail, size, "every element equals the CPU product of the pruned A (2:4 "
			 "checked on the CPU too; A compressed to %zu bytes)", compressed);
	return *mismatches ? 1 : 0;
}

int cusparseltcheck_run(char **a, void (*emit)(json_t *result))
{
	struct spmma *s = calloc(1, sizeof(*s));
	if (!s)
		return 1;
	s->phases = json_object();
	snprintf(s->version, sizeof(s->version), "?");
	char detail[768], shape[80];
	size_t mismatches = 0;
	snprintf(shape, sizeof(shape), "%dx%dx%d, FP16 in and out, FP32 compute", M, N, K);
	int rc = run(s, a, detail, sizeof(detail), &mismatches);
	char full[256];
	snprintf(full, sizeof(full), "cuSPARSELt %s 2:4 sparse matmul %s", s->version, shape);
	emit(json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:O}", "check", "compute", "shape",
		       full, "status", rc == 0 ? "pass" : rc == 2 ? "skip" : "fail", "detail", detail,
		       "elements", (json_int_t)(M * N), "mismatches", (json_int_t)mismatches,
		       "cusparselt_version", s->version, "tolerance", "1e-3 relative (exact integers)",
		       "phases_ms", s->phases));
	release(s);
	json_decref(s->phases);
	free(s);
	return rc == 1;
}
