/* frame.h - parsing the signed header of a bundle, a zstd skippable frame (DESIGN.md §2).
 * Internal to common/bundle/: others read a header through open.h (a bundle, a stored header,
 * a trust statement), write one through write.h, and take its types from format.h. */
#ifndef COMMON_BUNDLE_FRAME_H
#define COMMON_BUNDLE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/format.h"
#include "common/err.h"

/* The prefix at the start of data (len bytes available): 0 when it carries the frame's magic
 * (and the content length, unless content_len is NULL), -1 when it does not (each caller words
 * that for its reader). */
int frame_prefix(const uint8_t *data, size_t len, uint32_t *content_len);
/* Parse the frame content (after magic and length). Bounded; no JSON is looked at.
 * Problems are CF_TRUST: nothing in an unverified frame is believed. */
int frame_parse(const uint8_t *content, size_t len, struct frame *f, struct cf_err *e);
/* The same for a frame of another tag (8 bytes: FRAME_STATEMENT_TAG). */
int frame_parse_tagged(const uint8_t *content, size_t len, const char *tag, struct frame *f,
		       struct cf_err *e);

#endif
