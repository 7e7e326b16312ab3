/* source.h - turning a product's source (directory, archive, download) into an install tree */
#ifndef BUNDLER_SOURCE_H
#define BUNDLER_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct product;

struct tree_entry {
	char *path;     /* install path, e.g. lib/libnccl.so.2 */
	char *src;      /* the file on disk; a symlink's own path, read only for the provenance
	                 * record (what reads a file's bytes asks is_symlink first) */
	char *target;   /* symlinks only */
	int is_symlink;
	unsigned mode;  /* 0644 or 0755 */
	int64_t mtime;
	int generated;  /* written by the bundler (devfiles, the dossier), not the product's */
	const struct product *product; /* a --with product's file: that product; NULL: the tree's */
};

struct cuda_lib_info {
	char name[32];      /* libcublas, cuda_nvrtc */
	char version[64];
	char file[512];     /* its main library in the tree, for size and SHA-256 */
};

struct product;

/* An archive the tree's files were extracted from: a file's archive member name is its src
 * below dir (what the provenance record lists). */
struct tree_archive {
	char *file; /* the archive as read (the cache's copy of a download) */
	char *dir;  /* where it was extracted */
};
#define TREE_MAX_ARCHIVES 4

/* The files of one product's release. */
struct tree {
	const struct product *product; /* set by the caller before a source_* call fills it */
	struct tree_entry *entries;
	size_t count;
	char version[64];       /* the product's version, as precise as the source tells */
	char cuda_variant[16];  /* CUDA major the build targets, "" if unknown */
	char cuda_hint[16];     /* CUDA version named by a legacy archive ("11.4") */
	char platform[32];      /* NVIDIA platform name, "" if unknown */
	char license_note[64];
	struct cuda_lib_info cuda_libs[4];
	size_t ncuda_libs;
	int64_t newest_mtime;
	char *tmpdir;           /* extraction directory to remove, if any */
	struct tree_archive archives[TREE_MAX_ARCHIVES];
	size_t narchives;
	char wheel_dist[256];   /* a pip install's product wheel: its .dist-info folder, or "" */
};

void tree_free(struct tree *t);
/* A file the bundler makes (devfiles, the dossier): text written to src, which the tree then
 * owns, and added as path (0644, marked generated). */
int tree_add_written(struct tree *t, const char *path, char *src, const char *text, size_t len,
		     struct cf_err *e);
/* Take the tree's product's files (and CUDA's cuBLAS/NVRTC when with_cuda_libs) out of an
 * unpacked tree, such as a CUDA toolkit directory or an extracted NVIDIA archive. */
int source_from_dir(const char *dir, int with_cuda_libs, struct tree *t, struct cf_err *e);
/* The CUDA libraries the default product opens (cuBLAS, NVRTC) in a toolkit tree at dir,
 * with the versions its wheel metadata or versioned library names give (t->cuda_libs), the
 * CUDA release its runtime's wheel names (t->cuda_hint) and the platform of their ELF files
 * (t->platform):
 * what source_from_dir finds, for a tree that holds no product (bundler cuda-json). */
void source_cuda_libs(const char *dir, struct tree *t);
/* Extract an NVIDIA archive (any layout of NVIDIA.md) into workdir and read it. Name and
 * contents must agree on version, CUDA and platform. */
int source_from_archive(const char *archive, const char *workdir, struct tree *t,
			struct cf_err *e);
/* Add the files of an extracted CUDA component archive (cuBLAS, NVRTC) under lib/ or bin/. */
int source_add_component_archive(const char *archive, const char *workdir, const char *platform,
				 struct tree *t, struct cf_err *e);
/* Add a file the user supplies (create --add-file: the zlibwapi.dll some Windows releases
 * need) under bin/ (Windows) or lib/ (Linux), hashed and packed like every file. A usage
 * error (1) when it is not a regular file, its name is not a plain file name, or the tree
 * already holds that path. */
int source_add_user_file(struct tree *t, const char *file, struct cf_err *e);
/* Facts an archive's file name states, after the product's archive_stem:
 * STEM-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz, STEM-11.4-windows-x64-v8.2.2.26.zip.
 * Missing facts are left "". */
void source_parse_archive_name(const struct product *p, const char *name, char *version,
			       size_t vsize, char *cuda, size_t csize, char *platform, size_t psize);

#endif
