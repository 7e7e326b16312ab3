/* kitindex.c - the kit's signed index: its JSON, its signature file and the digest signed */
#include "manifests/kitindex.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "manifests/pathrule.h"

char *kitindex_encode(const struct kitindex *x, size_t *len)
{
	char created[32], until[32], hex[65];
	manifest_format_time(x->created, created);
	manifest_format_time(x->valid_until, until);
	json_t *files = json_array();
	for (size_t i = 0; i < x->nfiles; i++) {
		hex_encode(x->files[i].sha256, 32, hex);
		json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", x->files[i].path,
						       "size", (json_int_t)x->files[i].size, "sha256", hex));
	}
	json_t *o = json_pack("{s:s, s:s, s:s, s:o}", "format", KITINDEX_FORMAT, "created", created,
			      "valid_until", until, "files", files);
	char *text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		return NULL;
	/* One line per file and a final newline: readable with cat, diffable. */
	size_t n = strlen(text);
	char *out = xmalloc(n + 2);
	memcpy(out, text, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(text);
	*len = n + 1;
	return out;
}

static int parse_file(json_t *f, struct kitindex_file *out, struct cf_err *e)
{
	const char *path = NULL, *hex = NULL;
	json_int_t size = -1;
	char why[128];
	if (!json_is_object(f) || json_unpack(f, "{s:s, s:I, s:s}", "path", &path, "size", &size,
					      "sha256", &hex) != 0 || json_object_size(f) != 3)
		return cf_fail(e, CF_INTEGRITY, "kit index: a file entry is not {path, size, sha256}");
	if (path_check(path, why, sizeof(why)) != 0)
		return cf_fail(e, CF_INTEGRITY, "kit index: path: %s", why);
	if (size < 0)
		return cf_fail(e, CF_INTEGRITY, "kit index: %s: a negative size", path);
	if (strlen(hex) != 64 || hex_decode(hex, out->sha256, 32) != 0)
		return cf_fail(e, CF_INTEGRITY, "kit index: %s: sha256 is not 64 hex digits", path);
	out->path = xstrdup(path);
	out->size = (uint64_t)size;
	return CF_OK;
}

int kitindex_parse(const char *json, size_t len, struct kitindex *x, struct cf_err *e)
{
	memset(x, 0, sizeof(*x));
	json_error_t jerr;
	json_t *o = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *format = NULL, *created = NULL, *until = NULL;
	json_t *files = NULL;
	int rc = CF_OK;
	if (!o)
		rc = cf_fail(e, CF_INTEGRITY, "kit index: not JSON (%s, line %d)", jerr.text, jerr.line);
	else if (json_unpack(o, "{s:s, s:s, s:s, s:o}", "format", &format, "created", &created,
			     "valid_until", &until, "files", &files) != 0 || !json_is_array(files))
		rc = cf_fail(e, CF_INTEGRITY, "kit index: format, created, valid_until or files missing");
	else if (strcmp(format, KITINDEX_FORMAT) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "kit index: format '%.40s' is not %s (a newer bundler "
			     "wrote it?)", format, KITINDEX_FORMAT);
	else if ((x->created = manifest_parse_time(created)) < 0 ||
		 (x->valid_until = manifest_parse_time(until)) < 0)
		rc = cf_fail(e, CF_INTEGRITY, "kit index: created or valid_until is not YYYY-MM-DDTHH:MM:SSZ");
	else if (x->valid_until < x->created)
		rc = cf_fail(e, CF_INTEGRITY, "kit index: valid_until is before created");
	else if (json_array_size(files) > KITINDEX_MAX_FILES)
		rc = cf_fail(e, CF_INTEGRITY, "kit index: more than %d files", KITINDEX_MAX_FILES);
	size_t n = rc == CF_OK ? json_array_size(files) : 0;
	x->files = xcalloc(n ? n : 1, sizeof(*x->files));
	for (size_t i = 0; rc == CF_OK && i < n; i++) {
		rc = parse_file(json_array_get(files, i), &x->files[i], e);
		if (rc == CF_OK)
			x->nfiles++;
		for (size_t j = 0; rc == CF_OK && j < i; j++)
			if (path_casecmp(x->files[j].path, x->files[i].path) == 0)
				rc = cf_fail(e, CF_INTEGRITY, "kit index: %s listed twice", x->files[i].path);
	}
	json_decref(o);
	if (rc != CF_OK)
		kitindex_free(x);
	return rc;
}

void kitindex_free(struct kitindex *x)
{
	for (size_t i = 0; i < x->nfiles; i++)
		free(x->files[i].path);
	free(x->files);
	memset(x, 0, sizeof(*x));
}

const struct kitindex_file *kitindex_find(const struct kitindex *x, const char *path)
{
	for (size_t i = 0; i < x->nfiles; i++)
		if (strcmp(x->files[i].path, path) == 0)
			return &x->files[i];
	return NULL;
}

void kitindex_digest(const uint8_t *index, size_t len, uint8_t digest[32])
{
	uint8_t m[40];
	memcpy(m, KITINDEX_SIG_TAG, 8);
	sha256_buf(index, len, m + 8);
	sha256_buf(m, sizeof(m), digest);
}

uint8_t *kitindex_sig_encode(const struct frame_sig *sigs, uint32_t nsigs, size_t *len)
{
	*len = 8 + frame_sigs_size(sigs, nsigs);
	uint8_t *out = xmalloc(*len);
	memcpy(out, KITINDEX_SIG_TAG, 8);
	frame_put_sigs(out + 8, sigs, nsigs);
	return out;
}

int kitindex_sig_parse(const uint8_t *data, size_t len, struct frame_sig *sigs, uint32_t *nsigs,
		       struct cf_err *e)
{
	if (len < 8 || len > KITINDEX_SIG_MAX || memcmp(data, KITINDEX_SIG_TAG, 8) != 0)
		return cf_fail(e, CF_TRUST, "%s: not a kit signature (tag %s missing)",
			       KITINDEX_SIG_NAME, KITINDEX_SIG_TAG);
	const uint8_t *p = data + 8, *end = data + len;
	int rc = frame_parse_sigs(&p, end, sigs, nsigs, e);
	if (rc == CF_OK && p != end)
		rc = cf_fail(e, CF_TRUST, "%s: %zu unexpected bytes after the signatures",
			     KITINDEX_SIG_NAME, (size_t)(end - p));
	return rc;
}
