/* write.c - encoding the signed header frame */
#include "common/bundle/write.h"

#include <string.h>

#include "common/io.h"

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
