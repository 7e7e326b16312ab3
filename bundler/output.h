/* output.h - putting a finished bundle in place: whole, then its parts and its
 * self-extracting wrapper from the same signed bytes, with SHA256SUMS beside them, and
 * nothing half-written ever under a final name */
#ifndef BUNDLER_OUTPUT_H
#define BUNDLER_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* FAT32 holds files of at most 4 GiB - 1: --split fat32. */
#define OUTPUT_FAT32_MAX 4294967295ull

/* The output directory: made with its missing parents when needed; a run that fails takes
 * back the directories it made, as long as nothing else was put in them. */
struct output_dir {
	char **made; /* the directories this run made, outermost first */
	size_t nmade;
};

/* Make dir if missing and check that it can be written in; said now, with the directory
 * that is in the way. */
int output_dir_make(const char *dir, struct output_dir *d, struct cf_err *e);
/* After a failure: remove the directories output_dir_make made, innermost first, each only
 * while it is empty (never one that existed before). */
void output_dir_take_back(const struct output_dir *d);
void output_dir_free(struct output_dir *d);

/* What a run wrote (for SHA256SUMS), and stale parts it removed. */
struct output_files {
	char **files;
	size_t n;
	char **gone;
	size_t ngone;
};

/* Write frame + payload (payload_fd from offset 0) to a temporary file beside out_path.
 * The caller checks it, then calls output_commit. *tmp_path is to be freed. */
int output_stage(const char *out_path, const uint8_t *frame, size_t frame_len, int payload_fd,
		 uint64_t payload_len, char **tmp_path, struct cf_err *e);
/* Rename the checked temporary into place as the plain bundle. */
int output_commit(const char *tmp_path, const char *out_path, struct output_files *written,
		  struct cf_err *e);
/* Cut a bundle file into NAME.001, NAME.002, ... of at most part_size; the bundle stays.
 * On failure no part remains. */
int output_split(const char *bundle_path, uint64_t part_size, struct output_files *written,
		 struct cf_err *e);
/* For split output: the name of part n (1-based). */
char *output_part_name(const char *out_path, unsigned n);

void output_files_add(char ***list, size_t *n, char *path);
/* Merge everything written into the directory's SHA256SUMS. */
int output_files_sums(const struct output_files *written, struct cf_err *e);
void output_files_free(struct output_files *written);

#endif
