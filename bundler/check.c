/* check.c - the bundler reads its own output back before anyone else has to */
#include "bundler/check.h"

#include <string.h>

#include "common/payload.h"
#include "common/sha256.h"
#include "signing/verify.h"

int check_open(const char *path, struct checked *c, struct cf_err *e)
{
	memset(c, 0, sizeof(*c));
	int rc = bundle_open(path, &c->input, e);
	if (rc == CF_OK)
		rc = bundle_read_frame(c->input, &c->frame, e);
	if (rc != CF_OK)
		return rc;
	sha256_buf(c->frame.header, c->frame.header_len, c->digest);
	for (uint32_t i = 0; i < c->frame.nsigs; i++) {
		const struct frame_sig *s = &c->frame.sigs[i];
		uint8_t id[32];
		sig_keyid(s->spki, s->spki_len, id);
		if (!digest_equal(id, s->keyid, 32))
			return cf_fail(e, CF_TRUST, "signature %u: key id does not match its key", i + 1);
		if (sig_verify(s->spki, s->spki_len, c->digest, s->sig, 64) != SIG_VALID)
			return cf_fail(e, CF_TRUST, "signature %u does not verify", i + 1);
	}
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
