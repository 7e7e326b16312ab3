/* gpucheck.c - running cuDNN on a GPU and checking its numbers */
#include "unpacker/validate/gpucheck.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/validate/convref.h"
#include "unpacker/validate/gpuapi.h"
#include "unpacker/validate/mapped.h"

const char gpucheck_name[] = "cudnn-convolution";

#define RUNS 5

struct gpu {
	struct cuda_api cu;
	struct cudnn_api dnn;
	cudnn_handle handle;
	int index;
	char why[512];
	void (*emit)(json_t *result);
};

static double now_ms(void)
{
	return platform_elapsed_s() * 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static cu_ptr dev_alloc(struct gpu *g, size_t bytes)
{
	cu_ptr p = 0;
	if (bytes && g->cu.MemAlloc(&p, bytes) != 0)
		return 0;
	return p;
}

static cu_ptr dev_upload(struct gpu *g, const float *host, size_t n)
{
	cu_ptr p = dev_alloc(g, n * sizeof(float));
	if (p && g->cu.MemcpyHtoD(p, host, n * sizeof(float)) != 0) {
		g->cu.MemFree(p);
		return 0;
	}
	return p;
}

struct conv_run {
	struct gpu *g;
	struct conv_shape s;
	cudnn_desc x, w, y, conv;
	cu_ptr dx, dw, dy, ddx, ddw, ddy, dout; /* device: x, w, y, dx, dw, dy */
	cu_ptr ax, aw, ady;                     /* device: |x|, |w|, |dy| for the magnitudes */
	float *hx, *hw, *hdy, *got, *base, *magg;
	unsigned seed;
};

enum conv_kind { FWD, BWD_DATA, BWD_FILTER };

/* Points of each result checked against the CPU: as many as fit in this many summed terms
 * (so the reference costs milliseconds whatever the shape), at least MIN_SAMPLES, all of a
 * small result. */
#define SAMPLE_TERMS (24u << 20)
#define MIN_SAMPLES 64
#define MAX_SAMPLES 4096

struct sample {
	size_t n;
	size_t idx[MAX_SAMPLES];
	float ref[MAX_SAMPLES], mag[MAX_SAMPLES], got[MAX_SAMPLES];
};

static uint32_t next_random(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* A new random sample each run (the seed is in the report): an error cannot hide at fixed
 * points. The first and last elements (borders, padding) are always in it. */
static void choose_sample(struct conv_run *r, enum conv_kind kind, size_t n, struct sample *smp)
{
	size_t per = conv_terms_per_point(&r->s, (int)kind), want = SAMPLE_TERMS / (per ? per : 1);
	if (want < MIN_SAMPLES)
		want = MIN_SAMPLES;
	if (want > MAX_SAMPLES)
		want = MAX_SAMPLES;
	uint32_t x = r->seed * 2654435761u + (uint32_t)kind * 40503u + 1;
	smp->n = n <= want ? n : want;
	for (size_t i = 0; i < smp->n; i++)
		smp->idx[i] = n <= want ? i : i == 0 ? 0 : i == 1 ? n - 1
			    : ((size_t)next_random(&x) << 20 ^ next_random(&x)) % n;
	for (size_t i = 0; i < smp->n; i++) {
		if (kind == FWD)
			conv_ref_forward_at(&r->s, r->hx, r->hw, smp->idx[i], &smp->ref[i], &smp->mag[i]);
		else if (kind == BWD_DATA)
			conv_ref_backward_data_at(&r->s, r->hw, r->hdy, smp->idx[i], &smp->ref[i], &smp->mag[i]);
		else
			conv_ref_backward_filter_at(&r->s, r->hx, r->hdy, smp->idx[i], &smp->ref[i], &smp->mag[i]);
	}
}

/* Elements of got outside the tolerance at the sampled points; the first one described. */
static size_t compare_sample(struct sample *smp, const float *got, double *worst, char *at, size_t size)
{
	for (size_t i = 0; i < smp->n; i++)
		smp->got[i] = got[smp->idx[i]];
	size_t bad = conv_compare(smp->got, smp->ref, smp->mag, smp->n, worst);
	for (size_t i = 0; bad && i < smp->n; i++)
		if (!(fabs((double)smp->got[i] - smp->ref[i]) <= CONV_REL_TOL * smp->mag[i] + CONV_ABS_TOL)) {
			snprintf(at, size, "element %zu: %.6g, CPU reference %.6g", smp->idx[i],
				 (double)smp->got[i], (double)smp->ref[i]);
			break;
		}
	return bad;
}

/* One algorithm of one kind: workspace, RUNS timed runs, the result copied to r->got. */
static json_t *run_algo(struct conv_run *r, enum conv_kind kind, int algo, size_t n_out, int runs)
{
	struct gpu *g = r->g;
	size_t ws = 0;
	int st;
	const float one = 1.0f, zero = 0.0f;
	if (kind == FWD)
		st = g->dnn.GetConvolutionForwardWorkspaceSize(g->handle, r->x, r->w, r->conv, r->y, algo, &ws);
	else if (kind == BWD_DATA)
		st = g->dnn.GetConvolutionBackwardDataWorkspaceSize(g->handle, r->w, r->y, r->conv, r->x, algo, &ws);
	else
		st = g->dnn.GetConvolutionBackwardFilterWorkspaceSize(g->handle, r->x, r->y, r->conv, r->w, algo, &ws);
	json_t *o = json_pack("{s:i, s:I}", "algo", algo, "workspace_bytes", (json_int_t)ws);
	if (st != 0) {
		json_object_set_new(o, "error", json_string(gpuapi_cudnn_error(&g->dnn, st)));
		return o;
	}
	cu_ptr wsp = dev_alloc(g, ws);
	if (ws && !wsp) {
		json_object_set_new(o, "skipped", json_string("workspace could not be allocated"));
		return o;
	}
	double times[RUNS];
	for (int i = 0; i < runs && st == 0; i++) {
		double t0 = now_ms();
		if (kind == FWD)
			st = g->dnn.ConvolutionForward(g->handle, &one, r->x, (void *)r->dx, r->w, (void *)r->dw,
						       r->conv, algo, (void *)wsp, ws, &zero, r->y, (void *)r->dout);
		else if (kind == BWD_DATA)
			st = g->dnn.ConvolutionBackwardData(g->handle, &one, r->w, (void *)r->dw, r->y,
							    (void *)r->ddy, r->conv, algo, (void *)wsp, ws,
							    &zero, r->x, (void *)r->dout);
		else
			st = g->dnn.ConvolutionBackwardFilter(g->handle, &one, r->x, (void *)r->dx, r->y,
							      (void *)r->ddy, r->conv, algo, (void *)wsp, ws,
							      &zero, r->w, (void *)r->dout);
		int sync = g->cu.CtxSynchronize();
		times[i] = now_ms() - t0;
		if (st == 0 && sync != 0) {
			json_object_set_new(o, "error", json_string(gpuapi_cuda_error(&g->cu, sync)));
			st = -1;
		}
	}
	if (wsp)
		g->cu.MemFree(wsp);
	if (st > 0)
		json_object_set_new(o, "error", json_string(gpuapi_cudnn_error(&g->dnn, st)));
	if (st != 0)
		return o;
	qsort(times, (size_t)runs, sizeof(double), cmp_double);
	if (g->cu.MemcpyDtoH(r->got, r->dout, n_out * sizeof(float)) != 0) {
		json_object_set_new(o, "error", json_string("the result could not be copied back"));
		return o;
	}
	json_object_set_new(o, "median_ms", json_real(times[runs / 2]));
	return o;
}

/* The algorithms cuDNN reports usable for this shape, best first. */
static int usable_algos(struct conv_run *r, enum conv_kind kind, int *algos, int max)
{
	struct cudnn_algo_perf perf[16];
	int n = 0, st, count = 0;
	struct gpu *g = r->g;
	if (kind == FWD)
		st = g->dnn.GetConvolutionForwardAlgorithm_v7(g->handle, r->x, r->w, r->conv, r->y, 16, &n, perf);
	else if (kind == BWD_DATA)
		st = g->dnn.GetConvolutionBackwardDataAlgorithm_v7(g->handle, r->w, r->y, r->conv, r->x, 16, &n, perf);
	else
		st = g->dnn.GetConvolutionBackwardFilterAlgorithm_v7(g->handle, r->x, r->y, r->conv, r->w, 16, &n, perf);
	for (int i = 0; st == 0 && i < n && count < max; i++)
		if (perf[i].status == 0)
			algos[count++] = perf[i].algo;
	return st == 0 ? count : -st;
}

/* The per-element magnitudes over the whole result, from the GPU: the same operation on
 * |inputs| with the first algorithm (checked against the CPU's at the sampled points). The
 * tolerance of the cross-check between algorithms is twice the reference's. */
static int gpu_magnitudes(struct conv_run *r, enum conv_kind kind, int algo, size_t n,
			  struct sample *smp, char *why, size_t size)
{
	cu_ptr keep[3] = { r->dx, r->dw, r->ddy };
	r->dx = r->ax, r->dw = r->aw, r->ddy = r->ady;
	float *got = r->got;
	r->got = r->magg;
	json_t *o = run_algo(r, kind, algo, n, 1);
	r->got = got;
	r->dx = keep[0], r->dw = keep[1], r->ddy = keep[2];
	int ok = !json_object_get(o, "error") && !json_object_get(o, "skipped");
	json_decref(o);
	if (!ok)
		return snprintf(why, size, "the magnitudes run of algo %d failed", algo), -1;
	for (size_t i = 0; i < smp->n; i++) {
		double m = r->magg[smp->idx[i]];
		if (!(fabs(m - smp->mag[i]) <= CONV_REL_TOL * smp->mag[i] + CONV_ABS_TOL))
			return snprintf(why, size, "algo %d on |inputs| gives %.6g at element %zu, the CPU "
					"%.6g", algo, m, smp->idx[i], (double)smp->mag[i]), -1;
	}
	for (size_t i = 0; i < n; i++)
		r->magg[i] *= 2.0f;
	return 0;
}

/* Every algorithm cuDNN offers for the kind: each against the CPU at a random sample of
 * points, and each against the first one over the whole result. */
static int check_kind(struct conv_run *r, enum conv_kind kind, json_t *out)
{
	static const char *const names[] = { "forward", "backward_data", "backward_filter" };
	const struct conv_shape *s = &r->s;
	size_t n = kind == FWD ? conv_y_count(s) : kind == BWD_DATA ? conv_x_count(s) : conv_w_count(s);
	int algos[16], count = usable_algos(r, kind, algos, 16), failed = count <= 0, base = -1;
	json_t *list = json_array();
	struct sample *smp = xmalloc(sizeof(*smp));
	char why[256] = "";
	choose_sample(r, kind, n, smp);
	r->dout = dev_alloc(r->g, n * sizeof(float));
	for (int i = 0; i < count && r->dout; i++) {
		json_t *a = run_algo(r, kind, algos[i], n, RUNS);
		json_array_append_new(list, a);
		if (json_object_get(a, "skipped"))
			continue;
		if (json_object_get(a, "error")) {
			failed = 1;
			continue;
		}
		double worst, cross_worst = 0;
		char at[160] = "";
		size_t bad = compare_sample(smp, r->got, &worst, at, sizeof(at)), cross = 0;
		json_object_set_new(a, "sampled_points", json_integer((json_int_t)smp->n));
		if (base < 0) {
			base = algos[i];
			memcpy(r->base, r->got, n * sizeof(float));
			if (gpu_magnitudes(r, kind, base, n, smp, why, sizeof(why)) != 0) {
				json_object_set_new(a, "magnitudes", json_string(why));
				bad += !bad;
			}
		} else {
			cross = conv_compare(r->got, r->base, r->magg, n, &cross_worst);
			json_object_set_new(a, "cross_checked_with_algo", json_integer(base));
			json_object_set_new(a, "cross_mismatches", json_integer((json_int_t)cross));
			for (size_t k = 0; cross && !at[0] && k < n; k++)
				if (!(fabs((double)r->got[k] - r->base[k]) <= CONV_REL_TOL * r->magg[k] + CONV_ABS_TOL))
					snprintf(at, sizeof(at), "element %zu: %.6g, algo %d gives %.6g", k,
						 (double)r->got[k], base, (double)r->base[k]);
		}
		json_object_set_new(a, "mismatches", json_integer((json_int_t)(bad + cross)));
		json_object_set_new(a, "worst_error_vs_tolerance",
				    json_real(isfinite(worst) && worst < 1e30 ? worst : 1e30));
		if (at[0])
			json_object_set_new(a, "mismatch_at", json_string(at));
		failed |= bad + cross > 0;
	}
	if (!r->dout)
		failed = 1;
	else
		r->g->cu.MemFree(r->dout);
	free(smp);
	json_object_set_new(out, names[kind], list);
	return failed;
}

static int setup_descs(struct conv_run *r)
{
	struct gpu *g = r->g;
	struct conv_shape *s = &r->s;
	int n, c, h, w;
	int st = g->dnn.CreateTensorDescriptor(&r->x);
	st = st ? st : g->dnn.SetTensor4dDescriptor(r->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s->n, s->c, s->h, s->w);
	st = st ? st : g->dnn.CreateFilterDescriptor(&r->w);
	st = st ? st : g->dnn.SetFilter4dDescriptor(r->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s->k, s->c, s->r, s->s);
	st = st ? st : g->dnn.CreateConvolutionDescriptor(&r->conv);
	st = st ? st : g->dnn.SetConvolution2dDescriptor(r->conv, s->pad_h, s->pad_w, s->stride_h, s->stride_w, 1, 1,
							 CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
	st = st ? st : g->dnn.GetConvolution2dForwardOutputDim(r->conv, r->x, r->w, &n, &c, &h, &w);
	if (!st && (n != s->n || c != s->k || h != s->oh || w != s->ow))
		return snprintf(g->why, sizeof(g->why), "cuDNN's output shape %dx%dx%dx%d differs from "
				"the reference's", n, c, h, w), -1;
	st = st ? st : g->dnn.CreateTensorDescriptor(&r->y);
	st = st ? st : g->dnn.SetTensor4dDescriptor(r->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
	if (st)
		snprintf(g->why, sizeof(g->why), "descriptors: %s", gpuapi_cudnn_error(&g->dnn, st));
	return st ? -1 : 0;
}

static cu_ptr upload_abs(struct gpu *g, const float *v, size_t n)
{
	float *a = xmalloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		a[i] = fabsf(v[i]);
	cu_ptr p = dev_upload(g, a, n);
	free(a);
	return p;
}

static int check_shape(struct gpu *g, struct conv_shape s, unsigned seed)
{
	struct conv_run r = { .g = g, .s = s };
	char label[128];
	conv_shape_finish(&r.s);
	size_t nx = conv_x_count(&r.s), nw = conv_w_count(&r.s), ny = conv_y_count(&r.s);
	size_t nmax = nx > ny ? (nx > nw ? nx : nw) : (ny > nw ? ny : nw);
	snprintf(label, sizeof(label), "N%d C%d %dx%d, K%d %dx%d, pad %d,%d, stride %d,%d", s.n, s.c,
		 s.h, s.w, s.k, s.r, s.s, s.pad_h, s.pad_w, s.stride_h, s.stride_w);
	json_t *o = json_pack("{s:s, s:i, s:s}", "check", "compute", "gpu", g->index, "shape", label);
	r.hx = xmalloc(nx * sizeof(float));
	r.hw = xmalloc(nw * sizeof(float));
	r.hdy = xmalloc(ny * sizeof(float));
	r.base = xmalloc(nmax * sizeof(float));
	r.magg = xmalloc(nmax * sizeof(float));
	r.got = xmalloc(nmax * sizeof(float));
	r.seed = seed;
	conv_fill(r.hx, nx, seed + 1);
	conv_fill(r.hw, nw, seed + 2);
	conv_fill(r.hdy, ny, seed + 3);
	int failed = setup_descs(&r) != 0;
	r.dx = failed ? 0 : dev_upload(g, r.hx, nx);
	r.dw = failed ? 0 : dev_upload(g, r.hw, nw);
	r.ddy = failed ? 0 : dev_upload(g, r.hdy, ny);
	r.ax = failed ? 0 : upload_abs(g, r.hx, nx);
	r.aw = failed ? 0 : upload_abs(g, r.hw, nw);
	r.ady = failed ? 0 : upload_abs(g, r.hdy, ny);
	if (!failed && (!r.dx || !r.dw || !r.ddy || !r.ax || !r.aw || !r.ady)) {
		snprintf(g->why, sizeof(g->why), "device memory could not be allocated");
		failed = 1;
	}
	if (!failed) {
		failed |= check_kind(&r, FWD, o);
		failed |= check_kind(&r, BWD_DATA, o);
		failed |= check_kind(&r, BWD_FILTER, o);
		snprintf(g->why, sizeof(g->why), failed ? "a result is outside the tolerance or an "
			 "algorithm failed" : "all within tolerance");
	}
	json_object_set_new(o, "status", json_string(failed ? "fail" : "pass"));
	json_object_set_new(o, "detail", json_string(g->why));
	json_object_set_new(o, "tolerance", json_string("|gpu - cpu| <= 4e-3 * sum|terms| + 1e-5 (allows TF32) "
							"at a random sample of points; between algorithms, twice that, everywhere"));
	json_object_set_new(o, "seed", json_integer(seed));
	g->emit(o);
	cu_ptr bufs[] = { r.dx, r.dw, r.ddy, r.ax, r.aw, r.ady };
	for (int i = 0; i < 6; i++)
		if (bufs[i])
			g->cu.MemFree(bufs[i]);
	if (r.x) g->dnn.DestroyTensorDescriptor(r.x);
	if (r.y) g->dnn.DestroyTensorDescriptor(r.y);
	if (r.w) g->dnn.DestroyFilterDescriptor(r.w);
	if (r.conv) g->dnn.DestroyConvolutionDescriptor(r.conv);
	free(r.hx);
	free(r.hw);
	free(r.hdy);
	free(r.base);
	free(r.magg);
	free(r.got);
	return failed;
}

static int graphcheck_matmul(struct gpu *g); /* below */

static int open_gpu(struct gpu *g, char **a)
{
	char missing[128];
	cu_device dev;
	cu_context ctx;
	void *cuda = platform_lib_open(a[0], PLATFORM_LIB_NOW);
	if (!cuda || gpuapi_cuda(cuda, &g->cu, missing, sizeof(missing)) != 0)
		return snprintf(g->why, sizeof(g->why), "driver: %s", cuda ? missing : platform_lib_error()), -1;
	char *path = gpuapi_cudnn_path(a[1], a[2]);
	void *dnn = platform_lib_open(path, PLATFORM_LIB_NOW);
	free(path);
	if (!dnn || gpuapi_cudnn(dnn, &g->dnn, missing, sizeof(missing)) != 0)
		return snprintf(g->why, sizeof(g->why), "cuDNN: %s", dnn ? missing : platform_lib_error()), -1;
	int rc = g->cu.Init(0);
	rc = rc ? rc : g->cu.DeviceGet(&dev, g->index);
	/* cuDNN's static runtime uses the primary context made current here. */
	rc = rc ? rc : g->cu.DevicePrimaryCtxRetain(&ctx, dev);
	rc = rc ? rc : g->cu.CtxSetCurrent(ctx);
	if (rc)
		return snprintf(g->why, sizeof(g->why), "GPU %d: %s", g->index, gpuapi_cuda_error(&g->cu, rc)), -1;
	int st = g->dnn.Create(&g->handle);
	if (st)
		return snprintf(g->why, sizeof(g->why), "cudnnCreate: %s (status %d)",
				gpuapi_cudnn_error(&g->dnn, st), st), -1;
	return 0;
}

int gpucheck_run(char **a, void (*emit)(json_t *result))
{
	struct gpu g;
	memset(&g, 0, sizeof(g));
	g.index = atoi(a[3]);
	g.emit = emit;
	if (open_gpu(&g, a) != 0) {
		json_t *o = json_pack("{s:s, s:i, s:s, s:s}", "check", "compute", "gpu", g.index, "status",
				      "fail", "detail", g.why);
		emit(o);
		return 1;
	}
	/* Close to the first layer of a ResNet, and a small odd shape with uneven pads and strides.
	 * Inputs and sampled points are new each run (the seed is in the report). */
	struct conv_shape resnet = { 2, 3, 224, 224, 64, 3, 3, 1, 1, 1, 1, 0, 0 };
	struct conv_shape odd = { 3, 5, 17, 13, 7, 5, 3, 2, 1, 2, 1, 0, 0 };
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)platform_process_id() << 8 ^ (unsigned)g.index << 24;
	int failed = 0, shapes = atoi(a[4]); /* 0 both, 1 the small one, 2 none */
	if (shapes == 0)
		failed |= check_shape(&g, resnet, seed);
	if (shapes <= 1)
		failed |= check_shape(&g, odd, seed + 7);
	if (atoi(a[5]))
		failed |= graphcheck_matmul(&g);
	g.dnn.Destroy(g.handle);
	return failed;
}

/* ---- a backend-API matmul graph: the engines behind it use cuBLASLt or NVRTC ---- */

#define MM_M 64
#define MM_K 128
#define MM_N 96

static cudnn_desc tensor(struct gpu *g, int64_t uid, int64_t rows, int64_t cols)
{
	cudnn_desc d = NULL;
	int64_t dims[3] = { 1, rows, cols }, strides[3] = { rows * cols, cols, 1 }, align = 16;
	int type = CUDNN_DATA_FLOAT;
	if (g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d) ||
	    g->dnn.BackendSetAttribute(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type) ||
	    g->dnn.BackendSetAttribute(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 3, dims) ||
	    g->dnn.BackendSetAttribute(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 3, strides) ||
	    g->dnn.BackendSetAttribute(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid) ||
	    g->dnn.BackendSetAttribute(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align) ||
	    g->dnn.BackendFinalize(d))
		return NULL;
	return d;
}

static cudnn_desc matmul_graph(struct gpu *g, cudnn_desc *keep)
{
	cudnn_desc a = tensor(g, 'a', MM_M, MM_K), b = tensor(g, 'b', MM_K, MM_N),
		   c = tensor(g, 'c', MM_M, MM_N), mm = NULL, op = NULL, graph = NULL;
	int comp = CUDNN_DATA_FLOAT;
	keep[0] = a, keep[1] = b, keep[2] = c;
	const int desc = CUDNN_TYPE_BACKEND_DESCRIPTOR;
	if (!a || !b || !c || g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm) ||
	    g->dnn.BackendSetAttribute(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp) ||
	    g->dnn.BackendFinalize(mm) ||
	    g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op) ||
	    g->dnn.BackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, desc, 1, &a) ||
	    g->dnn.BackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, desc, 1, &b) ||
	    g->dnn.BackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, desc, 1, &c) ||
	    g->dnn.BackendSetAttribute(op, CUDNN_ATTR_OPERATION_MATMUL_DESC, desc, 1, &mm) ||
	    g->dnn.BackendFinalize(op) ||
	    g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph) ||
	    g->dnn.BackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
				       &g->handle) ||
	    g->dnn.BackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, desc, 1, &op) ||
	    g->dnn.BackendFinalize(graph))
		return NULL;
	keep[3] = mm, keep[4] = op;
	return graph;
}

