/* reader.h - reading a bundle as one stream (plain, split parts or self-extracting),
 * its signed frame first, then payload chunks that are released only once their hash matches */
#ifndef COMMON_BUNDLE_READER_H
#define COMMON_BUNDLE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/entry.h"
#include "common/err.h"
#include "common/bundle/format.h"
#include "common/bundle/sfx.h"

struct bundle_input;

struct chunk_plan {
	uint64_t payload_size;
	uint32_t chunk_size;
	size_t nchunks;
	const uint8_t (*hashes)[32];
};

/* What the payload must be, taken from the signed manifest: its entries in payload order and
 * the chunk plan. The entries belong to the caller (its parsed manifest). */
struct bundle_contents {
	const struct manifest_file *files;
	size_t nfiles;
	struct chunk_plan plan;
	/* The payload's frame index, or none (NULL, 0): one stream, decoded on one thread. */
	const struct payload_frame *frames;
	size_t nframes;
	uint64_t uncompressed_size; /* the tar's bytes, which the frames must add up to */
};

/* The parts of a split bundle, in order: NAME.001, NAME.002, ... as long as they exist. */
struct bundle_parts {
	char *stem; /* NAME */
	char **paths;
	uint64_t *sizes;
	size_t count;
};

/* The parts the reader reads for PATH (NAME.001): regular files up to the first that is
 * missing, at most 999, none but the first a link. CF_USAGE when there is none. */
int bundle_split_parts(const char *path, struct bundle_parts *out, struct cf_err *e);
void bundle_parts_free(struct bundle_parts *p);
/* PATH may be NAME.bundle, NAME.bundle.001 (split) or a self-extracting NAME.run. */
int bundle_open(const char *path, struct bundle_input **out, struct cf_err *e);
/* What a caller requires of each file the reader reads (the file, each part of a split bundle,
 * the .run): called with the handle the reader then reads it through, once it is opened and
 * before any of its bytes is used, so that what was checked is what is read (no reopen by
 * name in between). CF_OK or a failure with its reason. */
typedef int (*bundle_file_check)(void *ctx, const char *path, int fd, struct cf_err *e);
/* bundle_open, with check (NULL: none) applied to every file as above; a later part's check
 * runs when the stream reaches it, and its failure fails that read (closed, before the
 * payload is done). */
int bundle_open_checked(const char *path, bundle_file_check check, void *ctx,
			struct bundle_input **out, struct cf_err *e);
void bundle_close(struct bundle_input *b);
/* Read and parse the signed frame at the start of the stream (no signature check); the reader
 * keeps it until bundle_close. */
int bundle_read_frame(struct bundle_input *b, struct cf_err *e);
/* The frame read so far, or NULL before bundle_read_frame succeeded. */
const struct frame *bundle_frame(const struct bundle_input *b);
/* The verified open (common/bundle/open.h) records what the payload must be, once the header's
 * signatures passed; NULL until then, so that an unverified reader is never walked. */
void bundle_set_contents(struct bundle_input *b, const struct bundle_contents *c);
const struct bundle_contents *bundle_contents(const struct bundle_input *b);
void bundle_begin_payload(struct bundle_input *b, const struct chunk_plan *plan);
/* Next verified chunk; *len 0 at the end, after checking that nothing follows the payload. */
int bundle_next_chunk(struct bundle_input *b, const uint8_t **data, size_t *len,
		      struct cf_err *e);
/* Total bytes of the bundle stream (all parts, or the embedded window of a .run). */
uint64_t bundle_size(const struct bundle_input *b);
int bundle_is_sfx(const struct bundle_input *b);
size_t bundle_part_count(const struct bundle_input *b);
/* A .run's layout and its stub-signature block as read (not yet verified); NULL when the
 * input is not self-extracting. */
const struct sfx_layout *bundle_sfx_layout(const struct bundle_input *b, const uint8_t **block);
/* SHA-256 of a .run's stub (the bytes before the bundle), read from the file being read. */
int bundle_sfx_stub_sha256(const struct bundle_input *b, uint8_t out[32], struct cf_err *e);
/* Whether the file at path ends in a self-extracting trailer's tag (a .run of some format,
 * not yet checked): 1 yes, 0 no or unreadable. */
int bundle_file_has_sfx_trailer(const char *path);

#endif
