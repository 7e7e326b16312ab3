/* sfxtrust.h - a .run's stub-signature block against the trusted keys (DESIGN.md §2, §5) */
#ifndef UNPACKER_SFXTRUST_H
#define UNPACKER_SFXTRUST_H

#include "common/bundle/reader.h"
#include "common/err.h"
#include "common/bundle/frame.h"
#include "unpacker/trust.h"

/* CF_OK when at least the threshold of distinct trusted keys signed this .run's stub, its
 * bundle's header and its layout; CF_TRUST with the reason otherwise. f is the bundle's
 * frame as read from the same input. */
int sfxtrust_check(const struct trust *t, const struct bundle_input *b, const struct frame *f,
		   struct cf_err *e);

#endif