/* Engine configurations the heuristics offer for the graph (mode A, else fallback). */
static int64_t engine_configs(struct gpu *g, cudnn_desc graph, cudnn_desc *cfgs, int64_t max)
{
	static const int modes[] = { CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK };
	const int desc = CUDNN_TYPE_BACKEND_DESCRIPTOR;
	for (int m = 0; m < 2; m++) {
		cudnn_desc heur = NULL;
		int64_t count = 0;
		if (g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur) ||
		    g->dnn.BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, desc, 1, &graph) ||
		    g->dnn.BackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
					       &modes[m]) ||
		    g->dnn.BackendFinalize(heur) ||
		    g->dnn.BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, desc, 0, &count, NULL))
			count = 0;
		if (count > max)
			count = max;
		for (int64_t i = 0; i < count; i++)
			g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]);
		int64_t got = 0;
		if (count > 0 && g->dnn.BackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, desc, count,
							    &got, cfgs))
			got = 0;
		if (heur)
			g->dnn.BackendDestroyDescriptor(heur);
		if (got > 0)
			return got;
	}
	return 0;
}

/* The engine's global index and behavior notes (0 runtime compilation, 4 cuBLASLt). */
static void engine_info(struct gpu *g, cudnn_desc cfg, json_t *rec, int *rtc, int *lt)
{
	cudnn_desc engine = NULL;
	int64_t n = 0, index = -1;
	int notes[16];
	json_t *list = json_array();
	*rtc = *lt = 0;
	for (int i = 0; i < 16; i++)
		notes[i] = -1;
	if (g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine) == 0 &&
	    g->dnn.BackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
				       &n, &engine) == 0) {
		g->dnn.BackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n,
					   &index);
		if (g->dnn.BackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
					       CUDNN_TYPE_BEHAVIOR_NOTE, 16, &n, notes) == 0)
			for (int64_t i = 0; i < n && i < 16; i++) {
				json_array_append_new(list, json_integer(notes[i]));
				*rtc |= notes[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
				*lt |= notes[i] == CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY;
			}
	}
	if (engine)
		g->dnn.BackendDestroyDescriptor(engine);
	json_object_set_new(rec, "engine", json_integer((json_int_t)index));
	json_object_set_new(rec, "behavior_notes", list);
	json_object_set_new(rec, "runtime_compiled", json_boolean(*rtc));
	json_object_set_new(rec, "needs_cublaslt", json_boolean(*lt));
}

