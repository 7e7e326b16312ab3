/* mirror.c - version resolution against NVIDIA's redist layout */
#include "bundler/mirror.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "manifests/compat.h"
#include "manifests/product.h"

#define JSON_MAX (16u << 20)

/* The length of a dotted number at v, without a trailing dot. */
static size_t dotted(const char *v)
{
	size_t len = strspn(v, "0123456789.");
	while (len && v[len - 1] == '.')
		len--;
	return len;
}

/* Labels of redistrib_<label>.json named in a directory listing: a version ("9.19.0"), or one
 * qualified by the CUDA it is built for ("2.29.2-cuda12.9", as NVIDIA names NCCL's). */
static size_t listing_labels(const char *html, char labels[][64], size_t max)
{
	size_t n = 0;
	for (const char *p = strstr(html, "redistrib_"); p && n < max;
	     p = strstr(p + 1, "redistrib_")) {
		const char *v = p + 10;
		size_t len = dotted(v);
		if (len && strncmp(v + len, "-cuda", 5) == 0 && dotted(v + len + 5))
			len += 5 + dotted(v + len + 5);
		if (len == 0 || len >= 64 || strncmp(v + len, ".json", 5) != 0)
			continue;
		char label[64] = { 0 };
		memcpy(label, v, len);
		int dup = 0;
		for (size_t i = 0; i < n; i++)
			dup |= strcmp(labels[i], label) == 0;
		if (!dup)
			memcpy(labels[n++], label, sizeof(label));
	}
	return n;
}

/* The CUDA a label is qualified by ("12.9" of "2.29.2-cuda12.9"); NULL for a plain one. */
static const char *label_cuda(const char *label)
{
	const char *q = strstr(label, "-cuda");
	return q ? q + 5 : NULL;
}

/* Whether label is newer than best: by its version, then by the CUDA it is qualified by. */
static int label_newer(const char *label, const char *best)
{
	int by_version = compat_version_cmp_full(label, best);
	if (by_version || !label_cuda(label) || !label_cuda(best))
		return by_version > 0;
	return compat_version_cmp_full(label_cuda(label), label_cuda(best)) > 0;
}

/* The newest label that agrees with want on every component want names and, when it is
 * qualified by a CUDA and cuda (a major or MAJOR.MINOR) is given, on that CUDA's major. */
static int pick_label(const char *base, const char *want, const char *cuda,
		      const struct fetch_options *o, char *out, size_t size, struct cf_err *e)
{
	char *html, labels[512][64], *url = xasprintf("%s/", base);
	size_t len, n;
	struct cf_err quiet = { 0 };
	if (fetch_text(url, JSON_MAX, o, &html, &len, &quiet) != CF_OK) {
		/* No listing (a plain file mirror): ask for the exact name. */
		free(url);
		snprintf(out, size, "%s", want);
		return CF_OK;
	}
	free(url);
	n = listing_labels(html, labels, 512);
	free(html);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *built_for = label_cuda(labels[i]);
		if (compat_version_cmp(labels[i], want) != 0 ||
		    (built_for && cuda && atoi(built_for) != atoi(cuda)))
			continue;
		if (!out[0] || label_newer(labels[i], out))
			snprintf(out, size, "%.63s", labels[i]);
	}
	if (!out[0])
		return cf_fail(e, CF_SOURCE, "%s/ lists no redistrib_<version>.json matching %s",
			       base, want);
	return CF_OK;
}

/* The JSON at mirror/path, parsed, its bytes kept in *keep (the provenance record). */
static int load_redist(const char *mirror, const char *path, const struct fetch_options *o,
		       struct mirror_json *keep, struct redist **r, struct cf_err *e)
{
	char *url = xasprintf("%s/%s", mirror, path);
	free(keep->text);
	memset(keep, 0, sizeof(*keep));
	snprintf(keep->path, sizeof(keep->path), "%s", path);
	int rc = fetch_text(url, JSON_MAX, o, &keep->text, &keep->len, e);
	free(url);
	return rc == CF_OK ? redist_parse(keep->text, keep->len, r, e) : rc;
}

void mirror_plan_free(struct mirror_plan *plan)
{
	free(plan->product_json.text);
	free(plan->cuda_json.text);
	plan->product_json.text = plan->cuda_json.text = NULL;
}

/* The highest CUDA variant offered, when the user named none. */
static void highest_variant(const struct product *p, const struct redist *r, const char *platform,
			    char *out, size_t size)
{
	char offered[128];
	int best = -1;
	redist_variants(r, p->redist_key, platform, offered, sizeof(offered));
	for (char *at = offered; *at;) {
		int v = atoi(at);
		if (v > best)
			best = v;
		at += strcspn(at, ",");
		if (*at == ',')
			at++;
	}
	if (best >= 0)
		snprintf(out, size, "%d", best);
	else
		out[0] = '\0';
}

