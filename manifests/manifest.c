/* manifest.c - the bundle manifest: model, deterministic writer, strict reader */
#include "manifests/manifest.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/pathrule.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "manifests/shadow.h"

struct manifest *manifest_new(void)
{
	struct manifest *m = xcalloc(1, sizeof(*m));
	m->chunk_size = 1u << 20;
	return m;
}

static void strings_free(struct manifest_strings *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->items[i]);
	free(s->items);
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	char **fields[] = { &m->bundle_id, &m->created, &m->expires, &m->platform,
			    &m->product_version, &m->cuda_variant, &m->source_kind, &m->source_name,
			    &m->cuda_release, &m->driver_min, &m->cc_min, &m->glibc_min,
			    &m->windows_min };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		free(*fields[i]);
	for (size_t i = 0; i < m->ncomponents; i++) {
		free(m->components[i].name);
		free(m->components[i].version);
		free(m->components[i].relative_path);
	}
	free(m->components);
	for (size_t i = 0; i < m->nmembers; i++) {
		free(m->members[i].version);
		free(m->members[i].source_kind);
		free(m->members[i].source_name);
	}
	free(m->members);
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].path);
		free(m->files[i].target);
	}
	free(m->files);
	free(m->chunks);
	free(m->frames);
	strings_free(&m->env_path);
	strings_free(&m->env_ld_library_path);
	free(m);
}

void manifest_set(char **field, const char *value)
{
	free(*field);
	*field = value ? xstrdup(value) : NULL;
}

static struct manifest_file *file_append(struct manifest *m)
{
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
	struct manifest_file *f = &m->files[m->nfiles++];
	memset(f, 0, sizeof(*f));
	return f;
}

void manifest_add_file(struct manifest *m, const char *path, uint64_t size, unsigned mode,
		       const uint8_t sha256[32])
{
	struct manifest_file *f = file_append(m);
	f->path = xstrdup(path);
	f->type = MF_FILE;
	f->size = size;
	f->mode = mode;
	memcpy(f->sha256, sha256, 32);
}

void manifest_add_symlink(struct manifest *m, const char *path, const char *target)
{
	struct manifest_file *f = file_append(m);
	f->path = xstrdup(path);
	f->type = MF_SYMLINK;
	f->target = xstrdup(target);
}

void manifest_add_component(struct manifest *m, const struct manifest_component *c)
{
	m->components = xrealloc(m->components, (m->ncomponents + 1) * sizeof(*m->components));
	struct manifest_component *d = &m->components[m->ncomponents++];
	*d = *c;
	d->name = xstrdup(c->name);
	d->version = xstrdup(c->version ? c->version : "");
	d->relative_path = c->relative_path ? xstrdup(c->relative_path) : NULL;
}

void manifest_strings_add(struct manifest_strings *s, const char *value)
{
	s->items = xrealloc(s->items, (s->count + 1) * sizeof(*s->items));
	s->items[s->count++] = xstrdup(value);
}

void manifest_sort_files(struct manifest *m)
{
	entry_sort(m->files, m->nfiles);
}

const struct manifest_file *manifest_find(const struct manifest *m, const char *path)
{
	return entry_find(m->files, m->nfiles, path);
}

char *manifest_install_name(const struct manifest *m)
{
	char *name = xasprintf("%s%s-cuda%s", m->product->install_stem, m->product_version,
			       m->cuda_variant);
	for (size_t i = 0; i < m->nmembers; i++) {
		char *longer = xasprintf("%s+%s%s", name, m->members[i].product->install_stem,
					 m->members[i].version ? m->members[i].version : "");
		free(name);
		name = longer;
	}
	return name;
}

void manifest_add_member(struct manifest *m, const struct manifest_member *mem)
{
	size_t at = 0;
	while (at < m->nmembers && strcmp(m->members[at].product->name, mem->product->name) < 0)
		at++;
	m->members = xrealloc(m->members, (m->nmembers + 1) * sizeof(*m->members));
	memmove(&m->members[at + 1], &m->members[at], (m->nmembers - at) * sizeof(*m->members));
	struct manifest_member *c = &m->members[at];
	*c = *mem;
	c->version = mem->version ? xstrdup(mem->version) : NULL;
	c->source_kind = mem->source_kind ? xstrdup(mem->source_kind) : NULL;
	c->source_name = mem->source_name ? xstrdup(mem->source_name) : NULL;
	m->nmembers++;
}

int manifest_format(const struct manifest *m)
{
	return m->nmembers ? 2 : 1;
}

