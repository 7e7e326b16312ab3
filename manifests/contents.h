/* contents.h - the signed manifest as the bundle reader needs it: its entries and its chunk
 * plan. Both programs' verified opens (common/bundle/open.h) read the header through here. */
#ifndef MANIFESTS_CONTENTS_H
#define MANIFESTS_CONTENTS_H

#include "common/bundle/format.h"
#include "common/bundle/reader.h"
#include "common/err.h"
#include "manifests/manifest.h"

/* What the payload of the bundle m describes must be; c points into m. */
void manifest_contents(const struct manifest *m, struct bundle_contents *c);
/* The read_contents step of a bundle_policy: ctx is a struct manifest ** that receives the
 * strictly parsed manifest of the (already verified) header f. */
int manifest_read_contents(void *ctx, const struct frame *f, struct bundle_contents *c,
			   struct cf_err *e);

#endif
