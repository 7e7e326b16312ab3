/* mirror.h - deciding what to fetch from an NVIDIA-style mirror: a product's release, its
 * archive for a platform and CUDA variant, and the matching CUDA redistributables */
#ifndef BUNDLER_MIRROR_H
#define BUNDLER_MIRROR_H

#include "bundler/fetch.h"
#include "common/err.h"
#include "manifests/redist.h"

#define MIRROR_DEFAULT "https://developer.download.nvidia.com/compute"
#define MIRROR_MAX_COMPONENTS 2

/* A redistrib JSON as fetched: its exact bytes, kept in the bundle's dossier (the provenance
 * record), and its path below the mirror (cudnn/redist/redistrib_9.19.0.json). */
struct mirror_json {
	char *text;
	size_t len;
	char path[512];
};

struct mirror_plan {
	char mirror[1024];            /* the base as given */
	char product_label[64];       /* redistrib_<label>.json */
	char product_json_url[1024];
	struct mirror_json product_json;
	char release_date[32];
	struct redist_artifact product; /* the product's archive */
	char product_url[1024];
	char cuda_release[64];
	char cuda_json_url[1024];
	struct mirror_json cuda_json;
	struct redist_artifact components[MIRROR_MAX_COMPONENTS];
	char component_urls[MIRROR_MAX_COMPONENTS][1024];
	size_t ncomponents;
	char driver_min[32];
};

struct product;

/* The product's release under mirror/<its mirror_path>: version "9.19" picks the newest
 * 9.19.x; cuda "13" or "13.0" picks the variant and the newest CUDA release of that line
 * (for the CUDA libraries the product opens, if any). Refuses pairs NVIDIA's support matrix
 * rules out. The plan holds the JSONs' bytes: mirror_plan_free releases them. */
int mirror_resolve(const struct product *p, const char *mirror, const char *version,
		   const char *cuda, const char *platform, const struct fetch_options *o,
		   struct mirror_plan *plan, struct cf_err *e);
void mirror_plan_free(struct mirror_plan *plan);
/* Only the CUDA part, for sources that are not a mirror download. */
int mirror_resolve_cuda(const char *mirror, const char *cuda, const char *platform,
			const struct fetch_options *o, struct mirror_plan *plan, struct cf_err *e);

#endif
