/* provenance.c - provenance.json and the kept redistrib JSONs of a bundle's dossier */
#include "bundler/provenance.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"
#include "manifests/sbom.h"

#define PROVENANCE_FORMAT "cuferry-provenance-1"

/* What provenance.json says of a source that no NVIDIA JSON vouches for. */
#define UNKNOWN_ARCHIVE "no NVIDIA redistrib JSON authorised this archive (given with " \
	"--from-archive): its size and SHA-256 are the file's own, read when the bundle was made, " \
	"and vouched for by the bundle's signers alone"
#define UNKNOWN_DIR "no NVIDIA archive or redistrib JSON: the files were read from a directory " \
	"(--from-dir); their SHA-256 are the files' own, vouched for by the bundle's signers alone"

/* One source of files: an archive (downloaded or given) or a directory. */
struct source {
	json_t *obj;
	json_t *members;
	json_t *links;
	char *below; /* files whose src lies below this directory came from it; NULL: none */
	const struct product *with; /* a --with product's source: only its files; NULL: the rest */
};

static json_t *hex_string(const uint8_t *sha256)
{
	char hex[65];
	hex_encode(sha256, 32, hex);
	return json_string(hex);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A URL's path below the mirror as given: what rebuilds it from another copy of the mirror. */
static json_t *below_mirror(const char *mirror, const char *url)
{
	size_t n = strlen(mirror);
	if (strncmp(url, mirror, n) == 0 && url[n] == '/')
		return json_string(url + n + 1);
	return json_null();
}

/* Where the tree extracted an archive of this name; NULL when it did not. */
static const char *extracted_dir(const struct tree *t, const char *archive_name)
{
	for (size_t i = 0; i < t->narchives; i++)
		if (strcmp(base_name(t->archives[i].file), archive_name) == 0)
			return t->archives[i].dir;
	return NULL;
}

static char *kept_path(const struct mirror_json *j)
{
	return xasprintf("%s/%s", PROVENANCE_JSON_DIR, j->path);
}

/* A downloaded archive, authorised by the kept JSON j at the artifact's jq path. */
static struct source mirror_source(const char *role, const struct redist_artifact *a,
				   const char *url, const struct mirror_plan *plan,
				   const struct mirror_json *j, const struct tree *t)
{
	struct source s = { 0 };
	const char *name = base_name(a->relative_path);
	char *kept = kept_path(j);
	s.obj = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:I, s:o, s:{s:s, s:s}}", "role", role,
			  "name", a->component, "version", a->version, "archive", name, "url", url,
			  "mirror_path", below_mirror(plan->mirror, url), "size", (json_int_t)a->size,
			  "sha256", hex_string(a->sha256), "authorised_by", "file", kept, "jq_path",
			  a->jq_path);
	free(kept);
	const char *dir = extracted_dir(t, name);
	s.below = dir ? xstrdup(dir) : NULL;
	return s;
}

/* The wheel a pip install's product came from, as its .dist-info folder names it
 * (NAME-VERSION.dist-info); the wheel file itself was never seen. */
static json_t *wheel_of(const char *dist)
{
	if (!dist[0])
		return json_null();
	const char *dash = strchr(dist, '-'), *end = strstr(dist, ".dist-info");
	if (!dash || !end || end < dash)
		return json_pack("{s:s}", "dist_info", dist);
	char *name = xasprintf("%.*s", (int)(dash - dist), dist);
	char *version = xasprintf("%.*s", (int)(end - dash - 1), dash + 1);
	json_t *w = json_pack("{s:s, s:s, s:s, s:s}", "dist_info", dist, "name", name, "version",
			      version, "not_known", "the wheel file and its SHA-256 (only its "
			      "installed files were read)");
	free(name);
	free(version);
	return w;
}

/* What was read from a directory or an archive that no NVIDIA JSON vouched for. */
struct given {
	const char *role, *product, *version, *kind, *name;
	const uint8_t *sha256; /* the archive's own; NULL: none */
	uint64_t size;
	const struct tree *tree;
};

