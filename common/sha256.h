/* sha256.h - streaming SHA-256 and hex helpers (the library behind it stays in sha256.c) */
#ifndef COMMON_SHA256_H
#define COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

/* Storage sized and aligned for the implementation's context; its fields are private. */
struct sha256 {
	_Alignas(16) unsigned char opaque[256];
};

void sha256_init(struct sha256 *h);
void sha256_update(struct sha256 *h, const void *data, size_t len);
void sha256_final(struct sha256 *h, uint8_t out[SHA256_LEN]);
void sha256_buf(const void *data, size_t len, uint8_t out[SHA256_LEN]);
/* Hash a whole file by streaming it. 0 ok, -1 error (errno set). */
int sha256_file(const char *path, uint8_t out[SHA256_LEN], uint64_t *size);
/* The same for what is left to read from an open handle (it is not closed). */
int sha256_fd(int fd, uint8_t out[SHA256_LEN], uint64_t *size);

/* Which implementation runs: "x86 SHA extensions" or "mbedTLS (portable)". */
const char *sha256_impl(void);
/* Tests and the benchmark: 1 forces mbedTLS (CUFERRY_SHA256=portable does the same). */
void sha256_force_portable(int on);

void hex_encode(const uint8_t *in, size_t len, char *out);
/* Decode exactly 2*len lowercase or uppercase hex digits. 0 ok, -1 bad input. */
int hex_decode(const char *in, uint8_t *out, size_t len);
/* Constant-time equality of two digests. */
int digest_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif
