/* redist.h - NVIDIA's redistrib_<version>.json: both manifest generations (DESIGN, NVIDIA.md) */
#ifndef MANIFESTS_REDIST_H
#define MANIFESTS_REDIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct redist;

struct redist_artifact {
	char component[64];
	char version[64];
	char relative_path[512];
	char cuda_variant[128]; /* "13", or "" when the manifest names none */
	uint8_t sha256[32];
	uint64_t size;
	char license[64]; /* the component's "license" ("CUDA Toolkit", "NCCL"), "" when none */
	/* Where the entry is in the JSON, as a jq path (.["cudnn"]["linux-x86_64"]["cuda13"]), so
	 * that a reviewer reads its sha256 and size back with jq alone (the provenance record). */
	char jq_path[256];
};

/* Problems in a mirror's JSON are source errors (CF_SOURCE). */
int redist_parse(const char *json, size_t len, struct redist **out, struct cf_err *e);
void redist_free(struct redist *r);
const char *redist_release_date(const struct redist *r);  /* "2025-09-04" or NULL */
const char *redist_release_label(const struct redist *r); /* NULL in CUDA 11.x manifests */
/* One archive: component for platform; cuda_major picks a variant where there are several
 * ("cuda13"), and must agree with a single-variant (release 8.x) manifest. NULL: the only one. */
int redist_find(const struct redist *r, const char *component, const char *platform,
		const char *cuda_major, struct redist_artifact *out, struct cf_err *e);
/* The CUDA variants offered for component on platform, comma-separated, into buf. */
void redist_variants(const struct redist *r, const char *component, const char *platform,
		     char *buf, size_t size);

#endif
