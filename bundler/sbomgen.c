/* sbomgen.c - CycloneDX 1.6 and SPDX 2.3 JSON from the manifest, deterministic */
#include "bundler/sbomgen.h"

#include <jansson.h>
#include <mbedtls/sha1.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/format.h"
#include "common/io.h"
#include "common/sha256.h"
#include "common/version.h"
#include "manifests/product.h"

#define SUPPLIER "NVIDIA Corporation"
#define GENERATOR "cuferry-bundler"

void sbomgen_content_digest(const struct prehash *p, uint8_t out[32])
{
	struct sha256 h;
	char hex[65];
	sha256_init(&h);
	for (size_t i = 0; i < p->count; i++) {
		const struct tree_entry *t = &p->files[i].entry;
		char *line;
		if (t->is_symlink) {
			line = xasprintf("%s -> %s\n", t->path, t->target);
		} else {
			hex_encode(p->files[i].sha256, 32, hex);
			line = xasprintf("%s  %s\n", hex, t->path);
		}
		sha256_update(&h, line, strlen(line));
		free(line);
	}
	sha256_final(&h, out);
}

/* RFC 4122 name-based UUID, version 5 (SHA-1), in the URL namespace: anyone can recompute it
 * (python3 -c 'import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, NAME))'). */
static void uuid5(const char *name, char out[37])
{
	static const uint8_t ns_url[16] = { 0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1,
					    0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8 };
	uint8_t d[20];
	mbedtls_sha1_context c;
	mbedtls_sha1_init(&c);
	mbedtls_sha1_starts(&c);
	mbedtls_sha1_update(&c, ns_url, sizeof(ns_url));
	mbedtls_sha1_update(&c, (const unsigned char *)name, strlen(name));
	mbedtls_sha1_finish(&c, d);
	mbedtls_sha1_free(&c);
	d[6] = (uint8_t)((d[6] & 0x0f) | 0x50);
	d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
	char hex[33];
	hex_encode(d, 16, hex);
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

/* purl's percent-encoding of a subpath: unreserved characters and '/' stay. */
static char *purl_subpath(const char *path)
{
	char *out = xmalloc(strlen(path) * 3 + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			*o++ = (char)*p;
		else
			o += sprintf(o, "%%%02X", *p);
	}
	*o = '\0';
	return out;
}

/* SPDX ids and LicenseRef names take letters, digits, '.' and '-' only. */
static char *spdx_idstring(const char *prefix, const char *s)
{
	char *out = xasprintf("%s%s", prefix, s);
	for (char *p = out + strlen(prefix); *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '-'))
			*p = '-';
	return out;
}

/* One product of the bundle: the bundle's own, a --with product of its unit, or a CUDA
 * component it lists. */
struct part {
	const char *name, *version, *license;
	char *purl;
	char *spdx_id;
	int included;
	const struct manifest_component *component; /* NULL for a product of the unit */
	const struct product *product;              /* a product of the unit; NULL: a component */
	const char *description, *source_kind, *source_name;
	const uint8_t *source_sha256;               /* NULL when its source has none */
};

struct gen {
	const struct sbomgen_input *in;
	const struct manifest *m;
	struct part *parts; /* [0] the product, then m->members, then m->components */
	size_t nparts;
	char content_hex[65];
	char uuid[37];
	char created[32];
	const char *license_file; /* the product's licence text in the bundle, if it has one */
};

/* A product of the unit: the bundle's own, or a --with product. */
static void product_part(struct part *p, const struct manifest *m, const struct product *prod,
			 const char *version, const char *license, const char *source_kind,
			 const char *source_name, const uint8_t *source_sha256)
{
	*p = (struct part){ .name = prod->name, .version = version, .included = 1, .product = prod,
			    .description = prod->description, .license = license,
			    .source_kind = source_kind, .source_name = source_name,
			    .source_sha256 = source_sha256 };
	/* purl qualifiers in their canonical order (sorted by key) */
	p->purl = xasprintf("pkg:generic/nvidia/%s@%s?cuda=%s&platform=%s", prod->name, version,
			    m->cuda_variant, m->platform);
	p->spdx_id = spdx_idstring("SPDXRef-Package-", prod->name);
}

