/* sha256.c - streaming SHA-256 over mbedTLS */
#include "common/sha256.h"

#include <errno.h>
#include <mbedtls/sha256.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

/* SHA-256 in one of two ways: the CPU's SHA-256 instructions (x86 SHA extensions, found with
 * CPUID; ARMv8 crypto, found with AT_HWCAP), or mbedTLS. Both give the same digest bit for bit (tests/unit/test_sha256.c checks). */

struct sha256_state {
	int ni;                 /* 1: SHA extensions, own state below; 0: mbedTLS context */
	uint32_t h[8];
	uint64_t total;
	uint8_t buf[64];
	size_t fill;
	mbedtls_sha256_context mb;
};

_Static_assert(sizeof(struct sha256_state) <= sizeof(((struct sha256 *)0)->opaque),
	       "struct sha256 is too small for its state");

static struct sha256_state *state_of(struct sha256 *h)
{
	/* The storage is what sha256_init fills: reading it first is cppcheck's guess, not ours. */
	// cppcheck-suppress ctuuninitvar
	return (struct sha256_state *)(void *)h->opaque;
}

static int force_portable = -1;

void sha256_force_portable(int on)
{
	force_portable = on;
}

static const uint32_t K256[64] __attribute__((unused)) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

#define HW_NAME "x86 SHA extensions"

static int cpu_has_sha_ni(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)) || !(c & (1u << 9)))
		return 0; /* SSE4.1, SSSE3 */
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b >> 29) & 1; /* SHA */
}


/* Sixteen groups of four rounds; the message schedule kept in a ring of four vectors. */
__attribute__((target("sha,sse4.1,ssse3"))) static void ni_blocks(uint32_t h[8], const uint8_t *p,
								   size_t blocks)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);
	__m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);
	__m128i s0 = _mm_alignr_epi8(tmp, s1, 8);  /* ABEF */
	s1 = _mm_blend_epi16(s1, tmp, 0xF0);       /* CDGH */
	for (; blocks > 0; blocks--, p += 64) {
		__m128i abef = s0, cdgh = s1, w[4];
#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			if (i < 4) {
				w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), mask);
			} else {
				__m128i x = _mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]);
				x = _mm_add_epi32(x, _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4));
				w[i % 4] = _mm_sha256msg2_epu32(x, w[(i + 3) % 4]);
			}
			__m128i m = _mm_add_epi32(w[i % 4], _mm_loadu_si128((const __m128i *)&K256[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
		}
		s0 = _mm_add_epi32(s0, abef);
		s1 = _mm_add_epi32(s1, cdgh);
	}
	tmp = _mm_shuffle_epi32(s0, 0x1B);        /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);         /* DCHG */
	s0 = _mm_blend_epi16(tmp, s1, 0xF0);      /* DCBA */
	s1 = _mm_alignr_epi8(s1, tmp, 8);         /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>

#define HW_NAME "ARMv8 SHA-256 instructions"

static int cpu_has_sha_ni(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_SHA2) != 0;
}

/* Same round constants and ring of four schedule vectors as the x86 path; ARM keeps the state
 * as ABCD and EFGH, so no shuffles are needed. */
__attribute__((target("+crypto"))) static void ni_blocks(uint32_t h[8], const uint8_t *p,
							 size_t blocks)
{
	uint32x4_t abcd = vld1q_u32(&h[0]), efgh = vld1q_u32(&h[4]);
	for (; blocks > 0; blocks--, p += 64) {
		uint32x4_t save_abcd = abcd, save_efgh = efgh, w[4];
		for (int i = 0; i < 4; i++)
			w[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p + 16 * i)));
		for (int i = 0; i < 16; i++) {
			uint32x4_t wk = vaddq_u32(w[i % 4], vld1q_u32(&K256[4 * i]));
			if (i < 12)
				w[i % 4] = vsha256su1q_u32(vsha256su0q_u32(w[i % 4], w[(i + 1) % 4]),
							   w[(i + 2) % 4], w[(i + 3) % 4]);
			uint32x4_t old = abcd;
			abcd = vsha256hq_u32(abcd, efgh, wk);
			efgh = vsha256h2q_u32(efgh, old, wk);
		}
		abcd = vaddq_u32(abcd, save_abcd);
		efgh = vaddq_u32(efgh, save_efgh);
	}
	vst1q_u32(&h[0], abcd);
	vst1q_u32(&h[4], efgh);
}
#else
#define HW_NAME "none"

