/* fakebackend.c - the backend (graph) API of the fake cuDNN: just enough of it for
 * validation's matmul graph. The heuristics offer two engines: engine 0 plain, engine 1
 * "runtime-compiled" (its plan opens libnvrtc.so.13, as cuDNN's do). FAKE_CONF's
 * graph_off_engine=E makes engine E's result wrong at one element. Device pointers are host
 * memory (fakecuda.c), so the matmul runs on the CPU. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconf.h"

#ifndef FAKE_NVRTC
#define FAKE_NVRTC "libnvrtc.so.13" /* the test names a stand-in by its path */
#endif

enum { T_ENGINECFG = 3, T_ENGINE = 2, T_PLAN = 5, T_VARPACK = 16, T_TENSOR = 17 };
enum { A_TENSOR_DIMS = 902, A_TENSOR_UID = 906, A_HEUR_RESULTS = 202, A_CFG_ENGINE = 300,
       A_PLAN_CFG = 401, A_PLAN_WS = 402, A_VP_UIDS = 1000, A_VP_PTRS = 1001, A_ENGINE_INDEX = 1301,
       A_ENGINE_BEHAVIOR = 1305 };
#define ENGINES 2

struct desc {
	int type;
	int64_t engine;        /* engine config, engine, plan: which engine */
	int64_t dims[3], uid;  /* tensor */
	int64_t uids[3];       /* variant pack */
	float *ptrs[3];
};

static int64_t rows_of[128], cols_of[128]; /* tensor dims by uid ('a', 'b', 'c') */

int cudnnBackendCreateDescriptor(int type, struct desc **d)
{
	*d = calloc(1, sizeof(**d));
	if (!*d)
		return 1;
	(*d)->type = type;
	return 0;
}

int cudnnBackendDestroyDescriptor(struct desc *d) { free(d); return 0; }

int cudnnBackendSetAttribute(struct desc *d, int attr, int type, int64_t count, const void *v)
{
	(void)type;
	if (attr == A_TENSOR_DIMS && count == 3)
		memcpy(d->dims, v, sizeof(d->dims));
	else if (attr == A_TENSOR_UID)
		d->uid = *(const int64_t *)v;
	else if (attr == A_PLAN_CFG)
		d->engine = (*(struct desc *const *)v)->engine;
	else if (attr == A_VP_UIDS && count == 3)
		memcpy(d->uids, v, sizeof(d->uids));
	else if (attr == A_VP_PTRS && count == 3)
		memcpy(d->ptrs, v, sizeof(d->ptrs));
	return 0;
}

int cudnnBackendFinalize(struct desc *d)
{
	if (d->type == T_TENSOR && d->uid >= 0 && d->uid < 128)
		rows_of[d->uid] = d->dims[1], cols_of[d->uid] = d->dims[2];
	/* The runtime-compiled engine needs NVRTC, as cuDNN's do; kept open, so it shows. */
	if (d->type == T_PLAN && d->engine == 1 && !dlopen(FAKE_NVRTC, RTLD_NOW))
		return 3000; /* CUDNN_STATUS_NOT_SUPPORTED-like */
	return 0;
}

int cudnnBackendGetAttribute(struct desc *d, int attr, int type, int64_t want, int64_t *n, void *out)
{
	(void)type;
	*n = 0;
	if (attr == A_HEUR_RESULTS) {
		*n = want == 0 ? ENGINES : want < ENGINES ? want : ENGINES;
		for (int64_t i = 0; want && i < *n; i++)
			((struct desc **)out)[i]->engine = i;
	} else if (attr == A_CFG_ENGINE && want >= 1) {
		((struct desc **)out)[0]->engine = d->engine;
		*n = 1;
	} else if (attr == A_ENGINE_INDEX && want >= 1) {
		*(int64_t *)out = d->engine;
		*n = 1;
	} else if (attr == A_ENGINE_BEHAVIOR && d->engine == 1 && want >= 1) {
		*(int *)out = 0; /* CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION */
		*n = 1;
	} else if (attr == A_PLAN_WS && want >= 1) {
		*(int64_t *)out = 0;
		*n = 1;
	}
	return 0;
}

int cudnnBackendExecute(void *handle, struct desc *plan, struct desc *pack)
{
	(void)handle;
	float *a = NULL, *b = NULL, *c = NULL;
	for (int i = 0; i < 3; i++) {
		if (pack->uids[i] == 'a') a = pack->ptrs[i];
		if (pack->uids[i] == 'b') b = pack->ptrs[i];
		if (pack->uids[i] == 'c') c = pack->ptrs[i];
	}
	int64_t m = rows_of['a'], k = cols_of['a'], nn = cols_of['b'];
	if (!a || !b || !c || k != rows_of['b'])
		return 3; /* CUDNN_STATUS_BAD_PARAM */
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < nn; j++) {
			float s = 0;
			for (int64_t x = 0; x < k; x++)
				s += a[i * k + x] * b[x * nn + j];
			c[i * nn + j] = s;
		}
	if (fake_conf("graph_off_engine", -1) == plan->engine)
		c[m * nn / 2] += 1.0f;
	return 0;
}
