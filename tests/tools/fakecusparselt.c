/* fakecusparselt.c - a stand-in libcusparseLt.so.0 for tests on machines without a GPU: the
 * calls of the 2:4 sparse matmul check (unpacker/validate/cusparseltcheck.c) over the fake
 * driver's "GPUs", whose device pointers are host memory (fakecuda.c), so pruning, compression
 * and the matmul really run, on the CPU. The opaque objects are the caller's memory, as in
 * cuSPARSELt; each holds one of the structs below. Through FAKE_CONF (fakeconf.h):
 * cusparselt_wrong=1 (one element of D off by one), cusparselt_prune_bad=1 (the prune leaves
 * the first group of four unpruned, which its own check does not notice),
 * cusparselt_init_fail=1 (cusparseLtInit fails, as without a supported GPU). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconf.h"

__attribute__((constructor)) static void record(void) { fake_record_uid("libcusparseLt"); }

struct desc {
	int64_t rows, cols, ld;
	int type, order, structured;
};

struct matmul {
	struct desc a, b, c;
	int compute;
};

struct plan {
	struct matmul mm;
};

enum { HALF = 2, ROW = 2, NON_TRANSPOSE = 0, COMPUTE_32F = 2, SUCCESS = 0, INVALID = 3,
       NOT_SUPPORTED = 10 };

static float from_half(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	float m = (float)(h & 0x3ff);
	float v = e == 0 ? ldexpf(m, -24) : ldexpf(1.0f + m / 1024.0f, e - 15);
	return h & 0x8000 ? -v : v;
}

/* Exact for the integers the check multiplies (|x| < 2048). */
static uint16_t to_half(float f)
{
	if (f == 0)
		return 0;
	int e;
	float m = frexpf(fabsf(f), &e); /* f = m * 2^e, 0.5 <= m < 1 */
	return (uint16_t)((f < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | (int)((m * 2 - 1) * 1024));
}

int cusparseLtInit(void *h)
{
	(void)h;
	return fake_conf("cusparselt_init_fail", 0) ? NOT_SUPPORTED : SUCCESS;
}

int cusparseLtDestroy(const void *h) { (void)h; return SUCCESS; }

int cusparseLtGetProperty(int what, int *v)
{
	static const int version[] = { 0, 8, 1 };
	if (what < 0 || what > 2)
		return INVALID;
	*v = version[what];
	return SUCCESS;
}

const char *cusparseLtGetErrorString(int s)
{
	return s == NOT_SUPPORTED ? "the operation or data type combination is not supported"
				  : s == INVALID ? "invalid value" : "fake cuSPARSELt error";
}

/* FP16, row-major, ld = cols: what the check asks for. */
static int describe(void *out, int64_t rows, int64_t cols, int64_t ld, int type, int order,
		    int structured)
{
	if (type != HALF || order != ROW || ld != cols || rows <= 0 || cols % 4)
		return INVALID;
	struct desc d = { rows, cols, ld, type, order, structured };
	memcpy(out, &d, sizeof(d));
	return SUCCESS;
}

int cusparseLtDenseDescriptorInit(const void *h, void *d, int64_t rows, int64_t cols, int64_t ld,
				  uint32_t align, int type, int order)
{
	(void)h, (void)align;
	return describe(d, rows, cols, ld, type, order, 0);
}

int cusparseLtStructuredDescriptorInit(const void *h, void *d, int64_t rows, int64_t cols,
				       int64_t ld, uint32_t align, int type, int order, int sparsity)
{
	(void)h, (void)align;
	return sparsity != 0 ? INVALID : describe(d, rows, cols, ld, type, order, 1);
}

int cusparseLtMatDescriptorDestroy(const void *d) { (void)d; return SUCCESS; }

int cusparseLtMatmulDescriptorInit(const void *h, void *out, int op_a, int op_b, const void *a,
				   const void *b, const void *c, const void *d, int compute)
{
	(void)h, (void)d;
	struct matmul mm;
	memcpy(&mm.a, a, sizeof(mm.a));
	memcpy(&mm.b, b, sizeof(mm.b));
	memcpy(&mm.c, c, sizeof(mm.c));
	mm.compute = compute;
	if (op_a != NON_TRANSPOSE || op_b != NON_TRANSPOSE || compute != COMPUTE_32F || !mm.a.structured ||
	    mm.a.cols != mm.b.rows || mm.a.rows != mm.c.rows || mm.b.cols != mm.c.cols)
		return INVALID;
	memcpy(out, &mm, sizeof(mm));
	return SUCCESS;
}

int cusparseLtMatmulAlgSelectionInit(const void *h, void *alg, const void *mm, int which)
{
	(void)h;
	if (which != 0)
		return INVALID;
	memcpy(alg, mm, sizeof(struct matmul));
	return SUCCESS;
}

int cusparseLtMatmulAlgSelectionDestroy(const void *alg) { (void)alg; return SUCCESS; }

int cusparseLtMatmulPlanInit(const void *h, void *plan, const void *mm, const void *alg)
{
	(void)h, (void)alg;
	memcpy(plan, mm, sizeof(struct matmul));
	return SUCCESS;
}

int cusparseLtMatmulPlanDestroy(const void *plan) { (void)plan; return SUCCESS; }

int cusparseLtMatmulGetWorkspace(const void *h, const void *plan, size_t *size)
{
	(void)h, (void)plan;
	*size = 256;
	return SUCCESS;
}

/* 2:4 along each row: the two of every four with the largest magnitude stay. */
int cusparseLtSpMMAPrune(const void *h, const void *mmp, const void *in, void *out, int alg,
			 void *stream)
{
	(void)h, (void)stream;
	const struct matmul *mm = mmp;
	const uint16_t *src = in;
	uint16_t *dst = out;
	if (alg != 0 && alg != 1)
		return INVALID;
	size_t n = (size_t)(mm->a.rows * mm->a.cols);
	uint16_t first[4] = { 0 }; /* in place: the first group as it came */
	if (n >= 4)
		memcpy(first, src, sizeof(first));
	for (size_t i = 0; i < n; i += 4) {
		uint16_t g[4];
		memcpy(g, src + i, sizeof(g));
		int keep1 = 0, keep2 = 1;
		for (int j = 0; j < 4; j++)
			if (fabsf(from_half(g[j])) > fabsf(from_half(g[keep1])))
				keep1 = j;
		keep2 = keep1 == 0 ? 1 : 0;
		for (int j = 0; j < 4; j++)
			if (j != keep1 && fabsf(from_half(g[j])) > fabsf(from_half(g[keep2])))
				keep2 = j;
		for (int j = 0; j < 4; j++)
			dst[i + (size_t)j] = j == keep1 || j == keep2 ? g[j] : 0;
	}
	if (fake_conf("cusparselt_prune_bad", 0) && n >= 4)
		memcpy(dst, first, sizeof(first)); /* the first group unpruned */
	return SUCCESS;
}

/* *valid (device memory): 0 when every four along a row hold at most two non-zeros. Its bad
 * twin above is not caught here: the check's own CPU test of the pattern must catch it. */
int cusparseLtSpMMAPruneCheck(const void *h, const void *mmp, const void *in, int *valid, void *stream)
{
	(void)h, (void)stream;
	const struct matmul *mm = mmp;
	const uint16_t *a = in;
	size_t n = (size_t)(mm->a.rows * mm->a.cols);
	*valid = 0;
	for (size_t i = fake_conf("cusparselt_prune_bad", 0) ? 4 : 0; i < n; i += 4) {
		int nz = 0;
		for (size_t j = i; j < i + 4; j++)
			nz += a[j] != 0;
		if (nz > 2)
			*valid = 1;
	}
	return SUCCESS;
}

/* "Compressed": the dense copy itself, which the matmul below reads as A. */
int cusparseLtSpMMACompressedSize(const void *h, const void *planp, size_t *size, size_t *buffer)
{
	(void)h;
	const struct plan *p = planp;
	*size = (size_t)(p->mm.a.rows * p->mm.a.cols) * 2;
	*buffer = 64;
	return SUCCESS;
}

int cusparseLtSpMMACompress(const void *h, const void *planp, const void *dense, void *compressed,
			    void *buffer, void *stream)
{
	(void)h, (void)buffer, (void)stream;
	const struct plan *p = planp;
	memcpy(compressed, dense, (size_t)(p->mm.a.rows * p->mm.a.cols) * 2);
	return SUCCESS;
}

int cusparseLtMatmul(const void *h, const void *planp, const void *alpha, const void *a,
		     const void *b, const void *beta, const void *c, void *d, void *workspace,
		     void **streams, int32_t nstreams)
{
	(void)h, (void)workspace, (void)streams, (void)nstreams;
	const struct plan *p = planp;
	const uint16_t *A = a, *B = b, *C = c;
	int64_t m = p->mm.a.rows, k = p->mm.a.cols, n = p->mm.b.cols;
	float al = *(const float *)alpha, be = *(const float *)beta;
	uint16_t *D = malloc((size_t)(m * n) * sizeof(uint16_t));
	if (!D)
		return INVALID;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			float s = 0;
			for (int64_t x = 0; x < k; x++)
				s += from_half(A[i * k + x]) * from_half(B[x * n + j]);
			D[i * n + j] = to_half(al * s + be * from_half(C[i * n + j]));
		}
	if (fake_conf("cusparselt_wrong", 0))
		D[(m / 2) * n + n / 3] = to_half(from_half(D[(m / 2) * n + n / 3]) + 1.0f);
	memcpy(d, D, (size_t)(m * n) * sizeof(uint16_t));
	free(D);
	return SUCCESS;
}
