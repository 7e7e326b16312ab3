/* members.h - the other products of a unit (bundler create --with): each one's files, read
 * from its own directory or archive or from the bundle's --from-dir tree, checked against the
 * compatibility data for the unit's CUDA and platform, and merged into the bundle's tree */
#ifndef BUNDLER_MEMBERS_H
#define BUNDLER_MEMBERS_H

#include <stddef.h>

#include "bundler/source.h"
#include "common/err.h"
#include "manifests/manifest.h"

/* A product carried beside the bundle's own (--with NAME[=VERSION], --with-dir NAME=DIR,
 * --with-archive NAME=FILE): where its files come from; neither dir nor archive: the bundle's
 * --from-dir tree. */
struct create_member {
	const struct product *product;
	const char *version; /* what the source must hold; NULL: whatever it holds */
	const char *dir;
	const char *archive;
};

/* The member trees, kept until the bundle is written: an archive's extraction lives in one. */
struct members {
	struct tree trees[MANIFEST_MAX_MEMBERS];
	size_t count;
};

/* After the bundle's own product is described in m (version, CUDA variant, platform): every
 * --with product's files added to t (its top-level files, its licence, under
 * licenses/<name>/), its devfiles, its entry in m's "with", and m's bundle id, driver and
 * compute-capability floors and host requirements raised to cover it. CF_INCOMPATIBLE (exit 4)
 * when the compatibility data rules the pair out, with what would fit; CF_SOURCE when its
 * source lacks it or disagrees (another CUDA, platform or version). */
int members_add(const struct create_member *with, size_t nwith, const char *from_dir,
		const char *workdir, struct tree *t, struct manifest *m, struct members *out,
		struct cf_err *e);
void members_free(struct members *ms);

#endif
