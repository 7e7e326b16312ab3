/* fakecudnn.c - a stand-in libcudnn.so.9 for tests on machines without a GPU: it implements
 * the legacy convolution calls on the CPU (device pointers come from fakecuda.c, which hands
 * out host memory). Build variants drive validation's failure paths:
 *   -DFAKE_VERSION=91400  wrong version      -DFAKE_NO_CUDART  a missing symbol
 *   -DFAKE_WRONG          wrong numbers      -DFAKE_CRASH      a crash inside cuDNN
 *   -DFAKE_CUDART=12000   built for CUDA 12  -DFAKE_ZLIB       imports zlibwapi.dll (Windows)
 * and at run time, through FAKE_CONF (fakeconf.h): fwd_off_algo=A (forward algorithm A off by
 * a little at one element), bwd_filter_off=1, bad_gpu=G (GPU G's forward off), hang_gpu=G,
 * fast=1 (return at once, results unwritten: make bench times validation's own CPU work).
 * It needs libcudnn_graph.so.9 (fakegraph.c), found through its RUNPATH ($ORIGIN). */
#ifndef _WIN32
#include <dlfcn.h>
#endif
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unpacker/validate/convref.h"
#include "fakeconf.h"

/* -DFAKE_NOISY prints JSON-looking noise on stdout and stderr as it loads (must not matter);
 * -DFAKE_FORGE writes garbage into every other descriptor it can, the report pipe included. */
__attribute__((constructor)) static void record(void)
{
	fake_record_uid("libcudnn");
#ifdef FAKE_NOISY
	printf("{}\n{\"check\":\"library\",\"status\":\"pass\",\"detail\":\"forged\"}\ngarbage\n");
	fflush(stdout);
	fprintf(stderr, "{}\n\x1b[31mnot json\n");
#endif
#ifdef FAKE_FORGE
	for (int fd = 3; fd < 256; fd++)
		if (write(fd, "{\"check\": 1}\n", 13) < 0)
			continue;
#endif
}

/* The GPU the fake driver made current (0 without it). */
static int device(void)
{
#ifdef _WIN32
	HMODULE cuda = GetModuleHandleA("nvcuda.dll");
	int (*current)(void) = cuda ? (int (*)(void))(void (*)(void))GetProcAddress(cuda, "fake_cuda_current_device") : NULL;
#else
	/* The probe loads the driver RTLD_LOCAL: find it by its soname, already loaded. */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	int (*current)(void) = cuda ? (int (*)(void))dlsym(cuda, "fake_cuda_current_device") : NULL;
#endif
	return current ? current() : 0;
}

#ifndef FAKE_VERSION
#define FAKE_VERSION 91900
#endif

int fake_graph_marker(void); /* from libcudnn_graph.so.9: makes it a real dependency */

struct tensor { int n, c, h, w; };
struct conv { int ph, pw, sh, sw; };

#ifndef FAKE_CUDART
#define FAKE_CUDART 13000
#endif
#ifdef FAKE_ZLIB
/* -DFAKE_ZLIB (Windows): imports zlibwapi.dll as NVIDIA's cuDNN 8 for Windows does, a real
 * import the loader must resolve (fakezlib.c). */
const char *__stdcall zlibVersion(void);
#define FAKE_ZLIB_USE (0 * (size_t)zlibVersion())
#else
#define FAKE_ZLIB_USE 0
#endif

size_t FAKE_API cudnnGetVersion(void) { return FAKE_VERSION + 0 * (size_t)fake_graph_marker() + FAKE_ZLIB_USE; }
#ifndef FAKE_NO_CUDART
size_t FAKE_API cudnnGetCudartVersion(void) { return FAKE_CUDART; }
#endif
const char *FAKE_API cudnnGetErrorString(int s) { return s ? "CUDNN_STATUS_BAD_PARAM (fake)" : "CUDNN_STATUS_SUCCESS"; }
int FAKE_API cudnnCreate(void **h) { *h = malloc(1); return 0; }
int FAKE_API cudnnDestroy(void *h) { free(h); return 0; }
int FAKE_API cudnnCreateTensorDescriptor(void **d) { *d = calloc(1, sizeof(struct tensor)); return 0; }
int FAKE_API cudnnSetTensor4dDescriptor(struct tensor *d, int f, int t, int n, int c, int h, int w)
{ (void)f; (void)t; *d = (struct tensor){ n, c, h, w }; return 0; }
int FAKE_API cudnnDestroyTensorDescriptor(void *d) { free(d); return 0; }
int FAKE_API cudnnCreateFilterDescriptor(void **d) { *d = calloc(1, sizeof(struct tensor)); return 0; }
int FAKE_API cudnnSetFilter4dDescriptor(struct tensor *d, int t, int f, int k, int c, int h, int w)
{ (void)f; (void)t; *d = (struct tensor){ k, c, h, w }; return 0; }
int FAKE_API cudnnDestroyFilterDescriptor(void *d) { free(d); return 0; }
int FAKE_API cudnnCreateConvolutionDescriptor(void **d) { *d = calloc(1, sizeof(struct conv)); return 0; }
int FAKE_API cudnnSetConvolution2dDescriptor(struct conv *d, int ph, int pw, int sh, int sw, int dh, int dw, int m, int t)
{ (void)dh; (void)dw; (void)m; (void)t; *d = (struct conv){ ph, pw, sh, sw }; return 0; }
int FAKE_API cudnnSetConvolutionMathType(void *d, int m) { (void)d; (void)m; return 0; }
int FAKE_API cudnnDestroyConvolutionDescriptor(void *d) { free(d); return 0; }

