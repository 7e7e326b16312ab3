/* sfx.h - the layout of a self-extracting bundle (.run/.exe, DESIGN.md §2):
 *
 *   stub (S bytes)      the unpacker built for the bundle's platform
 *   bundle (L bytes)    the signed bundle, byte for byte
 *   block (K bytes)     the stub-signature block:
 *                         "CFSTUB01", then a signature list as in the header frame
 *                         (u32 LE count 1..8; per signature key id, u16 LE length + SPKI DER,
 *                         64 bytes r || s)
 *   trailer (32 bytes)  "CUFERRY1", u64 LE S (the bundle's offset), u64 LE L, u64 LE K
 *
 * The parts are adjacent and nothing else is allowed: S + L + K + 32 is the file's size.
 * Each signature is ECDSA P-256 over SHA-256 of the 88-byte message
 *   "CFSTUB01" || SHA-256(stub bytes) || SHA-256(the bundle's signed header bytes)
 *   || u64 LE S || u64 LE L
 * so the stub, the bundle (its header, and through it every payload chunk) and the trailer
 * are all covered. Format 1 had 8 zero bytes where K is: such a file has no block. */
#ifndef COMMON_BUNDLE_SFX_H
#define COMMON_BUNDLE_SFX_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/bundle/frame.h"

#define SFX_TRAILER_LEN 32
#define SFX_BLOCK_TAG "CFSTUB01"
#define SFX_BLOCK_MAX 8192 /* 8 signatures with the largest keys fit well within it */
#define SFX_MESSAGE_LEN 88
/* Every cuferry unpacker carries HEAD TAIL as one string (unpacker/main.c): the bundler puts
 * only a file holding it in front of a .run. Two halves, so that the bundler, which joins
 * them at run time, does not carry the marker itself and cannot pass for an unpacker. */
#define SFX_STUB_MARKER_HEAD "CUFERRY-UNPACKER-"
#define SFX_STUB_MARKER_TAIL "STUB/1"

struct sfx_layout {
	uint64_t stub_len;   /* S: also the bundle's offset */
	uint64_t bundle_len; /* L */
	uint64_t block_len;  /* K */
};

void sfx_trailer_encode(const struct sfx_layout *l, uint8_t out[SFX_TRAILER_LEN]);
/* 0 when the last 32 bytes carry the trailer tag (a .run of some format), else -1. */
int sfx_trailer_tagged(const uint8_t in[SFX_TRAILER_LEN]);
/* Checks the trailer against the file size: CF_TRUST with the reason when the parts do not
 * add up exactly, or when the file is of format 1 (no stub-signature block). */
int sfx_trailer_parse(const uint8_t in[SFX_TRAILER_LEN], uint64_t file_size,
		      struct sfx_layout *l, struct cf_err *e);

/* The block: the tag and a signature list, nothing after it. CF_TRUST on any problem. */
int sfx_block_parse(const uint8_t *block, size_t len, struct frame_sig *sigs, uint32_t *nsigs,
		    struct cf_err *e);
/* Caller frees; *len is the block's size. */
uint8_t *sfx_block_encode(const struct frame_sig *sigs, uint32_t nsigs, size_t *len);

/* The 88-byte message (see above), and the digest the stub signatures cover: its SHA-256. */
void sfx_message(const uint8_t stub_sha256[32], const uint8_t *header, size_t header_len,
		 const struct sfx_layout *l, uint8_t m[SFX_MESSAGE_LEN]);
void sfx_digest(const uint8_t stub_sha256[32], const uint8_t *header, size_t header_len,
		const struct sfx_layout *l, uint8_t digest[32]);
/* SHA-256 of len bytes of fd from offset 0 (pread, the file position is left alone). */
int sfx_hash_range(int fd, uint64_t len, uint8_t out[32]);

#endif
