/* write.h - writing the bundle format: a signed header frame from its manifest bytes and
 * signatures (the bundler's create and sign, the unpacker's stored copy and its repair) */
#ifndef COMMON_BUNDLE_WRITE_H
#define COMMON_BUNDLE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/format.h"

/* Encode a whole header frame (FRAME_TAG), prefix included. Caller frees. */
uint8_t *frame_encode(const uint8_t *header, uint32_t header_len, const struct frame_sig *sigs,
		      uint32_t nsigs, size_t *out_len);
/* The same with another 8-byte tag (FRAME_STATEMENT_TAG: a trust statement file). */
uint8_t *frame_encode_tagged(const char *tag, const uint8_t *header, uint32_t header_len,
			     const struct frame_sig *sigs, uint32_t nsigs, size_t *out_len);

#endif
