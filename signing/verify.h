/* verify.h - the public-key side of signing: key ids, public keys, signature checks.
 * This half links into the unpacker; it holds no secret-key code. */
#ifndef SIGNING_VERIFY_H
#define SIGNING_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define SIG_RAW_LEN 64     /* r || s, 32 bytes each, big-endian */
#define SIG_KEYID_LEN 32   /* SHA-256 of the SubjectPublicKeyInfo DER */
#define SIG_SPKI_MAX 512
#define SIG_DER_MAX 72

enum sig_verdict { SIG_VALID = 0, SIG_INVALID = 1, SIG_BAD_KEY = 2 };

void sig_keyid(const uint8_t *spki, size_t len, uint8_t out[SIG_KEYID_LEN]);
/* 64 hex digits (fingerprint) or the first 16 (short id). */
void sig_fingerprint(const uint8_t keyid[SIG_KEYID_LEN], char out[65]);
void sig_short_id(const uint8_t keyid[SIG_KEYID_LEN], char out[17]);
/* Parse a P-256 public key (PEM or DER SubjectPublicKeyInfo) and return its canonical DER. */
int sig_pubkey_parse(const uint8_t *data, size_t len, uint8_t *der, size_t *der_len,
		     struct cf_err *e);
int sig_pubkey_load(const char *path, uint8_t *der, size_t *der_len, struct cf_err *e);
/* PEM text of a public key given as SubjectPublicKeyInfo DER. 0 ok. */
int sig_pubkey_pem(const uint8_t *der, size_t der_len, char *out, size_t size);
/* Verify a fixed 64-byte r||s over a SHA-256 digest. Any other length is invalid. */
int sig_verify(const uint8_t *spki, size_t spki_len, const uint8_t digest[32],
	       const uint8_t *sig, size_t sig_len);
/* Strict DER (as openssl pkeyutl writes it) to r||s; non-canonical encodings are refused. */
int sig_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[SIG_RAW_LEN]);
/* A signature as a file carries it, to r||s: strict DER (what openssl pkeyutl writes), 64 raw
 * bytes, or 128 hex digits (trailing blanks and line ends allowed). Binary forms are read as
 * they are: a DER or raw signature may end in any byte, a newline's included. */
int sig_decode_any(const uint8_t *data, size_t len, uint8_t raw[SIG_RAW_LEN]);
/* r||s to canonical DER, for stock OpenSSL. */
int sig_raw_to_der(const uint8_t raw[SIG_RAW_LEN], uint8_t *der, size_t *der_len);

#endif