int mirror_resolve_cuda(const char *mirror, const char *cuda, const char *platform,
			const struct fetch_options *o, struct mirror_plan *plan, struct cf_err *e)
{
	static const char *const needed[] = { "libcublas", "cuda_nvrtc" };
	char *base = xasprintf("%s/cuda/redist", mirror);
	struct redist *r = NULL;
	int rc = pick_label(base, cuda, NULL, o, plan->cuda_release, sizeof(plan->cuda_release), e);
	snprintf(plan->mirror, sizeof(plan->mirror), "%s", mirror);
	if (rc == CF_OK) {
		char *path = xasprintf("cuda/redist/redistrib_%s.json", plan->cuda_release);
		snprintf(plan->cuda_json_url, sizeof(plan->cuda_json_url), "%s/%s", mirror, path);
		rc = load_redist(mirror, path, o, &plan->cuda_json, &r, e);
		free(path);
	}
	plan->ncomponents = 0;
	for (size_t i = 0; i < 2 && rc == CF_OK; i++) {
		struct redist_artifact a;
		rc = redist_find(r, needed[i], platform, NULL, &a, e);
		if (rc == CF_OK) {
			plan->components[plan->ncomponents] = a;
			snprintf(plan->component_urls[plan->ncomponents++], 1024, "%s/%s", base,
				 a.relative_path);
		}
	}
	redist_free(r);
	free(base);
	return rc;
}

/* The mirror's product has no variant for this CUDA: a pair NVIDIA's support matrix rules out
 * stays exit 4 (the compatibility), one it supports is a release the mirror lacks (exit 9,
 * like a platform or version the mirror lacks). */
static int variant_not_on_mirror(const struct product *p, const char *version, const char *cuda,
				 const char *platform, struct cf_err *e)
{
	struct compat_result compat;
	struct cf_err why = { 0 };
	if (compat_check(p, version, cuda, platform, &compat, &why) != CF_OK)
		return e->code;
	size_t len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": not on this mirror");
	e->code = CF_SOURCE;
	return e->code;
}

int mirror_resolve(const struct product *p, const char *mirror, const char *version,
		   const char *cuda, const char *platform, const struct fetch_options *o,
		   struct mirror_plan *plan, struct cf_err *e)
{
	char *base = xasprintf("%s/%s", mirror, p->mirror_path), variant[16];
	struct redist *r = NULL;
	struct compat_result compat;
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->mirror, sizeof(plan->mirror), "%s", mirror);
	int rc = pick_label(base, version, cuda, o, plan->product_label,
			    sizeof(plan->product_label), e);
	if (rc == CF_OK) {
		char *path = xasprintf("%s/redistrib_%s.json", p->mirror_path, plan->product_label);
		snprintf(plan->product_json_url, sizeof(plan->product_json_url), "%s/%s", mirror, path);
		rc = load_redist(mirror, path, o, &plan->product_json, &r, e);
		free(path);
	}
	if (rc == CF_OK) {
		if (cuda)
			snprintf(variant, sizeof(variant), "%.*s", (int)strcspn(cuda, "."), cuda);
		else
			highest_variant(p, r, platform, variant, sizeof(variant));
		rc = redist_find(r, p->redist_key, platform, variant[0] ? variant : NULL,
				 &plan->product, e);
		if (rc == CF_INCOMPATIBLE && variant[0])
			rc = variant_not_on_mirror(p, plan->product.version, variant, platform, e);
	}
	if (rc == CF_OK && compat_version_cmp(plan->product.version, version) != 0)
		rc = cf_fail(e, CF_SOURCE, "%s offers %s %s, not %s", plan->product_json_url,
			     p->display, plan->product.version, version);
	if (rc == CF_OK) {
		const char *date = redist_release_date(r);
		snprintf(plan->release_date, sizeof(plan->release_date), "%s", date ? date : "");
		snprintf(plan->product_url, sizeof(plan->product_url), "%s/%s", base,
			 plan->product.relative_path);
		/* A single-variant release: the CUDA of its label (-cuda13.0), else the one asked. */
		const char *built_for = label_cuda(plan->product_label);
		if (!plan->product.cuda_variant[0] && built_for)
			snprintf(plan->product.cuda_variant, sizeof(plan->product.cuda_variant), "%.*s",
				 (int)strcspn(built_for, "."), built_for);
		if (!plan->product.cuda_variant[0])
			snprintf(plan->product.cuda_variant, sizeof(plan->product.cuda_variant), "%s",
				 cuda ? variant : "");
		if (!plan->product.cuda_variant[0])
			rc = cf_fail(e, CF_USAGE, "cannot tell which CUDA %s %s is for: pass --cuda",
				     p->display, plan->product.version);
	}
	const char *for_cuda = cuda ? cuda : plan->product.cuda_variant;
	if (rc == CF_OK)
		rc = compat_check(p, plan->product.version, for_cuda, platform, &compat, e);
	if (rc == CF_OK)
		snprintf(plan->driver_min, sizeof(plan->driver_min), "%s", compat.driver_min);
	/* The CUDA component list is of the libraries the product opens by name
	 * (cuda_libs_opened); a product that opens none has none. */
	if (rc == CF_OK && p->cuda_libs_opened[0])
		rc = mirror_resolve_cuda(mirror, for_cuda, platform, o, plan, e);
	redist_free(r);
	free(base);
	return rc;
}
