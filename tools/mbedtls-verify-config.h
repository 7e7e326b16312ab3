/* mbedtls-verify-config.h - the mbedTLS 3.6 configuration of the unpacker (tools/deps.sh
 * builds libmbedcrypto-verify.a with it): ECDSA P-256 verification, SHA-256, the ASN.1 and
 * Base64 readers the public-key parser needs. No TLS, no X.509, no PK module (it would pull
 * the signing wrappers in), no key writing, no random generator, no PSA core.
 *
 * Structures the shared objects see must have the layout of the full configuration the
 * bundler uses (mbedTLS' default): SHA-224 stays on because it changes
 * mbedtls_sha256_context. */
#ifndef CUFERRY_MBEDTLS_VERIFY_CONFIG_H
#define CUFERRY_MBEDTLS_VERIFY_CONFIG_H

#define MBEDTLS_HAVE_ASM
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C /* ecdsa.c requires it; the unpacker never writes DER */
#define MBEDTLS_BASE64_C
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA224_C

#endif
