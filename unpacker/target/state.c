/* state.c - the unpacker's persistent memory, written atomically */
#include "unpacker/target/state.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "manifests/compat.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "unpacker/target/layout.h"

#define STATE_FORMAT "cuferry-state-1"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void bundle_free(struct state_bundle *b)
{
	free(b->id);
	free(b->dir);
	free(b->version);
	free(b->cuda_variant);
	free(b->created);
	free(b->installed_at);
}

void state_free(struct state *s)
{
	for (size_t i = 0; i < s->nbundles; i++)
		bundle_free(&s->bundles[i]);
	for (size_t i = 0; i < s->nseen; i++)
		free(s->seen[i].id);
	free(s->bundles);
	free(s->seen);
	free(s->product);
	free(s->current);
	free(s->newest_created);
	memset(s, 0, sizeof(*s));
}

static int read_bundles(json_t *arr, struct state *s)
{
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o) {
		json_t *counter = json_object_get(o, "counter");
		if (!get_str(o, "id") || !get_str(o, "dir") || !json_is_integer(counter))
			return -1;
		struct state_bundle b = { .id = (char *)get_str(o, "id"), .dir = (char *)get_str(o, "dir"),
					  .version = (char *)get_str(o, "version"),
					  .cuda_variant = (char *)get_str(o, "cuda_variant"),
					  .created = (char *)get_str(o, "created"),
					  .installed_at = (char *)get_str(o, "installed_at"),
					  .counter = (uint64_t)json_integer_value(counter) };
		state_record(s, &b);
	}
	return 0;
}

int state_load(const char *path, struct state *s, struct cf_err *e)
{
	json_error_t jerr;
	memset(s, 0, sizeof(*s));
	char *text;
	size_t len;
	int r = io_read_file_nofollow(path, 16 << 20, &text, &len);
	if (r != 0)
		return errno == ENOENT ? CF_OK : cf_fail(e, CF_INSTALL, "%s: cannot read", path);
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	json_t *bundles = json_object_get(root, "bundles"), *seen = json_object_get(root, "seen");
	const char *id;
	json_t *v;
	const char *format = get_str(root, "format");
	if (!json_is_object(root) || !json_is_array(bundles) || !json_is_object(seen) || !format ||
	    strcmp(format, STATE_FORMAT) != 0) {
		json_decref(root);
		return cf_fail(e, CF_INSTALL, "%s is damaged; nothing was changed (restore it or move "
			       "it away to start afresh)", path);
	}
	/* Counters seen first: an installed bundle's counter never lowers what was seen. */
	json_object_foreach(seen, id, v) {
		if (!json_is_integer(v))
			continue;
		s->seen = xrealloc(s->seen, (s->nseen + 1) * sizeof(*s->seen));
		s->seen[s->nseen++] = (struct state_seen){ xstrdup(id), (uint64_t)json_integer_value(v) };
	}
	s->newest_created = dup_or_null(get_str(root, "newest_created"));
	if (read_bundles(bundles, s) != 0) {
		json_decref(root);
		state_free(s);
		return cf_fail(e, CF_INSTALL, "%s is damaged; nothing was changed (restore it or move "
			       "it away to start afresh)", path);
	}
	s->current = dup_or_null(get_str(root, "current"));
	s->product = dup_or_null(get_str(root, "product"));
	json_decref(root);
	return CF_OK;
}

int state_save(const char *path, const struct state *s, struct cf_err *e)
{
	json_t *bundles = json_array(), *seen = json_object();
	for (size_t i = 0; i < s->nbundles; i++) {
		const struct state_bundle *b = &s->bundles[i];
		json_array_append_new(bundles, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:I}", "id", b->id,
							 "dir", b->dir, "version", b->version,
							 "cuda_variant", b->cuda_variant, "created",
							 b->created, "installed_at", b->installed_at,
							 "counter", (json_int_t)b->counter));
	}
	for (size_t i = 0; i < s->nseen; i++)
		json_object_set_new(seen, s->seen[i].id, json_integer((json_int_t)s->seen[i].counter));
	json_t *root = json_pack("{s:s, s:s?, s:s?, s:s?, s:o, s:o}", "format", STATE_FORMAT,
				 "product", s->product, "current", s->current, "newest_created",
				 s->newest_created, "bundles", bundles, "seen", seen);
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(root);
	int rc = io_write_file_atomic(path, text, strlen(text), 0644) == 0
			 ? CF_OK
			 : cf_fail(e, CF_INSTALL, "%s: %s", path, platform_strerror(errno));
	free(text);
	return rc;
}

