/* decode.c - the worker pool over an indexed payload: gather, decode, hand out in order.
 * Each worker takes the next frame in turn, copies its compressed bytes out of verified chunks
 * (one worker at a time: the chunk stream is sequential), then decodes it beside the others.
 * Frame i lives in slot i % nslots, so the slots themselves keep the order, and a slot is free
 * again only once the consumer has moved past its frame: memory is bounded by the slots. */
#include "common/bundle/decode.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/io.h"
#include "common/platform.h"

enum slot_state { SLOT_FREE, SLOT_BUSY, SLOT_DONE, SLOT_FAILED };

struct slot {
	int state;
	size_t frame;
	uint8_t *in;  /* compressed bytes, copied from verified chunks */
	uint8_t *out; /* tar bytes */
	struct cf_err err;
};

struct decoder {
	struct bundle_input *b;
	const struct bundle_contents *c;
	struct platform_monitor *mon;
	struct platform_thread **threads;
	size_t nthreads;
	size_t running;
	struct slot *slots;
	size_t nslots;
	size_t next_gather; /* the next frame a worker takes */
	int gathering;      /* a worker is reading chunks: the others wait their turn */
	int failed;         /* a frame failed: take no more */
	int stop;
	size_t next_out;    /* the next frame handed out */
	int holding;        /* the consumer still reads frame next_out */
	/* The chunk being gathered from: only the gathering worker touches these. */
	const uint8_t *chunk;
	size_t chunk_len, chunk_pos;
};

static uint64_t max_size(const struct bundle_contents *c, int compressed)
{
	uint64_t m = 0;
	for (size_t i = 0; i < c->nframes; i++) {
		uint64_t v = compressed ? c->frames[i].size : c->frames[i].uncompressed_size;
		m = v > m ? v : m;
	}
	return m;
}

int decode_check_index(const struct bundle_contents *c, struct cf_err *e)
{
	uint64_t at = 0, tar = 0;
	for (size_t i = 0; i < c->nframes; i++) {
		const struct payload_frame *f = &c->frames[i];
		if (f->offset != at)
			return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] starts at %llu, not at %llu "
				       "where frame %zu ended (a gap or an overlap)", i,
				       (unsigned long long)f->offset, (unsigned long long)at,
				       i ? i - 1 : 0);
		if (f->uncompressed_size == 0 || f->uncompressed_size > DECODE_FRAME_MAX)
			return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] holds %llu tar bytes "
				       "(1 to %u allowed)", i, (unsigned long long)f->uncompressed_size,
				       DECODE_FRAME_MAX);
		if (f->size == 0 || f->size > ZSTD_COMPRESSBOUND(f->uncompressed_size))
			return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] has %llu compressed bytes "
				       "for %llu tar bytes", i, (unsigned long long)f->size,
				       (unsigned long long)f->uncompressed_size);
		if (f->size > c->plan.payload_size - at)
			return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] ends past the payload's %llu "
				       "bytes", i, (unsigned long long)c->plan.payload_size);
		at += f->size;
		tar += f->uncompressed_size;
	}
	if (at != c->plan.payload_size)
		return cf_fail(e, CF_INTEGRITY, "payload.frames cover %llu of the payload's %llu bytes",
			       (unsigned long long)at, (unsigned long long)c->plan.payload_size);
	if (tar != c->uncompressed_size)
		return cf_fail(e, CF_INTEGRITY, "payload.frames decode to %llu tar bytes, "
			       "uncompressed_size says %llu", (unsigned long long)tar,
			       (unsigned long long)c->uncompressed_size);
	return CF_OK;
}

uint64_t decode_plan(const struct bundle_contents *c, int cores, size_t *slots,
		     size_t *workers)
{
	uint64_t per = max_size(c, 1) + max_size(c, 0);
	uint64_t n = per ? DECODE_BUDGET / per : 2;
	size_t cap = cores < 1 ? 2 : (size_t)cores + 1; /* every worker busy, one frame out */
	n = n < 2 ? 2 : n > cap ? cap : n;
	if (n > c->nframes)
		n = c->nframes ? c->nframes : 1;
	*slots = (size_t)n;
	*workers = n > 1 ? (size_t)n - 1 : 1;
	return n * per;
}

