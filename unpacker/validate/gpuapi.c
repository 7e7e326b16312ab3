/* gpuapi.c - looking up cuDNN, NCCL, cuSPARSELt and driver entry points by name */
#include "unpacker/validate/gpuapi.h"

#include <stdio.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"

struct symbol {
	const char *name;
	size_t offset;
	int optional;
};

#define CUDNN(f) { "cudnn" #f, offsetof(struct cudnn_api, f), 0 }
#define CUDNN_OPT(f) { "cudnn" #f, offsetof(struct cudnn_api, f), 1 }
#define CU(f, name) { name, offsetof(struct cuda_api, f), 0 }
#define NCCL(f) { "nccl" #f, offsetof(struct nccl_api, f), 0 }

static const struct symbol cudnn_symbols[] = {
	CUDNN(GetVersion), CUDNN(GetCudartVersion), CUDNN(GetErrorString), CUDNN(Create),
	CUDNN(Destroy), CUDNN(CreateTensorDescriptor), CUDNN(SetTensor4dDescriptor),
	CUDNN(DestroyTensorDescriptor), CUDNN(CreateFilterDescriptor), CUDNN(SetFilter4dDescriptor),
	CUDNN(DestroyFilterDescriptor), CUDNN(CreateConvolutionDescriptor),
	CUDNN(SetConvolution2dDescriptor), CUDNN(SetConvolutionMathType),
	CUDNN(DestroyConvolutionDescriptor), CUDNN(GetConvolution2dForwardOutputDim),
	CUDNN(GetConvolutionForwardAlgorithm_v7), CUDNN(GetConvolutionForwardWorkspaceSize),
	CUDNN(ConvolutionForward), CUDNN(GetConvolutionBackwardDataAlgorithm_v7),
	CUDNN(GetConvolutionBackwardDataWorkspaceSize), CUDNN(ConvolutionBackwardData),
	CUDNN(GetConvolutionBackwardFilterAlgorithm_v7), CUDNN(GetConvolutionBackwardFilterWorkspaceSize),
	CUDNN(ConvolutionBackwardFilter),
	CUDNN_OPT(BackendCreateDescriptor), CUDNN_OPT(BackendDestroyDescriptor),
	CUDNN_OPT(BackendFinalize), CUDNN_OPT(BackendSetAttribute), CUDNN_OPT(BackendGetAttribute),
	CUDNN_OPT(BackendExecute),
};

