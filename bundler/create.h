/* create.h - bundler create and resolve: from a source to one signed, checked bundle */
#ifndef BUNDLER_CREATE_H
#define BUNDLER_CREATE_H

#include <stddef.h>
#include <stdint.h>

#include "bundler/members.h"
#include "common/err.h"

#define CREATE_MAX_ADD_FILES 16

/* How far ahead of this host's clock created (and a counter taken from it) may be: a day.
 * Further, one typo in SOURCE_DATE_EPOCH makes a bundle every unpacker refuses. */
#define CREATE_FUTURE_GRACE_S 86400

struct product;

/* At most this many --with products in one unit. */
#define CREATE_MAX_WITH MANIFEST_MAX_MEMBERS

struct create_options {
	/* --product NAME (product_name; NULL: the default product), selected by
	 * verbs.c (select_product) before anything else: never NULL after it. */
	const char *product_name;
	const struct product *product;
	/* --product-version VER, or an alias of it that names the product whose version it is
	 * (version_alias_of: that product's name; NULL for --product-version). */
	const char *version;
	const char *version_alias_of;
	const char *cuda;
	const char *platform;
	const char *key_path;
	const char *out;
	const char *mirror;
	int mirror_given;
	int offline; /* --offline: never the network; only file:// mirrors are read */
	const char *from_archive;
	const char *from_dir;
	int with_cuda_libs;
	uint64_t counter;
	int has_counter;
	int expires_days; /* < 0: never */
	int allow_future; /* --allow-future: a created (SOURCE_DATE_EPOCH) over a day ahead */
	int level;
	int threads;
	uint64_t split;
	int sfx;
	const char *sfx_stub; /* --unpacker PATH, or NULL: stub_find looks */
	const char *cache;
	int progress;
	/* --add-file FILE (repeatable): extra files the user supplies, packed under bin/ (Windows)
	 * or lib/ (Linux), such as zlibwapi.dll */
	const char *add_files[CREATE_MAX_ADD_FILES];
	size_t nadd_files;
	/* the unit's other products, in the order given (the manifest sorts them) */
	struct create_member with[CREATE_MAX_WITH];
	size_t nwith;
};

int create_bundle(const struct create_options *o, struct cf_err *e);
/* What create would fetch from the mirror, printed; nothing is downloaded. */
int create_resolve(const struct create_options *o, struct cf_err *e);
/* Whether the mirror has what create would fetch for these options (resolve, silently):
 * nothing is downloaded. */
int create_check_mirror(const struct create_options *o, struct cf_err *e);
/* The download cache: given, else $XDG_CACHE_HOME/cuferry or ~/.cache/cuferry. */
char *create_cache_dir(const char *given);
/* In the id and file name of a bundle that carries the CUDA libraries (--with-cuda-libs), so
 * that it never takes the name of the bundle without them. */
#define CREATE_CUDA_LIBS_TAG "-cudalibs"

#endif
