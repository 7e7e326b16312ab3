/* productline.h - downgrade and replay judged per product line: against what is installed of
 * the product in the prefix, whatever its major, CUDA variant or flavour (-cudalibs); and the
 * key that names the product's version in the JSON that users read */
#ifndef UNPACKER_PRODUCTLINE_H
#define UNPACKER_PRODUCTLINE_H

#include <stddef.h>

#include "manifests/manifest.h"
#include "unpacker/target/state.h"

struct productline_options {
	int allow_downgrade; /* an older version, or an older build of a release, may replace */
	int keep_current;    /* an older version installs beside; current is not switched */
};

/* 0 when m may be installed into the prefix st describes; otherwise 1 with the one-line reason
 * in why (exit 7 for an install; the chooser's "passed over"). An older version than current's
 * (any CUDA variant) needs --allow-downgrade or --keep-current; an older build (counter) of a
 * release that is installed (same version and CUDA variant, any flavour) --allow-downgrade. */
int productline_refuses(const struct state *st, const struct manifest *m,
			const struct productline_options *o, char *why, size_t size);
/* The CUDA variant of current's install when m is the same version for another variant
 * (it replaces that one as current), else NULL. */
const char *productline_replaced_variant(const struct state *st, const struct manifest *m);

/* "NAME_version" (NAME the product's registry name, as in "nccl_version"): the key of the version in
 * the --json report, report.json and an install's .cuferry/report.json, so that the first
 * product's stay what they were and a reader tells the product by the key. */
void productline_version_key(const struct product *p, char *out, size_t size);

#endif
