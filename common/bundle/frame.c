/* frame.c - bounded parser of the bundle's signed skippable frame */
#include "common/bundle/frame.h"

#include <stdlib.h>
#include <string.h>

#include "common/io.h"

int frame_prefix(const uint8_t *data, size_t len, uint32_t *content_len)
{
	if (len < FRAME_PREFIX_LEN || frame_le32(data) != FRAME_MAGIC)
		return -1;
	if (content_len)
		*content_len = frame_le32(data + 4);
	return 0;
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
