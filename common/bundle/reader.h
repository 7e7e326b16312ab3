/* reader.h - reading a bundle as one stream (plain, split parts or self-extracting),
 * its signed frame first, then payload chunks that are released only once their hash matches */
#ifndef COMMON_BUNDLE_READER_H
#define COMMON_BUNDLE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/bundle/frame.h"
#include "common/bundle/sfx.h"

struct bundle_input;

struct chunk_plan {
	uint64_t payload_size;
	uint32_t chunk_size;
	size_t nchunks;
	const uint8_t (*hashes)[32];
};

/* PATH may be NAME.bundle, NAME.bundle.001 (split) or a self-extracting NAME.run. */
int bundle_open(const char *path, struct bundle_input **out, struct cf_err *e);
void bundle_close(struct bundle_input *b);
/* Read and parse the signed frame at the start of the stream (no signature check). */
int bundle_read_frame(struct bundle_input *b, struct frame *f, struct cf_err *e);
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

#endif
