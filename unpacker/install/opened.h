/* opened.h - a bundle opened, its signature checked, its manifest parsed */
#ifndef UNPACKER_INSTALL_OPENED_H
#define UNPACKER_INSTALL_OPENED_H

#include <stddef.h>

#include "common/bundle/reader.h"
#include "common/bundle/format.h"
#include "manifests/manifest.h"
#include "manifests/sbom.h"
#include "unpacker/target/result.h"
#include "unpacker/target/layout.h"

struct opened {
	struct bundle_input *input; /* owns the signed header (bundle_frame) */
	struct manifest *m;
	uint8_t signer_ids[FRAME_MAX_SIGS][32]; /* the trusted keys whose signatures counted */
	unsigned nsigner_ids;
};

/* Open o->bundle and check it against the trusted keys; only then parse the manifest.
 * signers: the names of the keys that signed. */
int open_trusted(const struct install_options *o, struct opened *b, char *signers, size_t size,
		 struct cf_err *e);
void opened_close(struct opened *b);
/* verify: signature and every hash; writes nothing. */
int verify_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e);
/* verify --sbom and --provenance: the same checks, then the bundle's stored document of kind
 * (an SBOM with its header's signers added, or the provenance record as stored:
 * manifests/sbom.h) into *text (caller frees); nothing when a check fails. */
int verify_bundle_sbom(const struct install_options *o, enum sbom_kind kind,
		       struct install_result *r, char **text, size_t *len, struct cf_err *e);
/* The bundle's id, install directory, version and the prefix, into r. */
void opened_fill_result(struct install_result *r, const struct manifest *m, const struct layout *p);

#endif