const char *manifest_format_name(const struct manifest *m)
{
	_Static_assert(BUNDLE_FORMAT_WRITTEN == 1, "format 2 is 1 with members");
	return m->nmembers ? BUNDLE_FORMAT_PREFIX "2" : MANIFEST_FORMAT;
}

size_t manifest_product_count(const struct manifest *m)
{
	return 1 + m->nmembers;
}

const struct product *manifest_product_at(const struct manifest *m, size_t i)
{
	return i == 0 ? m->product : m->members[i - 1].product;
}

const char *manifest_product_version_at(const struct manifest *m, size_t i)
{
	return i == 0 ? m->product_version : m->members[i - 1].version;
}

int64_t manifest_parse_time(const char *iso)
{
	/* Exactly YYYY-MM-DDTHH:MM:SSZ, zero-padded, and a real date: strptime alone takes
	 * "2026-1-5T3:4:5Z", which then sorts wrongly as a string. */
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	if (!iso || strlen(iso) != sizeof(shape) - 1)
		return -1;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)iso[i]) : iso[i] != shape[i])
			return -1;
	int64_t t;
	if (platform_parse_utc(iso, &t) != 0)
		return -1;
	char back[32];
	manifest_format_time(t, back);
	return strcmp(back, iso) == 0 ? t : -1; /* 2026-02-30 or 25:00 do not come back the same */
}

int manifest_version_compare(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long long x = strtoull(a, (char **)&a, 10), y = strtoull(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		a += *a == '.';
		b += *b == '.';
	}
	return 0;
}

/* Digits separated by single dots: "9.19.0.56", "13". */
static int dotted_number(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > max || s[0] == '.' || s[n - 1] == '.' || strstr(s, ".."))
		return 0;
	for (size_t i = 0, run = 0; i < n; i++) {
		run = s[i] == '.' ? 0 : run + 1;
		if ((s[i] != '.' && !isdigit((unsigned char)s[i])) || run > 9)
			return 0;
	}
	return 1;
}

void manifest_format_time(int64_t t, char out[32])
{
	struct tm tm;
	platform_utc_time(t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- validation ---- */

static int dir_of_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? (int)(slash - path) : 0;
}

/* A symlink's target must be a sibling file, possibly through other sibling links. */
static int check_symlink(const struct manifest *m, const struct manifest_file *f,
			 struct cf_err *e)
{
	char why[160];
	const struct manifest_file *cur = f;
	for (int depth = 0; depth < 8; depth++) {
		if (path_check_component(cur->target, strlen(cur->target), why, sizeof(why)) != 0)
			return cf_fail(e, CF_INTEGRITY, "symlink '%s': target '%s': %s", f->path,
				       cur->target, why);
		int dlen = dir_of_len(cur->path);
		char *full = dlen ? xasprintf("%.*s/%s", dlen, cur->path, cur->target)
				  : xstrdup(cur->target);
		const struct manifest_file *next = manifest_find(m, full);
		free(full);
		if (!next)
			return cf_fail(e, CF_INTEGRITY,
				       "symlink '%s': target '%s' is not a file of the bundle",
				       f->path, cur->target);
		if (next->type == MF_FILE)
			return CF_OK;
		cur = next;
	}
	return cf_fail(e, CF_INTEGRITY, "symlink '%s': chain too long or circular", f->path);
}

static int casecmp_ptr(const void *a, const void *b)
{
	return path_casecmp(*(const char *const *)a, *(const char *const *)b);
}

static int check_files(const struct manifest *m, struct cf_err *e)
{
	char why[160];
	if (m->nfiles == 0 || m->nfiles > MANIFEST_MAX_FILES)
		return cf_fail(e, CF_INTEGRITY, "manifest lists %zu files", m->nfiles);
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct manifest_file *f = &m->files[i];
		if (path_check(f->path, why, sizeof(why)) != 0)
			return cf_fail(e, CF_INTEGRITY, "unsafe path '%s': %s", f->path, why);
		if (path_casecmp(f->path, MANIFEST_META_DIR) == 0 ||
		    (strncasecmp(f->path, MANIFEST_META_DIR, strlen(MANIFEST_META_DIR)) == 0 &&
		     f->path[strlen(MANIFEST_META_DIR)] == '/'))
			return cf_fail(e, CF_INTEGRITY, "'%s': " MANIFEST_META_DIR " is the unpacker's own "
				       "directory", f->path);
		if (shadow_is_system_library(f->path))
			return cf_fail(e, CF_INTEGRITY, "'%s' is the distribution's own library: installed "
				       "first in the loader's search it would replace the system's for every "
				       "program; a bundle may not carry it", f->path);
		if (i > 0 && strcmp(m->files[i - 1].path, f->path) >= 0)
			return cf_fail(e, CF_INTEGRITY, "files not sorted or duplicated at '%s'",
				       f->path);
		if (f->type == MF_FILE && f->mode != 0644 && f->mode != 0755)
			return cf_fail(e, CF_INTEGRITY, "file '%s': mode %04o not allowed", f->path,
				       f->mode);
	}
	/* Case-insensitive duplicates and a file used as a directory: one sorted pass each. */
	char **folded = xcalloc(m->nfiles, sizeof(*folded));
	int rc = CF_OK;
	for (size_t i = 0; i < m->nfiles; i++)
		folded[i] = m->files[i].path;
	qsort(folded, m->nfiles, sizeof(*folded), casecmp_ptr);
	for (size_t i = 1; i < m->nfiles && rc == CF_OK; i++)
		if (path_casecmp(folded[i - 1], folded[i]) == 0)
			rc = cf_fail(e, CF_INTEGRITY, "paths '%s' and '%s' differ only in case",
				     folded[i - 1], folded[i]);
	free(folded);
	for (size_t i = 0; i + 1 < m->nfiles && rc == CF_OK; i++) {
		size_t n = strlen(m->files[i].path);
		for (size_t j = i + 1; j < m->nfiles; j++) {
			if (strncmp(m->files[j].path, m->files[i].path, n) != 0)
				break;
			if (m->files[j].path[n] == '/') {
				rc = cf_fail(e, CF_INTEGRITY, "'%s' is a file and a directory",
					     m->files[i].path);
				break;
			}
		}
	}
	/* Windows bundles carry no links (DESIGN §6): the unpacker could not make one there and
	 * would find out only half way through the payload. */
	int linkless = !platform_facts(m->platform)->links_allowed;
	for (size_t i = 0; i < m->nfiles && rc == CF_OK; i++)
		if (m->files[i].type == MF_SYMLINK)
			rc = linkless ? cf_fail(e, CF_INTEGRITY, "symlink '%s' in a %s bundle "
						"(Windows bundles carry no links)",
						m->files[i].path, m->platform)
				      : check_symlink(m, &m->files[i], e);
	return rc;
}

