/* product_cusparselt.c - cuSPARSELt, NVIDIA's library of 2:4 structured-sparse matrix
 * multiplication: every name cuferry knows it by, in one place. NVIDIA ships it as
 * compute/cusparselt/redist/redistrib_<version>.json in cuDNN's schema (package
 * "libcusparse_lt", archives libcusparse_lt-<platform>-<version>_cudaN-archive.tar.xz with
 * include/cusparseLt.h and lib/libcusparseLt.so.0 -> libcusparseLt.so.<version>), the wheel
 * nvidia-cusparselt-cu13 (nvidia/cusparselt/) and conda-forge's libcusparselt. NVIDIA's
 * manifests list a windows-x86_64 zip too, but its DLL is cusparseLt.dll, with no 64_MAJOR
 * the Windows install's dll_stem names, and its layout is not confirmed here: carried for
 * Linux only until it is (a Windows --platform is refused, exit 9). */
#include "manifests/product.h"
#include "manifests/product_rows.h"

static const char *const headers[] = { "cusparseLt*.h", NULL };
static const char *const linux_libs[] = { "libcusparseLt*.so*", NULL };
static const char *const none[] = { NULL }; /* no Windows build carried; one directory of headers */
/* The archives' licence (license_path libcusparse_lt/LICENSE.txt in NVIDIA's JSON). */
static const char *const licences[] = { "LICENSE.txt", "LICENSE", NULL };
static const char *const version_headers[] = { "cusparseLt.h", NULL };

const struct product product_cusparselt = {
	.name = "cusparselt",
	.display = "cuSPARSELt",
	.description = "NVIDIA cuSPARSELt structured-sparse matrix multiplication library",
	.mirror_path = "cusparselt/redist",
	.redist_key = "libcusparse_lt",
	.archive_stem = "libcusparse_lt",
	.wheel_dist = "nvidia_cusparselt",
	.wheel_dir = "nvidia/cusparselt",
	.conda_name = "libcusparselt",
	.redist_since = NULL,
	.files = { headers, linux_libs, none, none, licences, none },
	/* cusparseLt.h: CUSPARSELT_VER_MAJOR/MINOR/PATCH (and _BUILD, the archives' fourth part) */
	.version = { version_headers, "CUSPARSELT_VER_MAJOR", "CUSPARSELT_VER_MINOR",
		     "CUSPARSELT_VER_PATCH" },
	.lib_stem = "libcusparseLt", /* lib/libcusparseLt.so.0 */
	.sublib_stem = NULL,
	.dll_stem = NULL,
	/* It links the CUDA runtime statically and opens only the driver. */
	.cuda_libs_opened = none,
	.chooser_cuda_lib = NULL,
	.prefix_stem = "cusparselt",
	.install_stem = "cusparselt-",
	.bundle_id_stem = "cusparselt",
	.manifest_key = "cusparselt",
	.env_var = "CUSPARSELT_PATH",
	.env_root_var = "CUSPARSELT_ROOT", /* the hint PyTorch's FindCUSPARSELT.cmake reads */
	.ldconf_name = "00-cuferry-cusparselt.conf", /* ahead of 000_cuda.conf, as cuDNN's */
	.ldconf_legacy_name = NULL,
	.soname_major = "0",
	.profile_name = "cuferry-cusparselt.sh",
	.user_env_name = "cusparselt.sh",
	.pkgconfig_name = "cusparselt",
	.cmake_package = "CUSPARSELT",
	.module_name = "cusparselt",
	.compat_kind = "cusparselt",
	.gpu_check = "cusparselt-spmma", /* issue 27 */
};
