/* verify.c - ECDSA P-256 verification over mbedTLS 3.6 (ECP and ECDSA only) with a fixed
 * r||s encoding */
#include "signing/verify.h"

#include <mbedtls/base64.h>
#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/memfind.h"
#include "common/sha256.h"
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

/* The one SubjectPublicKeyInfo a P-256 key has in DER: SEQUENCE { SEQUENCE { id-ecPublicKey,
 * prime256v1 }, BIT STRING { 0x04 X Y } }. A fixed prefix makes the parser exact and tiny,
 * and keeps mbedTLS' PK module (which carries the signing wrappers) out of the unpacker. */
static const uint8_t p256_spki_prefix[] = {
	0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
};
#define P256_SPKI_LEN (sizeof(p256_spki_prefix) + 64)

static const char pem_begin[] = "-----BEGIN PUBLIC KEY-----";
static const char pem_end[] = "-----END PUBLIC KEY-----";

/* The curve and the point of a P-256 SubjectPublicKeyInfo; 0 only for a point on the curve. */
static int p256_load(const uint8_t *spki, size_t len, mbedtls_ecp_group *grp,
		     mbedtls_ecp_point *q)
{
	if (len != P256_SPKI_LEN || memcmp(spki, p256_spki_prefix, sizeof(p256_spki_prefix)) != 0)
		return -1;
	const size_t point_at = sizeof(p256_spki_prefix) - 1; /* the 0x04 */
	if (mbedtls_ecp_group_load(grp, MBEDTLS_ECP_DP_SECP256R1) != 0 ||
	    mbedtls_ecp_point_read_binary(grp, q, spki + point_at, len - point_at) != 0 ||
	    mbedtls_ecp_check_pubkey(grp, q) != 0)
		return -1;
	return 0;
}

static const uint8_t *skip_space(const uint8_t *p, const uint8_t *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* PEM "PUBLIC KEY" to DER; NULL unless the text is that one block with only white space
 * around it. A block found inside other text is not taken: any small root-owned file that
 * quotes a user's text (a report listing users' directory names) would otherwise be a key. */
static uint8_t *pem_decode(const uint8_t *data, size_t len, size_t *out_len)
{
	const uint8_t *end = data + len, *b = skip_space(data, end);
	if ((size_t)(end - b) < sizeof(pem_begin) - 1 || memcmp(b, pem_begin, sizeof(pem_begin) - 1) != 0)
		return NULL;
	b += sizeof(pem_begin) - 1;
	const uint8_t *e = memfind(b, (size_t)(end - b), pem_end, sizeof(pem_end) - 1);
	if (!e || skip_space(e + sizeof(pem_end) - 1, end) != end)
		return NULL;
	while (b < e && (*b == '\r' || *b == '\n'))
		b++;
	size_t n = 0;
	if (mbedtls_base64_decode(NULL, 0, &n, b, (size_t)(e - b)) !=
	    MBEDTLS_ERR_BASE64_BUFFER_TOO_SMALL || n == 0)
		return NULL;
	uint8_t *der = xmalloc(n);
	if (mbedtls_base64_decode(der, n, out_len, b, (size_t)(e - b)) != 0) {
		free(der);
		return NULL;
	}
	return der;
}

int sig_pubkey_parse(const uint8_t *data, size_t len, uint8_t *der, size_t *der_len,
		     struct cf_err *e)
{
	size_t n = len;
	uint8_t *pem = pem_decode(data, len, &n);
	const uint8_t *spki = pem ? pem : data;
	mbedtls_ecp_group grp;
	mbedtls_ecp_point q;
	mbedtls_ecp_group_init(&grp);
	mbedtls_ecp_point_init(&q);
	int ok = p256_load(spki, n, &grp, &q) == 0;
	/* Anything DER-shaped that is not that key is some other key; the rest is not a key. */
	int sequence = n > 2 && spki[0] == 0x30;
	if (ok) {
		memcpy(der, spki, n);
		*der_len = n;
	}
	mbedtls_ecp_point_free(&q);
	mbedtls_ecp_group_free(&grp);
	free(pem);
	if (ok)
		return CF_OK;
	if (sequence)
		return cf_fail(e, CF_TRUST,
			       "public key is not ECDSA P-256 (an uncompressed SubjectPublicKeyInfo)");
	return cf_fail(e, CF_TRUST, "not a public key (PEM \"PUBLIC KEY\" or DER expected)");
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
	char b64[4 * ((SIG_SPKI_MAX + 2) / 3) + 1];
	size_t n = 0, at = 0;
	if (der_len > SIG_SPKI_MAX ||
	    mbedtls_base64_encode((unsigned char *)b64, sizeof(b64), &n, der, der_len) != 0)
		return -1;
	int w = snprintf(out, size, "%s\n", pem_begin);
	for (; w > 0 && (size_t)w < size && at < n; at += 64) {
		int m = snprintf(out + w, size - (size_t)w, "%.*s\n", (int)(n - at < 64 ? n - at : 64),
				 b64 + at);
		w = m < 0 ? -1 : w + m;
	}
	if (w > 0 && (size_t)w < size)
		w += snprintf(out + w, size - (size_t)w, "%s\n", pem_end);
	return w > 0 && (size_t)w < size ? 0 : -1;
}

int sig_verify(const uint8_t *spki, size_t spki_len, const uint8_t digest[32],
	       const uint8_t *sig, size_t sig_len)
{
	mbedtls_ecp_group grp;
	mbedtls_ecp_point q;
	mbedtls_mpi r, s;
	int verdict = SIG_INVALID;
	if (sig_len != SIG_RAW_LEN)
		return SIG_INVALID;
	mbedtls_ecp_group_init(&grp);
	mbedtls_ecp_point_init(&q);
	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	if (p256_load(spki, spki_len, &grp, &q) != 0) {
		verdict = SIG_BAD_KEY;
		goto out;
	}
	if (mbedtls_mpi_read_binary(&r, sig, 32) != 0 ||
	    mbedtls_mpi_read_binary(&s, sig + 32, 32) != 0)
		goto out;
	/* 1 <= r, s < n; mbedtls_ecdsa_verify checks this too, but the rule is ours. */
	if (mbedtls_mpi_cmp_int(&r, 1) < 0 || mbedtls_mpi_cmp_int(&s, 1) < 0 ||
	    mbedtls_mpi_cmp_mpi(&r, &grp.N) >= 0 || mbedtls_mpi_cmp_mpi(&s, &grp.N) >= 0)
		goto out;
	if (mbedtls_ecdsa_verify(&grp, digest, 32, &q, &r, &s) == 0)
		verdict = SIG_VALID;
out:
	mbedtls_mpi_free(&r);
	mbedtls_mpi_free(&s);
	mbedtls_ecp_point_free(&q);
	mbedtls_ecp_group_free(&grp);
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

int sig_decode_any(const uint8_t *data, size_t len, uint8_t raw[SIG_RAW_LEN])
{
	if (sig_der_to_raw(data, len, raw) == 0)
		return 0;
	if (len == SIG_RAW_LEN) {
		memcpy(raw, data, SIG_RAW_LEN);
		return 0;
	}
	size_t trimmed = len;
	while (trimmed && (data[trimmed - 1] == '\n' || data[trimmed - 1] == '\r' || data[trimmed - 1] == ' '))
		trimmed--;
	if (trimmed != 2 * SIG_RAW_LEN)
		return -1;
	char hex[2 * SIG_RAW_LEN + 1];
	memcpy(hex, data, trimmed);
	hex[trimmed] = '\0';
	return hex_decode(hex, raw, SIG_RAW_LEN) == 0 ? 0 : -1;
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
