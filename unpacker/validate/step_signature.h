/* step_signature.h - validation step 1's signature check of an install's stored header */
#ifndef UNPACKER_VALIDATE_STEP_SIGNATURE_H
#define UNPACKER_VALIDATE_STEP_SIGNATURE_H

#include "common/bundle/format.h"
#include "common/err.h"
#include "unpacker/target/trust.h"
#include "unpacker/validate/options.h"

/* What the stored header's check needs, and where it says how it went. */
struct stored_check {
	const struct trust_sources *trust;
	const char *root; /* "" or --root: an image's record of its signers is never trust */
	const char *dir;
	struct validate_signature *sig;
};

/* validate, step 1: the stored header's signatures, against the keys trusted here now; else,
 * for this host's own install only, with the keys recorded at install (none configured here,
 * or removed since), when that record is root's alone. Under --root the image's record is
 * never believed, and the reason names the key that signed and says so. It runs before
 * the manifest in that header is parsed (bundle_read_stored_header). Any failure is a trust
 * failure (exit 2), not a validation failure. */
int step_signature_check(void *ctx, const struct frame *f, struct cf_err *out);

#endif