static struct source given_source(const struct given *g)
{
	struct source s = { 0 };
	if (strcmp(g->kind, "dir") == 0) {
		s.obj = json_pack("{s:s, s:s, s:s, s:s, s:o, s:n, s:s}", "role", g->role, "name",
				  g->product, "version", g->version, "directory", g->name,
				  "wheel", wheel_of(g->tree->wheel_dist), "authorised_by",
				  "not_known", UNKNOWN_DIR);
		s.below = xstrdup(g->name);
		return s;
	}
	const char *name = base_name(g->name);
	s.obj = json_pack("{s:s, s:s, s:s, s:s, s:n, s:n}", "role", g->role, "name", g->product,
			  "version", g->version, "archive", name, "url", "mirror_path");
	if (g->sha256) {
		json_object_set_new(s.obj, "size", json_integer((json_int_t)g->size));
		json_object_set_new(s.obj, "sha256", hex_string(g->sha256));
	}
	json_object_set_new(s.obj, "authorised_by", json_null());
	json_object_set_new(s.obj, "not_known", json_string(UNKNOWN_ARCHIVE));
	const char *dir = extracted_dir(g->tree, name);
	s.below = dir ? xstrdup(dir) : NULL;
	return s;
}

/* A --with product's source (role "with"): its directory or archive, from its own tree. */
static struct source member_source(const struct provenance_input *in, size_t k)
{
	const struct manifest_member *w = &in->members[k];
	const struct tree *t = in->tree;
	for (size_t i = 0; in->member_trees && i < in->member_trees->count; i++)
		if (in->member_trees->trees[i].product == w->product)
			t = &in->member_trees->trees[i];
	struct given g = { "with", w->product->name, w->version, w->source_kind, w->source_name,
			   w->source_has_sha256 ? w->source_sha256 : NULL, w->source_size, t };
	struct source s = given_source(&g);
	s.with = w->product;
	return s;
}

/* The file's origin among the sources: its src below one's directory (added to its members,
 * *bad set when that fails); else its entry for other_files, or NULL for a link. */
static json_t *member_of(struct source *s, size_t n, const struct prehash_file *f, int *bad)
{
	for (size_t i = 0; f->entry.src && i < n; i++) {
		if (s[i].with != f->entry.product) /* a unit's products share a tree, not a source */
			continue;
		size_t len = s[i].below ? strlen(s[i].below) : 0;
		if (!len || strncmp(f->entry.src, s[i].below, len) != 0 || f->entry.src[len] != '/')
			continue;
		const char *member = f->entry.src + len + 1 + strspn(f->entry.src + len + 1, "/");
		/* A link has no bytes of its own: its target, as the manifest has it. */
		json_t *m = f->entry.is_symlink
				    ? json_pack("{s:s, s:s, s:s}", "path", f->entry.path, "member", member,
						"target", f->entry.target)
				    : json_pack("{s:s, s:s, s:o, s:I}", "path", f->entry.path, "member",
						member, "sha256", hex_string(f->sha256), "size",
						(json_int_t)f->size);
		*bad |= json_array_append_new(f->entry.is_symlink ? s[i].links : s[i].members, m) != 0;
		return NULL;
	}
	if (f->entry.is_symlink) /* --add-file and the bundler write no link */
		return NULL;
	json_t *o = json_pack("{s:s, s:s, s:o, s:I}", "path", f->entry.path, "origin",
			 f->entry.generated ? "written by the bundler" : "added with --add-file",
			 "sha256", hex_string(f->sha256), "size", (json_int_t)f->size);
	*bad |= !o;
	return o;
}

static json_t *kept_entry(const struct mirror_json *j, const char *url, const char *mirror)
{
	uint8_t sha[32];
	char *kept = kept_path(j);
	sha256_buf(j->text, j->len, sha);
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:I}", "file", kept, "url", url,
			      "mirror_path", below_mirror(mirror, url), "sha256", hex_string(sha),
			      "size", (json_int_t)j->len);
	free(kept);
	return o;
}

