/* bundletrust.h - the unpacker's way to open a bundle: its header and, for a .run, its stub
 * signed by enough of the keys trusted here (DESIGN.md §2, §5), then its manifest parsed */
#ifndef UNPACKER_BUNDLETRUST_H
#define UNPACKER_BUNDLETRUST_H

#include <stddef.h>

#include "common/bundle/reader.h"
#include "common/err.h"
#include "manifests/kitindex.h"
#include "manifests/manifest.h"
#include "unpacker/target/trust.h"

/* bundle_open_verified (common/bundle/open.h) with the trusted keys t as the policy. signers
 * gets the header's accepted signers (short ids); *m the manifest once everything passed.
 * *in is set whenever the file opened, also on a failure; the caller closes it and frees *m. */
int bundletrust_open(const char *path, const struct trust *t, char *signers, size_t size,
		     struct bundle_input **in, struct manifest **m, struct cf_err *e);
/* bundletrust_open of a bundle taken from a signed kit: index (NULL: none) must list each of
 * its files with their size and SHA-256, checked before any byte of the file is used
 * (CF_INTEGRITY with the name). index must outlive *in: a later part is checked when the
 * stream reaches it. */
int bundletrust_open_listed(const char *path, const struct trust *t, const struct kitindex *index,
			    char *signers, size_t size, struct bundle_input **in,
			    struct manifest **m, struct cf_err *e);

#endif
