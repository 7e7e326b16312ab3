/* format.h - the bundle format's own facts (DESIGN.md §2, §3): its tags, version names and
 * limits, the signed header as read, and which format versions this build reads.
 *
 * Every tag is its own constant even where two share their bytes today (the header's and a
 * .run trailer's "CUFERRY1"): a later format may change one without the other. The wire
 * bytes are those of format 1; old bundles and .run files read as before. */
#ifndef COMMON_BUNDLE_FORMAT_H
#define COMMON_BUNDLE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* The signed header: a zstd skippable frame (magic, u32 LE content length), then the tag. */
#define FRAME_MAGIC 0x184D2A5Cu
#define FRAME_PREFIX_LEN 8 /* the skippable frame's magic and content length */
#define FRAME_TAG "CUFERRY1"
#define FRAME_CAP (16u << 20)
#define FRAME_MAX_SIGS 8
#define FRAME_SPKI_MAX 512
/* The last 32 bytes of a self-extracting .run/.exe begin with this (common/bundle/sfx.h). */
#define SFX_TRAILER_TAG "CUFERRY1"
/* A trust statement (docs/SECURITY.md): the same frame with its own tag. */
#define FRAME_STATEMENT_TAG "CUFTRST1"
#define FRAME_STATEMENT_FORMAT "cuferry-trust-statement-1" /* its JSON's "format" */
#define FRAME_STATEMENT_MAX (64u << 10) /* a statement file is small: refused above this */
#define FRAME_STATEMENT_KIT_FILE "trust-statement.cuferry" /* on a kit (bundler kit --statement) */

/* The manifest's "format" is BUNDLE_FORMAT_PREFIX followed by the format's number. The
 * bundler writes BUNDLE_FORMAT_WRITTEN for a bundle of one product and 2 for a unit of several
 * (manifest_format: format 2 is 1 with "with"); a reader accepts what
 * bundle_format_supported says. */
#define BUNDLE_FORMAT_PREFIX "cuferry-bundle-"
#define BUNDLE_FORMAT_WRITTEN 1
#define MANIFEST_FORMAT BUNDLE_FORMAT_PREFIX "1" /* the name of BUNDLE_FORMAT_WRITTEN */

/* Whether this build reads bundles of format number `format` (the one place that says so). */
bool bundle_format_supported(int format);
/* The number N of a "cuferry-bundle-N" name (N in decimal, no sign, no leading zero), or -1
 * for any other string. */
int bundle_format_number(const char *name);

struct frame_sig {
	uint8_t keyid[32];
	uint16_t spki_len;
	uint8_t spki[FRAME_SPKI_MAX];
	uint8_t sig[64];
};

/* A parsed header frame (or statement): nothing in it is believed until its signatures are
 * checked by whoever reads it. */
struct frame {
	uint8_t *header;      /* MANIFEST.json bytes: what the signatures cover */
	uint32_t header_len;
	uint32_t nsigs;
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint64_t frame_len;   /* bytes of the whole skippable frame, its 8-byte prefix included */
};

void frame_free(struct frame *f);

/* A list of signatures, as the frame, a .run's stub-signature block and a kit's index
 * signature carry it: u32 LE count (1..FRAME_MAX_SIGS), then per signature the key id (32
 * bytes), u16 LE length and SubjectPublicKeyInfo DER, 64 bytes r || s. Parsing advances
 * *cursor; CF_TRUST on any problem (an unverified list is never believed). */
int frame_parse_sigs(const uint8_t **cursor, const uint8_t *end, struct frame_sig *sigs,
		     uint32_t *count, struct cf_err *e);
size_t frame_sigs_size(const struct frame_sig *sigs, uint32_t nsigs);
/* Writes frame_sigs_size() bytes at p; returns the end. */
uint8_t *frame_put_sigs(uint8_t *p, const struct frame_sig *sigs, uint32_t nsigs);

/* The format's numbers are little-endian. */
uint32_t frame_le32(const uint8_t *p);
void frame_put_le32(uint8_t *p, uint32_t v);
uint64_t frame_le64(const uint8_t *p);
void frame_put_le64(uint8_t *p, uint64_t v);

#endif