static void add_kept(struct provenance_file *out, size_t *n, const struct mirror_json *j)
{
	out[*n].path = kept_path(j);
	out[*n].text = xmalloc(j->len ? j->len : 1);
	memcpy(out[*n].text, j->text, j->len);
	out[(*n)++].len = j->len;
}

int provenance_files(const struct provenance_input *in,
		     struct provenance_file out[PROVENANCE_MAX_FILES], size_t *n, struct cf_err *e)
{
	const struct mirror_plan *plan = in->plan;
	int from_mirror = strcmp(in->source_kind, "nvidia-redist") == 0 && plan &&
			  plan->product_json.text;
	int with_components = in->components_packed && plan && plan->cuda_json.text;
	struct source src[1 + MIRROR_MAX_COMPONENTS + MANIFEST_MAX_MEMBERS];
	size_t nsrc = 0, nout = 1;
	int bad = 0; /* json_pack refuses a name that is not UTF-8: the record would lack it */
	json_t *kept = json_array(), *sources = json_array(), *other = json_array();
	if (from_mirror) {
		bad |= json_array_append_new(kept, kept_entry(&plan->product_json,
							      plan->product_json_url, plan->mirror)) != 0;
		src[nsrc++] = mirror_source("product", &plan->product, plan->product_url, plan,
					    &plan->product_json, in->tree);
		add_kept(out, &nout, &plan->product_json);
	} else {
		struct given g = { "product", in->product, in->version, in->source_kind,
				   in->source_name, in->source_sha256, in->source_size, in->tree };
		src[nsrc++] = given_source(&g);
	}
	if (with_components) {
		bad |= json_array_append_new(kept, kept_entry(&plan->cuda_json, plan->cuda_json_url,
							      plan->mirror)) != 0;
		for (size_t i = 0; i < plan->ncomponents; i++)
			src[nsrc++] = mirror_source("cuda-component", &plan->components[i],
						    plan->component_urls[i], plan, &plan->cuda_json,
						    in->tree);
		add_kept(out, &nout, &plan->cuda_json);
	}
	for (size_t k = 0; k < in->nmembers; k++)
		src[nsrc++] = member_source(in, k);
	for (size_t i = 0; i < nsrc; i++) {
		src[i].members = json_array();
		src[i].links = json_array();
	}
	for (size_t i = 0; i < in->files->count; i++) {
		json_t *o = member_of(src, nsrc, &in->files->files[i], &bad);
		if (o)
			bad |= json_array_append_new(other, o) != 0;
	}
	for (size_t i = 0; i < nsrc; i++) {
		bad |= json_object_set_new(src[i].obj, "members", src[i].members) != 0;
		bad |= json_object_set_new(src[i].obj, "links", src[i].links) != 0;
		bad |= json_array_append_new(sources, src[i].obj) != 0;
		free(src[i].below);
	}
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "format",
				PROVENANCE_FORMAT, "bundle_id", in->bundle_id, "product", in->product,
				"source", in->source_kind, "mirror",
				plan && plan->mirror[0] && (from_mirror || with_components)
					? json_string(plan->mirror) : json_null(),
				"nvidia_json", kept, "sources", sources, "other_files", other);
	char *text = doc && !bad ? json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII) : NULL;
	json_decref(doc);
	if (!text) {
		provenance_files_free(out + 1, nout - 1);
		*n = 0;
		return cf_fail(e, CF_SOURCE, "cannot write " PROVENANCE_PATH ": a source or member "
			       "name is not UTF-8 text");
	}
	size_t len = strlen(text);
	out[0].path = xstrdup(PROVENANCE_PATH);
	out[0].text = xrealloc(text, len + 2);
	out[0].text[len++] = '\n';
	out[0].text[len] = '\0';
	out[0].len = len;
	*n = nout;
	return CF_OK;
}

void provenance_files_free(struct provenance_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].text);
	}
}
