/* dossier.h - what a bundle says about itself, in its payload's first entries
 * (.cuferry-dossier/): the CycloneDX and SPDX SBOMs and the provenance record with the NVIDIA
 * JSONs it keeps, made before packing */
#ifndef BUNDLER_DOSSIER_H
#define BUNDLER_DOSSIER_H

#include "bundler/prehash.h"
#include "bundler/provenance.h"
#include "bundler/sbomgen.h"
#include "bundler/source.h"
#include "common/err.h"

/* Hashes the tree (into *p, for prehash_check after packing), writes both SBOMs of in and the
 * provenance files of prov (whose files members are set here) into workdir/dossier and adds
 * them to the tree. */
int dossier_add(struct tree *t, struct sbomgen_input *in, struct provenance_input *prov,
		const char *workdir, struct prehash *p, struct cf_err *e);

#endif