/* The compressed bytes of frame i, in stream order, from verified chunks only. */
static int gather(struct decoder *d, size_t i, uint8_t *buf, struct cf_err *e)
{
	uint64_t need = d->c->frames[i].size, got = 0;
	while (got < need) {
		if (d->chunk_pos == d->chunk_len) {
			d->chunk_pos = 0;
			int rc = bundle_next_chunk(d->b, &d->chunk, &d->chunk_len, e);
			if (rc != CF_OK)
				return rc;
			if (d->chunk_len == 0) /* the index was checked against the plan: a bug */
				return cf_fail(e, CF_INTEGRITY, "payload ends inside frame %zu", i);
		}
		size_t n = d->chunk_len - d->chunk_pos;
		if (n > need - got)
			n = (size_t)(need - got);
		memcpy(buf + got, d->chunk + d->chunk_pos, n);
		d->chunk_pos += n;
		got += n;
	}
	return CF_OK;
}

/* Exactly one zstd frame that decodes to exactly its indexed size (its checksum checked by
 * zstd): anything else is a wrong index or a payload that does not match it. */
static int decode_frame(ZSTD_DCtx *z, const struct payload_frame *f, size_t i, struct slot *s,
			struct cf_err *e)
{
	if (!z)
		return cf_fail(e, CF_INSTALL, "zstd: cannot allocate a decompression context");
	size_t whole = ZSTD_findFrameCompressedSize(s->in, (size_t)f->size);
	uint32_t magic = f->size >= 4 ? (uint32_t)s->in[0] | (uint32_t)s->in[1] << 8 |
					(uint32_t)s->in[2] << 16 | (uint32_t)s->in[3] << 24 : 0;
	if (magic != ZSTD_MAGICNUMBER || ZSTD_isError(whole) || whole != f->size)
		return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] (%llu bytes at offset %llu) is "
			       "not one zstd frame", i, (unsigned long long)f->size,
			       (unsigned long long)f->offset);
	size_t n = ZSTD_decompressDCtx(z, s->out, (size_t)f->uncompressed_size, s->in,
				       (size_t)f->size);
	if (ZSTD_isError(n) && ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
		return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] decodes to more than its %llu "
			       "indexed bytes", i, (unsigned long long)f->uncompressed_size);
	if (ZSTD_isError(n))
		return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu]: zstd: %s", i,
			       ZSTD_getErrorName(n));
	if (n != f->uncompressed_size)
		return cf_fail(e, CF_INTEGRITY, "payload.frames[%zu] decodes to %zu bytes, the index "
			       "says %llu", i, n, (unsigned long long)f->uncompressed_size);
	return CF_OK;
}

static void worker_main(void *arg)
{
	struct decoder *d = arg;
	ZSTD_DCtx *z = ZSTD_createDCtx();
	platform_monitor_enter(d->mon);
	for (;;) {
		size_t i = d->next_gather;
		if (d->stop || d->failed || i == d->c->nframes)
			break;
		struct slot *s = &d->slots[i % d->nslots];
		if (d->gathering || s->state != SLOT_FREE) {
			platform_monitor_wait(d->mon);
			continue;
		}
		d->gathering = 1;
		d->next_gather++;
		s->state = SLOT_BUSY;
		s->frame = i;
		platform_monitor_leave(d->mon);
		struct cf_err e = { 0 };
		int rc = gather(d, i, s->in, &e);
		platform_monitor_enter(d->mon);
		d->gathering = 0;
		d->failed |= rc != CF_OK;
		platform_monitor_wake(d->mon);
		platform_monitor_leave(d->mon);
		if (rc == CF_OK)
			rc = decode_frame(z, &d->c->frames[i], i, s, &e);
		platform_monitor_enter(d->mon);
		s->err = e;
		s->state = rc == CF_OK ? SLOT_DONE : SLOT_FAILED;
		d->failed |= rc != CF_OK;
		platform_monitor_wake(d->mon);
	}
	d->running--;
	platform_monitor_wake(d->mon);
	platform_monitor_leave(d->mon);
	ZSTD_freeDCtx(z);
}

