/* output.h - putting a finished bundle in place: whole, split or self-extracting, with
 * SHA256SUMS beside it, and nothing half-written ever under the final name */
#ifndef BUNDLER_OUTPUT_H
#define BUNDLER_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct output_options {
	uint64_t split_size;     /* 0: one file */
	int progress;
};

/* Write frame + payload (payload_fd from offset 0) to a temporary file beside out_path.
 * The caller checks it, then calls output_commit. *tmp_path is to be freed. */
int output_stage(const char *out_path, const uint8_t *frame, size_t frame_len, int payload_fd,
		 uint64_t payload_len, char **tmp_path, struct cf_err *e);
/* Rename the checked temporary into place (or cut it into parts),
 * then write SHA256SUMS. On failure nothing remains under the final names. */
int output_commit(const char *tmp_path, const char *out_path, const struct output_options *o,
		  struct cf_err *e);
/* SHA256SUMS beside out_path: the lines of files (re)computed, the other lines kept. */
int output_write_sums(const char *out_path, char **files, size_t n, struct cf_err *e);
/* For split output: the name of part n (1-based). */
char *output_part_name(const char *out_path, unsigned n);

#endif
