/* state.h - PREFIX/.cuferry/state.json: installed bundles, counters seen, which is current */
#ifndef UNPACKER_STATE_H
#define UNPACKER_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct product;

struct state_bundle {
	char *id;      /* bundle_id */
	char *dir;     /* directory under PREFIX */
	char *version;
	char *cuda_variant;
	char *created;
	char *installed_at;
	uint64_t counter;
};

struct state_seen {
	char *id;
	uint64_t counter;
};

struct state {
	char *product;        /* the product the prefix holds (a registry name); NULL in a state
			       * written before products were named: the default product's */
	char *current;        /* dir name, or NULL */
	char *newest_created; /* the latest `created` ever installed: the clock must not be earlier */
	struct state_bundle *bundles;
	size_t nbundles;
	struct state_seen *seen; /* highest counter per bundle_id, kept after uninstall (replay) */
	size_t nseen;
};

/* A missing file is an empty state; a damaged one is an error (CF_INSTALL). */
int state_load(const char *path, struct state *s, struct cf_err *e);
int state_save(const char *path, const struct state *s, struct cf_err *e);
void state_free(struct state *s);
struct state_bundle *state_find(const struct state *s, const char *dir_or_id);
/* The highest counter seen for a bundle id; 0 when never seen (returns 0/1 found). */
int state_seen_counter(const struct state *s, const char *id, uint64_t *counter);
void state_record(struct state *s, const struct state_bundle *b);
void state_remove(struct state *s, const char *dir);
void state_set_current(struct state *s, const char *dir);
/* The prefix now holds product p (an install records it). */
void state_set_product(struct state *s, const struct product *p);
/* A prefix holds one product: CF_OK when the state's installs are of p (or there are none);
 * else CF_INCOMPATIBLE with a reason naming the product the prefix (as shown: prefix) holds. */
int state_check_product(const struct state *s, const struct product *p, const char *prefix,
			struct cf_err *e);
/* Where the current install is, as the system sees it, for every reader of "current"
 * (validate, doctor, env): PREFIX/current (the link) on POSIX; on Windows, which has no link,
 * PREFIX\DIR with DIR from state.json. NULL when nothing is current (or the state cannot be
 * read). prefix_sys as the system sees it, root "" or --root. Free it. */
char *state_current_install(const char *root, const char *prefix_sys);

#endif
