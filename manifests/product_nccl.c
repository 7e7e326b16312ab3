/* product_nccl.c - NCCL, NVIDIA's collective communications library: every name cuferry knows
 * it by, in one place. NVIDIA ships it for Linux only (compute/nccl/redist/nccl/<platform>/,
 * the wheel nvidia-nccl-cu13), so its Windows lists are empty. */
#include "manifests/product.h"
#include "manifests/product_rows.h"

static const char *const headers[] = { "nccl*.h", NULL };
/* 2.28 and later: the device API's headers, in directories up to four levels below it. */
static const char *const include_dirs[] = { "nccl_device", NULL };
static const char *const linux_libs[] = { "libnccl*.so*", NULL };
static const char *const none[] = { NULL }; /* no Windows build: no import library, no DLL */
/* The archives' licence; a toolkit-style tree has the wheel's dist-info licence instead. */
static const char *const licences[] = { "LICENSE.txt", "LICENSE", NULL };
static const char *const version_headers[] = { "nccl.h", NULL };

const struct product product_nccl = {
	.name = "nccl",
	.display = "NCCL",
	.description = "NVIDIA Collective Communications Library",
	.mirror_path = "nccl/redist",
	.redist_key = "nccl",
	.archive_stem = "nccl",
	.wheel_dist = "nvidia_nccl",
	.wheel_dir = "nvidia/nccl",
	.conda_name = "nccl",
	.redist_since = NULL,
	.files = { headers, linux_libs, none, none, licences, include_dirs },
	.version = { version_headers, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH" },
	.lib_stem = "libnccl",
	.sublib_stem = NULL, /* one library: libnccl.so.2 */
	.dll_stem = NULL,
	/* It links the CUDA runtime statically and opens only the driver's libraries. */
	.cuda_libs_opened = none,
	.chooser_cuda_lib = NULL,
	.prefix_stem = "nccl",
	.install_stem = "nccl-",
	.bundle_id_stem = "nccl",
	.manifest_key = "nccl",
	.env_var = "NCCL_HOME",
	.env_root_var = "NCCL_ROOT", /* the hint CMake's and PyTorch's FindNCCL read */
	.ldconf_name = "00-cuferry-nccl.conf", /* ahead of NVIDIA's 000_cuda.conf, 00-nvcr-*.conf */
	.ldconf_legacy_name = NULL,
	.soname_major = "2",
	.profile_name = "cuferry-nccl.sh",
	.user_env_name = "nccl.sh",
	.pkgconfig_name = "nccl",
	.cmake_package = "NCCL",
	.module_name = "nccl",
	.compat_kind = "nccl",
	.gpu_check = "nccl-allreduce", /* issue 27 */
};