static struct conv_shape shape_of(const struct tensor *x, const struct tensor *w, const struct conv *c)
{
	struct conv_shape s = { x->n, x->c, x->h, x->w, w->n, w->h, w->w, c->ph, c->pw, c->sh, c->sw, 0, 0 };
	conv_shape_finish(&s);
	return s;
}

int FAKE_API cudnnGetConvolution2dForwardOutputDim(struct conv *c, struct tensor *x, struct tensor *w,
					  int *n, int *k, int *h, int *wo)
{
	struct conv_shape s = shape_of(x, w, c);
	*n = s.n, *k = s.k, *h = s.oh, *wo = s.ow;
	return 0;
}

struct perf { int algo, status; float time; size_t memory; int det, math, reserved[3]; };

static int two_algos(int req, int *n, struct perf *p)
{
	int count = req < 2 ? req : 2;
	for (int i = 0; i < count; i++)
		p[i] = (struct perf){ .algo = i, .status = 0 };
	*n = count;
	return 0;
}

int FAKE_API cudnnGetConvolutionForwardAlgorithm_v7(void *h, void *x, void *w, void *c, void *y, int req, int *n, struct perf *p)
{ (void)h; (void)x; (void)w; (void)c; (void)y; return two_algos(req, n, p); }
int FAKE_API cudnnGetConvolutionBackwardDataAlgorithm_v7(void *h, void *w, void *dy, void *c, void *dx, int req, int *n, struct perf *p)
{ (void)h; (void)w; (void)dy; (void)c; (void)dx; return two_algos(req, n, p); }
int FAKE_API cudnnGetConvolutionBackwardFilterAlgorithm_v7(void *h, void *x, void *dy, void *c, void *dw, int req, int *n, struct perf *p)
{ (void)h; (void)x; (void)dy; (void)c; (void)dw; return two_algos(req, n, p); }
int FAKE_API cudnnGetConvolutionForwardWorkspaceSize(void *h, void *x, void *w, void *c, void *y, int a, size_t *s)
{ (void)h; (void)x; (void)w; (void)c; (void)y; (void)a; *s = 0; return 0; }
int FAKE_API cudnnGetConvolutionBackwardDataWorkspaceSize(void *h, void *w, void *dy, void *c, void *dx, int a, size_t *s)
{ (void)h; (void)w; (void)dy; (void)c; (void)dx; (void)a; *s = 0; return 0; }
int FAKE_API cudnnGetConvolutionBackwardFilterWorkspaceSize(void *h, void *x, void *dy, void *c, void *dw, int a, size_t *s)
{ (void)h; (void)x; (void)dy; (void)c; (void)dw; (void)a; *s = 0; return 0; }

static float *scratch(size_t n) { return malloc(n * sizeof(float)); }

int FAKE_API cudnnConvolutionForward(void *h, const float *alpha, struct tensor *xd, const float *x, struct tensor *wd,
			    const float *w, struct conv *c, int algo, void *ws, size_t wss, const float *beta,
			    struct tensor *yd, float *y)
{
	(void)h; (void)alpha; (void)algo; (void)ws; (void)wss; (void)beta; (void)yd;
#ifdef FAKE_CRASH
	raise(SIGSEGV);
#endif
	struct conv_shape s = shape_of(xd, wd, c);
	if (fake_conf("hang_gpu", -1) == device())
		for (;;)
			pause();
	if (fake_conf("fast", 0)) /* make bench: validation's own CPU cost, not the fake's */
		return 0;
	float *mag = scratch(conv_y_count(&s));
	conv_ref_forward(&s, x, w, y, mag);
	free(mag);
#ifdef FAKE_WRONG
	y[conv_y_count(&s) / 2] += 0.5f;
#endif
	/* Off by a little: 0.3 where values reach a few units, at a single element. */
	if (fake_conf("fwd_off_algo", -1) == algo)
		y[conv_y_count(&s) / 3] += 0.3f;
	if (fake_conf("bad_gpu", -1) == device())
		y[0] += 0.3f;
	return 0;
}

int FAKE_API cudnnConvolutionBackwardData(void *h, const float *alpha, struct tensor *wd, const float *w, struct tensor *dyd,
				 const float *dy, struct conv *c, int algo, void *ws, size_t wss, const float *beta,
				 struct tensor *dxd, float *dx)
{
	(void)h; (void)alpha; (void)algo; (void)ws; (void)wss; (void)beta; (void)dyd;
	struct conv_shape s = shape_of(dxd, wd, c);
	if (fake_conf("fast", 0))
		return 0;
	float *mag = scratch(conv_x_count(&s));
	conv_ref_backward_data(&s, w, dy, dx, mag);
	free(mag);
	return 0;
}

int FAKE_API cudnnConvolutionBackwardFilter(void *h, const float *alpha, struct tensor *xd, const float *x, struct tensor *dyd,
				   const float *dy, struct conv *c, int algo, void *ws, size_t wss, const float *beta,
				   struct tensor *dwd, float *dw)
{
	(void)h; (void)alpha; (void)algo; (void)ws; (void)wss; (void)beta; (void)dyd;
	struct conv_shape s = shape_of(xd, dwd, c);
	if (fake_conf("fast", 0))
		return 0;
	float *mag = scratch(conv_w_count(&s));
	conv_ref_backward_filter(&s, x, dy, dw, mag);
	free(mag);
	if (fake_conf("bwd_filter_off", 0))
		dw[conv_w_count(&s) / 2] += 5.0f;
	return 0;
}
