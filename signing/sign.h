/* sign.h - the secret-key side of signing: key generation and deterministic ECDSA.
 * Only the bundler links this half. */
#ifndef SIGNING_SIGN_H
#define SIGNING_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "signing/verify.h"

struct signer;

/* Writes NAME.key (PEM, O_EXCL, 0600) and NAME.pub (PEM SubjectPublicKeyInfo). */
int signer_keygen(const char *name, uint8_t keyid[SIG_KEYID_LEN], struct cf_err *e);
int signer_load(const char *path, struct signer **out, struct cf_err *e);
void signer_free(struct signer *s);
const uint8_t *signer_spki(const struct signer *s, size_t *len);
/* RFC 6979 deterministic r||s over a SHA-256 digest, verified again before it is returned. */
int signer_sign(struct signer *s, const uint8_t digest[32], uint8_t sig[SIG_RAW_LEN],
		struct cf_err *e);

#endif