struct state_bundle *state_find(const struct state *s, const char *dir_or_id)
{
	for (size_t i = 0; i < s->nbundles; i++)
		if (strcmp(s->bundles[i].dir, dir_or_id) == 0 || strcmp(s->bundles[i].id, dir_or_id) == 0)
			return &s->bundles[i];
	return NULL;
}

int state_seen_counter(const struct state *s, const char *id, uint64_t *counter)
{
	for (size_t i = 0; i < s->nseen; i++)
		if (strcmp(s->seen[i].id, id) == 0) {
			*counter = s->seen[i].counter;
			return 1;
		}
	*counter = 0;
	return 0;
}

void state_record(struct state *s, const struct state_bundle *b)
{
	state_remove(s, b->dir);
	s->bundles = xrealloc(s->bundles, (s->nbundles + 1) * sizeof(*s->bundles));
	struct state_bundle *d = &s->bundles[s->nbundles++];
	*d = (struct state_bundle){ xstrdup(b->id), xstrdup(b->dir), dup_or_null(b->version),
				    dup_or_null(b->cuda_variant), dup_or_null(b->created),
				    dup_or_null(b->installed_at), b->counter };
	uint64_t old;
	int found = state_seen_counter(s, b->id, &old);
	if (!found) {
		s->seen = xrealloc(s->seen, (s->nseen + 1) * sizeof(*s->seen));
		s->seen[s->nseen++] = (struct state_seen){ xstrdup(b->id), b->counter };
	} else if (b->counter > old) {
		for (size_t i = 0; i < s->nseen; i++)
			if (strcmp(s->seen[i].id, b->id) == 0)
				s->seen[i].counter = b->counter;
	}
	/* Compared as times: a string order is right only for the one zero-padded form. */
	if (b->created && (!s->newest_created ||
			   manifest_parse_time(b->created) > manifest_parse_time(s->newest_created))) {
		free(s->newest_created);
		s->newest_created = xstrdup(b->created);
	}
}

void state_remove(struct state *s, const char *dir)
{
	for (size_t i = 0; dir && i < s->nbundles; i++)
		if (strcmp(s->bundles[i].dir, dir) == 0) {
			bundle_free(&s->bundles[i]);
			memmove(&s->bundles[i], &s->bundles[i + 1],
				(s->nbundles - i - 1) * sizeof(*s->bundles));
			s->nbundles--;
			return;
		}
}

void state_set_current(struct state *s, const char *dir)
{
	free(s->current);
	s->current = dup_or_null(dir);
}

char *state_current_install(const char *root, const char *prefix_sys)
{
	char *path = layout_state_of(root, prefix_sys), *dir = NULL;
	struct state s;
	struct cf_err ignored = { 0 };
	if (state_load(path, &s, &ignored) == CF_OK) {
		if (s.current)
			dir = !platform_self()->links_allowed ? layout_install_sys(prefix_sys, s.current)
							      : layout_current_sys(prefix_sys, '/');
		state_free(&s);
	}
	free(path);
	return dir;
}

void state_set_product(struct state *s, const struct product *p)
{
	free(s->product);
	s->product = xstrdup(p->name);
}

int state_check_product(const struct state *s, const struct product *p, const char *prefix,
			struct cf_err *e)
{
	const struct product *held = s->product ? product_find(s->product) : product_default();
	if (s->nbundles == 0 || held == p)
		return CF_OK;
	if (!held) /* a name this unpacker does not know: written by a newer one */
		return cf_fail(e, CF_INCOMPATIBLE, "%s holds the product '%s', which this unpacker "
			       "does not know: a prefix holds one product; give another --prefix", prefix,
			       s->product);
	return cf_fail(e, CF_INCOMPATIBLE, "%s holds %s, not %s: a prefix holds one product "
		       "(--product %s acts on it; %s goes to another --prefix)", prefix,
		       held->display, p->display, held->name, p->display);
}
