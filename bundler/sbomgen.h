/* sbomgen.h - the bundle's CycloneDX 1.6 and SPDX 2.3 JSON SBOMs, made from the manifest and
 * the tree's pre-pass hashes at create time, byte for byte the same for the same inputs */
#ifndef BUNDLER_SBOMGEN_H
#define BUNDLER_SBOMGEN_H

#include <stddef.h>
#include <stdint.h>

#include "bundler/prehash.h"
#include "manifests/manifest.h"

struct sbomgen_input {
	const struct manifest *m;    /* identity, product, source, components, source_date_epoch */
	const struct prehash *files; /* the product tree: every entry but the dossier's */
	const char *license;         /* NVIDIA's licence name for the product; NULL: not known */
	/* per m->components entry, NVIDIA's licence name or NULL; the array itself may be NULL */
	const char *const *component_licenses;
	/* which m->components entry a file of the tree comes from; -1: the product itself */
	int (*owner)(const struct manifest *m, const char *path);
};

/* SHA-256 over the tree's entries in manifest order, one line each: "SHA256HEX  PATH\n" for a
 * file (sha256sum's format), "PATH -> TARGET\n" for a symlink. With the bundle id it is what
 * every SBOM identifier is derived from (never a random number or the clock). */
void sbomgen_content_digest(const struct prehash *p, uint8_t out[32]);
/* Both documents; the caller frees them. */
void sbomgen_write(const struct sbomgen_input *in, char **cdx, size_t *cdx_len, char **spdx,
		   size_t *spdx_len);

#endif
