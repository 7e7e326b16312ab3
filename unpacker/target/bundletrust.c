/* bundletrust.c - no byte of a bundle is believed before trusted keys signed it: the header,
 * and a .run's stub like the header */
#include "unpacker/target/bundletrust.h"

#include <stdio.h>

#include "common/bundle/open.h"
#include "common/log.h"
#include "manifests/contents.h"

struct trusted_open {
	const struct trust *trust;
	char *signers;
	size_t size;
	struct manifest **m;
};

static int check_header(void *ctx, const struct frame *f, struct cf_err *e)
{
	struct trusted_open *o = ctx;
	return trust_check(o->trust, f, o->signers, o->size, e);
}

static int check_stub(void *ctx, const struct bundle_stub *stub, struct cf_err *e)
{
	struct trusted_open *o = ctx;
	char signers[256];
	struct cf_err why = { 0 };
	if (trust_check_sigs(o->trust, stub->digest, stub->sigs, stub->nsigs, signers,
			     sizeof(signers), &why) != CF_OK)
		return cf_fail(e, CF_TRUST, "the self-extracting stub is not signed as required: %s",
			       why.msg);
	log_msg(LOG_INFO, "self-extracting: the %llu-byte stub and its layout are signed by %s",
		(unsigned long long)stub->layout->stub_len, signers);
	return CF_OK;
}

static int read_contents(void *ctx, const struct frame *f, struct bundle_contents *c,
			 struct cf_err *e)
{
	struct trusted_open *o = ctx;
	return manifest_read_contents(o->m, f, c, e);
}

int bundletrust_open(const char *path, const struct trust *t, char *signers, size_t size,
		     struct bundle_input **in, struct manifest **m, struct cf_err *e)
{
	struct trusted_open o = { t, signers, size, m };
	struct bundle_policy p = { check_header, check_stub, read_contents, &o };
	*m = NULL;
	return bundle_open_verified(path, &p, in, e);
}
