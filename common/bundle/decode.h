/* decode.h - an indexed payload (the manifest's payload.frames) decoded by a pool of workers:
 * verified chunks gathered into independent zstd frames, each decoded on its own thread, the
 * tar bytes handed out in payload order */
#ifndef COMMON_BUNDLE_DECODE_H
#define COMMON_BUNDLE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/bundle/reader.h"
#include "common/err.h"

/* The largest frame an index may name, in tar bytes (compressed: at most zstd's bound for
 * that): the memory bound rests on it. The bundler writes PACK_FRAME_SIZE, well below. */
#define DECODE_FRAME_MAX (16u << 20)
/* What the frames in flight may hold at once, each its compressed and its decoded bytes;
 * never fewer than two frames (one handed out, one decoding): 2 x (16 MiB + its zstd bound)
 * at most, so the decoder holds at most DECODE_BUDGET or 2 x 32.1 MiB, whichever is more. */
#define DECODE_BUDGET (64u << 20)

struct decoder;

/* CF_OK when c's frame index fits its payload: the first frame at offset 0, each next where
 * the last ended (no gap, no overlap), compressed sizes adding up to the chunk plan's payload
 * size and tar sizes to c->uncompressed_size, none empty, none over DECODE_FRAME_MAX or
 * over zstd's bound compressed. CF_INTEGRITY naming the first frame that does not. */
int decode_check_index(const struct bundle_contents *c, struct cf_err *e);
/* How the decoder would run c (already checked) on cores cores: frames in flight (*slots)
 * and worker threads (*workers), and the bytes their buffers hold at most. */
uint64_t decode_plan(const struct bundle_contents *c, int cores, size_t *slots,
		     size_t *workers);
/* Start decoding b's payload (bundle_begin_payload done, no chunk read yet) on up to workers
 * threads (0: one per core), within decode_plan's bound. CF_OK or CF_INSTALL (no thread). */
int decoder_start(struct bundle_input *b, const struct bundle_contents *c, int workers,
		  struct decoder **out, struct cf_err *e);
/* The next frame's tar bytes, in payload order, valid until the next call; *len 0 after the
 * last frame; *compressed its size in the payload (for progress). A frame is decoded only
 * from chunks whose signed hash matched; a chunk that failed, or a frame that is not one zstd
 * frame of its indexed sizes, gives its error here once the frames before it are out. */
int decoder_next(struct decoder *d, const uint8_t **data, size_t *len, uint64_t *compressed,
		 struct cf_err *e);
/* Stop the workers, wherever they are, and free everything (NULL: nothing). */
void decoder_stop(struct decoder *d);

#endif
