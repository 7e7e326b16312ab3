/* manifest.h - MANIFEST.json of DESIGN.md §3: build, write deterministically, parse strictly */
#ifndef MANIFESTS_MANIFEST_H
#define MANIFESTS_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/entry.h"
#include "common/bundle/format.h"
#include "common/err.h"
#include "manifests/product.h"

#define MANIFEST_MAX_FILES 100000
#define MANIFEST_MAX_SIZE (16u << 20)

struct manifest_component {
	char *name;
	char *version;
	char *relative_path; /* where NVIDIA publishes it; may be NULL */
	uint8_t sha256[32];
	int has_sha256;
	uint64_t size;
	int included;
};

/* A product the bundle carries beside its own (bundler create --with): installed, switched,
 * rolled back and validated with it as one unit, in the same install directory, for the same
 * CUDA variant. A manifest with members is format 2 (an unpacker that knows only format 1
 * refuses it rather than install libraries it would not prove). */
struct manifest_member {
	const struct product *product;
	char *version;
	char *source_kind; /* nvidia-redist, archive, dir */
	char *source_name;
	uint8_t source_sha256[32];
	int source_has_sha256;
	uint64_t source_size;
};

#define MANIFEST_MAX_MEMBERS 16

struct manifest_strings {
	char **items;
	size_t count;
};

struct manifest {
	/* The product the bundle carries: the registry row whose manifest_key names the
	 * manifest's product object. The parser sets it; a writer must. Never NULL in a parsed
	 * or validated manifest. */
	const struct product *product;
	char *bundle_id;
	uint64_t counter;
	uint64_t source_date_epoch;
	char *created;
	char *expires; /* NULL when it never expires */
	char *platform;
	char *product_version; /* the product's own version: "9.19.0.56" */
	char *cuda_variant;
	char *source_kind; /* nvidia-redist, archive, dir */
	char *source_name;
	uint8_t source_sha256[32];
	int source_has_sha256;
	uint64_t source_size;
	char *cuda_release;
	struct manifest_component *components;
	size_t ncomponents;
	/* "with": the other products of the unit, sorted by name; none in a format-1 bundle. */
	struct manifest_member *members;
	size_t nmembers;
	char *driver_min;
	char *cc_min;
	/* What the bundle's own libraries ask of the host, read from them by the bundler;
	 * NULL in older bundles (no check) and where no file names one. */
	char *glibc_min;   /* requires.glibc_min: newest GLIBC_ symbol version needed, "2.27" */
	char *windows_min; /* requires.windows_min: newest PE OS/subsystem version, "6.1" */
	uint64_t compressed_size;
	uint64_t uncompressed_size;
	uint32_t chunk_size;
	uint8_t (*chunks)[32];
	size_t nchunks;
	/* payload.frames: the zstd frames' index; absent (0) in single-stream bundles. */
	struct payload_frame *frames;
	size_t nframes;
	struct manifest_file *files;
	size_t nfiles;
	struct manifest_strings env_path;
	struct manifest_strings env_ld_library_path;
};

struct manifest *manifest_new(void);
void manifest_free(struct manifest *m);
void manifest_set(char **field, const char *value);
void manifest_add_file(struct manifest *m, const char *path, uint64_t size, unsigned mode,
		       const uint8_t sha256[32]);
void manifest_add_symlink(struct manifest *m, const char *path, const char *target);
void manifest_add_component(struct manifest *m, const struct manifest_component *c);
void manifest_strings_add(struct manifest_strings *s, const char *value);
/* Copies mem's strings; keeps the members sorted by product name. */
void manifest_add_member(struct manifest *m, const struct manifest_member *mem);
/* The format a manifest is written as: 2 with members, else 1 (the bytes of a bundle of one
 * product stay what format 1 wrote). */
int manifest_format(const struct manifest *m);
/* Its "format" string: "cuferry-bundle-1" or "cuferry-bundle-2". */
const char *manifest_format_name(const struct manifest *m);
/* The products of the unit: 0 is the manifest's own, 1.. its members. */
size_t manifest_product_count(const struct manifest *m);
const struct product *manifest_product_at(const struct manifest *m, size_t i);
const char *manifest_product_version_at(const struct manifest *m, size_t i);
/* Sort files by path (byte order), the order of the payload. */
void manifest_sort_files(struct manifest *m);
const struct manifest_file *manifest_find(const struct manifest *m, const char *path);

/* Every rule of DESIGN.md §3 on a complete manifest. CF_OK or CF_INTEGRITY with the reason. */
int manifest_validate(const struct manifest *m, struct cf_err *e);
/* Deterministic UTF-8 JSON (sorted keys, fixed indentation). Caller frees. */
char *manifest_to_json(const struct manifest *m, size_t *len);
/* Strict parse: duplicate keys, wrong types, missing fields, bad paths are errors.
 * Unknown format: CF_INCOMPATIBLE. Other problems: CF_INTEGRITY. */
int manifest_parse(const char *json, size_t len, struct manifest **out, struct cf_err *e);
/* The two names of the install layout a bundle itself decides, spelled here because the
 * manifest check needs them and manifests/ sits below the unpacker (unpacker/target/layout.c, which
 * owns every other name, uses these): the unpacker's own directory in the prefix, which no
 * bundle entry may use, and the start of every install directory's name. */
#define MANIFEST_META_DIR ".cuferry"
/* "<install_stem><version>-cuda<variant>", then "+<member's install_stem><version>" for each
 * member: the install directory name of a bundle (cudnn-9.19.0.56-cuda13+nccl-2.28.9). */
char *manifest_install_name(const struct manifest *m);
/* Seconds since the epoch from "YYYY-MM-DDTHH:MM:SSZ"; -1 when malformed. */
/* Compare dotted version numbers numerically, component by component ("9.2" < "9.19"):
 * <0, 0, >0. A missing component counts as 0. */
int manifest_version_compare(const char *a, const char *b);
int64_t manifest_parse_time(const char *iso);
void manifest_format_time(int64_t t, char out[32]);

#endif