static int cpu_has_sha_ni(void)
{
	return 0;
}

static void ni_blocks(uint32_t h[8], const uint8_t *p, size_t blocks)
{
	(void)h, (void)p, (void)blocks;
}
#endif

static int use_ni(void)
{
	static int detected = -1;
	if (force_portable < 0) {
		const char *env = getenv("CUFERRY_SHA256");
		force_portable = env && strcmp(env, "portable") == 0;
	}
	if (detected < 0)
		detected = cpu_has_sha_ni();
	return detected && !force_portable;
}

const char *sha256_impl(void)
{
	return use_ni() ? HW_NAME : "mbedTLS (portable)";
}

void sha256_init(struct sha256 *hh)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	struct sha256_state *s = state_of(hh);
	s->ni = use_ni();
	if (s->ni) {
		memcpy(s->h, iv, sizeof(iv));
		s->total = 0;
		s->fill = 0;
		return;
	}
	mbedtls_sha256_init(&s->mb);
	mbedtls_sha256_starts(&s->mb, 0);
}

void sha256_update(struct sha256 *hh, const void *data, size_t len)
{
	struct sha256_state *s = state_of(hh);
	const uint8_t *p = data;
	if (!s->ni) {
		mbedtls_sha256_update(&s->mb, p, len);
		return;
	}
	s->total += len;
	if (s->fill) {
		size_t n = 64 - s->fill < len ? 64 - s->fill : len;
		memcpy(s->buf + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill < 64)
			return;
		ni_blocks(s->h, s->buf, 1);
		s->fill = 0;
	}
	if (len >= 64) {
		ni_blocks(s->h, p, len / 64);
		p += len / 64 * 64;
		len %= 64;
	}
	memcpy(s->buf, p, len);
	s->fill = len;
}

void sha256_final(struct sha256 *hh, uint8_t out[SHA256_LEN])
{
	struct sha256_state *s = state_of(hh);
	if (!s->ni) {
		mbedtls_sha256_finish(&s->mb, out);
		mbedtls_sha256_free(&s->mb);
		return;
	}
	uint64_t bits = s->total * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padlen = (s->fill < 56 ? 56 : 120) - s->fill;
	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
	uint64_t total = s->total;
	sha256_update(hh, pad, padlen + 8);
	s->total = total;
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

void sha256_buf(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, data, len);
	sha256_final(&h, out);
}

int sha256_fd(int fd, uint8_t out[SHA256_LEN], uint64_t *size)
{
	/* One buffer per call: validation hashes files in parallel threads. */
	enum { BUF = 1 << 20 };
	unsigned char *buf = malloc(BUF);
	struct sha256 h;
	uint64_t total = 0;
	ssize_t n = 0;
	if (!buf)
		return -1;
	sha256_init(&h);
	while ((n = platform_read(fd, buf, BUF)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sha256_update(&h, buf, (size_t)n);
		total += (uint64_t)n;
	}
	int saved = errno;
	free(buf);
	sha256_final(&h, out);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	if (size)
		*size = total;
	return 0;
}

int sha256_file(const char *path, uint8_t out[SHA256_LEN], uint64_t *size)
{
	int fd = platform_open(path, PLATFORM_OPEN_READ, 0);
	if (fd < 0)
		return -1;
	int rc = sha256_fd(fd, out, size);
	int saved = errno;
	platform_close(fd);
	errno = saved;
	return rc;
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
