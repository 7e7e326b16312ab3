/* kitindex.h - the kit's signed index (DESIGN.md §10): cuferry-kit.json lists every file of a
 * kit with its size and SHA-256, when the kit was written and until when it may be used;
 * cuferry-kit.sig carries the signatures over it.
 *
 *   cuferry-kit.json  {"format": "cuferry-kit-1", "created": "YYYY-MM-DDTHH:MM:SSZ",
 *                      "valid_until": "YYYY-MM-DDTHH:MM:SSZ",
 *                      "files": [{"path": "README.txt", "size": N, "sha256": "hex"}, ...]}
 *   cuferry-kit.sig   "CFKITSG1", then a signature list as in the bundle header's frame
 *                     (u32 LE count 1..8; per signature key id, u16 LE length + SPKI DER,
 *                     64 bytes r || s), nothing after it
 *
 * Each signature is ECDSA P-256 over SHA-256 of the 40-byte message
 *   "CFKITSG1" || SHA-256(cuferry-kit.json bytes)
 * so that it can never pass for a bundle header's or a stub's signature. The list carries the
 * signers' keys (as a header does) so that --trust-fingerprint works on a first server; a
 * key counts only when the target trusts it. The index is parsed only after its signatures
 * passed. Every file of the kit is listed, except the index and its signature. */
#ifndef MANIFESTS_KITINDEX_H
#define MANIFESTS_KITINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/format.h"
#include "common/err.h"

#define KITINDEX_NAME "cuferry-kit.json"
#define KITINDEX_SIG_NAME "cuferry-kit.sig"
#define KITINDEX_SIG_TAG "CFKITSG1"
#define KITINDEX_FORMAT "cuferry-kit-1"
#define KITINDEX_MAX_BYTES (4u << 20)
#define KITINDEX_MAX_FILES 8192
#define KITINDEX_SIG_MAX 8192

struct kitindex_file {
	char *path;         /* relative to the kit, '/'-separated, path_check()'s rule */
	uint64_t size;
	uint8_t sha256[32];
};

struct kitindex {
	int64_t created, valid_until;
	struct kitindex_file *files;
	size_t nfiles;
};

/* The JSON text of an index (caller frees; *len its length). */
char *kitindex_encode(const struct kitindex *x, size_t *len);
/* Strict: duplicate keys, an unknown format, a bad time, path, size or hash, a duplicate path
 * or valid_until before created is CF_INTEGRITY with the reason. Call only on signed bytes. */
int kitindex_parse(const char *json, size_t len, struct kitindex *x, struct cf_err *e);
void kitindex_free(struct kitindex *x);
/* The entry for path, or NULL. */
const struct kitindex_file *kitindex_find(const struct kitindex *x, const char *path);

/* The digest each signature covers (see above). */
void kitindex_digest(const uint8_t *index, size_t len, uint8_t digest[32]);
/* cuferry-kit.sig: encode (caller frees) and parse (CF_TRUST on any problem). */
uint8_t *kitindex_sig_encode(const struct frame_sig *sigs, uint32_t nsigs, size_t *len);
int kitindex_sig_parse(const uint8_t *data, size_t len, struct frame_sig *sigs, uint32_t *nsigs,
		       struct cf_err *e);

#endif
