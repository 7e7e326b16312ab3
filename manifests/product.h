/* product.h - what a product is: the facts about one NVIDIA library that cuferry bundles,
 * installs, makes findable and proves (issue 26 item 4). Code asks a descriptor instead of
 * spelling a library's names; each product is a descriptor file of its own (product_<name>.c)
 * registered in product.c, whose first row is the default product. In the examples below
 * "x" stands for the product's name and "X" for it in capitals. */
#ifndef MANIFESTS_PRODUCT_H
#define MANIFESTS_PRODUCT_H

#include <stddef.h>

/* The file name patterns (fnmatch) of a product's files in one of NVIDIA's trees, each list
 * NULL-terminated; an empty list ({ NULL }) where NVIDIA ships none (no Windows build). */
struct product_files {
	const char *const *headers;      /* include/: "x*.h" */
	const char *const *linux_libs;   /* lib/ on Linux: "libx*.so*" */
	const char *const *import_libs;  /* lib/ on Windows: "x*.lib" */
	const char *const *dlls;         /* bin/ on Windows: "x*.dll" */
	const char *const *licences;     /* the tree's top: "LICENSE", ... */
	/* Directories of include/ carried whole, matched by name ("x_device"): every regular file
	 * below them, at any depth, hashed and packed like every other file; a link or anything
	 * else in them is refused. Empty where the headers are all in include/ itself. */
	const char *const *include_dirs;
};

/* Where the version of a tree is read: the first of headers that defines the three macros. */
struct product_version_source {
	const char *const *headers;      /* "x_version.h", then older releases' "x.h" */
	const char *major, *minor, *patch; /* "X_MAJOR", "X_MINOR", "X_PATCH" */
};

/* The text facts every product states (never NULL, never ""), by group, each X(field): the
 * struct below declares them from these lists and test_product checks every row against
 * them, so a fact added here is checked in every descriptor. What each means:
 *
 * identity: name ("x": the registry's key, --product x), display (what messages call it),
 * description (the modulefile's whatis line);
 * source: mirror_path ("x/redist": NVIDIA's redist directory under a mirror), redist_key
 * ("x": its package in redistrib_<label>.json), archive_stem ("x":
 * x-linux-x86_64-VERSION_cudaN-archive.tar.xz), wheel_dist ("nvidia_x": the dist-info stem
 * of NVIDIA's wheels), wheel_dir ("nvidia/x": where a wheel puts the tree in site-packages),
 * conda_name ("x": ENV/conda-meta/x-*.json);
 * library: lib_stem ("libx": lib/libx.so.MAJOR, the main soname);
 * install (names on the target, so unique across products): prefix_stem ("x": /opt/x,
 * ~/.local/opt/x, ...\cuferry\x), install_stem ("x-": install directories
 * x-VERSION-cudaN), bundle_id_stem ("x": bundle ids and names x-VERSION-cudaN-PLATFORM),
 * manifest_key ("x": the manifest object naming version and source), env_var ("X_PATH" or
 * "X_HOME": names the current install), env_root_var ("X_ROOT": the modulefile sets it
 * too), ldconf_name ("00-cuferry-x.conf" in /etc/ld.so.conf.d), profile_name
 * ("cuferry-x.sh" in /etc/profile.d), user_env_name ("x.sh" in ~/.config/cuferry,
 * --env=user), pkgconfig_name ("x": lib/pkgconfig/x.pc), cmake_package ("X":
 * lib/cmake/X/XConfig.cmake, X:: targets), module_name ("x": modulefiles
 * x/VERSION-cudaN);
 * proof: compat_kind ("x": its rows' kind in the compatibility data, compat_x.tsv; a
 * product may have none), gpu_check ("x-...": the GPU check that proves it, a name in
 * unpacker/validate/step_gpu.c's gpu_checks[]: gpucheck.c's, ncclcheck.c's). */
#define PRODUCT_IDENTITY_TEXT(X) X(name) X(display) X(description)
#define PRODUCT_SOURCE_TEXT(X) X(mirror_path) X(redist_key) X(archive_stem) X(wheel_dist) \
	X(wheel_dir) X(conda_name)
#define PRODUCT_LIBRARY_TEXT(X) X(lib_stem)
#define PRODUCT_INSTALL_TEXT(X) X(prefix_stem) X(install_stem) X(bundle_id_stem) \
	X(manifest_key) X(env_var) X(env_root_var) X(ldconf_name) X(profile_name) \
	X(user_env_name) X(pkgconfig_name) X(cmake_package) X(module_name)
#define PRODUCT_PROOF_TEXT(X) X(compat_kind) X(gpu_check)
#define PRODUCT_REQUIRED_TEXT(X) PRODUCT_IDENTITY_TEXT(X) PRODUCT_SOURCE_TEXT(X) \
	PRODUCT_LIBRARY_TEXT(X) PRODUCT_INSTALL_TEXT(X) PRODUCT_PROOF_TEXT(X)
/* The facts no two products may share: what names it and what it puts on the target. */
#define PRODUCT_UNIQUE_TEXT(X) PRODUCT_IDENTITY_TEXT(X) PRODUCT_INSTALL_TEXT(X)

#define PRODUCT_TEXT_FIELD(field) const char *field;

struct product {
	PRODUCT_REQUIRED_TEXT(PRODUCT_TEXT_FIELD)
	struct product_files files;
	struct product_version_source version;

	/* The facts a product may lack (NULL: what each says). */
	const char *redist_since;  /* the first release NVIDIA's redistrib JSON lists (older ones
				    * only as archives); NULL: every release */
	const char *sublib_stem;   /* "libx_": lib/libx_part.so.MAJOR, ...; NULL: one library */
	const char *dll_stem;      /* "x": bin/x64_MAJOR.dll, ...; NULL: no Windows build */
	const char *chooser_cuda_lib; /* the CUDA library a chooser looks for per CUDA major;
				       * NULL: it needs none beside it */
	const char *ldconf_legacy_name; /* an older ldconf_name, renamed on install; NULL: it
					 * never had another (only the first product had) */
	/* The main library's soname major that doctor looks for while nothing of the product is
	 * installed ("9": libcudnn.so.9); an install's own is its version's first number. NULL:
	 * "9", cuDNN's, as before products had one. */
	const char *soname_major;
	/* The CUDA libraries it opens by name (soname stems, such as "libcublas.so."), and whose
	 * CUDA component list a bundle carries; empty: none. */
	const char *const *cuda_libs_opened;
};

/* The product a bundle is of when nothing names one: the registry's first row. */
const struct product *product_default(void);
/* The product called name; NULL when none is. */
const struct product *product_find(const char *name);
/* The registry in order: product_at(0) .. product_at(product_count() - 1). */
size_t product_count(void);
const struct product *product_at(size_t i);
/* The registry's names, space-separated, for messages and completion. */
void product_names(char *out, size_t size);
/* The same as help text says it: "a (the default) or b", "a (the default), b or c". */
void product_names_prose(char *out, size_t size);
/* Whether NVIDIA builds the product for platform's OS: not for Windows when it lists no
 * import library and no DLL there. */
int product_builds_for(const struct product *p, const char *platform);

#endif
