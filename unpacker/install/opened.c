/* opened.c - reading and trusting a bundle: nothing is written before this succeeds */
#include "unpacker/install/opened.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/sha256.h"
#include "common/bundle/open.h"
#include "unpacker/target/bundletrust.h"
#include "unpacker/target/layout.h"

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

int verify_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e)
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
		rc = bundle_walk(b.input, NULL, &prog, e);
		progress_end(&prog);
		for (size_t i = 0; i < b.m->nfiles; i++)
			r->bytes += b.m->files[i].size;
		r->files = b.m->nfiles;
	}
	opened_close(&b);
	layout_free(&p);
	return rc;
}
