/* verify.c - ECDSA P-256 verification over mbedTLS with a fixed r||s encoding */
#include "signing/verify.h"

#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/pk.h>
#include <stdio.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"

void sig_keyid(const uint8_t *spki, size_t len, uint8_t out[SIG_KEYID_LEN])
{
	sha256_buf(spki, len, out);
}

void sig_fingerprint(const uint8_t keyid[SIG_KEYID_LEN], char out[65])
{
	hex_encode(keyid, SIG_KEYID_LEN, out);
}

void sig_short_id(const uint8_t keyid[SIG_KEYID_LEN], char out[17])
{
	hex_encode(keyid, 8, out);
}

static int is_p256(mbedtls_pk_context *pk)
{
	return mbedtls_pk_get_type(pk) == MBEDTLS_PK_ECKEY &&
	       mbedtls_pk_ec(*pk)->grp.id == MBEDTLS_ECP_DP_SECP256R1;
}

int sig_pubkey_parse(const uint8_t *data, size_t len, uint8_t *der, size_t *der_len,
		     struct cf_err *e)
{
	mbedtls_pk_context pk;
	uint8_t buf[SIG_SPKI_MAX];
	uint8_t *copy = xmalloc(len + 1);
	memcpy(copy, data, len);
	copy[len] = '\0';
	mbedtls_pk_init(&pk);
	/* PEM input must include its NUL in the length; DER must not. */
	int pem = len > 10 && memmem(copy, len, "-----BEGIN", 10) != NULL;
	int rc = mbedtls_pk_parse_public_key(&pk, copy, pem ? len + 1 : len);
	free(copy);
	if (rc != 0) {
		mbedtls_pk_free(&pk);
		return cf_fail(e, CF_TRUST, "not a public key (mbedTLS -0x%04x)", -rc);
	}
	if (!is_p256(&pk)) {
		mbedtls_pk_free(&pk);
		return cf_fail(e, CF_TRUST, "public key is not ECDSA P-256");
	}
	int n = mbedtls_pk_write_pubkey_der(&pk, buf, sizeof(buf));
	mbedtls_pk_free(&pk);
	if (n <= 0)
		return cf_fail(e, CF_TRUST, "cannot encode public key");
	memcpy(der, buf + sizeof(buf) - n, (size_t)n);
	*der_len = (size_t)n;
	return CF_OK;
}

int sig_pubkey_load(const char *path, uint8_t *der, size_t *der_len, struct cf_err *e)
{
	char *data;
	size_t len;
	int rc = io_read_file(path, 64 * 1024, &data, &len);
	if (rc != 0)
		return cf_fail(e, CF_USAGE, "%s: cannot read public key", path);
	rc = sig_pubkey_parse((const uint8_t *)data, len, der, der_len, e);
	free(data);
	if (rc != CF_OK) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		cf_err_clear(e);
		return cf_fail(e, CF_TRUST, "%s: %s", path, why);
	}
	return CF_OK;
}

int sig_pubkey_pem(const uint8_t *der, size_t der_len, char *out, size_t size)
{
	mbedtls_pk_context pk;
	mbedtls_pk_init(&pk);
	int rc = mbedtls_pk_parse_public_key(&pk, der, der_len);
	if (rc == 0)
		rc = mbedtls_pk_write_pubkey_pem(&pk, (unsigned char *)out, size);
	mbedtls_pk_free(&pk);
	return rc == 0 ? 0 : -1;
}

int sig_verify(const uint8_t *spki, size_t spki_len, const uint8_t digest[32],
	       const uint8_t *sig, size_t sig_len)
{
	mbedtls_pk_context pk;
	mbedtls_mpi r, s;
	int verdict = SIG_INVALID;
	if (sig_len != SIG_RAW_LEN)
		return SIG_INVALID;
	mbedtls_pk_init(&pk);
	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	if (mbedtls_pk_parse_public_key(&pk, spki, spki_len) != 0 || !is_p256(&pk)) {
		verdict = SIG_BAD_KEY;
		goto out;
	}
	mbedtls_ecp_keypair *ec = mbedtls_pk_ec(pk);
	if (mbedtls_mpi_read_binary(&r, sig, 32) != 0 ||
	    mbedtls_mpi_read_binary(&s, sig + 32, 32) != 0)
		goto out;
	/* 1 <= r, s < n; mbedtls_ecdsa_verify checks this too, but the rule is ours. */
	if (mbedtls_mpi_cmp_int(&r, 1) < 0 || mbedtls_mpi_cmp_int(&s, 1) < 0 ||
	    mbedtls_mpi_cmp_mpi(&r, &ec->grp.N) >= 0 || mbedtls_mpi_cmp_mpi(&s, &ec->grp.N) >= 0)
		goto out;
	if (mbedtls_ecdsa_verify(&ec->grp, digest, 32, &ec->Q, &r, &s) == 0)
		verdict = SIG_VALID;
out:
	mbedtls_mpi_free(&r);
	mbedtls_mpi_free(&s);
	mbedtls_pk_free(&pk);
	return verdict;
}

/* One strict DER INTEGER of at most 33 bytes: minimal length, minimal value, non-negative. */
static int der_read_int(const uint8_t **p, const uint8_t *end, uint8_t out[32])
{
	const uint8_t *q = *p;
	if (end - q < 2 || q[0] != 0x02)
		return -1;
	size_t len = q[1];
	q += 2;
	if (len == 0 || len > 33 || (size_t)(end - q) < len)
		return -1;
	if (q[0] & 0x80)
		return -1; /* negative */
	if (len > 1 && q[0] == 0 && !(q[1] & 0x80))
		return -1; /* leading zero not needed */
	if (len == 33) {
		if (q[0] != 0)
			return -1;
		q++;
		len--;
	}
	memset(out, 0, 32);
	memcpy(out + 32 - len, q, len);
	*p = q + len;
	return 0;
}

int sig_der_to_raw(const uint8_t *der, size_t len, uint8_t raw[SIG_RAW_LEN])
{
	const uint8_t *end = der + len, *p = der;
	if (len < 8 || len > SIG_DER_MAX || p[0] != 0x30)
		return -1;
	/* Short-form length only: a P-256 signature is never 128 bytes or longer. */
	if (p[1] & 0x80 || (size_t)p[1] != len - 2)
		return -1;
	p += 2;
	if (der_read_int(&p, end, raw) != 0 || der_read_int(&p, end, raw + 32) != 0)
		return -1;
	return p == end ? 0 : -1;
}

static size_t der_put_int(uint8_t *out, const uint8_t in[32])
{
	size_t skip = 0;
	while (skip < 31 && in[skip] == 0)
		skip++;
	size_t n = 32 - skip, pad = (in[skip] & 0x80) ? 1 : 0;
	out[0] = 0x02;
	out[1] = (uint8_t)(n + pad);
	out[2] = 0;
	memcpy(out + 2 + pad, in + skip, n);
	return 2 + pad + n;
}

int sig_raw_to_der(const uint8_t raw[SIG_RAW_LEN], uint8_t *der, size_t *der_len)
{
	uint8_t body[70];
	size_t n = der_put_int(body, raw);
	n += der_put_int(body + n, raw + 32);
	der[0] = 0x30;
	der[1] = (uint8_t)n;
	memcpy(der + 2, body, n);
	*der_len = n + 2;
	return 0;
}