int manifest_validate(const struct manifest *m, struct cf_err *e)
{
	if (!m->product)
		return cf_fail(e, CF_INTEGRITY, "the manifest names no product");
	if (!platform_find(m->platform))
		return cf_fail(e, CF_INTEGRITY, "unknown platform '%s'",
			       m->platform ? m->platform : "");
	if (!m->bundle_id || !*m->bundle_id || !m->product_version || !m->cuda_variant)
		return cf_fail(e, CF_INTEGRITY, "bundle_id, %s.version and cuda_variant are required",
			       m->product->manifest_key);
	char why[160];
	/* Signed is not the same as sane: these fields become names and log text. */
	if (!dotted_number(m->product_version, 32))
		return cf_fail(e, CF_INTEGRITY, "%s.version must be digits separated by dots",
			       m->product->manifest_key);
	if (!dotted_number(m->cuda_variant, 8))
		return cf_fail(e, CF_INTEGRITY, "cuda_variant must be digits separated by dots");
	if (strlen(m->bundle_id) > 128 ||
	    path_check_component(m->bundle_id, strlen(m->bundle_id), why, sizeof(why)) != 0)
		return cf_fail(e, CF_INTEGRITY, "bundle_id is not a plain name of [A-Za-z0-9._+-] "
			       "(at most 128 characters)");
	for (size_t i = 0; i < m->nmembers; i++) {
		const struct manifest_member *w = &m->members[i];
		if (!w->product || w->product == m->product)
			return cf_fail(e, CF_INTEGRITY, "with: a member must be another product than %s",
				       m->product->manifest_key);
		if (i > 0 && strcmp(m->members[i - 1].product->name, w->product->name) >= 0)
			return cf_fail(e, CF_INTEGRITY, "with: %s twice or out of order", w->product->name);
		if (!w->version || !dotted_number(w->version, 32))
			return cf_fail(e, CF_INTEGRITY, "with.%s.version must be digits separated by dots",
				       w->product->manifest_key);
	}
	if (m->nmembers > MANIFEST_MAX_MEMBERS)
		return cf_fail(e, CF_INTEGRITY, "with: more than %d products", MANIFEST_MAX_MEMBERS);
	char *name = manifest_install_name(m);
	int bad = path_check(name, why, sizeof(why));
	free(name);
	if (bad)
		return cf_fail(e, CF_INTEGRITY, "%s version or CUDA variant unusable as a name: %s",
			       m->product->display, why);
	if (!m->created || manifest_parse_time(m->created) < 0)
		return cf_fail(e, CF_INTEGRITY, "created is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
	if (m->expires && manifest_parse_time(m->expires) < 0)
		return cf_fail(e, CF_INTEGRITY, "expires is not a UTC time (YYYY-MM-DDTHH:MM:SSZ)");
	if (m->chunk_size < 4096 || m->chunk_size > (64u << 20))
		return cf_fail(e, CF_INTEGRITY, "chunk_size %u out of range", m->chunk_size);
	uint64_t want = (m->compressed_size + m->chunk_size - 1) / m->chunk_size;
	if (m->compressed_size == 0 || want != m->nchunks)
		return cf_fail(e, CF_INTEGRITY, "%zu chunk hashes for %llu payload bytes", m->nchunks,
			       (unsigned long long)m->compressed_size);
	uint64_t sum = 0;
	for (size_t i = 0; i < m->nfiles; i++)
		sum += m->files[i].type == MF_FILE ? m->files[i].size : 0;
	if (sum > m->uncompressed_size)
		return cf_fail(e, CF_INTEGRITY, "files add up to more than uncompressed_size");
	const struct manifest_strings *envs[] = { &m->env_path, &m->env_ld_library_path };
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < envs[k]->count; i++)
			if (path_check(envs[k]->items[i], why, sizeof(why)) != 0)
				return cf_fail(e, CF_INTEGRITY, "env entry '%s': %s",
					       envs[k]->items[i], why);
	return check_files(m, e);
}

