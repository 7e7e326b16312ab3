/* redist.c - reader of NVIDIA's redistributable manifests */
#include "manifests/redist.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"

struct redist {
	json_t *root;
};

int redist_parse(const char *json, size_t len, struct redist **out, struct cf_err *e)
{
	json_error_t jerr;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return cf_fail(e, CF_SOURCE, "redistrib JSON: line %d: %s", jerr.line, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return cf_fail(e, CF_SOURCE, "redistrib JSON is not an object");
	}
	struct redist *r = xcalloc(1, sizeof(*r));
	r->root = root;
	*out = r;
	return CF_OK;
}

void redist_free(struct redist *r)
{
	if (!r)
		return;
	json_decref(r->root);
	free(r);
}

static const char *str_field(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *redist_release_date(const struct redist *r)
{
	return str_field(r->root, "release_date");
}

const char *redist_release_label(const struct redist *r)
{
	return str_field(r->root, "release_label");
}

/* NVIDIA writes sizes as decimal strings; accept integers too, nothing else. */
static int parse_size(json_t *v, uint64_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	const char *s = json_string_value(v);
	char *end;
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	*out = strtoull(s, &end, 10);
	return 0;
}

static int read_leaf(json_t *leaf, const char *component, struct redist_artifact *out,
		     struct cf_err *e)
{
	const char *rel = str_field(leaf, "relative_path"), *sha = str_field(leaf, "sha256");
	if (!rel || !sha || strlen(rel) >= sizeof(out->relative_path) ||
	    hex_decode(sha, out->sha256, 32) != 0 || parse_size(json_object_get(leaf, "size"), &out->size))
		return cf_fail(e, CF_SOURCE, "redistrib JSON: %s: entry without a valid "
			       "relative_path, sha256 and size", component);
	/* The mirror decides nothing about where files land: keep the path relative and tame. */
	if (rel[0] == '/' || strstr(rel, "..") || strchr(rel, '\\'))
		return cf_fail(e, CF_SOURCE, "redistrib JSON: %s: unsafe relative_path", component);
	snprintf(out->relative_path, sizeof(out->relative_path), "%s", rel);
	return CF_OK;
}

/* "…_cuda12-archive.tar.xz" -> "12" */
static void variant_from_name(const char *rel, char *out, size_t size)
{
	const char *p = rel ? strstr(rel, "_cuda") : NULL;
	out[0] = '\0';
	if (!p)
		return;
	p += 5;
	size_t n = strspn(p, "0123456789");
	if (n > 0 && n < size)
		snprintf(out, size, "%.*s", (int)n, p);
}

/* One jq path step, .["key"]: quoted, so a key of any characters stays one step. */
static void jq_step(char *path, size_t size, const char *key)
{
	size_t used = strlen(path);
	int n = snprintf(path + used, size - used, "[\"");
	for (const char *k = key; n >= 0 && *k; k++) {
		used = strlen(path);
		n = snprintf(path + used, size - used, *k == '"' || *k == '\\' ? "\\%c" : "%c", *k);
	}
	used = strlen(path);
	snprintf(path + used, size - used, "\"]");
}

static void set_jq_path(struct redist_artifact *out, const char *component, const char *platform,
			const char *variant_key)
{
	snprintf(out->jq_path, sizeof(out->jq_path), ".");
	jq_step(out->jq_path, sizeof(out->jq_path), component);
	jq_step(out->jq_path, sizeof(out->jq_path), platform);
	if (variant_key)
		jq_step(out->jq_path, sizeof(out->jq_path), variant_key);
}

int redist_find(const struct redist *r, const char *component, const char *platform,
		const char *cuda_major, struct redist_artifact *out, struct cf_err *e)
{
	json_t *comp = json_object_get(r->root, component);
	memset(out, 0, sizeof(*out));
	if (!json_is_object(comp) || !json_object_get(comp, "name"))
		return cf_fail(e, CF_SOURCE, "redistrib JSON has no component '%s'", component);
	snprintf(out->component, sizeof(out->component), "%s", component);
	const char *version = str_field(comp, "version");
	snprintf(out->version, sizeof(out->version), "%s", version ? version : "");
	const char *license = str_field(comp, "license");
	snprintf(out->license, sizeof(out->license), "%s", license ? license : "");
	json_t *plat = json_object_get(comp, platform);
	if (!json_is_object(plat))
		return cf_fail(e, CF_SOURCE, "%s %s is not published for %s", component,
			       out->version, platform);
	if (json_object_get(plat, "relative_path")) {
		/* Older generation: one CUDA major per manifest, named in the archive name. */
		if (read_leaf(plat, component, out, e) != CF_OK)
			return e->code;
		set_jq_path(out, component, platform, NULL);
		variant_from_name(out->relative_path, out->cuda_variant, sizeof(out->cuda_variant));
		if (cuda_major && out->cuda_variant[0] && strcmp(cuda_major, out->cuda_variant) != 0)
			return cf_fail(e, CF_INCOMPATIBLE, "%s %s on %s is built for CUDA %s, not %s",
				       component, out->version, platform, out->cuda_variant,
				       cuda_major);
		return CF_OK;
	}
	char key[160], offered[128];
	if (!cuda_major) {
		redist_variants(r, component, platform, offered, sizeof(offered));
		if (strchr(offered, ','))
			return cf_fail(e, CF_USAGE, "%s %s has several CUDA variants (%s): pick one "
				       "with --cuda", component, out->version, offered);
		cuda_major = offered;
	}
	snprintf(key, sizeof(key), "cuda%s", cuda_major);
	json_t *leaf = json_object_get(plat, key);
	if (!json_is_object(leaf)) {
		redist_variants(r, component, platform, offered, sizeof(offered));
		return cf_fail(e, CF_INCOMPATIBLE, "%s %s for %s has no CUDA %s variant (offered: %s)",
			       component, out->version, platform, cuda_major, offered);
	}
	snprintf(out->cuda_variant, sizeof(out->cuda_variant), "%s", cuda_major);
	set_jq_path(out, component, platform, key);
	return read_leaf(leaf, component, out, e);
}

void redist_variants(const struct redist *r, const char *component, const char *platform,
		     char *buf, size_t size)
{
	json_t *plat = json_object_get(json_object_get(r->root, component), platform), *v;
	const char *key;
	size_t used = 0;
	buf[0] = '\0';
	if (!json_is_object(plat))
		return;
	if (json_object_get(plat, "relative_path")) {
		variant_from_name(str_field(plat, "relative_path"), buf, size);
		return;
	}
	json_object_foreach(plat, key, v) {
		if (strncmp(key, "cuda", 4) != 0 || !json_is_object(v))
			continue;
		int n = snprintf(buf + used, size - used, "%s%s", used ? "," : "", key + 4);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
}
