/* check.c - the bundler reads its own output back before anyone else has to */
#include "bundler/check.h"

#include <string.h>

#include "common/bundle/payload.h"
#include "common/sha256.h"
#include "signing/verify.h"

/* Each signature must verify with the key it carries (trust is the target's business). */
static int verify_carried(const uint8_t digest[32], const struct frame_sig *sigs, uint32_t n,
			  const char *what, struct cf_err *e)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct frame_sig *s = &sigs[i];
		uint8_t id[32];
		sig_keyid(s->spki, s->spki_len, id);
		if (!digest_equal(id, s->keyid, 32))
			return cf_fail(e, CF_TRUST, "%ssignature %u: key id does not match its key", what,
				       i + 1);
		if (sig_verify(s->spki, s->spki_len, digest, s->sig, 64) != SIG_VALID)
			return cf_fail(e, CF_TRUST, "%ssignature %u does not verify", what, i + 1);
	}
	return CF_OK;
}

int check_open(const char *path, struct checked *c, struct cf_err *e)
{
	memset(c, 0, sizeof(*c));
	int rc = bundle_open(path, &c->input, e);
	if (rc == CF_OK)
		rc = bundle_read_frame(c->input, &c->frame, e);
	if (rc != CF_OK)
		return rc;
	sha256_buf(c->frame.header, c->frame.header_len, c->digest);
	rc = verify_carried(c->digest, c->frame.sigs, c->frame.nsigs, "", e);
	const uint8_t *block;
	const struct sfx_layout *l = bundle_sfx_layout(c->input, &block);
	if (rc == CF_OK && l) {
		uint8_t stub_sha[32];
		rc = sfx_block_parse(block, (size_t)l->block_len, c->stub_sigs, &c->nstub_sigs, e);
		if (rc == CF_OK)
			rc = bundle_sfx_stub_sha256(c->input, stub_sha, e);
		if (rc == CF_OK) {
			sfx_message(stub_sha, c->frame.header, c->frame.header_len, l,
				    c->stub_message);
			sha256_buf(c->stub_message, sizeof(c->stub_message), c->stub_digest);
			rc = verify_carried(c->stub_digest, c->stub_sigs, c->nstub_sigs,
					    "stub-signature block: ", e);
		}
	}
	if (rc != CF_OK)
		return rc;
	return manifest_parse((const char *)c->frame.header, c->frame.header_len, &c->manifest, e);
}

int check_payload(struct checked *c, int progress, struct cf_err *e)
{
	struct progress p;
	progress_start(&p, "verifying", c->manifest->compressed_size, progress);
	int rc = payload_walk(c->input, c->manifest, NULL, &p, e);
	progress_end(&p);
	return rc;
}

void check_close(struct checked *c)
{
	bundle_close(c->input);
	frame_free(&c->frame);
	manifest_free(c->manifest);
	memset(c, 0, sizeof(*c));
}
