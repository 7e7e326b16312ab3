/* sha256.c - streaming SHA-256 over mbedTLS */
#include "common/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <mbedtls/sha256.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(mbedtls_sha256_context) <= sizeof(((struct sha256 *)0)->opaque),
	       "struct sha256 is too small for mbedtls_sha256_context");

static mbedtls_sha256_context *ctx_of(struct sha256 *h)
{
	return (mbedtls_sha256_context *)(void *)h->opaque;
}

void sha256_init(struct sha256 *h)
{
	mbedtls_sha256_init(ctx_of(h));
	mbedtls_sha256_starts_ret(ctx_of(h), 0);
}

void sha256_update(struct sha256 *h, const void *data, size_t len)
{
	mbedtls_sha256_update_ret(ctx_of(h), data, len);
}

void sha256_final(struct sha256 *h, uint8_t out[SHA256_LEN])
{
	mbedtls_sha256_finish_ret(ctx_of(h), out);
	mbedtls_sha256_free(ctx_of(h));
}

void sha256_buf(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, data, len);
	sha256_final(&h, out);
}

int sha256_file(const char *path, uint8_t out[SHA256_LEN], uint64_t *size)
{
	static unsigned char buf[1 << 20];
	struct sha256 h;
	uint64_t total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	sha256_init(&h);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;
			close(fd);
			sha256_final(&h, out);
			errno = saved;
			return -1;
		}
		sha256_update(&h, buf, (size_t)n);
		total += (uint64_t)n;
	}
	close(fd);
	sha256_final(&h, out);
	if (size)
		*size = total;
	return 0;
}

void hex_encode(const uint8_t *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * len] = '\0';
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hex_decode(const char *in, uint8_t *out, size_t len)
{
	if (strlen(in) != 2 * len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int hi = hex_nibble(in[2 * i]), lo = hex_nibble(in[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int digest_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	uint8_t diff = 0;
	for (size_t i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}
