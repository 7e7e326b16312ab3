/* compat.h - product/CUDA/driver compatibility from NVIDIA's support matrices (compat.tsv
 * for the CUDA toolkit, compat_<product>.tsv for a product's rows) */
#ifndef MANIFESTS_COMPAT_H
#define MANIFESTS_COMPAT_H

#include <stddef.h>

#include "common/err.h"

struct compat_result {
	int known;              /* the table has rows for this release of the product */
	int ruled;              /* the table has rows for the product at all */
	char driver_min[32];    /* minimum driver for the CUDA major on this platform, or "" */
	char sm_min[16];        /* lowest compute capability the matrix names, or "" */
	char supported[256];    /* CUDA versions the table lists for this release, for messages */
};

struct product;

/* Reads only the rows of p's compat_kind. cuda is "13" or "12.4". CF_OK when the pair is
 * supported, or the version is not in the table (known = 0), or the product has no rows at
 * all (a note is logged: no rule exists for it); CF_INCOMPATIBLE, listing the supported CUDA
 * versions, otherwise. */
int compat_check(const struct product *p, const char *version, const char *cuda,
		 const char *platform, struct compat_result *out, struct cf_err *e);
/* The compute-capability floor a bundle of p (its version, CUDA variant and platform) holds
 * to: the higher of what its manifest recorded (recorded; NULL when none) and what this
 * build's table names for that release, since a bundle signed before the table knew a floor
 * (cuDNN 9.11+ for CUDA 12 before 7.5 was in it) keeps the lower one it recorded. "" when
 * neither says. */
void compat_cc_floor(const struct product *p, const char *version, const char *variant,
		     const char *platform, const char *recorded, char *out, size_t size);
/* The newest CUDA major a driver version supports on platform, from the table's minimum
 * drivers; 0 when none is known. */
int compat_cuda_major_for_driver(const char *driver, const char *platform);
/* Compare dotted versions numerically over the shorter length ("9.27.0" vs "9.27.0.42" = 0). */
int compat_version_cmp(const char *a, const char *b);
/* Full numeric comparison, every component ("580.65.06" < "580.95.05"). */
int compat_version_cmp_full(const char *a, const char *b);

#endif
