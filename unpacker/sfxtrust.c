/* sfxtrust.c - no byte of a .run is unsigned: the stub is checked like the header */
#include "unpacker/sfxtrust.h"

#include <stdio.h>

#include "common/log.h"
#include "common/bundle/sfx.h"

int sfxtrust_check(const struct trust *t, const struct bundle_input *b, const struct frame *f,
		   struct cf_err *e)
{
	const uint8_t *block;
	const struct sfx_layout *l = bundle_sfx_layout(b, &block);
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint32_t nsigs;
	uint8_t stub_sha[32], digest[32];
	char signers[256];
	if (!l)
		return CF_OK;
	int rc = sfx_block_parse(block, (size_t)l->block_len, sigs, &nsigs, e);
	if (rc == CF_OK)
		rc = bundle_sfx_stub_sha256(b, stub_sha, e);
	if (rc != CF_OK)
		return rc;
	sfx_digest(stub_sha, f->header, f->header_len, l, digest);
	struct cf_err why = { 0 };
	if (trust_check_sigs(t, digest, sigs, nsigs, signers, sizeof(signers), &why) != CF_OK)
		return cf_fail(e, CF_TRUST, "the self-extracting stub is not signed as required: %s",
			       why.msg);
	log_msg(LOG_INFO, "self-extracting: the %llu-byte stub and its layout are signed by %s",
		(unsigned long long)l->stub_len, signers);
	return CF_OK;
}
