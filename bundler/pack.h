/* pack.h - the payload: a deterministic pax tar, compressed by libzstd, hashed per chunk */
#ifndef BUNDLER_PACK_H
#define BUNDLER_PACK_H

#include "bundler/source.h"
#include "common/err.h"
#include "manifests/manifest.h"

#define PACK_DEFAULT_LEVEL 9
#define PACK_WINDOW_LOG 27

struct pack_options {
	int level;
	int threads;
	int progress;
};

/* Writes the compressed payload to out_fd and fills m->files (sorted, with sizes and
 * SHA-256 computed while streaming) and m->payload. Entries' mtime is m->source_date_epoch. */
int pack_payload(const struct tree *t, struct manifest *m, const struct pack_options *o,
		 int out_fd, struct cf_err *e);

#endif