/* ---- writer ---- */

static json_t *json_hex(const uint8_t *d)
{
	char hex[65];
	hex_encode(d, 32, hex);
	return json_string(hex);
}

static json_t *json_strings(const struct manifest_strings *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->count; i++)
		json_array_append_new(a, json_string(s->items[i]));
	return a;
}

static json_t *json_files(const struct manifest *m)
{
	json_t *files = json_array();
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct manifest_file *f = &m->files[i];
		json_t *o = json_object();
		char mode[8];
		json_object_set_new(o, "path", json_string(f->path));
		if (f->type == MF_SYMLINK) {
			json_object_set_new(o, "type", json_string("symlink"));
			json_object_set_new(o, "target", json_string(f->target));
		} else {
			snprintf(mode, sizeof(mode), "%04o", f->mode);
			json_object_set_new(o, "type", json_string("file"));
			json_object_set_new(o, "size", json_integer((json_int_t)f->size));
			json_object_set_new(o, "mode", json_string(mode));
			json_object_set_new(o, "sha256", json_hex(f->sha256));
		}
		json_array_append_new(files, o);
	}
	return files;
}

static json_t *json_components(const struct manifest *m)
{
	json_t *a = json_array();
	for (size_t i = 0; i < m->ncomponents; i++) {
		const struct manifest_component *c = &m->components[i];
		json_t *o = json_pack("{s:s, s:s, s:I, s:b}", "name", c->name, "version", c->version,
				      "size", (json_int_t)c->size, "included", c->included);
		json_object_set_new(o, "sha256", c->has_sha256 ? json_hex(c->sha256) : json_null());
		if (c->relative_path)
			json_object_set_new(o, "relative_path", json_string(c->relative_path));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *json_source(const char *kind, const char *name, uint64_t size, int has_sha256,
			   const uint8_t sha256[32])
{
	json_t *source = json_pack("{s:s, s:s, s:I}", "kind", kind ? kind : "", "name",
				   name ? name : "", "size", (json_int_t)size);
	json_object_set_new(source, "sha256", has_sha256 ? json_hex(sha256) : json_null());
	return source;
}

/* "with": {"nccl": {"version": ..., "source": {...}}}, keyed by each member's manifest_key. */
static json_t *json_members(const struct manifest *m)
{
	json_t *with = json_object();
	for (size_t i = 0; i < m->nmembers; i++) {
		const struct manifest_member *w = &m->members[i];
		json_object_set_new(with, w->product->manifest_key,
				    json_pack("{s:s, s:o}", "version", w->version, "source",
					      json_source(w->source_kind, w->source_name, w->source_size,
							  w->source_has_sha256, w->source_sha256)));
	}
	return with;
}

static json_t *json_frames(const struct manifest *m)
{
	json_t *a = json_array();
	for (size_t i = 0; i < m->nframes; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:I}", "offset",
						   (json_int_t)m->frames[i].offset, "size",
						   (json_int_t)m->frames[i].size, "uncompressed_size",
						   (json_int_t)m->frames[i].uncompressed_size));
	return a;
}

