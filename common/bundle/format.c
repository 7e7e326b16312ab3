/* format.c - the format versions this build reads, and the pieces every part of the format
 * shares: the signature list and little-endian numbers */
#include "common/bundle/format.h"

#include <stdlib.h>
#include <string.h>

bool bundle_format_supported(int format)
{
	/* 2 is 1 with "with": the other products of a unit (manifests/manifest.h). */
	return format == 1 || format == 2;
}

int bundle_format_number(const char *name)
{
	size_t n = strlen(BUNDLE_FORMAT_PREFIX);
	if (strncmp(name, BUNDLE_FORMAT_PREFIX, n) != 0)
		return -1;
	const char *digits = name + n;
	int number = 0;
	size_t i = 0;
	/* Nine digits at most: no overflow, and "cuferry-bundle-01" is not format 1. */
	for (; digits[i] >= '0' && digits[i] <= '9' && i < 9; i++)
		number = number * 10 + (digits[i] - '0');
	if (i == 0 || digits[i] != '\0' || (digits[0] == '0' && i > 1))
		return -1;
	return number;
}

void frame_free(struct frame *f)
{
	free(f->header);
	f->header = NULL;
}

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

