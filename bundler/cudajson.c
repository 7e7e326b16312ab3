/* cudajson.c - a CUDA redistrib JSON in NVIDIA's format from a toolkit's own files */
#include "bundler/cudajson.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundler/source.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"

/* What NVIDIA calls, in its redistrib JSON, the CUDA components the default product opens
 * (its cuda_libs_opened: cuBLAS, NVRTC). */
static const char *component_title(const char *component)
{
	return strcmp(component, "libcublas") == 0 ? "CUDA cuBLAS" : "CUDA NVRTC";
}

/* A toolkit installed from NVIDIA's .run or packages has version.json: the release and the
 * exact component versions. A toolkit made of wheels has none (source_cuda_libs reads their
 * metadata instead). */
static json_t *load_version_json(const char *dir)
{
	char *path = xasprintf("%s/version.json", dir), *text = NULL;
	size_t len = 0;
	json_t *root = NULL;
	if (io_read_file(path, 1 << 20, &text, &len) == 0)
		root = json_loadb(text, len, 0, NULL);
	free(text);
	free(path);
	if (root && !json_is_object(root)) {
		json_decref(root);
		root = NULL;
	}
	return root;
}

static const char *version_of(json_t *version_json, const char *component)
{
	json_t *v = json_object_get(json_object_get(version_json, component), "version");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* One component's entry: the library file's own size and SHA-256 stand for the archive's
 * (there is no archive to name); create checks only the list, never downloads these. */
static int component_entry(const char *dir, const struct cuda_lib_info *lib, const char *version,
			   const char *platform, json_t *root, struct cf_err *e)
{
	char *file = xasprintf("%s/%s", dir, lib->file), hex[65], size[32];
	uint8_t digest[32];
	uint64_t bytes = 0;
	int ok = sha256_file(file, digest, &bytes) == 0;
	int rc = ok ? CF_OK : cf_fail(e, CF_SOURCE, "%s: %s", file, strerror(errno));
	free(file);
	if (rc != CF_OK)
		return rc;
	hex_encode(digest, 32, hex);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)bytes);
	char *rel = xasprintf("%s/%s/%s-%s-%s-archive.tar.xz", lib->name, platform, lib->name, platform,
			      version);
	json_t *leaf = json_pack("{s:s, s:s, s:s}", "relative_path", rel, "sha256", hex, "size", size);
	json_t *comp = json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", component_title(lib->name),
				 "license", "CUDA Toolkit", "license_path", "LICENSE.txt", "version",
				 version, platform, leaf);
	json_object_set_new(root, lib->name, comp);
	free(rel);
	return CF_OK;
}

/* The release label: given, else version.json's, else MAJOR.MINOR of the CUDA runtime's
 * wheel (a wheel names no toolkit release: 13.0.96 is CUDA 13.0's runtime). */
static int release_label(const struct cudajson_options *o, json_t *version_json,
			 const struct tree *t, char *out, size_t size, struct cf_err *e)
{
	const char *label = o->release ? o->release : version_of(version_json, "cuda");
	if (!label && t->cuda_hint[0])
		label = t->cuda_hint;
	if (!label)
		return cf_fail(e, CF_SOURCE, "%s: cannot tell its CUDA release (no version.json, no "
			       "nvidia_cuda_runtime wheel metadata in dist-info/): give --release X.Y.Z",
			       o->from_dir);
	if (!*label || strspn(label, "0123456789.") != strlen(label) || strlen(label) >= size)
		return cf_fail(e, CF_USAGE, "--release '%s' is not a CUDA release such as 13.0.2", label);
	snprintf(out, size, "%s", label);
	return CF_OK;
}

int cudajson_write(const struct cudajson_options *o, struct cf_err *e)
{
	static const char *const needed[] = { "libcublas", "cuda_nvrtc" };
	struct tree t;
	memset(&t, 0, sizeof(t));
	if (!io_is_dir(o->from_dir))
		return cf_fail(e, CF_SOURCE, "%s: not a directory", o->from_dir);
	source_cuda_libs(o->from_dir, &t);
	json_t *version_json = load_version_json(o->from_dir);
	const char *platform = o->platform ? o->platform : t.platform;
	const struct cuda_lib_info *libs[2] = { NULL, NULL };
	char label[64] = "";
	int rc = CF_OK;
	for (size_t n = 0; rc == CF_OK && n < 2; n++) {
		for (size_t i = 0; i < t.ncuda_libs; i++)
			if (strcmp(t.cuda_libs[i].name, needed[n]) == 0)
				libs[n] = &t.cuda_libs[i];
		if (!libs[n])
			rc = cf_fail(e, CF_SOURCE, "%s: no %s library with a version (version.json with "
				     "versioned library names, or NVIDIA's wheel metadata in dist-info/)",
				     o->from_dir, needed[n]);
	}
	if (rc == CF_OK)
		rc = release_label(o, version_json, &t, label, sizeof(label), e);
	if (rc == CF_OK && !platform[0])
		rc = cf_fail(e, CF_USAGE, "%s: cannot tell the platform of its libraries: pass --platform",
			     o->from_dir);
	/* The sizes and hashes are this toolkit's files: they describe no other platform's. */
	if (rc == CF_OK && t.platform[0] && strcmp(platform, t.platform) != 0)
		rc = cf_fail(e, CF_USAGE, "%s holds %s libraries, not %s (for another platform, carry "
			     "NVIDIA's own cuda/redist/redistrib_<release>.json in: it lists them all)",
			     o->from_dir, t.platform, platform);
	json_t *root = json_pack("{s:s, s:s, s:s}", "release_label", label, "release_product", "cuda",
				 "cuferry_source", o->from_dir);
	for (size_t n = 0; rc == CF_OK && n < 2; n++) {
		const char *version = version_of(version_json, needed[n]);
		rc = component_entry(o->from_dir, libs[n], version ? version : libs[n]->version, platform,
				     root, e);
	}
	char *dir = xasprintf("%s/cuda/redist", o->out);
	char *path = xasprintf("%s/redistrib_%s.json", dir, label);
	char *text = rc == CF_OK ? json_dumps(root, JSON_INDENT(4) | JSON_PRESERVE_ORDER) : NULL;
	if (rc == CF_OK && (io_mkdirs(dir, 0755) != 0 ||
			    io_write_file_atomic(path, text, strlen(text), 0644) != 0))
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
	char real[PATH_MAX];
	if (rc == CF_OK && !realpath(o->out, real))
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", o->out, strerror(errno));
	if (rc == CF_OK) {
		log_out("wrote %s (CUDA %s, %s", path, label, platform);
		for (size_t n = 0; n < 2; n++)
			log_out(", %s %s", needed[n],
				json_string_value(json_object_get(json_object_get(root, needed[n]), "version")));
		log_out(")\nuse it: bundler create ... --mirror file://%s (or CUFERRY_MIRROR=file://%s)\n",
			real, real);
	}
	free(text);
	free(path);
	free(dir);
	json_decref(root);
	json_decref(version_json);
	tree_free(&t);
	return rc;
}
