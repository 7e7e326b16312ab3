/* check.c - the bundler reads its own output back before anyone else has to */
#include "bundler/check.h"

#include <stdio.h>
#include <string.h>

#include "common/bundle/open.h"
#include "common/log.h"
#include "common/sha256.h"
#include "manifests/contents.h"
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

static int check_header(void *ctx, const struct frame *f, struct cf_err *e)
{
	struct checked *c = ctx;
	sha256_buf(f->header, f->header_len, c->digest);
	return verify_carried(c->digest, f->sigs, f->nsigs, "", e);
}

static int check_stub(void *ctx, const struct bundle_stub *stub, struct cf_err *e)
{
	struct checked *c = ctx;
	memcpy(c->stub_sigs, stub->sigs, sizeof(c->stub_sigs));
	c->nstub_sigs = stub->nsigs;
	memcpy(c->stub_message, stub->message, sizeof(c->stub_message));
	memcpy(c->stub_digest, stub->digest, sizeof(c->stub_digest));
	return verify_carried(c->stub_digest, c->stub_sigs, c->nstub_sigs,
			      "stub-signature block: ", e);
}

static int read_contents(void *ctx, const struct frame *f, struct bundle_contents *bc,
			 struct cf_err *e)
{
	struct checked *c = ctx;
	return manifest_read_contents(&c->manifest, f, bc, e);
}

int check_open(const char *path, struct checked *c, struct cf_err *e)
{
	memset(c, 0, sizeof(*c));
	struct bundle_policy p = { check_header, check_stub, read_contents, c, NULL, NULL };
	int rc = bundle_open_verified(path, &p, &c->input, e);
	c->frame = c->input ? bundle_frame(c->input) : NULL;
	return rc;
}

int check_payload(struct checked *c, int progress, struct cf_err *e)
{
	struct progress p;
	progress_start(&p, "verifying", c->manifest->compressed_size, progress);
	int rc = bundle_walk(c->input, NULL, &p, e);
	progress_end(&p);
	return rc;
}

void check_close(struct checked *c)
{
	bundle_close(c->input);
	manifest_free(c->manifest);
	memset(c, 0, sizeof(*c));
}

void check_driver_text(const struct manifest *m, char *out, size_t size)
{
	if (m->driver_min)
		snprintf(out, size, "driver >= %s", m->driver_min);
	else
		snprintf(out, size, "no driver minimum known for %s CUDA %s", m->platform,
			 m->cuda_variant);
}

void check_print_requires(const struct manifest *m, const char *label)
{
	char driver[128];
	check_driver_text(m, driver, sizeof(driver));
	log_out("%s%s, compute capability >= %s\n", label, driver, m->cc_min ? m->cc_min : "?");
	if (m->glibc_min)
		log_out("%sglibc >= %s (the newest symbol version its libraries need)\n", label,
			m->glibc_min);
	if (m->windows_min)
		log_out("%sWindows >= %s (the newest its DLLs' headers name)\n", label, m->windows_min);
}
