/* sign.c - key generation and deterministic ECDSA P-256 signing over mbedTLS 3.6: keys are
 * read with the PK module and signed through PSA (the supported signing path of 3.6, and
 * the only one in 4.x), with PSA_ALG_DETERMINISTIC_ECDSA: RFC 6979, so the same header
 * gives the same signature byte for byte. */
#include "signing/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/entropy.h>
#include <mbedtls/pk.h>
#include <mbedtls/platform_util.h>
#include <psa/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"

struct signer {
	mbedtls_pk_context pk;
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_svc_key_id_t key; /* the secret key inside PSA; destroyed by signer_free */
	uint8_t spki[SIG_SPKI_MAX];
	size_t spki_len;
};

static int drbg_seed(mbedtls_entropy_context *ent, mbedtls_ctr_drbg_context *drbg)
{
	static const unsigned char pers[] = "cuferry-signing";
	mbedtls_entropy_init(ent);
	mbedtls_ctr_drbg_init(drbg);
	return mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, ent, pers, sizeof(pers) - 1);
}

static int write_new_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (io_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		int saved = errno;
		close(fd);
		unlink(path);
		errno = saved;
		return -1;
	}
	return close(fd);
}

static int spki_of(mbedtls_pk_context *pk, uint8_t *out, size_t *len)
{
	uint8_t buf[SIG_SPKI_MAX];
	int n = mbedtls_pk_write_pubkey_der(pk, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	memcpy(out, buf + sizeof(buf) - n, (size_t)n);
	*len = (size_t)n;
	return 0;
}

int signer_keygen(const char *name, uint8_t keyid[SIG_KEYID_LEN], struct cf_err *e)
{
	mbedtls_pk_context pk;
	mbedtls_entropy_context ent;
	mbedtls_ctr_drbg_context drbg;
	unsigned char secret[1024], pub[1024], spki[SIG_SPKI_MAX];
	size_t spki_len;
	char *key_path = xasprintf("%s.key", name), *pub_path = xasprintf("%s.pub", name);
	int rc = CF_OK;
	mbedtls_pk_init(&pk);
	if (drbg_seed(&ent, &drbg) != 0 ||
	    mbedtls_pk_setup(&pk, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)) != 0 ||
	    mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(pk),
				mbedtls_ctr_drbg_random, &drbg) != 0 ||
	    mbedtls_pk_write_key_pem(&pk, secret, sizeof(secret)) != 0 ||
	    mbedtls_pk_write_pubkey_pem(&pk, pub, sizeof(pub)) != 0 ||
	    spki_of(&pk, spki, &spki_len) != 0) {
		rc = cf_fail(e, CF_USAGE, "key generation failed");
		goto out;
	}
	if (write_new_file(key_path, secret, strlen((char *)secret), 0600) != 0) {
		rc = cf_fail(e, errno == EEXIST ? CF_USAGE : cf_write_status(errno), "%s: %s", key_path,
			     errno == EEXIST ? "already exists, not overwritten" : strerror(errno));
		goto out;
	}
	if (write_new_file(pub_path, pub, strlen((char *)pub), 0644) != 0) {
		rc = cf_fail(e, errno == EEXIST ? CF_USAGE : cf_write_status(errno), "%s: %s", pub_path,
			     errno == EEXIST ? "already exists, not overwritten" : strerror(errno));
		unlink(key_path);
		goto out;
	}
	sig_keyid(spki, spki_len, keyid);
out:
	mbedtls_platform_zeroize(secret, sizeof(secret));
	mbedtls_pk_free(&pk);
	mbedtls_ctr_drbg_free(&drbg);
	mbedtls_entropy_free(&ent);
	free(key_path);
	free(pub_path);
	return rc;
}

static int is_p256_pair(const mbedtls_pk_context *pk)
{
	return mbedtls_pk_get_type(pk) == MBEDTLS_PK_ECKEY &&
	       mbedtls_ecp_keypair_get_group_id(mbedtls_pk_ec(*pk)) == MBEDTLS_ECP_DP_SECP256R1;
}

int signer_load(const char *path, struct signer **out, struct cf_err *e)
{
	struct signer *s = xcalloc(1, sizeof(*s));
	mbedtls_pk_init(&s->pk);
	s->key = MBEDTLS_SVC_KEY_ID_INIT;
	if (psa_crypto_init() != PSA_SUCCESS || drbg_seed(&s->entropy, &s->drbg) != 0) {
		signer_free(s);
		return cf_fail(e, CF_USAGE, "cannot seed the random generator");
	}
	int rc = mbedtls_pk_parse_keyfile(&s->pk, path, NULL, mbedtls_ctr_drbg_random, &s->drbg);
	if (rc != 0) {
		signer_free(s);
		return cf_fail(e, CF_USAGE,
			       "%s: cannot read secret key (mbedTLS -0x%04x; an encrypted key needs "
			       "a password, which the bundler does not ask for: use --external)",
			       path, -rc);
	}
	if (!is_p256_pair(&s->pk) || spki_of(&s->pk, s->spki, &s->spki_len) != 0) {
		signer_free(s);
		return cf_fail(e, CF_USAGE, "%s: not an ECDSA P-256 secret key", path);
	}
	psa_key_attributes_t attr = PSA_KEY_ATTRIBUTES_INIT;
	if (mbedtls_pk_get_psa_attributes(&s->pk, PSA_KEY_USAGE_SIGN_HASH, &attr) != 0) {
		signer_free(s);
		return cf_fail(e, CF_USAGE, "%s: not an ECDSA P-256 secret key", path);
	}
	psa_set_key_algorithm(&attr, PSA_ALG_DETERMINISTIC_ECDSA(PSA_ALG_SHA_256));
	rc = mbedtls_pk_import_into_psa(&s->pk, &attr, &s->key);
	psa_reset_key_attributes(&attr);
	if (rc != 0) {
		signer_free(s);
		return cf_fail(e, CF_USAGE, "%s: cannot load the secret key (mbedTLS -0x%04x)", path,
			       -rc);
	}
	*out = s;
	return CF_OK;
}

void signer_free(struct signer *s)
{
	if (!s)
		return;
	psa_destroy_key(s->key);   /* zeroizes PSA's copy; a null id is a no-op */
	mbedtls_pk_free(&s->pk); /* zeroizes the secret */
	mbedtls_ctr_drbg_free(&s->drbg);
	mbedtls_entropy_free(&s->entropy);
	free(s);
}

const uint8_t *signer_spki(const struct signer *s, size_t *len)
{
	*len = s->spki_len;
	return s->spki;
}

int signer_sign(struct signer *s, const uint8_t digest[32], uint8_t sig[SIG_RAW_LEN],
		struct cf_err *e)
{
	size_t len = 0;
	/* PSA's ECDSA signature is r || s, 32 bytes each: our encoding as it is. */
	psa_status_t st = psa_sign_hash(s->key, PSA_ALG_DETERMINISTIC_ECDSA(PSA_ALG_SHA_256), digest,
					32, sig, SIG_RAW_LEN, &len);
	if (st != PSA_SUCCESS || len != SIG_RAW_LEN)
		return cf_fail(e, CF_USAGE, "signing failed (PSA status %d)", (int)st);
	/* Never trust a fresh signature before it verifies (a fault, a library bug). */
	if (sig_verify(s->spki, s->spki_len, digest, sig, SIG_RAW_LEN) != SIG_VALID)
		return cf_fail(e, CF_INTEGRITY, "the new signature does not verify; nothing written");
	return CF_OK;
}