char *manifest_to_json(const struct manifest *m, size_t *len)
{
	json_t *source = json_source(m->source_kind, m->source_name, m->source_size,
				     m->source_has_sha256, m->source_sha256);
	const char *format = manifest_format_name(m);
	json_t *chunks = json_array();
	for (size_t i = 0; i < m->nchunks; i++)
		json_array_append_new(chunks, json_hex(m->chunks[i]));
	json_t *root = json_pack(
		"{s:s, s:s, s:I, s:I, s:s, s:o, s:s,"
		" s:{s:s, s:s, s:o},"
		" s:{s:s?, s:o},"
		" s:{s:s?, s:s?, s:s*, s:s*},"
		" s:{s:I, s:I, s:I, s:o},"
		" s:o, s:{s:o, s:o}}",
		"format", format, "bundle_id", m->bundle_id, "counter",
		(json_int_t)m->counter, "source_date_epoch", (json_int_t)m->source_date_epoch,
		"created", m->created, "expires", m->expires ? json_string(m->expires) : json_null(),
		"platform", m->platform,
		m->product->manifest_key, "version", m->product_version, "cuda_variant",
		m->cuda_variant, "source", source,
		"cuda", "release", m->cuda_release, "components", json_components(m),
		"requires", "driver_min", m->driver_min, "compute_capability_min", m->cc_min,
		"glibc_min", m->glibc_min, "windows_min", m->windows_min,
		"payload", "compressed_size", (json_int_t)m->compressed_size, "uncompressed_size",
		(json_int_t)m->uncompressed_size, "chunk_size", (json_int_t)m->chunk_size,
		"chunk_sha256", chunks,
		"files", json_files(m), "env", "PATH", json_strings(&m->env_path), "LD_LIBRARY_PATH",
		json_strings(&m->env_ld_library_path));
	if (root && m->nmembers)
		json_object_set_new(root, "with", json_members(m));
	if (!root)
		return NULL;
	/* Written only when there is an index: a single-stream payload's manifest stays as it was. */
	if (m->nframes)
		json_object_set_new(json_object_get(root, "payload"), "frames", json_frames(m));
	char *out = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_ENSURE_ASCII);
	json_decref(root);
	if (out && len)
		*len = strlen(out);
	return out;
}

/* ---- strict reader ---- */

struct reader {
	struct cf_err *e;
	const char *where;
};

static json_t *need(struct reader *r, json_t *obj, const char *key, int type)
{
	static const char *const names[] = { "object", "array", "string", "integer", "real",
					     "boolean", "boolean", "null" };
	json_t *v = json_object_get(obj, key);
	if (!v) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s is missing", r->where, key);
		return NULL;
	}
	int t = json_typeof(v);
	int ok = t == type || (type == JSON_TRUE && t == JSON_FALSE);
	if (!ok) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s must be a %s", r->where, key,
			names[type]);
		return NULL;
	}
	return v;
}

static int need_str(struct reader *r, json_t *obj, const char *key, char **out)
{
	json_t *v = need(r, obj, key, JSON_STRING);
	if (!v)
		return -1;
	manifest_set(out, json_string_value(v));
	return 0;
}

/* A string or null. */
static int need_str_or_null(struct reader *r, json_t *obj, const char *key, char **out)
{
	json_t *v = json_object_get(obj, key);
	if (v && json_is_null(v)) {
		manifest_set(out, NULL);
		return 0;
	}
	return need_str(r, obj, key, out);
}

static int need_u64(struct reader *r, json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = need(r, obj, key, JSON_INTEGER);
	if (!v)
		return -1;
	if (json_integer_value(v) < 0) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s must not be negative", r->where, key);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int need_sha(struct reader *r, json_t *obj, const char *key, uint8_t out[32], int *has)
{
	json_t *v = json_object_get(obj, key);
	if (has && v && json_is_null(v)) {
		*has = 0;
		return 0;
	}
	v = need(r, obj, key, JSON_STRING);
	if (!v)
		return -1;
	if (hex_decode(json_string_value(v), out, 32) != 0) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s is not a SHA-256 in hex", r->where, key);
		return -1;
	}
	if (has)
		*has = 1;
	return 0;
}