static void gen_init(struct gen *g, const struct sbomgen_input *in)
{
	const struct manifest *m = in->m;
	memset(g, 0, sizeof(*g));
	g->in = in;
	g->m = m;
	uint8_t digest[32];
	sbomgen_content_digest(in->files, digest);
	hex_encode(digest, 32, g->content_hex);
	char *name = xasprintf("cuferry:sbom:%s:%s", m->bundle_id, g->content_hex);
	uuid5(name, g->uuid);
	free(name);
	manifest_format_time((int64_t)m->source_date_epoch, g->created);
	g->nparts = 1 + m->nmembers + m->ncomponents;
	g->parts = xcalloc(g->nparts, sizeof(*g->parts));
	product_part(&g->parts[0], m, m->product, m->product_version, in->license, m->source_kind,
		     m->source_name, m->source_has_sha256 ? m->source_sha256 : NULL);
	for (size_t i = 0; i < m->nmembers; i++) {
		const struct manifest_member *w = &m->members[i];
		product_part(&g->parts[1 + i], m, w->product, w->version, NULL, w->source_kind,
			     w->source_name, w->source_has_sha256 ? w->source_sha256 : NULL);
	}
	for (size_t i = 0; i < m->ncomponents; i++) {
		const struct manifest_component *c = &m->components[i];
		struct part *p = &g->parts[1 + m->nmembers + i];
		p->name = c->name;
		p->version = c->version;
		p->license = in->component_licenses ? in->component_licenses[i] : NULL;
		p->purl = xasprintf("pkg:generic/nvidia/%s@%s?platform=%s", c->name, c->version,
				    m->platform);
		p->spdx_id = spdx_idstring("SPDXRef-Package-", c->name);
		p->included = c->included;
		p->component = c;
	}
	for (const char *const *l = m->product->files.licences; l && *l && !g->license_file; l++)
		for (size_t i = 0; i < in->files->count; i++)
			if (strcmp(in->files->files[i].entry.path, *l) == 0)
				g->license_file = *l;
}

static void gen_free(struct gen *g)
{
	for (size_t i = 0; i < g->nparts; i++) {
		free(g->parts[i].purl);
		free(g->parts[i].spdx_id);
	}
	free(g->parts);
}

/* A --with product's file is its product's; any other is a listed component's (owner) or
 * else the bundle's product's. */
static const struct part *file_part(const struct gen *g, const struct tree_entry *ent)
{
	for (size_t k = 1; ent->product && k <= g->m->nmembers; k++)
		if (g->parts[k].product == ent->product)
			return &g->parts[k];
	int i = g->in->owner ? g->in->owner(g->m, ent->path) : -1;
	return &g->parts[i >= 0 && (size_t)i < g->m->ncomponents ? 1 + g->m->nmembers + (size_t)i : 0];
}

static char *dumps(json_t *doc, size_t *len)
{
	char *text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(2));
	json_decref(doc);
	if (!text)
		abort(); /* only allocation fails here: the tree is ours */
	*len = strlen(text);
	char *out = xrealloc(text, *len + 2);
	out[(*len)++] = '\n';
	out[*len] = '\0';
	return out;
}

static json_t *property(const char *name, const char *value)
{
	return json_pack("{s:s, s:s}", "name", name, "value", value);
}

/* ---- CycloneDX 1.6 ---- */

static json_t *cdx_supplier(void)
{
	return json_pack("{s:s}", "name", SUPPLIER);
}

static json_t *cdx_licenses(const char *license)
{
	/* NVIDIA's names ("CUDA Toolkit", "NCCL") are no SPDX identifiers: a named licence. */
	return json_pack("[{s:{s:s}}]", "license", "name", license);
}

static json_t *cdx_file(const struct gen *g, const struct prehash_file *f)
{
	const struct part *p = file_part(g, &f->entry);
	char sha256[65], sha1[41];
	hex_encode(f->sha256, 32, sha256);
	hex_encode(f->sha1, 20, sha1);
	char *sub = purl_subpath(f->entry.path);
	char *purl = xasprintf("%s#%s", p->purl, sub);
	char *ref = xasprintf("file:%s", f->entry.path);
	json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}]}", "type", "file",
			      "bom-ref", ref, "name", f->entry.path, "version", p->version, "purl",
			      purl, "hashes", "alg", "SHA-256", "content", sha256, "alg", "SHA-1",
			      "content", sha1);
	if (f->entry.generated) {
		/* cuferry's own relocatable pkg-config and CMake files, not NVIDIA's */
		json_object_set_new(c, "description",
				    json_string("generated by cuferry's bundler for this bundle"));
		json_object_set_new(c, "properties",
				    json_pack("[o]", property("cuferry:generated", "true")));
	} else {
		json_object_set_new(c, "supplier", cdx_supplier());
		if (p->license)
			json_object_set_new(c, "licenses", cdx_licenses(p->license));
	}
	free(sub);
	free(purl);
	free(ref);
	return c;
}

