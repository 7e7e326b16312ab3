/* bundletrust.c - no byte of a bundle is believed before trusted keys signed it: the header,
 * and a .run's stub like the header */
#include "unpacker/target/bundletrust.h"

#include <stdio.h>
#include <string.h>

#include "common/bundle/open.h"
#include "common/log.h"
#include "manifests/contents.h"
#include "unpacker/target/kitcheck.h"

struct trusted_open {
	const struct trust *trust;
	char *signers;
	size_t size;
	struct manifest **m;
};

/* A bundle from a signed kit: each of its files (the .bundle, every .NNN part, the .run) is
 * the one the kit's index lists, by name, size and SHA-256, hashed through the handle the
 * reader then reads (no reopen by name in between). The bundle's own signature is checked
 * anyway; the hash is still needed because the index is the kit's statement of which
 * bundles belong to it: an older bundle its signer once signed, of the same size, put in a
 * listed bundle's place would pass its own signature (a rollback, or a mix-in from another
 * kit). */
static int check_listed_file(void *ctx, const char *path, int fd, struct cf_err *e)
{
	const struct kitindex *index = ctx; /* the caller's, alive as long as the reader */
	const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
	const char *name = back > slash ? back + 1 : slash ? slash + 1 : path;
	const struct kitindex_file *f = kitindex_find(index, name);
	char safe[256];
	if (!f)
		return cf_fail(e, CF_INTEGRITY, "%s: not in the kit's signed index: not read",
			       log_safe(name, safe, sizeof(safe)));
	return kitcheck_matches(f, fd, e);
}

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

int bundletrust_open_listed(const char *path, const struct trust *t, const struct kitindex *index,
			    char *signers, size_t size, struct bundle_input **in,
			    struct manifest **m, struct cf_err *e)
{
	struct trusted_open o = { t, signers, size, m };
	struct bundle_policy p = { check_header, check_stub, read_contents, &o,
				   index ? check_listed_file : NULL, (void *)index };
	*m = NULL;
	return bundle_open_verified(path, &p, in, e);
}

int bundletrust_open(const char *path, const struct trust *t, char *signers, size_t size,
		     struct bundle_input **in, struct manifest **m, struct cf_err *e)
{
	return bundletrust_open_listed(path, t, NULL, signers, size, in, m, e);
}
