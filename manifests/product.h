/* product.h - what a product is: the facts about one NVIDIA library that cuferry bundles,
 * installs, makes findable and proves (issue 26 item 4). Code asks a descriptor instead of
 * spelling a library's names; cuDNN is the first row (product_cudnn.c), and a next product
 * (NCCL, cuSPARSELt, ...) is a descriptor of its own added to the registry in product.c. */
#ifndef MANIFESTS_PRODUCT_H
#define MANIFESTS_PRODUCT_H

#include <stddef.h>

/* The file name patterns (fnmatch) of a product's files in one of NVIDIA's trees, each list
 * NULL-terminated. */
struct product_files {
	const char *const *headers;      /* include/: "cudnn*.h" */
	const char *const *linux_libs;   /* lib/ on Linux: "libcudnn*.so*" */
	const char *const *import_libs;  /* lib/ on Windows: "cudnn*.lib" */
	const char *const *dlls;         /* bin/ on Windows: "cudnn*.dll" */
	const char *const *licences;     /* the tree's top: "LICENSE", ... */
};

/* Where the version of a tree is read: the first of headers that defines the three macros. */
struct product_version_source {
	const char *const *headers;      /* "cudnn_version.h", then "cudnn.h" (before 8.x) */
	const char *major, *minor, *patch; /* "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL" */
};

struct product {
	const char *name;          /* "cudnn": the registry's key */
	const char *display;       /* "cuDNN": what messages call it */
	const char *description;   /* the modulefile's whatis line */

	/* Where it comes from. */
	const char *mirror_path;   /* "cudnn/redist": NVIDIA's redist directory under a mirror */
	const char *redist_key;    /* "cudnn": its package in redistrib_<label>.json */
	const char *archive_stem;  /* "cudnn": cudnn-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz */
	const char *wheel_dist;    /* "nvidia_cudnn": the dist-info stem of NVIDIA's wheels */
	const char *wheel_dir;     /* "nvidia/cudnn": where a wheel puts the tree in site-packages */
	const char *conda_name;    /* "cudnn": the conda package (ENV/conda-meta/cudnn-*.json) */
	const char *redist_since;  /* "8.3": the first release NVIDIA's redistrib JSON lists (older
				    * ones only as archives); NULL: every release */
	struct product_files files;
	struct product_version_source version;

	/* Its libraries. */
	const char *lib_stem;      /* "libcudnn": lib/libcudnn.so.MAJOR, the main soname */
	const char *sublib_stem;   /* "libcudnn_": lib/libcudnn_graph.so.MAJOR, ...; NULL: none */
	const char *dll_stem;      /* "cudnn": bin/cudnn64_MAJOR.dll, ...; NULL: no Windows build */
	const char *const *cuda_libs_opened; /* the CUDA libraries it opens by name (soname stems) */
	const char *chooser_cuda_lib; /* the one a chooser looks for per CUDA major: "cublas";
				       * NULL: it needs none beside it */

	/* The install and its environment. */
	const char *prefix_stem;   /* "cudnn": /opt/cudnn, ~/.local/opt/cudnn, ...\cuferry\cudnn */
	const char *install_stem;  /* "cudnn-": install directories cudnn-9.19.0.56-cuda13 */
	const char *bundle_id_stem; /* "cudnn": bundle ids and names cudnn-<version>-cuda<v>-... */
	const char *manifest_key;  /* "cudnn": the manifest object naming version and source */
	const char *env_var;       /* "CUDNN_PATH": names the current install */
	const char *env_root_var;  /* "CUDNN_ROOT": the modulefile sets it too */
	const char *ldconf_name;   /* "00-cuferry-cudnn.conf" in /etc/ld.so.conf.d */
	const char *ldconf_legacy_name; /* "cuferry-cudnn.conf": its name before 00-; NULL: it
					 * never had another (every product after the first) */
	const char *profile_name;  /* "cuferry-cudnn.sh" in /etc/profile.d */
	const char *user_env_name; /* "cudnn.sh" in ~/.config/cuferry (--env=user) */
	const char *pkgconfig_name; /* "cudnn": lib/pkgconfig/cudnn.pc */
	const char *cmake_package; /* "CUDNN": lib/cmake/CUDNN/CUDNNConfig.cmake, CUDNN:: targets */
	const char *module_name;   /* "cudnn": modulefiles cudnn/<version>-cuda<variant> */

	/* Choosing and proving it. */
	const char *compat_kind;   /* "cudnn": its rows' kind in compat.tsv */
	const char *gpu_check;     /* "cudnn-convolution": the GPU check that proves it
				    * (unpacker/validate/gpucheck.c) */
};

/* The product a bundle is of when nothing names one: cuDNN. */
const struct product *product_default(void);
/* The product called name; NULL when none is. */
const struct product *product_find(const char *name);
/* The registry in order: product_at(0) .. product_at(product_count() - 1). */
size_t product_count(void);
const struct product *product_at(size_t i);
/* "cudnn nccl": the registry's names, for messages. */
void product_names(char *out, size_t size);
/* Whether NVIDIA builds the product for platform's OS: not for Windows when it lists no
 * import library and no DLL there. */
int product_builds_for(const struct product *p, const char *platform);

#endif
