/* product_cudnn.c - cuDNN, the first product: every name cuferry knows it by, in one place */
#include "manifests/product.h"
#include "manifests/product_rows.h"

static const char *const headers[] = { "cudnn*.h", NULL };
static const char *const linux_libs[] = { "libcudnn*.so*", NULL };
static const char *const import_libs[] = { "cudnn*.lib", NULL };
static const char *const dlls[] = { "cudnn*.dll", NULL };
static const char *const no_include_dirs[] = { NULL }; /* every header is in include/ itself */
/* The archives' licence, then the name a toolkit-style tree may give it. */
static const char *const licences[] = { "LICENSE", "LICENSE.txt", "NVIDIA_SLA_cuDNN_Support.txt", NULL };
/* cudnn_version.h from 8.x on; before, the version macros sat in cudnn.h. */
static const char *const version_headers[] = { "cudnn_version.h", "cudnn.h", NULL };
/* cuDNN 9 opens these by name when a graph needs them (it imports none of them). */
static const char *const cuda_libs_opened[] = { "libcublasLt.so.", "libcublas.so.", "libnvrtc.so.", NULL };

const struct product product_cudnn = {
	.name = "cudnn",
	.display = "cuDNN",
	.description = "NVIDIA CUDA Deep Neural Network library",
	.mirror_path = "cudnn/redist",
	.redist_key = "cudnn",
	.archive_stem = "cudnn",
	.wheel_dist = "nvidia_cudnn",
	.wheel_dir = "nvidia/cudnn",
	.conda_name = "cudnn",
	.redist_since = "8.3",
	.files = { headers, linux_libs, import_libs, dlls, licences, no_include_dirs },
	.version = { version_headers, "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL" },
	.lib_stem = "libcudnn",
	.sublib_stem = "libcudnn_",
	.dll_stem = "cudnn",
	.cuda_libs_opened = cuda_libs_opened,
	.chooser_cuda_lib = "cublas",
	.prefix_stem = "cudnn",
	.install_stem = "cudnn-",
	.bundle_id_stem = "cudnn",
	.manifest_key = "cudnn",
	.env_var = "CUDNN_PATH",
	.env_root_var = "CUDNN_ROOT",
	/* ldconfig reads ld.so.conf.d in byte order and the cache keeps the first directory's
	 * copy of a soname first, so the name must sort ahead of what NVIDIA's packages and
	 * tools write (000_cuda.conf, 00-nvcr-*.conf, 988_cuda-12.conf, cuda.conf): "00-" does,
	 * as '-' (0x2d) sorts before '0' and "00-c" before "00-n". */
	.ldconf_name = "00-cuferry-cudnn.conf",
	.ldconf_legacy_name = "cuferry-cudnn.conf", /* before 00-: it lost to 000_cuda.conf */
	.soname_major = "9",
	.profile_name = "cuferry-cudnn.sh",
	.user_env_name = "cudnn.sh",
	.pkgconfig_name = "cudnn",
	.cmake_package = "CUDNN",
	.module_name = "cudnn",
	.compat_kind = "cudnn",
	.gpu_check = "cudnn-convolution",
};
