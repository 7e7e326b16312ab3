/* frame.c - bounded encoder and parser of the bundle's signed skippable frame */
#include "common/bundle/frame.h"

#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"

uint32_t frame_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void frame_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint64_t frame_le64(const uint8_t *p)
{
	return (uint64_t)frame_le32(p) | (uint64_t)frame_le32(p + 4) << 32;
}

void frame_put_le64(uint8_t *p, uint64_t v)
{
	frame_put_le32(p, (uint32_t)v);
	frame_put_le32(p + 4, (uint32_t)(v >> 32));
}

int frame_prefix(const uint8_t *data, size_t len, uint32_t *content_len)
{
	if (len < FRAME_PREFIX_LEN || frame_le32(data) != FRAME_MAGIC)
		return -1;
	if (content_len)
		*content_len = frame_le32(data + 4);
	return 0;
}

int frame_parse_sigs(const uint8_t **cursor, const uint8_t *end, struct frame_sig *sigs,
		     uint32_t *count, struct cf_err *e)
{
	const uint8_t *p = *cursor;
	if (end - p < 4)
		return cf_fail(e, CF_TRUST, "signature count truncated");
	uint32_t nsigs = frame_le32(p);
	p += 4;
	if (nsigs < 1 || nsigs > FRAME_MAX_SIGS)
		return cf_fail(e, CF_TRUST, "bundle carries %u signatures (1 to %d allowed)", nsigs,
			       FRAME_MAX_SIGS);
	for (uint32_t i = 0; i < nsigs; i++) {
		struct frame_sig *s = &sigs[i];
		if (end - p < 32 + 2)
			return cf_fail(e, CF_TRUST, "signature %u truncated", i + 1);
		memcpy(s->keyid, p, 32);
		s->spki_len = (uint16_t)(p[32] | p[33] << 8);
		p += 34;
		if (s->spki_len == 0 || s->spki_len > FRAME_SPKI_MAX ||
		    (size_t)(end - p) < (size_t)s->spki_len + 64)
			return cf_fail(e, CF_TRUST, "signature %u truncated or key too long", i + 1);
		memcpy(s->spki, p, s->spki_len);
		p += s->spki_len;
		memcpy(s->sig, p, 64);
		p += 64;
	}
	*cursor = p;
	*count = nsigs;
	return CF_OK;
}

size_t frame_sigs_size(const struct frame_sig *sigs, uint32_t nsigs)
{
	size_t n = 4;
	for (uint32_t i = 0; i < nsigs; i++)
		n += 32 + 2 + sigs[i].spki_len + 64;
	return n;
}

uint8_t *frame_put_sigs(uint8_t *p, const struct frame_sig *sigs, uint32_t nsigs)
{
	frame_put_le32(p, nsigs);
	p += 4;
	for (uint32_t i = 0; i < nsigs; i++) {
		memcpy(p, sigs[i].keyid, 32);
		p[32] = (uint8_t)(sigs[i].spki_len & 0xff);
		p[33] = (uint8_t)(sigs[i].spki_len >> 8);
		p += 34;
		memcpy(p, sigs[i].spki, sigs[i].spki_len);
		p += sigs[i].spki_len;
		memcpy(p, sigs[i].sig, 64);
		p += 64;
	}
	return p;
}

int frame_parse(const uint8_t *content, size_t len, struct frame *f, struct cf_err *e)
{
	return frame_parse_tagged(content, len, FRAME_TAG, f, e);
}

int frame_parse_tagged(const uint8_t *content, size_t len, const char *tag, struct frame *f,
		       struct cf_err *e)
{
	const uint8_t *p = content, *end = content + len;
	memset(f, 0, sizeof(*f));
	if (len > FRAME_CAP)
		return cf_fail(e, CF_TRUST, "signed header of %zu bytes is over the %u-byte cap", len,
			       FRAME_CAP);
	if (len < 8 + 4 || memcmp(p, tag, 8) != 0)
		return cf_fail(e, CF_TRUST, "not a cuferry %s (tag %s missing)",
			       strcmp(tag, FRAME_TAG) == 0 ? "bundle header" : "trust statement", tag);
	p += 8;
	uint32_t hlen = frame_le32(p);
	p += 4;
	if (hlen == 0 || hlen > (size_t)(end - p) || (size_t)(end - p) - hlen < 4)
		return cf_fail(e, CF_TRUST, "signed header truncated (header length %u)", hlen);
	const uint8_t *header = p;
	p += hlen;
	uint32_t nsigs;
	int rc = frame_parse_sigs(&p, end, f->sigs, &nsigs, e);
	if (rc != CF_OK)
		return rc;
	if (p != end)
		return cf_fail(e, CF_TRUST, "%zu unexpected bytes after the signatures",
			       (size_t)(end - p));
	f->header = xmalloc(hlen + 1);
	memcpy(f->header, header, hlen);
	f->header[hlen] = '\0';
	f->header_len = hlen;
	f->nsigs = nsigs;
	f->frame_len = 8 + (uint64_t)len;
	return CF_OK;
}

uint8_t *frame_encode(const uint8_t *header, uint32_t header_len, const struct frame_sig *sigs,
		      uint32_t nsigs, size_t *out_len)
{
	return frame_encode_tagged(FRAME_TAG, header, header_len, sigs, nsigs, out_len);
}

uint8_t *frame_encode_tagged(const char *tag, const uint8_t *header, uint32_t header_len,
			     const struct frame_sig *sigs, uint32_t nsigs, size_t *out_len)
{
	size_t content = 8 + 4 + header_len + frame_sigs_size(sigs, nsigs);
	uint8_t *buf = xmalloc(8 + content), *p = buf;
	frame_put_le32(p, FRAME_MAGIC);
	frame_put_le32(p + 4, (uint32_t)content);
	p += 8;
	memcpy(p, tag, 8);
	p += 8;
	frame_put_le32(p, header_len);
	p += 4;
	memcpy(p, header, header_len);
	p += header_len;
	frame_put_sigs(p, sigs, nsigs);
	*out_len = 8 + content;
	return buf;
}

int frame_read_statement(const char *path, struct frame *f, uint8_t file_sha256[32],
			 struct cf_err *e)
{
	char *data = NULL;
	size_t len = 0;
	uint32_t content = 0;
	memset(f, 0, sizeof(*f));
	int r = io_read_file(path, FRAME_STATEMENT_MAX, &data, &len);
	if (r != 0) {
		free(data);
		return r == -2 ? cf_fail(e, CF_TRUST, "%s is over %u bytes: not a trust statement", path,
					 FRAME_STATEMENT_MAX)
			       : cf_fail(e, CF_USAGE, "%s: cannot read", path);
	}
	sha256_buf(data, len, file_sha256);
	int rc = frame_prefix((uint8_t *)data, len, &content) != 0 || content != len - FRAME_PREFIX_LEN
			 ? cf_fail(e, CF_TRUST, "%s is not a trust statement (no frame of its length)", path)
			 : frame_parse_tagged((uint8_t *)data + FRAME_PREFIX_LEN, content,
					      FRAME_STATEMENT_TAG, f, e);
	free(data);
	return rc;
}

void frame_free(struct frame *f)
{
	free(f->header);
	f->header = NULL;
}
