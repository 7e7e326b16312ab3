/* sbom.h - the SBOMs a bundle carries in its payload (CycloneDX 1.6 and SPDX 2.3 JSON): their
 * names, reading one out of a verified payload walk, and the signers added at print time */
#ifndef MANIFESTS_SBOM_H
#define MANIFESTS_SBOM_H

#include <stddef.h>

#include "common/bundle/payload.h"
#include "common/err.h"

/* The dossier directory: its entries are listed and hashed in the signed manifest like every
 * other file (so any unpacker of format 1 verifies and installs them), and sort before every
 * name a product tree has, so they are the payload's first entries. Not MANIFEST_META_DIR:
 * the manifest refuses that name for bundle entries. */
#define SBOM_DIR ".cuferry-dossier"
#define SBOM_CYCLONEDX_PATH SBOM_DIR "/sbom.cdx.json"
#define SBOM_SPDX_PATH SBOM_DIR "/sbom.spdx.json"
/* Where each archive came from (bundler/provenance.h), and the NVIDIA redistrib JSONs that
 * authorised them, kept byte for byte under their path below the mirror. */
#define PROVENANCE_PATH SBOM_DIR "/provenance.json"
#define PROVENANCE_JSON_DIR SBOM_DIR "/provenance"

/* The dossier's documents that inspect and verify print: --sbom's two, and --provenance. */
enum sbom_kind { SBOM_CYCLONEDX, SBOM_SPDX, SBOM_PROVENANCE };

/* "cyclonedx" or "spdx" (the --sbom word); -1 for anything else. */
int sbom_kind_parse(const char *word, enum sbom_kind *out);
const char *sbom_path(enum sbom_kind kind);
/* Whether a bundle path is in the dossier directory. */
int sbom_in_dossier(const char *path);

/* Keeps the bytes of one dossier entry while a payload walk checks it: the walk's own hash
 * check (against the signed manifest) passes before `found` is set. */
struct sbom_capture {
	enum sbom_kind kind;
	const char *path;
	char *data;
	size_t len;
	int active;
	int found;
};

/* A sink for bundle_walk that captures kind's document into c (released by sbom_capture_free). */
void sbom_capture_init(struct sbom_capture *c, enum sbom_kind kind, struct payload_sink *sink);
void sbom_capture_free(struct sbom_capture *c);

/* The captured document with the signers' key fingerprints (hex SHA-256 of each signer's
 * SubjectPublicKeyInfo) added: CycloneDX as properties "cuferry:signer" of the bundle's
 * component, SPDX as annotations of the bundle's package. Pretty-printed with sorted keys,
 * ending in a newline, ASCII only (control and non-ASCII characters escaped: no bundle maker's
 * text reaches a terminal raw); caller frees. The provenance record is printed in its own order
 * with no signers (they are the header's business) as the bundler writes it, so for its
 * bundles the print is the stored bytes; a record that is not a JSON object is refused. CF_INCOMPATIBLE
 * when the bundle has no such document (made before the dossier held it), CF_INTEGRITY when
 * the signed document is not the JSON the bundler writes. */
int sbom_with_signers(const struct sbom_capture *c, const char (*fps)[65], size_t nfps,
		      char **out, size_t *len, struct cf_err *e);

#endif
