/* open.c - open, verify by policy, then walk: the order nothing may skip */
#include "common/bundle/open.h"

#include <stdlib.h>
#include <string.h>

#include "common/bundle/frame.h"
#include "common/io.h"
#include "common/sha256.h"

/* A .run's block is parsed and its stub hashed here, so that both programs judge the same
 * bytes and the same message. */
static int check_stub(const struct bundle_policy *p, struct bundle_input *b, struct cf_err *e)
{
	const uint8_t *block;
	const struct sfx_layout *l = bundle_sfx_layout(b, &block);
	if (!l)
		return CF_OK;
	struct bundle_stub stub;
	uint8_t stub_sha[32];
	const struct frame *f = bundle_frame(b);
	memset(&stub, 0, sizeof(stub));
	stub.layout = l;
	int rc = sfx_block_parse(block, (size_t)l->block_len, stub.sigs, &stub.nsigs, e);
	if (rc == CF_OK)
		rc = bundle_sfx_stub_sha256(b, stub_sha, e);
	if (rc != CF_OK)
		return rc;
	sfx_message(stub_sha, f->header, f->header_len, l, stub.message);
	sha256_buf(stub.message, sizeof(stub.message), stub.digest);
	return p->check_stub(p->ctx, &stub, e);
}

int bundle_open_verified(const char *path, const struct bundle_policy *p,
			 struct bundle_input **out, struct cf_err *e)
{
	struct bundle_contents c;
	*out = NULL;
	int rc = bundle_open_checked(path, p->check_file, p->check_ctx, out, e);
	if (rc == CF_OK)
		rc = bundle_read_frame(*out, e);
	if (rc == CF_OK)
		rc = p->check_header(p->ctx, bundle_frame(*out), e);
	if (rc == CF_OK)
		rc = check_stub(p, *out, e);
	/* Only now, with the signatures good, is the header read as a manifest. */
	if (rc == CF_OK) {
		memset(&c, 0, sizeof(c));
		rc = p->read_contents(p->ctx, bundle_frame(*out), &c, e);
	}
	if (rc == CF_OK)
		bundle_set_contents(*out, &c);
	return rc;
}

int bundle_walk(struct bundle_input *b, const struct payload_sink *sink,
		struct progress *progress, struct cf_err *e)
{
	const struct bundle_contents *c = b ? bundle_contents(b) : NULL;
	if (!c)
		return cf_fail(e, CF_TRUST, "the bundle's header was not verified: its payload is "
			       "not read");
	return payload_walk(b, c, sink, progress, e);
}

int bundle_read_stored_header(const char *path,
			      int (*check)(void *ctx, const struct frame *f, struct cf_err *e),
			      void *ctx, struct frame *f, struct cf_err *e)
{
	char *data = NULL;
	size_t len = 0;
	memset(f, 0, sizeof(*f));
	int rc = io_read_file(path, FRAME_CAP + FRAME_PREFIX_LEN, &data, &len) == 0
			 ? CF_OK
			 : cf_fail(e, CF_TRUST, "%s: cannot read", path);
	if (rc == CF_OK && frame_prefix((uint8_t *)data, len, NULL) != 0)
		rc = cf_fail(e, CF_TRUST, "%s: not a bundle header", path);
	if (rc == CF_OK)
		rc = frame_parse((uint8_t *)data + FRAME_PREFIX_LEN, len - FRAME_PREFIX_LEN, f, e);
	free(data);
	/* The signatures first: until they pass, the header is bytes, never a manifest. */
	if (rc == CF_OK)
		rc = check(ctx, f, e);
	if (rc != CF_OK)
		frame_free(f);
	return rc;
}

int bundle_read_statement(const char *path, struct frame *f, uint8_t file_sha256[32],
			  struct cf_err *e)
{
	char *data = NULL;
	size_t len = 0;
	memset(f, 0, sizeof(*f));
	int r = io_read_file(path, FRAME_STATEMENT_MAX, &data, &len);
	if (r != 0) {
		free(data);
		return r == -2 ? cf_fail(e, CF_TRUST, "%s is over %u bytes: not a trust statement", path,
					 FRAME_STATEMENT_MAX)
			       : cf_fail(e, CF_USAGE, "%s: cannot read", path);
	}
	int rc = bundle_parse_statement(path, (const uint8_t *)data, len, f, file_sha256, e);
	free(data);
	return rc;
}

int bundle_parse_statement(const char *name, const uint8_t *data, size_t len, struct frame *f,
			   uint8_t file_sha256[32], struct cf_err *e)
{
	uint32_t content = 0;
	memset(f, 0, sizeof(*f));
	if (len > FRAME_STATEMENT_MAX)
		return cf_fail(e, CF_TRUST, "%s is over %u bytes: not a trust statement", name,
			       FRAME_STATEMENT_MAX);
	sha256_buf(data, len, file_sha256);
	return frame_prefix(data, len, &content) != 0 || content != len - FRAME_PREFIX_LEN
		       ? cf_fail(e, CF_TRUST, "%s is not a trust statement (no frame of its length)", name)
		       : frame_parse_tagged(data + FRAME_PREFIX_LEN, content, FRAME_STATEMENT_TAG, f, e);
}
