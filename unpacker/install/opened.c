/* opened.c - reading and trusting a bundle: nothing is written before this succeeds */
#include "unpacker/install/opened.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/sha256.h"
#include "common/bundle/open.h"
#include "signing/verify.h"
#include "unpacker/target/bundletrust.h"
#include "unpacker/target/layout.h"
#include "manifests/sbom.h"

void opened_close(struct opened *b)
{
	bundle_close(b->input);
	manifest_free(b->m);
	memset(b, 0, sizeof(*b));
}

int open_trusted(const struct install_options *o, struct opened *b, char *signers,
		 size_t size, struct cf_err *e)
{
	struct trust t;
	memset(b, 0, sizeof(*b));
	int rc = trust_load(&t, &o->trust, e);
	if (rc == CF_OK)
		rc = bundletrust_open_listed(o->bundle, &t, o->kit_index, signers, size, &b->input,
					     &b->m, e);
	if (rc == CF_OK) { /* recorded with the install, for validate (.cuferry/signers) */
		const struct frame *f = bundle_frame(b->input);
		uint8_t digest[32];
		char names[256];
		sha256_buf(f->header, f->header_len, digest);
		b->nsigner_ids = trust_accepted(&t, digest, f->sigs, f->nsigs, b->signer_ids, names,
						sizeof(names));
	}
	return rc;
}

void opened_fill_result(struct install_result *r, const struct manifest *m, const struct layout *p)
{
	char *dir = manifest_install_name(m);
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(r->bundle_id, sizeof(r->bundle_id), "%s", m->bundle_id);
	snprintf(r->version, sizeof(r->version), "%s", m->product_version);
	r->product = m->product;
	snprintf(r->cuda_variant, sizeof(r->cuda_variant), "%s", m->cuda_variant);
	snprintf(r->prefix, sizeof(r->prefix), "%s", p->prefix);
	r->counter = m->counter;
	free(dir);
}

/* The walk of verify, handing each checked entry to sink; with sbom, the stored document
 * once the whole walk passed. */
static int verify_walk(const struct install_options *o, const struct payload_sink *sink,
		       struct install_result *r, const struct sbom_capture *sbom, char **text,
		       size_t *len, struct cf_err *e)
{
	struct layout p;
	struct opened b;
	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	int rc = open_trusted(o, &b, r->signers, sizeof(r->signers), e);
	if (rc == CF_OK) {
		struct progress prog;
		layout_init(&p, o->root, o->prefix, b.m->product); /* the prefix it would go to */
		opened_fill_result(r, b.m, &p);
		progress_start(&prog, "verifying", b.m->compressed_size, o->progress);
		rc = bundle_walk(b.input, sink, &prog, e);
		progress_end(&prog);
		if (rc == CF_OK && sbom) {
			const struct frame *f = bundle_frame(b.input);
			char fps[FRAME_MAX_SIGS][65];
			for (uint32_t i = 0; i < f->nsigs; i++)
				sig_fingerprint(f->sigs[i].keyid, fps[i]);
			rc = sbom_with_signers(sbom, (const char(*)[65])fps, f->nsigs, text, len, e);
		}
		for (size_t i = 0; i < b.m->nfiles; i++)
			r->bytes += b.m->files[i].size;
		r->files = b.m->nfiles;
	}
	opened_close(&b);
	layout_free(&p);
	return rc;
}

int verify_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e)
{
	return verify_walk(o, NULL, r, NULL, NULL, NULL, e);
}

int verify_bundle_sbom(const struct install_options *o, enum sbom_kind kind,
		       struct install_result *r, char **text, size_t *len, struct cf_err *e)
{
	struct sbom_capture cap;
	struct payload_sink sink;
	sbom_capture_init(&cap, kind, &sink);
	int rc = verify_walk(o, &sink, r, &cap, text, len, e);
	sbom_capture_free(&cap);
	return rc;
}
