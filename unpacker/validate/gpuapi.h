/* gpuapi.h - the few cuDNN, NCCL, cuSPARSELt and CUDA driver entry points and constants validation needs,
 * declared here and looked up at run time: the unpacker links nothing from CUDA (values from
 * NVIDIA.md; the same in cuDNN 8.2 - 9.x; NCCL's from its nccl.h, unchanged since 2.0) */
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

/* The backend (graph) API's numbers the matmul graph check uses, named as cudnn_graph.h
 * (cudnn_backend.h before 9.0) names them: descriptor types, attribute value types,
 * attribute names, heuristics modes and engine behavior notes. */
enum {
	CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2,
	CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3,
	CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4,
	CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5,
	CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15,
	CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16,
	CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17,
	CUDNN_BACKEND_MATMUL_DESCRIPTOR = 18,
	CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR = 19,
};
enum {
	CUDNN_TYPE_HANDLE = 0,
	CUDNN_TYPE_DATA_TYPE = 1,
	CUDNN_TYPE_INT64 = 3,
	CUDNN_TYPE_VOID_PTR = 6,
	CUDNN_TYPE_HEUR_MODE = 8,
	CUDNN_TYPE_BACKEND_DESCRIPTOR = 15,
	CUDNN_TYPE_BEHAVIOR_NOTE = 19,
};
enum {
	CUDNN_ATTR_ENGINEHEUR_MODE = 200,
	CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201,
	CUDNN_ATTR_ENGINEHEUR_RESULTS = 202,
	CUDNN_ATTR_ENGINECFG_ENGINE = 300,
	CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400,
	CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
	CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
	CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800,
	CUDNN_ATTR_OPERATIONGRAPH_OPS = 801,
	CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900,
	CUDNN_ATTR_TENSOR_DATA_TYPE = 901,
	CUDNN_ATTR_TENSOR_DIMENSIONS = 902,
	CUDNN_ATTR_TENSOR_STRIDES = 903,
	CUDNN_ATTR_TENSOR_UNIQUE_ID = 906,
	CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
	CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
	CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003,
	CUDNN_ATTR_ENGINE_GLOBAL_INDEX = 1301,
	CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1305,
	CUDNN_ATTR_MATMUL_COMP_TYPE = 1500,
	CUDNN_ATTR_OPERATION_MATMUL_ADESC = 1520,
	CUDNN_ATTR_OPERATION_MATMUL_BDESC = 1521,
	CUDNN_ATTR_OPERATION_MATMUL_CDESC = 1522,
	CUDNN_ATTR_OPERATION_MATMUL_DESC = 1523,
};
enum {
	CUDNN_HEUR_MODE_FALLBACK = 2,
	CUDNN_HEUR_MODE_A = 3,
	CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0,
	CUDNN_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY = 4,
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

/* NCCL's numbers (nccl.h: ncclResult_t ncclSuccess, ncclDataType_t ncclFloat32, ncclRedOp_t
 * ncclSum) and the calls of the all-reduce check. Its communicator is opaque; a stream of
 * NULL is the current device's default stream. */
enum {
	NCCL_SUCCESS = 0,
	NCCL_FLOAT32 = 7,
	NCCL_SUM = 0,
};

typedef void *nccl_comm;

struct nccl_api {
	void *lib;
	int (*GetVersion)(int *);
	const char *(*GetErrorString)(int);
	int (*CommInitAll)(nccl_comm *, int, const int *);
	int (*CommDestroy)(nccl_comm);
	int (*AllReduce)(const void *, void *, size_t, int, int, nccl_comm, void *);
	int (*GroupStart)(void);
	int (*GroupEnd)(void);
};

/* cuSPARSELt's numbers and the calls of the 2:4 sparse matmul check (cusparseltcheck.c), as
 * NVIDIA's cusparseLt.h (0.8) and the CUDA toolkit's cusparse.h and library_types.h have them.
 * test_gpuapi checks those of cusparse.h and library_types.h against this machine's CUDA
 * headers (CUSPARSE_STATUS_SUCCESS 0, CUSPARSE_OPERATION_NON_TRANSPOSE 0, CUSPARSE_ORDER_ROW 2,
 * CUDA_R_16F 2; libraryPropertyType MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2), and
 * cusparseLt.h's own wherever a copy of it is there; none is on this machine. Those from
 * public copies (the 0.1 header; NVIDIA's cuSPARSELt documentation and release notes; the
 * call order of NVIDIA/CUDALibrarySamples cuSPARSELt/matmul): the first value of
 * cusparseLtSparsity_t, cusparseLtMatmulAlg_t and cusparseLtPruneAlg_t is 0 in every copy;
 * CUSPARSE_COMPUTE_32F 2 (32I 0, 16F 1, 32F 2 since 0.6) is from copies of later headers, not
 * NVIDIA's own: tests/tools/gpu-cusparselt.sh prints the real header's lines for them. */
enum {
	CUSPARSE_STATUS_SUCCESS = 0,
	CUSPARSE_OPERATION_NON_TRANSPOSE = 0,
	CUSPARSE_ORDER_ROW = 2,
	CUDA_R_16F = 2,
	CUSPARSELT_SPARSITY_50_PERCENT = 0,
	CUSPARSE_COMPUTE_32F = 2,
	CUSPARSELT_MATMUL_ALG_DEFAULT = 0,
	CUSPARSELT_PRUNE_SPMMA_TILE = 0,
	CUSPARSELT_PROPERTY_MAJOR = 0, /* libraryPropertyType: MAJOR_VERSION, MINOR_VERSION, */
	CUSPARSELT_PROPERTY_MINOR = 1, /* PATCH_LEVEL */
	CUSPARSELT_PROPERTY_PATCH = 2,
};

/* cuSPARSELt's opaque objects live in the caller's memory: 1024 bytes each in the 0.1 header,
 * 512 aligned to 16 as later ones are described; 1024 aligned to 16 is reserved, which holds
 * either, since the library writes no more than its own size. */
struct cusparselt_opaque {
	_Alignas(16) unsigned char data[1024];
};

typedef void *cu_stream; /* NULL: the context's default stream */

struct cusparselt_api {
	void *lib;
	int (*Init)(struct cusparselt_opaque *);
	int (*Destroy)(const struct cusparselt_opaque *);
	int (*GetProperty)(int, int *);                        /* optional */
	const char *(*GetErrorString)(int);                    /* optional: 0.8 and later */
	int (*DenseDescriptorInit)(const struct cusparselt_opaque *, struct cusparselt_opaque *,
				   int64_t, int64_t, int64_t, uint32_t, int, int);
	int (*StructuredDescriptorInit)(const struct cusparselt_opaque *, struct cusparselt_opaque *,
					int64_t, int64_t, int64_t, uint32_t, int, int, int);
	int (*MatDescriptorDestroy)(const struct cusparselt_opaque *);
	int (*MatmulDescriptorInit)(const struct cusparselt_opaque *, struct cusparselt_opaque *, int,
				    int, const struct cusparselt_opaque *,
				    const struct cusparselt_opaque *, const struct cusparselt_opaque *,
				    const struct cusparselt_opaque *, int);
	int (*MatmulAlgSelectionInit)(const struct cusparselt_opaque *, struct cusparselt_opaque *,
				      const struct cusparselt_opaque *, int);
	int (*MatmulAlgSelectionDestroy)(const struct cusparselt_opaque *); /* optional: 0.8 on */
	int (*MatmulPlanInit)(const struct cusparselt_opaque *, struct cusparselt_opaque *,
			      const struct cusparselt_opaque *, const struct cusparselt_opaque *);
	int (*MatmulPlanDestroy)(const struct cusparselt_opaque *);
	int (*MatmulGetWorkspace)(const struct cusparselt_opaque *, const struct cusparselt_opaque *,
				  size_t *);
	int (*Matmul)(const struct cusparselt_opaque *, const struct cusparselt_opaque *, const void *,
		      const void *, const void *, const void *, const void *, void *, void *,
		      cu_stream *, int32_t);
	int (*SpMMAPrune)(const struct cusparselt_opaque *, const struct cusparselt_opaque *,
			  const void *, void *, int, cu_stream);
	int (*SpMMAPruneCheck)(const struct cusparselt_opaque *, const struct cusparselt_opaque *,
			       const void *, int *, cu_stream);
	int (*SpMMACompressedSize)(const struct cusparselt_opaque *, const struct cusparselt_opaque *,
				   size_t *, size_t *);
	int (*SpMMACompress)(const struct cusparselt_opaque *, const struct cusparselt_opaque *,
			     const void *, void *, void *, cu_stream);
};

/* Resolve every symbol; on a missing one, name it in missing and return -1. The legacy
 * convolution API and the core calls are required; the backend API is optional (NULL). */
int gpuapi_cudnn(void *lib, struct cudnn_api *api, char *missing, size_t size);
int gpuapi_cuda(void *lib, struct cuda_api *api, char *missing, size_t size);
int gpuapi_nccl(void *lib, struct nccl_api *api, char *missing, size_t size);
const char *gpuapi_nccl_error(const struct nccl_api *api, int status);
int gpuapi_cusparselt(void *lib, struct cusparselt_api *api, char *missing, size_t size);
const char *gpuapi_cusparselt_error(const struct cusparselt_api *api, int status);
const char *gpuapi_cudnn_error(const struct cudnn_api *api, int status);
const char *gpuapi_cuda_error(const struct cuda_api *api, int status);

/* The file name of cuDNN's main library of major version major (its digits) on this platform,
 * as the loader looks it up by name: "libcudnn.so.9" (Windows: "cudnn64_9.dll"). */
void gpuapi_cudnn_name(const char *major, char *out, size_t size);
/* That library in the install at dir: "DIR/lib/libcudnn.so.9" (Windows: "DIR\bin\cudnn64_9.dll");
 * free() it. */
char *gpuapi_cudnn_path(const char *dir, const char *major);
/* The directory of the install at dir that holds the libraries: "DIR/lib" (Windows:
 * "DIR\bin"); free() it. */
char *gpuapi_cudnn_dir(const char *dir);
/* 1 when name is one of the sub-libraries of cuDNN major version major, as the library
 * directory names them: "libcudnn_graph.so.9" (Windows: "cudnn_graph64_9.dll"). */
int gpuapi_cudnn_sublibrary(const char *name, const char *major);
/* What every file name of cuDNN's libraries starts with: "libcudnn" (Windows: "cudnn"). */
extern const char gpuapi_cudnn_files[];
/* The key the library probe reports the library's own version under (step 2's row). */
extern const char gpuapi_version_key[];
/* The driver's library, as programs load it by name: "libcuda.so.1" (Windows: "nvcuda.dll"). */
extern const char gpuapi_driver_name[];
/* The separator of the paths the system gives back (realpath, loaded modules): '/' ('\\'). */
extern const char gpuapi_separator;

#endif
