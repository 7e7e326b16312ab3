/* fakecuda.c - a stand-in libcuda.so.1: "GPUs" (one, or gpus=N in FAKE_CONF) whose memory is
 * host memory, so the fake cuDNN can compute on the CPU. CUDA_VISIBLE_DEVICES selects and
 * renumbers them as the real driver does (a list of indices, cut at the first one not there). -DFAKE_NO_DEVICE makes cuInit report
 * no device. The fake cuDNN asks fake_cuda_current_device() which GPU it runs on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconf.h"

static int current_device;

__attribute__((constructor)) static void record(void) { fake_record_uid("libcuda"); }

int fake_cuda_current_device(void) { return current_device; }

int FAKE_API cuInit(unsigned f)
{
	(void)f;
#ifdef FAKE_NO_DEVICE
	return 100; /* CUDA_ERROR_NO_DEVICE */
#else
	return 0;
#endif
}
int FAKE_API cuDriverGetVersion(int *v) { *v = 13000; return 0; }

/* The GPUs this process sees, as indices of the configured ones: -1 when all are seen. */
static int visible_gpus(int *list, int max)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int gpus = (int)fake_conf("gpus", 1), n = 0;
	if (!v)
		return -1;
	while (*v && n < max) {
		char *end;
		long k = strtol(v, &end, 10);
		if (end == v || k < 0 || k >= gpus)
			break;
		list[n++] = (int)k;
		v = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n;
}
int FAKE_API cuDeviceGetCount(int *n)
{
	int list[64], seen = visible_gpus(list, 64);
	*n = seen >= 0 ? seen : (int)fake_conf("gpus", 1);
	return 0;
}
int FAKE_API cuDeviceGet(int *d, int i)
{
	int list[64], seen = visible_gpus(list, 64);
	if (i < 0 || i >= (seen >= 0 ? seen : (int)fake_conf("gpus", 1)))
		return 101; /* CUDA_ERROR_INVALID_DEVICE, as the real driver says for an ordinal it lacks */
	*d = seen >= 0 ? list[i] : i;
	return 0;
}
int FAKE_API cuDeviceGetName(char *name, int len, int d) { snprintf(name, (size_t)len, d ? "Fake GPU %d (CPU)" : "Fake GPU (CPU)", d); return 0; }
int FAKE_API cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = (size_t)1 << 30; return 0; }
/* Compute capability (attributes 75 and 76) as MAJOR*10+MINOR: FAKE_CONF's cc<GPU>= for one GPU
 * (a mixed machine), else cc= for every GPU, else 9.0 (Hopper). */
int FAKE_API cuDeviceGetAttribute(int *v, int a, int d)
{
	char key[16];
	snprintf(key, sizeof(key), "cc%d", d);
	long cc = fake_conf(key, fake_conf("cc", 90));
	*v = a == 75 ? (int)(cc / 10) : a == 76 ? (int)(cc % 10) : 0;
	return 0;
}
int FAKE_API cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)(intptr_t)(d + 1); return 0; }
int FAKE_API cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
int FAKE_API cuCtxSetCurrent(void *c) { current_device = (int)(intptr_t)c - 1; return 0; }
int FAKE_API cuCtxSynchronize(void) { return 0; }
int FAKE_API cuMemAlloc_v2(uint64_t *p, size_t n) { *p = (uint64_t)(uintptr_t)malloc(n); return *p ? 0 : 2; }
int FAKE_API cuMemFree_v2(uint64_t p) { free((void *)(uintptr_t)p); return 0; }
int FAKE_API cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
int FAKE_API cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
int FAKE_API cuGetErrorString(int e, const char **s) { *s = e == 100 ? "no CUDA-capable device is detected" : "fake error"; return 0; }
