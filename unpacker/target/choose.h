/* choose.h - unpacker install DIR: which bundle of a kit (or any directory of bundles) fits
 * this machine, and why the others do not */
#ifndef UNPACKER_CHOOSE_H
#define UNPACKER_CHOOSE_H

#include <stddef.h>

#include "common/err.h"
#include "manifests/kitindex.h"
#include "unpacker/target/productline.h"
#include "unpacker/target/trust.h"

struct product;

#define CHOOSE_MAX_GPUS 64

/* The GPUs' compute capabilities, read by the caller (the chooser loads nothing: libcuda is
 * asked in the unprivileged probe, which this layer cannot reach) and handed over as data. */
struct choose_gpus {
	int known;                   /* 1: n GPUs were read from the driver (n may be 0) */
	size_t n;
	int major[CHOOSE_MAX_GPUS], minor[CHOOSE_MAX_GPUS];
	char why[256];               /* known 0: why not ("no NVIDIA driver (libcuda.so.1 not
				      * found)") */
};

struct choose_options {
	const struct product *product; /* --product: only its bundles are considered (the others
					* are named as passed over) */
	const char *root;              /* "" or --root: the machine's files are read under it; a
					* root with its own proc/ also gives the driver */
	struct trust_sources trust;
	const char *cuda;              /* --cuda MAJOR, or NULL: the driver's */
	const char *platform;          /* --platform P (dry runs only), or NULL: this program's */
	const struct state *installed; /* the prefix's installs (the install's own rule), or NULL */
	struct productline_options policy;
	const struct kitindex *index;  /* a signed kit's verified index: only the bundles it lists
					* are considered (the others are named, never opened); NULL
					* for a directory of bundles */
	const struct choose_gpus *gpus; /* NULL, or not known: a bundle's compute-capability
					 * floor is not used (the output says so) */
};

/* path is a directory of bundles (plain, NAME.001 of split ones, .run), or one bundle. Each
 * header is verified with the trusted keys before any field is believed. Prints the machine,
 * the choice and why, and what was passed over (a bundle whose requires.compute_capability_min
 * a GPU of o->gpus is below: every such GPU named). CF_OK with the chosen file in chosen;
 * CF_INCOMPATIBLE when nothing fits or no bundle is of o->product (another product's is never
 * the fallback) (CF_TRUST when nothing was signed by a trusted key, CF_POLICY
 * when what would fit is older than what is installed: productline.h). */
int choose_bundle(const char *path, const struct choose_options *o, char *chosen, size_t size,
		  struct cf_err *e);

#endif