/* Build, run and check one engine configuration; returns 0 when C matched the reference. */
static int run_config(struct gpu *g, cudnn_desc cfg, cu_ptr *bufs, const float *ref,
		      const float *mag, json_t *rec)
{
	cudnn_desc plan = NULL, pack = NULL;
	int64_t ws = 0, n = 0, uids[3] = { 'a', 'b', 'c' };
	int st = g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
	st = st ? st : g->dnn.BackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
						  CUDNN_TYPE_HANDLE, 1, &g->handle);
	st = st ? st : g->dnn.BackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
						  CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
	st = st ? st : g->dnn.BackendFinalize(plan);
	st = st ? st : g->dnn.BackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
						  CUDNN_TYPE_INT64, 1, &n, &ws);
	cu_ptr wsp = st ? 0 : dev_alloc(g, (size_t)ws);
	void *ptrs[3] = { (void *)bufs[0], (void *)bufs[1], (void *)bufs[2] }, *wsv = (void *)wsp;
	st = st ? st : g->dnn.BackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
	st = st ? st : g->dnn.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
						  CUDNN_TYPE_INT64, 3, uids);
	st = st ? st : g->dnn.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
						  CUDNN_TYPE_VOID_PTR, 3, ptrs);
	st = st ? st : g->dnn.BackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
						  CUDNN_TYPE_VOID_PTR, 1, &wsv);
	st = st ? st : g->dnn.BackendFinalize(pack);
	double t0 = now_ms();
	st = st ? st : g->dnn.BackendExecute(g->handle, plan, pack);
	int sync = st ? 0 : g->cu.CtxSynchronize();
	json_object_set_new(rec, "ms", json_real(now_ms() - t0));
	int ok = 0;
	if (st || sync) {
		json_object_set_new(rec, "error", json_string(st ? gpuapi_cudnn_error(&g->dnn, st)
								 : gpuapi_cuda_error(&g->cu, sync)));
	} else {
		float got[MM_M * MM_N];
		double worst;
		g->cu.MemcpyDtoH(got, bufs[2], sizeof(got));
		size_t bad = conv_compare(got, ref, mag, MM_M * MM_N, &worst);
		json_object_set_new(rec, "mismatches", json_integer((json_int_t)bad));
		ok = bad == 0;
	}
	if (wsp)
		g->cu.MemFree(wsp);
	if (pack)
		g->dnn.BackendDestroyDescriptor(pack);
	if (plan)
		g->dnn.BackendDestroyDescriptor(plan);
	return ok ? 0 : -1;
}