int decoder_start(struct bundle_input *b, const struct bundle_contents *c, int workers,
		  struct decoder **out, struct cf_err *e)
{
	struct decoder *d = xcalloc(1, sizeof(*d));
	size_t nworkers;
	d->b = b;
	d->c = c;
	decode_plan(c, workers > 0 ? workers : platform_cpu_count(), &d->nslots, &nworkers);
	size_t in_cap = (size_t)max_size(c, 1), out_cap = (size_t)max_size(c, 0);
	d->slots = xcalloc(d->nslots, sizeof(*d->slots));
	for (size_t i = 0; i < d->nslots; i++) {
		d->slots[i].in = xmalloc(in_cap ? in_cap : 1);
		d->slots[i].out = xmalloc(out_cap ? out_cap : 1);
	}
	d->mon = platform_monitor_new();
	d->threads = xcalloc(nworkers, sizeof(*d->threads));
	if (d->mon) {
		platform_monitor_enter(d->mon);
		for (; d->nthreads < nworkers; d->nthreads++, d->running++)
			if (platform_thread_start(&d->threads[d->nthreads], worker_main, d) != 0)
				break;
		platform_monitor_leave(d->mon);
	}
	if (d->nthreads == 0) {
		decoder_stop(d);
		return cf_fail(e, CF_INSTALL, "cannot start the payload's decoding threads");
	}
	*out = d;
	return CF_OK;
}

int decoder_next(struct decoder *d, const uint8_t **data, size_t *len, uint64_t *compressed,
		 struct cf_err *e)
{
	int rc = CF_OK;
	*data = NULL;
	*len = 0;
	*compressed = 0;
	platform_monitor_enter(d->mon);
	if (d->holding) {
		d->slots[d->next_out % d->nslots].state = SLOT_FREE;
		d->next_out++;
		d->holding = 0;
		platform_monitor_wake(d->mon);
	}
	if (d->next_out < d->c->nframes) {
		struct slot *s = &d->slots[d->next_out % d->nslots];
		while (!(s->frame == d->next_out && (s->state == SLOT_DONE || s->state == SLOT_FAILED))
		       && d->running > 0)
			platform_monitor_wait(d->mon);
		if (s->frame == d->next_out && s->state == SLOT_DONE) {
			*data = s->out;
			*len = (size_t)d->c->frames[d->next_out].uncompressed_size;
			*compressed = d->c->frames[d->next_out].size;
			d->holding = 1;
		} else if (s->frame == d->next_out && s->state == SLOT_FAILED) {
			rc = cf_fail(e, s->err.code ? s->err.code : CF_INTEGRITY, "%s", s->err.msg);
		} else {
			rc = cf_fail(e, CF_INSTALL, "the payload's decoding threads ended before frame %zu",
				     d->next_out);
		}
	}
	platform_monitor_leave(d->mon);
	return rc;
}

void decoder_stop(struct decoder *d)
{
	if (!d)
		return;
	if (d->mon) {
		platform_monitor_enter(d->mon);
		d->stop = 1;
		platform_monitor_wake(d->mon);
		platform_monitor_leave(d->mon);
	}
	for (size_t i = 0; i < d->nthreads; i++)
		platform_thread_join(d->threads[i]);
	platform_monitor_free(d->mon);
	for (size_t i = 0; i < d->nslots; i++) {
		free(d->slots[i].in);
		free(d->slots[i].out);
	}
	free(d->slots);
	free(d->threads);
	free(d);
}
