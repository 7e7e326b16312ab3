/* kitsign.h - bundler kit's signatures (DESIGN.md §10): SHA256SUMS.sig for stock tools, the
 * kit index's cuferry-kit.sig, and each unpacker on the stick wrapped in a signed container
 * (common/bundle/sfx.h); also which keys an unpacker has compiled in */
#ifndef BUNDLER_KITSIGN_H
#define BUNDLER_KITSIGN_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/format.h"
#include "common/err.h"

#define KITSIGN_MAX_KEYS FRAME_MAX_SIGS

struct kitsign {
	struct signer *signers[KITSIGN_MAX_KEYS];
	uint8_t keyids[KITSIGN_MAX_KEYS][32];
	size_t n;
};

/* Load each --key (two equal keys are a usage error). */
int kitsign_load(struct kitsign *k, const char *const *paths, size_t n, struct cf_err *e);
void kitsign_free(struct kitsign *k);
/* Key i's DER ECDSA signature over SHA-256(data): what `openssl dgst -sha256 -verify K.pub
 * -signature FILE.sig FILE` checks. Caller frees; *len its length. */
int kitsign_detached(const struct kitsign *k, size_t i, const void *data, size_t len,
		     uint8_t **der, size_t *der_len, struct cf_err *e);
/* cuferry-kit.sig over the index bytes, by every key. Caller frees. */
int kitsign_index(const struct kitsign *k, const void *index, size_t len, uint8_t **out,
		  size_t *out_len, struct cf_err *e);
/* The unpacker at path as a signed container (stub, block, trailer; L = 0), by every key.
 * An unpacker that already is a container (from an older kit) is taken without its old
 * block. Caller frees. */
int kitsign_container(const struct kitsign *k, const char *path, uint8_t **out, size_t *out_len,
		      struct cf_err *e);
/* The keys compiled into the unpacker at path (PEM public keys in its data, as
 * tests/tools/embed-keys.sh puts them there): their key ids, at most max. -1 unreadable. */
int kitsign_compiled_keys(const char *path, uint8_t (*keyids)[32], size_t max);

#endif
