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
 * are all covered. Format 1 had 8 zero bytes where K is: such a file has no block.
 *
 * An unpacker carried on a kit (DESIGN.md §10) is the same with no bundle: stub, block,
 * trailer with L = 0, signed over the message above with an empty header (SHA-256 of no
 * bytes) and L = 0. It still runs as the program it is (bytes after an ELF or PE image are
 * ignored by the loader), and no .run can pass for one or one for a .run: a .run always
 * has a bundle, whose header is never empty. */
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
/* Every cuferry unpacker carries HEAD TAIL as one string (unpacker/cli/main.c): the bundler puts
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
/* An unpacker container (L = 0): the digest its signatures cover. */
void sfx_container_digest(const uint8_t stub_sha256[32], uint64_t stub_len, uint8_t digest[32]);
/* 1 when a parsed trailer is a container's (no bundle inside). */
int sfx_layout_is_container(const struct sfx_layout *l);
/* Parse the container held in memory (len bytes: read once, so that a device that returns
 * other bytes on a second read cannot slip them in): its layout, signatures and the digest
 * they must cover. CF_TRUST with the reason when it is not a signed container (no trailer, a
 * bundle inside, a bad block); the signatures are not judged here. */
int sfx_container_parse(const uint8_t *data, size_t len, struct sfx_layout *l,
			struct frame_sig *sigs, uint32_t *nsigs, uint8_t digest[32], struct cf_err *e);
/* Every cuferry unpacker carries SFX_VERSION_MARKER followed by its version (unpacker/cli/main.c),
 * so that self-install can tell an older one from a newer one. */
#define SFX_VERSION_MARKER "CUFERRY-UNPACKER-VERSION="
/* The version a program's bytes carry after the marker, in out; -1 when none. */
int sfx_program_version(const uint8_t *data, size_t len, char *out, size_t size);
/* SHA-256 of len bytes of fd from offset 0 (pread, the file position is left alone). */
int sfx_hash_range(int fd, uint64_t len, uint8_t out[32]);

#endif
