/* provenance.h - where each byte of a bundle came from, kept in its dossier: the exact bytes of
 * every NVIDIA redistrib JSON that authorised a packed archive, and provenance.json naming each
 * archive (URL, size, SHA-256, the JSON and jq path that vouch for it) and the members it gave
 * each install path, so that the chain JSON -> archive -> file re-checks offline with sha256sum
 * and jq. A source no NVIDIA JSON vouches for (--from-archive, --from-dir) says so in a field. */
#ifndef BUNDLER_PROVENANCE_H
#define BUNDLER_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#include "bundler/members.h"
#include "bundler/mirror.h"
#include "bundler/prehash.h"
#include "bundler/source.h"

struct provenance_input {
	const char *bundle_id;
	const char *product;        /* the product's registry name: cudnn, nccl */
	const char *version;        /* the product's version as the manifest has it */
	const char *source_kind;    /* the manifest's: nvidia-redist, archive, dir */
	const char *source_name;    /* --from-archive's file or --from-dir's directory, as given */
	const uint8_t *source_sha256; /* --from-archive's own hash; NULL when none */
	uint64_t source_size;
	const struct mirror_plan *plan; /* NULL: no mirror was asked */
	int components_packed;      /* the plan's CUDA components were downloaded and packed */
	const struct tree *tree;    /* the archives it was extracted from (tree->archives) */
	const struct prehash *files; /* every entry of the tree, hashed (the dossier's excepted) */
	/* a unit's --with products (NULL, 0: none) and the trees they were read into */
	const struct manifest_member *members;
	size_t nmembers;
	const struct members *member_trees;
};

/* One file of the dossier: provenance.json or a kept JSON (its exact bytes). */
struct provenance_file {
	char *path; /* the bundle path, under SBOM_DIR */
	char *text;
	size_t len;
};

#define PROVENANCE_MAX_FILES 3

/* The dossier's provenance files (provenance.json first), deterministic for the same inputs:
 * URLs are the mirror as given plus NVIDIA's relative paths, never a cache or work path.
 * Sets *n to their count (provenance_files_free releases them); CF_SOURCE when a name cannot
 * be written as JSON (not UTF-8), with nothing made. */
int provenance_files(const struct provenance_input *in,
		     struct provenance_file out[PROVENANCE_MAX_FILES], size_t *n, struct cf_err *e);
void provenance_files_free(struct provenance_file *f, size_t n);

#endif
