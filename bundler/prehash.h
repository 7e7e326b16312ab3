/* prehash.h - the tree's files hashed before packing: the SBOMs, the payload's first entries,
 * list every file's SHA-256 (and the SHA-1 SPDX asks of each file), so the hashes are needed
 * before the tar is written; packing hashes again and must agree */
#ifndef BUNDLER_PREHASH_H
#define BUNDLER_PREHASH_H

#include <stddef.h>
#include <stdint.h>

#include "bundler/source.h"
#include "common/err.h"
#include "manifests/manifest.h"

struct prehash_file {
	struct tree_entry entry; /* a shallow copy of the tree's (its strings are the tree's); a
	                         * symlink has no hashes */
	uint8_t sha256[32];
	uint8_t sha1[20];
	uint64_t size;
};

/* Every entry of a tree, sorted by path as the manifest and the payload are. */
struct prehash {
	struct prehash_file *files;
	size_t count;
};

int prehash_tree(const struct tree *t, struct prehash *out, struct cf_err *e);
void prehash_free(struct prehash *p);
/* CF_OK when each file of p was packed into m with the same size and SHA-256; CF_SOURCE
 * naming the file that changed between the two reads. */
int prehash_check(const struct prehash *p, const struct manifest *m, struct cf_err *e);

#endif
