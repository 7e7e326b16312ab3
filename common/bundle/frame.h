/* frame.h - the signed header of a bundle: a zstd skippable frame (DESIGN.md §2) */
#ifndef COMMON_BUNDLE_FRAME_H
#define COMMON_BUNDLE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define FRAME_MAGIC 0x184D2A5Cu
#define FRAME_TAG "CUFERRY1"
#define FRAME_STATEMENT_TAG "CUFTRST1" /* a trust statement (docs/SECURITY.md), same frame */
#define FRAME_STATEMENT_FORMAT "cuferry-trust-statement-1" /* its JSON's "format" */
#define FRAME_STATEMENT_MAX (64u << 10) /* a statement file is small: refused above this */
#define FRAME_STATEMENT_KIT_FILE "trust-statement.cuferry" /* on a kit (bundler kit --statement) */
#define FRAME_CAP (16u << 20)
#define FRAME_MAX_SIGS 8
#define FRAME_SPKI_MAX 512
#define FRAME_PREFIX_LEN 8 /* the skippable frame's magic and content length */

struct frame_sig {
	uint8_t keyid[32];
	uint16_t spki_len;
	uint8_t spki[FRAME_SPKI_MAX];
	uint8_t sig[64];
};

struct frame {
	uint8_t *header;      /* MANIFEST.json bytes: what the signatures cover */
	uint32_t header_len;
	uint32_t nsigs;
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint64_t frame_len;   /* bytes of the whole skippable frame, its 8-byte prefix included */
};

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
/* Encode a whole frame, prefix included. Caller frees. */
uint8_t *frame_encode(const uint8_t *header, uint32_t header_len, const struct frame_sig *sigs,
		      uint32_t nsigs, size_t *out_len);
uint8_t *frame_encode_tagged(const char *tag, const uint8_t *header, uint32_t header_len,
			     const struct frame_sig *sigs, uint32_t nsigs, size_t *out_len);
/* A trust statement file: one frame of FRAME_STATEMENT_TAG and nothing else, at most
 * FRAME_STATEMENT_MAX bytes; file_sha256 gets the SHA-256 of the whole file. */
int frame_read_statement(const char *path, struct frame *f, uint8_t file_sha256[32],
			 struct cf_err *e);
void frame_free(struct frame *f);
/* A list of signatures, as the frame and a .run's stub-signature block both carry it:
 * u32 LE count (1..FRAME_MAX_SIGS), then per signature the key id (32 bytes), u16 LE length
 * and SubjectPublicKeyInfo DER, 64 bytes r || s. Parsing advances *cursor; CF_TRUST on any
 * problem (an unverified list is never believed). */
int frame_parse_sigs(const uint8_t **cursor, const uint8_t *end, struct frame_sig *sigs,
		     uint32_t *count, struct cf_err *e);
size_t frame_sigs_size(const struct frame_sig *sigs, uint32_t nsigs);
/* Writes frame_sigs_size() bytes at p; returns the end. */
uint8_t *frame_put_sigs(uint8_t *p, const struct frame_sig *sigs, uint32_t nsigs);
uint32_t frame_le32(const uint8_t *p);
void frame_put_le32(uint8_t *p, uint32_t v);
uint64_t frame_le64(const uint8_t *p);
void frame_put_le64(uint8_t *p, uint64_t v);

#endif