static int read_strings(struct reader *r, json_t *obj, const char *key,
			struct manifest_strings *s)
{
	json_t *a = need(r, obj, key, JSON_ARRAY), *v;
	size_t i;
	if (!a)
		return -1;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s[%zu] must be a string", r->where,
				key, i);
			return -1;
		}
		manifest_strings_add(s, json_string_value(v));
	}
	return 0;
}

static int read_file_entry(struct reader *r, struct manifest *m, json_t *o, size_t i)
{
	char *path = NULL, *type = NULL, *target = NULL, *mode = NULL;
	char where[48];
	int rc = -1;
	snprintf(where, sizeof(where), "files[%zu].", i);
	r->where = where;
	if (!json_is_object(o)) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: files[%zu] must be an object", i);
		return -1;
	}
	if (need_str(r, o, "path", &path) || need_str(r, o, "type", &type))
		goto out;
	if (strcmp(type, "symlink") == 0) {
		if (need_str(r, o, "target", &target))
			goto out;
		manifest_add_symlink(m, path, target);
	} else if (strcmp(type, "file") == 0) {
		uint64_t size;
		uint8_t sha[32];
		char *end;
		if (need_u64(r, o, "size", &size) || need_str(r, o, "mode", &mode) ||
		    need_sha(r, o, "sha256", sha, NULL))
			goto out;
		unsigned long mv = strtoul(mode, &end, 8);
		/* Four octal digits and nothing else: strtoul alone takes "+755" and " 755". */
		if (*end || strlen(mode) != 4 || strspn(mode, "01234567") != 4) {
			cf_fail(r->e, CF_INTEGRITY, "manifest: %smode '%s' is not octal", where, mode);
			goto out;
		}
		manifest_add_file(m, path, size, (unsigned)mv, sha);
	} else {
		char safe[64];
		snprintf(safe, sizeof(safe), "%s", type);
		cf_fail(r->e, CF_INTEGRITY, "manifest: %stype '%s' is not file or symlink", where,
			safe);
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(type);
	free(target);
	free(mode);
	return rc;
}

static int read_components(struct reader *r, struct manifest *m, json_t *cuda)
{
	json_t *a = need(r, cuda, "components", JSON_ARRAY), *o;
	size_t i;
	if (!a)
		return -1;
	json_array_foreach(a, i, o) {
		struct manifest_component c;
		memset(&c, 0, sizeof(c));
		char where[48];
		snprintf(where, sizeof(where), "cuda.components[%zu].", i);
		r->where = where;
		json_t *inc;
		int rc = !json_is_object(o) || need_str(r, o, "name", &c.name) ||
			 need_str(r, o, "version", &c.version) ||
			 need_u64(r, o, "size", &c.size) ||
			 need_sha(r, o, "sha256", c.sha256, &c.has_sha256) ||
			 !(inc = need(r, o, "included", JSON_TRUE));
		if (!rc) {
			c.included = json_is_true(inc);
			json_t *rp = json_object_get(o, "relative_path");
			if (json_is_string(rp))
				c.relative_path = (char *)json_string_value(rp);
			manifest_add_component(m, &c);
		} else {
			cf_fail(r->e, CF_INTEGRITY, "manifest: cuda.components[%zu] is malformed", i);
		}
		free(c.name);
		free(c.version);
		if (rc)
			return -1;
	}
	return 0;
}

/* payload.frames, which older bundles lack: its shape here; whether it fits the payload is the
 * decoder's check (common/bundle/decode.c), made before any frame is used. */
static int read_frames(struct reader *r, struct manifest *m, json_t *p)
{
	json_t *a = json_object_get(p, "frames"), *o;
	size_t i;
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) == 0) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: payload.frames must be a non-empty array");
		return -1;
	}
	m->nframes = json_array_size(a);
	m->frames = xcalloc(m->nframes, sizeof(*m->frames));
	json_array_foreach(a, i, o) {
		char where[48];
		snprintf(where, sizeof(where), "payload.frames[%zu].", i);
		r->where = where;
		struct payload_frame *f = &m->frames[i];
		if (!json_is_object(o) || need_u64(r, o, "offset", &f->offset) ||
		    need_u64(r, o, "size", &f->size) ||
		    need_u64(r, o, "uncompressed_size", &f->uncompressed_size)) {
			if (!r->e->code)
				cf_fail(r->e, CF_INTEGRITY, "manifest: payload.frames[%zu] is malformed", i);
			return -1;
		}
	}
	return 0;
}