static int graphcheck_matmul(struct gpu *g)
{
	json_t *o = json_pack("{s:s, s:i, s:s}", "check", "graph", "gpu", g->index, "shape",
			      "matmul 64x128 * 128x96, float, backend API");
	if (!g->dnn.BackendCreateDescriptor) {
		json_object_set_new(o, "status", json_string("skip"));
		json_object_set_new(o, "detail", json_string("this cuDNN has no backend API"));
		g->emit(o);
		return 0;
	}
	float a[MM_M * MM_K], b[MM_K * MM_N], ref[MM_M * MM_N], mag[MM_M * MM_N];
	conv_fill(a, MM_M * MM_K, 4);
	conv_fill(b, MM_K * MM_N, 5);
	for (int i = 0; i < MM_M; i++)
		for (int j = 0; j < MM_N; j++) {
			float s = 0, m = 0;
			for (int k = 0; k < MM_K; k++) {
				s += a[i * MM_K + k] * b[k * MM_N + j];
				m += fabsf(a[i * MM_K + k] * b[k * MM_N + j]);
			}
			ref[i * MM_N + j] = s;
			mag[i * MM_N + j] = m;
		}
	cu_ptr bufs[3] = { dev_upload(g, a, MM_M * MM_K), dev_upload(g, b, MM_K * MM_N),
			   dev_alloc(g, sizeof(ref)) };
	cudnn_desc keep[5] = { 0 }, cfgs[32] = { 0 };
	cudnn_desc graph = matmul_graph(g, keep);
	int64_t n = graph ? engine_configs(g, graph, cfgs, 32) : 0;
	int passed = 0, ran = 0, rtc_offered = 0, rtc_passed = 0;
	json_t *engines = json_array();
	/* cuDNN opens NVRTC to build its runtime-compiled engines and closes it once they are
	 * built, so a look afterwards finds nothing (seen on the H200): watch while they run. */
	struct platform_lib_watch *nvrtc_watch = platform_lib_watch_start("libnvrtc");
	for (int64_t i = 0; i < n; i++) {
		int rtc, lt;
		json_t *rec = json_object();
		engine_info(g, cfgs[i], rec, &rtc, &lt);
		rtc_offered += rtc;
		if (rtc && rtc_passed) {
			/* One runtime-compiled engine proves NVRTC and its builtins work; each more
			 * costs a compilation (a few hundred ms) and proves nothing new. */
			json_object_set_new(rec, "skipped", json_string("NVRTC already proved by a runtime-compiled engine"));
			json_array_append_new(engines, rec);
			g->dnn.BackendDestroyDescriptor(cfgs[i]);
			continue;
		}
		int ok = bufs[0] && bufs[1] && bufs[2] && run_config(g, cfgs[i], bufs, ref, mag, rec) == 0;
		json_object_set_new(rec, "passed", json_boolean(ok));
		json_array_append_new(engines, rec);
		passed += ok;
		ran++;
		rtc_passed += rtc && ok;
		g->dnn.BackendDestroyDescriptor(cfgs[i]);
	}
	char nvrtc_path[512];
	int nvrtc = platform_lib_watch_end(nvrtc_watch, nvrtc_path, sizeof(nvrtc_path)) == 0;
	static const char *const cublaslt[] = { "libcublasLt", NULL };
	static const char *const nvidia[] = { "nvrtc", "cublas", "nvJitLink", "libcuda.so", NULL };
	json_t *lt_libs = mapped_libraries(cublaslt, MAPPED_REAL);
	int lt = json_array_size(lt_libs) > 0;
	json_decref(lt_libs);
	json_object_set_new(o, "nvidia_libraries_mapped", mapped_libraries(nvidia, MAPPED_AS_LOADED));
	if (nvrtc)
		json_object_set_new(o, "nvrtc_path", json_string(nvrtc_path));
	char why[512];
	int failed = passed < ran || passed == 0 || (rtc_offered && !rtc_passed) || !(nvrtc || lt);
	snprintf(why, sizeof(why), "%d of %d engines run correct (%lld offered); runtime-compiled: %d run, "
		 "%s (%d offered); loaded: %s%s%s", passed, ran, (long long)n, rtc_passed ? 1 : 0,
		 rtc_passed ? "correct" : rtc_offered ? "FAILED" : "none", rtc_offered, nvrtc ? "NVRTC " : "",
		 lt ? "cuBLASLt" : "", nvrtc || lt ? "" : "neither NVRTC nor cuBLASLt");
	json_object_set_new(o, "engines", engines);
	json_object_set_new(o, "nvrtc_loaded", json_boolean(nvrtc));
	json_object_set_new(o, "cublaslt_loaded", json_boolean(lt));
	json_object_set_new(o, "status", json_string(failed ? "fail" : "pass"));
	json_object_set_new(o, "detail", json_string(why));
	g->emit(o);
	for (int i = 0; i < 3; i++)
		if (bufs[i])
			g->cu.MemFree(bufs[i]);
	if (graph)
		g->dnn.BackendDestroyDescriptor(graph);
	for (int i = 0; i < 5; i++)
		if (keep[i])
			g->dnn.BackendDestroyDescriptor(keep[i]);
	return failed;
}