static json_t *cdx_part(const struct gen *g, const struct part *p)
{
	json_t *c = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "type", "library", "bom-ref", p->purl,
			      "name", p->name, "version", p->version, "purl", p->purl, "supplier",
			      cdx_supplier());
	if (p->license)
		json_object_set_new(c, "licenses", cdx_licenses(p->license));
	json_t *props = json_array();
	if (!p->component) {
		json_object_set_new(c, "description", json_string(p->description));
		json_array_append_new(props, property("cuferry:source-kind", p->source_kind));
		json_array_append_new(props, property("cuferry:source-name", p->source_name));
		if (p->source_sha256) {
			char hex[65];
			hex_encode(p->source_sha256, 32, hex);
			json_array_append_new(props, property("cuferry:source-sha256", hex));
		}
	} else {
		json_array_append_new(props, property("cuferry:included",
						      p->included ? "true" : "false"));
		if (p->component->has_sha256) {
			char hex[65];
			hex_encode(p->component->sha256, 32, hex);
			/* the archive NVIDIA lists, or the library itself for a directory source */
			json_array_append_new(props, property("cuferry:source-sha256", hex));
		}
	}
	json_object_set_new(c, "properties", props);
	json_t *files = json_array();
	for (size_t i = 0; i < g->in->files->count; i++) {
		const struct prehash_file *f = &g->in->files->files[i];
		if (!f->entry.is_symlink && file_part(g, &f->entry) == p)
			json_array_append_new(files, cdx_file(g, f));
	}
	if (json_array_size(files))
		json_object_set_new(c, "components", files);
	else
		json_decref(files);
	return c;
}

static char *cyclonedx(const struct gen *g, size_t *len)
{
	const struct manifest *m = g->m;
	char *serial = xasprintf("urn:uuid:%s", g->uuid);
	json_t *bundle = json_pack(
		"{s:s, s:s, s:s, s:s, s:[o, o, o, o]}", "type", "file", "bom-ref", "bundle", "name",
		m->bundle_id, "version", m->product_version, "properties",
		property("cuferry:format", manifest_format_name(m)), property("cuferry:platform", m->platform),
		property("cuferry:cuda-variant", m->cuda_variant),
		property("cuferry:content-sha256", g->content_hex));
	json_t *components = json_array(), *depends = json_array();
	for (size_t i = 0; i < g->nparts; i++) {
		json_array_append_new(components, cdx_part(g, &g->parts[i]));
		json_array_append_new(depends, json_string(g->parts[i].purl));
	}
	json_t *doc = json_pack(
		"{s:s, s:s, s:s, s:s, s:i, s:{s:s, s:{s:[{s:s, s:s, s:s}]}, s:o}, s:o, s:[{s:s, s:o}]}",
		"$schema", "http://cyclonedx.org/schema/bom-1.6.schema.json", "bomFormat", "CycloneDX",
		"specVersion", "1.6", "serialNumber", serial, "version", 1, "metadata", "timestamp",
		g->created, "tools", "components", "type", "application", "name", GENERATOR, "version",
		CUFERRY_VERSION, "component", bundle, "components", components, "dependencies", "ref",
		"bundle", "dependsOn", depends);
	free(serial);
	return dumps(doc, len);
}

/* ---- SPDX 2.3 ---- */

static char *license_ref(const char *license)
{
	return spdx_idstring("LicenseRef-NVIDIA-", license);
}

static json_t *relationship(const char *from, const char *type, const char *to)
{
	return json_pack("{s:s, s:s, s:s}", "spdxElementId", from, "relationshipType", type,
			 "relatedSpdxElement", to);
}

static json_t *spdx_package(const struct gen *g, const struct part *p)
{
	char *lic = p->license ? license_ref(p->license) : xstrdup("NOASSERTION");
	json_t *pkg = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:s}]}", "SPDXID",
		p->spdx_id, "name", p->name, "versionInfo", p->version, "supplier",
		"Organization: " SUPPLIER, "downloadLocation", "NOASSERTION", "filesAnalyzed", 0,
		"licenseConcluded", "NOASSERTION", "licenseDeclared", lic, "copyrightText",
		"NOASSERTION", "primaryPackagePurpose", "LIBRARY", "externalRefs", "referenceCategory",
		"PACKAGE-MANAGER", "referenceType", "purl", "referenceLocator", p->purl);
	free(lic);
	if (!p->component)
		json_object_set_new(pkg, "sourceInfo", json_string(p->source_name));
	else if (!p->included)
		json_object_set_new(pkg, "comment",
				    json_string("listed as a requirement, not included in the bundle"));
	return pkg;
}

