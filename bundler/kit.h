/* kit.h - bundler kit: everything a site needs on a stick (bundles for a matrix, an unpacker
 * per platform in a signed container, SHA256SUMS and its signature, the signed index with its
 * validity, README.txt), split for the stick's file system, written under a temporary name,
 * flushed and read back from the device before it gets its name */
#ifndef BUNDLER_KIT_H
#define BUNDLER_KIT_H

#include <stddef.h>
#include <stdint.h>

#include "bundler/create.h"
#include "common/bundle/format.h"
#include "common/err.h"

#define KIT_MAX_INPUTS 64
#define KIT_DEFAULT_VALID_DAYS 90
#define KIT_STATEMENT_NAME FRAME_STATEMENT_KIT_FILE /* the name install DIR looks for */

struct kit_options {
	const char *out;
	const char *bundles[KIT_MAX_INPUTS];   /* --bundle: already built and signed */
	size_t nbundles;
	const char *unpackers[KIT_MAX_INPUTS]; /* --unpacker P=PATH (or PATH for this platform) */
	size_t nunpackers;
	const char *no_unpacker;               /* --no-unpacker P[,P]: bring those yourself */
	const char *cuda_list;                 /* --cuda 12,13 (matrix) */
	const char *platform_list;             /* --platform a,b (matrix) */
	struct create_options create;          /* --product, --product-version, --key, ... */
	uint64_t split;                        /* --split; 0: what the file system needs */
	const char *keys[8];                   /* --key: sign SHA256SUMS, the index, the unpackers */
	size_t nkeys;
	int valid_days;                        /* --valid-days; 0: KIT_DEFAULT_VALID_DAYS */
	const char *statement;                 /* --statement FILE: a trust statement to carry */
	int progress;
};

int kit_make(const struct kit_options *o, struct cf_err *e);
/* The largest file the file system of statfs type f_type takes (0: no limit that matters),
 * and its name for messages. */
uint64_t kit_split_for_fs(long f_type, const char **name);

#endif
