/* contents.c - from a verified header to the contents the payload walk checks against */
#include "manifests/contents.h"

void manifest_contents(const struct manifest *m, struct bundle_contents *c)
{
	c->files = m->files;
	c->nfiles = m->nfiles;
	c->plan = (struct chunk_plan){ m->compressed_size, m->chunk_size, m->nchunks,
				       (const uint8_t(*)[32])m->chunks };
	c->frames = m->frames;
	c->nframes = m->nframes;
	c->uncompressed_size = m->uncompressed_size;
}

int manifest_read_contents(void *ctx, const struct frame *f, struct bundle_contents *c,
			   struct cf_err *e)
{
	struct manifest **m = ctx;
	int rc = manifest_parse((const char *)f->header, f->header_len, m, e);
	if (rc == CF_OK)
		manifest_contents(*m, c);
	return rc;
}
