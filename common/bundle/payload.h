/* payload.h - one pass over a bundle's payload: verified chunks into libarchive, every entry
 * checked against the signed manifest, every file hashed, data handed to an optional sink */
#ifndef COMMON_BUNDLE_PAYLOAD_H
#define COMMON_BUNDLE_PAYLOAD_H

#include <stddef.h>

#include "common/bundle/reader.h"
#include "common/err.h"
#include "common/progress.h"

struct payload_sink {
	/* Called for each entry before its data; symlinks get begin and end only. */
	int (*begin)(void *ctx, const struct manifest_file *f, struct cf_err *e);
	int (*data)(void *ctx, const void *buf, size_t len, struct cf_err *e);
	/* Called once the entry's size and SHA-256 matched the manifest. */
	int (*end)(void *ctx, const struct manifest_file *f, struct cf_err *e);
	void *ctx;
};

/* CF_OK when the payload is exactly c (its entries, its chunks); CF_INTEGRITY (or the sink's
 * code) if not. Callers go through bundle_walk (common/bundle/open.h), which passes the contents
 * of a verified header; the unit tests call this directly. */
int payload_walk(struct bundle_input *b, const struct bundle_contents *c,
		 const struct payload_sink *sink, struct progress *progress, struct cf_err *e);

#endif