static void spdx_license_infos(const struct gen *g, json_t *doc)
{
	json_t *infos = json_array();
	for (size_t i = 0; i < g->nparts; i++) {
		const char *l = g->parts[i].license;
		int seen = !l;
		for (size_t k = 0; k < i && !seen; k++)
			seen = g->parts[k].license && strcmp(g->parts[k].license, l) == 0;
		if (seen)
			continue;
		char *id = license_ref(l);
		char *where = i == 0 && g->license_file
				      ? xasprintf("its text is the bundle's file ./%s", g->license_file)
				      : xstrdup("its text is published with NVIDIA's archive");
		char *full = xasprintf("NVIDIA's redistrib JSON names this licence \"%s\"; %s", l,
				       where);
		json_array_append_new(infos, json_pack("{s:s, s:s, s:s}", "licenseId", id, "name", l,
						       "extractedText", full));
		free(id);
		free(where);
		free(full);
	}
	if (json_array_size(infos))
		json_object_set_new(doc, "hasExtractedLicensingInfos", infos);
	else
		json_decref(infos);
}

static char *spdx(const struct gen *g, size_t *len)
{
	const struct manifest *m = g->m;
	char *ns = xasprintf("https://cuferry.invalid/spdx/%s/%s", m->bundle_id, g->uuid);
	char *creator = xasprintf("Tool: " GENERATOR "-%s", CUFERRY_VERSION);
	char *comment = xasprintf("cuferry bundle, format %s, for %s and CUDA %s; content SHA-256 "
				  "%s (the sha256sum lines of its files)", manifest_format_name(m),
				  m->platform, m->cuda_variant, g->content_hex);
	json_t *packages = json_array(), *files = json_array(), *rels = json_array();
	json_array_append_new(
		packages, json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:s, s:s, s:s, s:s}", "SPDXID",
				    "SPDXRef-Bundle", "name", m->bundle_id, "versionInfo",
				    m->product_version, "downloadLocation", "NOASSERTION",
				    "filesAnalyzed", 0, "licenseConcluded", "NOASSERTION",
				    "licenseDeclared", "NOASSERTION", "copyrightText", "NOASSERTION",
				    "primaryPackagePurpose", "ARCHIVE", "comment", comment));
	json_array_append_new(rels, relationship("SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Bundle"));
	for (size_t i = 0; i < g->nparts; i++) {
		json_array_append_new(packages, spdx_package(g, &g->parts[i]));
		json_array_append_new(rels, relationship("SPDXRef-Bundle",
							 g->parts[i].included ? "CONTAINS"
									      : "DEPENDS_ON",
							 g->parts[i].spdx_id));
	}
	for (size_t i = 0, n = 0; i < g->in->files->count; i++) {
		const struct prehash_file *f = &g->in->files->files[i];
		if (f->entry.is_symlink)
			continue;
		char sha256[65], sha1[41], id[40];
		hex_encode(f->sha256, 32, sha256);
		hex_encode(f->sha1, 20, sha1);
		snprintf(id, sizeof(id), "SPDXRef-File-%zu", ++n);
		char *name = xasprintf("./%s", f->entry.path);
		json_t *file = json_pack("{s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}], s:s, s:s}", "SPDXID",
					 id, "fileName", name, "checksums", "algorithm", "SHA1",
					 "checksumValue", sha1, "algorithm", "SHA256",
					 "checksumValue", sha256, "licenseConcluded", "NOASSERTION",
					 "copyrightText", "NOASSERTION");
		if (f->entry.generated)
			json_object_set_new(file, "comment", json_string("generated by cuferry's "
									 "bundler for this bundle"));
		json_array_append_new(files, file);
		json_array_append_new(rels, relationship(file_part(g, &f->entry)->spdx_id,
							 "CONTAINS", id));
		free(name);
	}
	json_t *doc = json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:[s], s:s}, s:o, s:o, s:o}", "spdxVersion",
		"SPDX-2.3", "dataLicense", "CC0-1.0", "SPDXID", "SPDXRef-DOCUMENT", "name",
		m->bundle_id, "documentNamespace", ns, "creationInfo", "created", g->created,
		"creators", creator, "comment",
		"created is the bundle's source_date_epoch (its files' date), not the clock: the same "
		"inputs give the same document",
		"packages", packages, "files", files, "relationships", rels);
	spdx_license_infos(g, doc);
	free(ns);
	free(creator);
	free(comment);
	return dumps(doc, len);
}

void sbomgen_write(const struct sbomgen_input *in, char **cdx, size_t *cdx_len, char **spdx_out,
		   size_t *spdx_len)
{
	struct gen g;
	gen_init(&g, in);
	*cdx = cyclonedx(&g, cdx_len);
	*spdx_out = spdx(&g, spdx_len);
	gen_free(&g);
}
