/* sbom.c - a bundle's stored SBOMs: names, capture from a verified walk, signers at print time */
#include "manifests/sbom.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"

/* The stored documents are the bundler's few hundred kilobytes; a signed but absurd size is
 * refused rather than held in memory. */
#define SBOM_MAX (64u << 20)

int sbom_kind_parse(const char *word, enum sbom_kind *out)
{
	if (strcmp(word, "cyclonedx") == 0)
		*out = SBOM_CYCLONEDX;
	else if (strcmp(word, "spdx") == 0)
		*out = SBOM_SPDX;
	else
		return -1;
	return 0;
}

const char *sbom_path(enum sbom_kind kind)
{
	return kind == SBOM_PROVENANCE ? PROVENANCE_PATH
	       : kind == SBOM_SPDX     ? SBOM_SPDX_PATH
				       : SBOM_CYCLONEDX_PATH;
}

int sbom_in_dossier(const char *path)
{
	size_t n = strlen(SBOM_DIR);
	return strncmp(path, SBOM_DIR, n) == 0 && path[n] == '/';
}

static int capture_begin(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct sbom_capture *c = ctx;
	(void)e;
	c->active = strcmp(f->path, c->path) == 0;
	return CF_OK;
}

static int capture_data(void *ctx, const void *buf, size_t len, struct cf_err *e)
{
	struct sbom_capture *c = ctx;
	if (!c->active || len == 0)
		return CF_OK;
	if (len > SBOM_MAX - c->len)
		return cf_fail(e, CF_INTEGRITY, "%s is larger than %u MiB", c->path, SBOM_MAX >> 20);
	c->data = xrealloc(c->data, c->len + len + 1);
	memcpy(c->data + c->len, buf, len);
	c->len += len;
	c->data[c->len] = '\0';
	return CF_OK;
}

/* Called only once the entry's size and SHA-256 matched the signed manifest. */
static int capture_end(void *ctx, const struct manifest_file *f, struct cf_err *e)
{
	struct sbom_capture *c = ctx;
	(void)f;
	(void)e;
	if (c->active)
		c->found = 1;
	c->active = 0;
	return CF_OK;
}

void sbom_capture_init(struct sbom_capture *c, enum sbom_kind kind, struct payload_sink *sink)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->path = sbom_path(kind);
	*sink = (struct payload_sink){ capture_begin, capture_data, capture_end, c };
}

void sbom_capture_free(struct sbom_capture *c)
{
	free(c->data);
	c->data = NULL;
	c->len = 0;
}

/* The bundle's own element: CycloneDX's metadata.component, SPDX's package SPDXRef-Bundle. */
static json_t *bundle_element(json_t *doc, enum sbom_kind kind)
{
	if (kind == SBOM_CYCLONEDX)
		return json_object_get(json_object_get(doc, "metadata"), "component");
	json_t *pkg;
	size_t i;
	json_array_foreach(json_object_get(doc, "packages"), i, pkg) {
		json_t *id = json_object_get(pkg, "SPDXID");
		if (json_is_string(id) && strcmp(json_string_value(id), "SPDXRef-Bundle") == 0)
			return pkg;
	}
	return NULL;
}

/* Appended to what the element already holds (an array the bundler wrote, or none). */
static json_t *element_array(json_t *el, const char *key)
{
	json_t *a = json_object_get(el, key);
	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(el, key, a);
	}
	return a;
}

static void add_signer(json_t *doc, json_t *el, enum sbom_kind kind, const char *fp)
{
	if (kind == SBOM_CYCLONEDX) {
		json_array_append_new(element_array(el, "properties"),
				      json_pack("{s:s, s:s}", "name", "cuferry:signer", "value", fp));
		return;
	}
	/* An annotation needs a date: the document's own, so that the print is the same each time. */
	const char *created = json_string_value(
		json_object_get(json_object_get(doc, "creationInfo"), "created"));
	char *comment = xasprintf("signed by the key with SHA-256 fingerprint %s (read from the "
				  "bundle's signed header when this was printed)", fp);
	json_array_append_new(element_array(el, "annotations"),
			      json_pack("{s:s, s:s, s:s, s:s}", "annotationType", "OTHER",
					"annotator", "Tool: cuferry", "annotationDate",
					created ? created : "1970-01-01T00:00:00Z", "comment", comment));
	free(comment);
}

int sbom_with_signers(const struct sbom_capture *c, const char (*fps)[65], size_t nfps,
		      char **out, size_t *len, struct cf_err *e)
{
	enum sbom_kind kind = c->kind;
	if (!c->found)
		return cf_fail(e, CF_INCOMPATIBLE, "the bundle carries no %s (it was made before "
			       "bundles carried %s)", c->path,
			       kind == SBOM_PROVENANCE ? "their provenance" : "SBOMs");
	json_error_t jerr;
	json_t *doc = json_loadb(c->data ? c->data : "", c->len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *el = doc && kind != SBOM_PROVENANCE ? bundle_element(doc, kind) : doc;
	if (!json_is_object(el)) {
		json_decref(doc);
		return cf_fail(e, CF_INTEGRITY, "%s is not %s of the bundler's (%s)", c->path,
			       kind == SBOM_PROVENANCE ? "a provenance record" : "an SBOM",
			       doc ? "no bundle element" : jerr.text);
	}
	for (size_t i = 0; kind != SBOM_PROVENANCE && i < nfps; i++)
		add_signer(doc, el, kind, fps[i]);
	/* Printed as JSON this reader wrote, never as the stored bytes: a bundle maker's text
	 * reaches a terminal (inspect needs no trusted key) with every control character and
	 * every non-ASCII one escaped. The provenance record keeps its order: the bundler wrote
	 * it this way, so the print is its stored bytes. */
	size_t flags = JSON_INDENT(2) | JSON_ENSURE_ASCII |
		       (kind == SBOM_PROVENANCE ? 0 : JSON_SORT_KEYS);
	char *text = json_dumps(doc, flags);
	json_decref(doc);
	if (!text)
		return cf_fail(e, CF_INSTALL, "cannot encode %s", c->path);
	*len = strlen(text);
	*out = xrealloc(text, *len + 2);
	(*out)[(*len)++] = '\n';
	(*out)[*len] = '\0';
	return CF_OK;
}
