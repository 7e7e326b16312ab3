/* pack.h - the payload: a deterministic pax tar, compressed by libzstd in independent frames,
 * hashed per chunk */
#ifndef BUNDLER_PACK_H
#define BUNDLER_PACK_H

#include "bundler/source.h"
#include "common/err.h"
#include "manifests/manifest.h"

#define PACK_DEFAULT_LEVEL 9
#define PACK_WINDOW_LOG 27
/* Tar bytes per zstd frame: frames are independent so that the unpacker decodes several at
 * once; small enough for its memory bound, large enough that the bundle grows by little
 * (docs/formats.md has the measured sizes). */
#define PACK_FRAME_SIZE (8u << 20)

struct pack_options {
	int level;
	int threads;
	int progress;
};

/* Writes the compressed payload to out_fd and fills m->files (sorted, with sizes and
 * SHA-256 computed while streaming) and m->payload (its frame index too). Entries' mtime is m->source_date_epoch. */
int pack_payload(const struct tree *t, struct manifest *m, const struct pack_options *o,
		 int out_fd, struct cf_err *e);

#endif
