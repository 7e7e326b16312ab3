/* gpuapi.h - the few cuDNN and CUDA driver entry points validation needs, declared here and
 * looked up at run time: the unpacker links nothing from CUDA (values from NVIDIA.md; the
 * same in cuDNN 8.2 - 9.x) */
#ifndef UNPACKER_GPUAPI_H
#define UNPACKER_GPUAPI_H

#include <stddef.h>
#include <stdint.h>

enum {
	CUDNN_TENSOR_NCHW = 0,
	CUDNN_DATA_FLOAT = 0,
	CUDNN_CROSS_CORRELATION = 1,
	CUDNN_DEFAULT_MATH = 0,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

/* cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout. */
struct cudnn_algo_perf {
	int algo;
	int status;
	float time;
	size_t memory;
	int determinism;
	int math_type;
	int reserved[3];
};

typedef void *cudnn_handle;
typedef void *cudnn_desc;

struct cudnn_api {
	void *lib;
	size_t (*GetVersion)(void);
	size_t (*GetCudartVersion)(void);
	const char *(*GetErrorString)(int);
	int (*Create)(cudnn_handle *);
	int (*Destroy)(cudnn_handle);
	int (*CreateTensorDescriptor)(cudnn_desc *);
	int (*SetTensor4dDescriptor)(cudnn_desc, int, int, int, int, int, int);
	int (*DestroyTensorDescriptor)(cudnn_desc);
	int (*CreateFilterDescriptor)(cudnn_desc *);
	int (*SetFilter4dDescriptor)(cudnn_desc, int, int, int, int, int, int);
	int (*DestroyFilterDescriptor)(cudnn_desc);
	int (*CreateConvolutionDescriptor)(cudnn_desc *);
	int (*SetConvolution2dDescriptor)(cudnn_desc, int, int, int, int, int, int, int, int);
	int (*SetConvolutionMathType)(cudnn_desc, int);
	int (*DestroyConvolutionDescriptor)(cudnn_desc);
	int (*GetConvolution2dForwardOutputDim)(cudnn_desc, cudnn_desc, cudnn_desc, int *, int *,
						int *, int *);
	int (*GetConvolutionForwardAlgorithm_v7)(cudnn_handle, cudnn_desc, cudnn_desc, cudnn_desc,
						 cudnn_desc, int, int *, struct cudnn_algo_perf *);
	int (*GetConvolutionForwardWorkspaceSize)(cudnn_handle, cudnn_desc, cudnn_desc, cudnn_desc,
						  cudnn_desc, int, size_t *);
	int (*ConvolutionForward)(cudnn_handle, const void *, cudnn_desc, const void *, cudnn_desc,
				  const void *, cudnn_desc, int, void *, size_t, const void *,
				  cudnn_desc, void *);
	int (*GetConvolutionBackwardDataAlgorithm_v7)(cudnn_handle, cudnn_desc, cudnn_desc,
						      cudnn_desc, cudnn_desc, int, int *,
						      struct cudnn_algo_perf *);
	int (*GetConvolutionBackwardDataWorkspaceSize)(cudnn_handle, cudnn_desc, cudnn_desc,
						       cudnn_desc, cudnn_desc, int, size_t *);
	int (*ConvolutionBackwardData)(cudnn_handle, const void *, cudnn_desc, const void *,
				       cudnn_desc, const void *, cudnn_desc, int, void *, size_t,
				       const void *, cudnn_desc, void *);
	int (*GetConvolutionBackwardFilterAlgorithm_v7)(cudnn_handle, cudnn_desc, cudnn_desc,
							cudnn_desc, cudnn_desc, int, int *,
							struct cudnn_algo_perf *);
	int (*GetConvolutionBackwardFilterWorkspaceSize)(cudnn_handle, cudnn_desc, cudnn_desc,
							 cudnn_desc, cudnn_desc, int, size_t *);
	int (*ConvolutionBackwardFilter)(cudnn_handle, const void *, cudnn_desc, const void *,
					 cudnn_desc, const void *, cudnn_desc, int, void *, size_t,
					 const void *, cudnn_desc, void *);
	/* backend (graph) API, for the matmul graph that brings in cuBLASLt or NVRTC */
	int (*BackendCreateDescriptor)(int, cudnn_desc *);
	int (*BackendDestroyDescriptor)(cudnn_desc);
	int (*BackendFinalize)(cudnn_desc);
	int (*BackendSetAttribute)(cudnn_desc, int, int, int64_t, const void *);
	int (*BackendGetAttribute)(cudnn_desc, int, int, int64_t, int64_t *, void *);
	int (*BackendExecute)(cudnn_handle, cudnn_desc, cudnn_desc);
};

typedef int cu_device;
typedef void *cu_context;
typedef uint64_t cu_ptr;

struct cuda_api {
	void *lib;
	int (*Init)(unsigned);
	int (*DriverGetVersion)(int *);
	int (*DeviceGetCount)(int *);
	int (*DeviceGet)(cu_device *, int);
	int (*DeviceGetName)(char *, int, cu_device);
	int (*DeviceTotalMem)(size_t *, cu_device);
	int (*DeviceGetAttribute)(int *, int, cu_device);
	int (*DevicePrimaryCtxRetain)(cu_context *, cu_device);
	int (*DevicePrimaryCtxRelease)(cu_device);
	int (*CtxSetCurrent)(cu_context);
	int (*CtxSynchronize)(void);
	int (*MemAlloc)(cu_ptr *, size_t);
	int (*MemFree)(cu_ptr);
	int (*MemcpyHtoD)(cu_ptr, const void *, size_t);
	int (*MemcpyDtoH)(void *, cu_ptr, size_t);
	int (*GetErrorString)(int, const char **);
};

/* Resolve every symbol; on a missing one, name it in missing and return -1. The legacy
 * convolution API and the core calls are required; the backend API is optional (NULL). */
int gpuapi_cudnn(void *lib, struct cudnn_api *api, char *missing, size_t size);
int gpuapi_cuda(void *lib, struct cuda_api *api, char *missing, size_t size);
const char *gpuapi_cudnn_error(const struct cudnn_api *api, int status);
const char *gpuapi_cuda_error(const struct cuda_api *api, int status);

#endif