static int read_payload(struct reader *r, struct manifest *m, json_t *p)
{
	uint64_t chunk_size;
	r->where = "payload.";
	json_t *a;
	if (need_u64(r, p, "compressed_size", &m->compressed_size) ||
	    need_u64(r, p, "uncompressed_size", &m->uncompressed_size) ||
	    need_u64(r, p, "chunk_size", &chunk_size) ||
	    !(a = need(r, p, "chunk_sha256", JSON_ARRAY)))
		return -1;
	if (chunk_size == 0 || chunk_size > (64u << 20)) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: payload.chunk_size out of range");
		return -1;
	}
	m->chunk_size = (uint32_t)chunk_size;
	m->nchunks = json_array_size(a);
	m->chunks = xcalloc(m->nchunks, 32);
	for (size_t i = 0; i < m->nchunks; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_string(v) || hex_decode(json_string_value(v), m->chunks[i], 32) != 0) {
			cf_fail(r->e, CF_INTEGRITY, "manifest: payload.chunk_sha256[%zu] is not hex", i);
			return -1;
		}
	}
	return read_frames(r, m, p);
}

/* A field older bundles lack: absent is NULL; present, a dotted version ("2.27"). */
static int optional_version(struct reader *r, json_t *o, const char *key, char **out)
{
	if (!json_object_get(o, key))
		return 0;
	if (need_str(r, o, key, out))
		return -1;
	size_t n = strlen(*out);
	if (n == 0 || n > 15 || strspn(*out, "0123456789.") != n || (*out)[0] == '.') {
		cf_fail(r->e, CF_INTEGRITY, "manifest: %s%s '%s' is not a version", r->where, key, *out);
		return -1;
	}
	return 0;
}

/* "with" (format 2 only): each key a registered product's manifest_key, each value its
 * version and source. */
static int read_members(struct reader *r, struct manifest *m, json_t *root, int format)
{
	json_t *with = json_object_get(root, "with"), *o;
	const char *key;
	if (!with)
		return 0;
	if (format < 2) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: 'with' needs format 2, this one says 1");
		return -1;
	}
	if (!json_is_object(with) || json_object_size(with) == 0 ||
	    json_object_size(with) > MANIFEST_MAX_MEMBERS) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: with must be an object of 1 to %d products",
			MANIFEST_MAX_MEMBERS);
		return -1;
	}
	json_object_foreach(with, key, o) {
		const struct product *p = NULL;
		for (size_t i = 0; i < product_count() && !p; i++)
			if (strcmp(product_at(i)->manifest_key, key) == 0)
				p = product_at(i);
		char where[64], source_where[80];
		snprintf(where, sizeof(where), "with.%.40s.", key);
		snprintf(source_where, sizeof(source_where), "with.%.40s.source.", key);
		if (!p || !json_is_object(o)) {
			cf_fail(r->e, CF_INTEGRITY, "manifest: with.%.40s is not a product this unpacker "
				"knows", key);
			return -1;
		}
		struct manifest_member w = { .product = p };
		json_t *source;
		r->where = where;
		int bad = need_str(r, o, "version", &w.version) ||
			  !(source = need(r, o, "source", JSON_OBJECT));
		r->where = source_where;
		bad = bad || need_str(r, source, "kind", &w.source_kind) ||
		      need_str(r, source, "name", &w.source_name) ||
		      need_u64(r, source, "size", &w.source_size) ||
		      need_sha(r, source, "sha256", w.source_sha256, &w.source_has_sha256);
		if (!bad)
			manifest_add_member(m, &w);
		free(w.version);
		free(w.source_kind);
		free(w.source_name);
		if (bad)
			return -1;
	}
	return 0;
}

/* The product a manifest carries is the registered product whose manifest_key names an
 * object at its top: exactly one, so that a bundle is never read as two products. */
static const struct product *read_product(struct reader *r, json_t *root)
{
	const struct product *found = NULL;
	for (size_t i = 0; i < product_count(); i++) {
		const struct product *p = product_at(i);
		if (!json_object_get(root, p->manifest_key))
			continue;
		if (found) {
			cf_fail(r->e, CF_INTEGRITY, "manifest: names two products, '%s' and '%s'",
				found->manifest_key, p->manifest_key);
			return NULL;
		}
		found = p;
	}
	if (!found)
		cf_fail(r->e, CF_INTEGRITY, "manifest: names no product this unpacker knows");
	return found;
}

