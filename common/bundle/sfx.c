/* sfx.c - trailer, stub-signature block and signed digest of a self-extracting bundle */
#include "common/bundle/sfx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/memfind.h"
#include "common/platform.h"
#include "common/sha256.h"

void sfx_trailer_encode(const struct sfx_layout *l, uint8_t out[SFX_TRAILER_LEN])
{
	memcpy(out, SFX_TRAILER_TAG, 8);
	frame_put_le64(out + 8, l->stub_len);
	frame_put_le64(out + 16, l->bundle_len);
	frame_put_le64(out + 24, l->block_len);
}

int sfx_trailer_tagged(const uint8_t in[SFX_TRAILER_LEN])
{
	return memcmp(in, SFX_TRAILER_TAG, 8) == 0 ? 0 : -1;
}

int sfx_trailer_parse(const uint8_t in[SFX_TRAILER_LEN], uint64_t file_size,
		      struct sfx_layout *l, struct cf_err *e)
{
	if (sfx_trailer_tagged(in) != 0)
		return cf_fail(e, CF_TRUST, "not a cuferry bundle: no signed header at the start and "
			       "no self-extracting trailer at the end");
	l->stub_len = frame_le64(in + 8);
	l->bundle_len = frame_le64(in + 16);
	l->block_len = frame_le64(in + 24);
	if (l->block_len == 0)
		return cf_fail(e, CF_TRUST, "self-extracting file without a stub-signature block "
			       "(format 1): its stub is unsigned");
	/* Each term is bounded before the sum, so it cannot wrap. */
	uint64_t body = file_size - SFX_TRAILER_LEN;
	if (file_size < SFX_TRAILER_LEN || l->stub_len > body || l->bundle_len > body ||
	    l->block_len > SFX_BLOCK_MAX || l->stub_len + l->bundle_len + l->block_len != body)
		return cf_fail(e, CF_TRUST, "self-extracting file: stub %llu + bundle %llu + "
			       "stub-signature block %llu + trailer 32 bytes is not the file's size "
			       "%llu (bytes added, removed or a changed trailer)",
			       (unsigned long long)l->stub_len, (unsigned long long)l->bundle_len,
			       (unsigned long long)l->block_len, (unsigned long long)file_size);
	return CF_OK;
}

int sfx_block_parse(const uint8_t *block, size_t len, struct frame_sig *sigs, uint32_t *nsigs,
		    struct cf_err *e)
{
	const uint8_t *p = block + 8, *end = block + len;
	if (len < 8 || memcmp(block, SFX_BLOCK_TAG, 8) != 0)
		return cf_fail(e, CF_TRUST, "stub-signature block: tag %s missing", SFX_BLOCK_TAG);
	int rc = frame_parse_sigs(&p, end, sigs, nsigs, e);
	if (rc == CF_OK && p != end)
		rc = cf_fail(e, CF_TRUST, "stub-signature block: %zu unexpected bytes after the "
			     "signatures", (size_t)(end - p));
	return rc;
}

uint8_t *sfx_block_encode(const struct frame_sig *sigs, uint32_t nsigs, size_t *len)
{
	*len = 8 + frame_sigs_size(sigs, nsigs);
	uint8_t *block = xmalloc(*len);
	memcpy(block, SFX_BLOCK_TAG, 8);
	frame_put_sigs(block + 8, sigs, nsigs);
	return block;
}

void sfx_message(const uint8_t stub_sha256[32], const uint8_t *header, size_t header_len,
		 const struct sfx_layout *l, uint8_t m[SFX_MESSAGE_LEN])
{
	memcpy(m, SFX_BLOCK_TAG, 8);
	memcpy(m + 8, stub_sha256, 32);
	sha256_buf(header, header_len, m + 40);
	frame_put_le64(m + 72, l->stub_len);
	frame_put_le64(m + 80, l->bundle_len);
}

void sfx_digest(const uint8_t stub_sha256[32], const uint8_t *header, size_t header_len,
		const struct sfx_layout *l, uint8_t digest[32])
{
	uint8_t m[SFX_MESSAGE_LEN];
	sfx_message(stub_sha256, header, header_len, l, m);
	sha256_buf(m, sizeof(m), digest);
}

int sfx_hash_range(int fd, uint64_t len, uint8_t out[32])
{
	enum { BUF = 1 << 20 };
	uint8_t *buf = xmalloc(BUF);
	struct sha256 h;
	uint64_t off = 0;
	sha256_init(&h);
	while (off < len) {
		size_t want = len - off < BUF ? (size_t)(len - off) : BUF;
		ssize_t n = platform_pread(fd, buf, want, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			if (n == 0)
				errno = EIO;
			return -1;
		}
		sha256_update(&h, buf, (size_t)n);
		off += (uint64_t)n;
	}
	sha256_final(&h, out);
	free(buf);
	return 0;
}

void sfx_container_digest(const uint8_t stub_sha256[32], uint64_t stub_len, uint8_t digest[32])
{
	struct sfx_layout l = { stub_len, 0, 0 };
	sfx_digest(stub_sha256, (const uint8_t *)"", 0, &l, digest);
}

int sfx_layout_is_container(const struct sfx_layout *l)
{
	return l->bundle_len == 0;
}

int sfx_container_parse(const uint8_t *data, size_t len, struct sfx_layout *l,
			struct frame_sig *sigs, uint32_t *nsigs, uint8_t digest[32], struct cf_err *e)
{
	uint8_t stub_sha[32];
	if (len < SFX_TRAILER_LEN)
		return cf_fail(e, CF_TRUST, "not a signed unpacker: too short for its trailer");
	const uint8_t *tail = data + len - SFX_TRAILER_LEN;
	if (sfx_trailer_tagged(tail) != 0)
		return cf_fail(e, CF_TRUST, "not a signed unpacker: no signature block at its end (a "
			       "program nobody signed)");
	int rc = sfx_trailer_parse(tail, len, l, e);
	if (rc != CF_OK)
		return rc;
	if (!sfx_layout_is_container(l))
		return cf_fail(e, CF_TRUST, "not a signed unpacker: it carries a bundle (a .run or .exe "
			       "self-extractor)");
	rc = sfx_block_parse(data + l->stub_len, (size_t)l->block_len, sigs, nsigs, e);
	if (rc == CF_OK) {
		sha256_buf(data, (size_t)l->stub_len, stub_sha);
		sfx_container_digest(stub_sha, l->stub_len, digest);
	}
	return rc;
}

int sfx_program_version(const uint8_t *data, size_t len, char *out, size_t size)
{
	static const char marker[] = SFX_VERSION_MARKER;
	size_t m = sizeof(marker) - 1;
	for (const uint8_t *p = data, *end = data + len; p < end;) {
		const uint8_t *at = memfind(p, (size_t)(end - p), marker, m);
		if (!at)
			break;
		const uint8_t *v = at + m;
		size_t n = 0;
		while (v + n < end && n + 1 < size && ((v[n] >= '0' && v[n] <= '9') || v[n] == '.'))
			n++;
		/* The marker alone (the needle in a program's own data) is followed by no digit. */
		if (n > 0 && v + n < end && v[n] == '\0') {
			memcpy(out, v, n);
			out[n] = '\0';
			return 0;
		}
		p = at + 1;
	}
	return -1;
}