/* Looked up by name, the memory calls carry their _v2 names (NVIDIA.md). */
static const struct symbol cuda_symbols[] = {
	CU(Init, "cuInit"), CU(DriverGetVersion, "cuDriverGetVersion"),
	CU(DeviceGetCount, "cuDeviceGetCount"), CU(DeviceGet, "cuDeviceGet"),
	CU(DeviceGetName, "cuDeviceGetName"), CU(DeviceTotalMem, "cuDeviceTotalMem_v2"),
	CU(DeviceGetAttribute, "cuDeviceGetAttribute"),
	CU(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	CU(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	CU(CtxSetCurrent, "cuCtxSetCurrent"), CU(CtxSynchronize, "cuCtxSynchronize"),
	CU(MemAlloc, "cuMemAlloc_v2"), CU(MemFree, "cuMemFree_v2"),
	CU(MemcpyHtoD, "cuMemcpyHtoD_v2"), CU(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	CU(GetErrorString, "cuGetErrorString"),
};

static const struct symbol nccl_symbols[] = {
	NCCL(GetVersion), NCCL(GetErrorString), NCCL(CommInitAll), NCCL(CommDestroy),
	NCCL(AllReduce), NCCL(GroupStart), NCCL(GroupEnd),
};

#define SPLT(f) { "cusparseLt" #f, offsetof(struct cusparselt_api, f), 0 }
#define SPLT_OPT(f) { "cusparseLt" #f, offsetof(struct cusparselt_api, f), 1 }

static const struct symbol cusparselt_symbols[] = {
	SPLT(Init), SPLT(Destroy), SPLT_OPT(GetProperty), SPLT_OPT(GetErrorString),
	SPLT(DenseDescriptorInit), SPLT(StructuredDescriptorInit), SPLT(MatDescriptorDestroy),
	SPLT(MatmulDescriptorInit), SPLT(MatmulAlgSelectionInit), SPLT_OPT(MatmulAlgSelectionDestroy),
	SPLT(MatmulPlanInit), SPLT(MatmulPlanDestroy), SPLT(MatmulGetWorkspace), SPLT(Matmul),
	SPLT(SpMMAPrune), SPLT(SpMMAPruneCheck), SPLT(SpMMACompressedSize), SPLT(SpMMACompress),
};

static int resolve(void *lib, void *api, const struct symbol *syms, size_t n, char *missing,
		   size_t size)
{
	missing[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		void *f = platform_lib_symbol(lib, syms[i].name);
		if (!f && !syms[i].optional) {
			snprintf(missing, size, "%s", syms[i].name);
			return -1;
		}
		memcpy((char *)api + syms[i].offset, &f, sizeof(f));
	}
	return 0;
}

int gpuapi_cudnn(void *lib, struct cudnn_api *api, char *missing, size_t size)
{
	memset(api, 0, sizeof(*api));
	api->lib = lib;
	return resolve(lib, api, cudnn_symbols, sizeof(cudnn_symbols) / sizeof(cudnn_symbols[0]),
		       missing, size);
}

int gpuapi_cuda(void *lib, struct cuda_api *api, char *missing, size_t size)
{
	memset(api, 0, sizeof(*api));
	api->lib = lib;
	return resolve(lib, api, cuda_symbols, sizeof(cuda_symbols) / sizeof(cuda_symbols[0]),
		       missing, size);
}

int gpuapi_nccl(void *lib, struct nccl_api *api, char *missing, size_t size)
{
	memset(api, 0, sizeof(*api));
	api->lib = lib;
	return resolve(lib, api, nccl_symbols, sizeof(nccl_symbols) / sizeof(nccl_symbols[0]),
		       missing, size);
}

int gpuapi_cusparselt(void *lib, struct cusparselt_api *api, char *missing, size_t size)
{
	memset(api, 0, sizeof(*api));
	api->lib = lib;
	int rc = resolve(lib, api, cusparselt_symbols,
			 sizeof(cusparselt_symbols) / sizeof(cusparselt_symbols[0]), missing, size);
	/* 0.8's release notes name it cusparseLtAlgSelectionDestroy, its API reference
	 * cusparseLtMatmulAlgSelectionDestroy: whichever the library has. */
	if (rc == 0 && !api->MatmulAlgSelectionDestroy) {
		void *f = platform_lib_symbol(lib, "cusparseLtAlgSelectionDestroy");
		memcpy(&api->MatmulAlgSelectionDestroy, &f, sizeof(f));
	}
	return rc;
}

/* Before 0.8 the library has no error strings of its own (they were cuSPARSE's). */
const char *gpuapi_cusparselt_error(const struct cusparselt_api *api, int status)
{
	const char *s = api->GetErrorString ? api->GetErrorString(status) : NULL;
	return s ? s : "cusparseStatus_t";
}

const char *gpuapi_nccl_error(const struct nccl_api *api, int status)
{
	const char *s = api->GetErrorString ? api->GetErrorString(status) : NULL;
	return s ? s : "unknown NCCL result";
}

const char *gpuapi_cudnn_error(const struct cudnn_api *api, int status)
{
	const char *s = api->GetErrorString ? api->GetErrorString(status) : NULL;
	return s ? s : "unknown cuDNN status";
}

const char *gpuapi_cuda_error(const struct cuda_api *api, int status)
{
	const char *s = NULL;
	if (api->GetErrorString)
		api->GetErrorString(status, &s);
	return s ? s : "unknown CUDA error";
}

/* NVIDIA's own names: the Linux tarball's lib/libcudnn.so.N, the Windows zip's bin/cudnn64_N.dll
 * (NVIDIA.md). */
#if defined(_WIN32)
#define CUDNN_DIR "%s\\bin"
#define CUDNN_NAME "cudnn64_%s.dll"
#define CUDNN_IN_INSTALL CUDNN_DIR "\\" CUDNN_NAME
#define SUBLIBRARY_PREFIX "cudnn_"
#define SUBLIBRARY_SUFFIX "64_%s.dll"
#define CUDNN_FILES "cudnn"
#define SEPARATOR '\\'
#define DRIVER_NAME "nvcuda.dll"
#else
#define CUDNN_DIR "%s/lib"
#define CUDNN_NAME "libcudnn.so.%s"
#define CUDNN_IN_INSTALL CUDNN_DIR "/" CUDNN_NAME
#define SUBLIBRARY_PREFIX "libcudnn_"
#define SUBLIBRARY_SUFFIX ".so.%s"
#define CUDNN_FILES "libcudnn"
#define SEPARATOR '/'
#define DRIVER_NAME "libcuda.so.1"
#endif

const char gpuapi_cudnn_files[] = CUDNN_FILES;
const char gpuapi_version_key[] = "cudnn_version";
const char gpuapi_driver_name[] = DRIVER_NAME;
const char gpuapi_separator = SEPARATOR;

void gpuapi_cudnn_name(const char *major, char *out, size_t size)
{
	snprintf(out, size, CUDNN_NAME, major);
}

char *gpuapi_cudnn_path(const char *dir, const char *major)
{
	return xasprintf(CUDNN_IN_INSTALL, dir, major);
}

char *gpuapi_cudnn_dir(const char *dir)
{
	return xasprintf(CUDNN_DIR, dir);
}

int gpuapi_cudnn_sublibrary(const char *name, const char *major)
{
	char suffix[32];
	snprintf(suffix, sizeof(suffix), SUBLIBRARY_SUFFIX, major);
	size_t n = strlen(name), m = strlen(suffix), p = strlen(SUBLIBRARY_PREFIX);
	return n >= p + m && strncmp(name, SUBLIBRARY_PREFIX, p) == 0 && strcmp(name + n - m, suffix) == 0;
}