static int read_root(struct reader *r, struct manifest *m, json_t *root, int format)
{
	json_t *product, *source, *cuda, *req, *payload, *files, *env, *o;
	size_t i;
	if (!(m->product = read_product(r, root)))
		return -1;
	const char *key = m->product->manifest_key;
	char where[48], source_where[48]; /* "KEY." and "KEY.source." */
	snprintf(where, sizeof(where), "%s.", key);
	snprintf(source_where, sizeof(source_where), "%s.source.", key);
	r->where = "";
	if (need_str(r, root, "bundle_id", &m->bundle_id) ||
	    need_u64(r, root, "counter", &m->counter) ||
	    need_u64(r, root, "source_date_epoch", &m->source_date_epoch) ||
	    need_str(r, root, "created", &m->created) ||
	    need_str_or_null(r, root, "expires", &m->expires) ||
	    need_str(r, root, "platform", &m->platform) ||
	    !(product = need(r, root, key, JSON_OBJECT)) ||
	    !(cuda = need(r, root, "cuda", JSON_OBJECT)) ||
	    !(req = need(r, root, "requires", JSON_OBJECT)) ||
	    !(payload = need(r, root, "payload", JSON_OBJECT)) ||
	    !(files = need(r, root, "files", JSON_ARRAY)) ||
	    !(env = need(r, root, "env", JSON_OBJECT)))
		return -1;
	r->where = where;
	if (need_str(r, product, "version", &m->product_version) ||
	    need_str(r, product, "cuda_variant", &m->cuda_variant) ||
	    !(source = need(r, product, "source", JSON_OBJECT)))
		return -1;
	r->where = source_where;
	if (need_str(r, source, "kind", &m->source_kind) ||
	    need_str(r, source, "name", &m->source_name) ||
	    need_u64(r, source, "size", &m->source_size) ||
	    need_sha(r, source, "sha256", m->source_sha256, &m->source_has_sha256))
		return -1;
	r->where = "cuda.";
	if (need_str_or_null(r, cuda, "release", &m->cuda_release) || read_components(r, m, cuda) ||
	    read_members(r, m, root, format))
		return -1;
	r->where = "requires.";
	if (need_str_or_null(r, req, "driver_min", &m->driver_min) ||
	    need_str_or_null(r, req, "compute_capability_min", &m->cc_min) ||
	    optional_version(r, req, "glibc_min", &m->glibc_min) ||
	    optional_version(r, req, "windows_min", &m->windows_min))
		return -1;
	if (read_payload(r, m, payload))
		return -1;
	if (json_array_size(files) > MANIFEST_MAX_FILES) {
		cf_fail(r->e, CF_INTEGRITY, "manifest: too many files");
		return -1;
	}
	json_array_foreach(files, i, o)
		if (read_file_entry(r, m, o, i))
			return -1;
	r->where = "env.";
	return read_strings(r, env, "PATH", &m->env_path) ||
			       read_strings(r, env, "LD_LIBRARY_PATH", &m->env_ld_library_path)
		       ? -1
		       : 0;
}

int manifest_parse(const char *json, size_t len, struct manifest **out, struct cf_err *e)
{
	json_error_t jerr;
	*out = NULL;
	if (len > MANIFEST_MAX_SIZE)
		return cf_fail(e, CF_INTEGRITY, "manifest larger than %u bytes", MANIFEST_MAX_SIZE);
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES,
				  &jerr);
	if (!root)
		return cf_fail(e, CF_INTEGRITY, "manifest: line %d column %d: %s", jerr.line,
			       jerr.column, jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return cf_fail(e, CF_INTEGRITY, "manifest: not a JSON object");
	}
	json_t *format = json_object_get(root, "format");
	int number = json_is_string(format) ? bundle_format_number(json_string_value(format)) : -1;
	if (!bundle_format_supported(number)) {
		char shown[64] = "";
		if (json_is_string(format))
			snprintf(shown, sizeof(shown), "%s", json_string_value(format));
		json_decref(root);
		return cf_fail(e, CF_INCOMPATIBLE,
			       "bundle format '%s' is not known to this unpacker (expected %s)",
			       shown, MANIFEST_FORMAT);
	}
	struct manifest *m = manifest_new();
	struct reader r = { .e = e, .where = "" };
	int bad = read_root(&r, m, root, number);
	json_decref(root);
	if (bad || manifest_validate(m, e) != CF_OK) {
		manifest_free(m);
		return e->code ? e->code : CF_INTEGRITY;
	}
	*out = m;
	return CF_OK;
}
