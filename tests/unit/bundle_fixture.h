/* bundle_fixture.h - bundles made at run time for the reader and payload unit tests: a
 * scratch directory, a frame in front of payload bytes cut into hashed chunks, split parts
 * and .run files. Header-only (static): each test binary includes it once. */
#ifndef TESTS_UNIT_BUNDLE_FIXTURE_H
#define TESTS_UNIT_BUNDLE_FIXTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bundle/write.h"
#include "common/bundle/reader.h"
#include "common/bundle/sfx.h"
#include "common/io.h"
#include "common/sha256.h"

#define FIXTURE_CHUNK 64 /* small chunks, so that a few hundred bytes make several */

struct fixture {
	char *dir;
	uint8_t *payload;
	size_t payload_len;
	uint8_t (*hashes)[32];
	size_t nchunks;
	uint8_t *frame;
	size_t frame_len;
};

static inline char *fixture_path(const struct fixture *fx, const char *name)
{
	return xasprintf("%s/%s", fx->dir, name);
}

static inline void fixture_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || io_write_all(fd, data, len) != 0 || close(fd) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		abort();
	}
}

/* A frame (one stand-in signature: the reader does not check signatures) over payload. */
static inline void fixture_init(struct fixture *fx, const uint8_t *payload, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	memset(fx, 0, sizeof(*fx));
	fx->dir = xasprintf("%s/cuferry-bundle-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx->dir))
		abort();
	fx->payload = xmalloc(len ? len : 1);
	memcpy(fx->payload, payload, len);
	fx->payload_len = len;
	fx->nchunks = (len + FIXTURE_CHUNK - 1) / FIXTURE_CHUNK;
	fx->hashes = xcalloc(fx->nchunks ? fx->nchunks : 1, 32);
	for (size_t i = 0; i < fx->nchunks; i++) {
		size_t at = i * FIXTURE_CHUNK, n = len - at < FIXTURE_CHUNK ? len - at : FIXTURE_CHUNK;
		sha256_buf(payload + at, n, fx->hashes[i]);
	}
	struct frame_sig sig;
	memset(&sig, 0, sizeof(sig));
	sig.spki_len = 91;
	static const char header[] = "{\"fixture\":true}";
	fx->frame = frame_encode((const uint8_t *)header, sizeof(header) - 1, &sig, 1,
				 &fx->frame_len);
}

static inline struct chunk_plan fixture_plan(const struct fixture *fx)
{
	return (struct chunk_plan){ fx->payload_len, FIXTURE_CHUNK, fx->nchunks,
				    (const uint8_t(*)[32])fx->hashes };
}

/* The bundle stream: frame then payload, plus extra bytes (NULL for none). Caller frees. */
static inline uint8_t *fixture_stream(const struct fixture *fx, const char *extra,
				      size_t *len)
{
	size_t n = extra ? strlen(extra) : 0;
	*len = fx->frame_len + fx->payload_len + n;
	uint8_t *s = xmalloc(*len);
	memcpy(s, fx->frame, fx->frame_len);
	memcpy(s + fx->frame_len, fx->payload, fx->payload_len);
	if (n)
		memcpy(s + fx->frame_len + fx->payload_len, extra, n);
	return s;
}

/* NAME.bundle in the scratch directory; caller frees the path. */
static inline char *fixture_plain(const struct fixture *fx, const char *name,
				  const char *extra)
{
	size_t len;
	uint8_t *s = fixture_stream(fx, extra, &len);
	char *path = fixture_path(fx, name);
	fixture_write(path, s, len);
	free(s);
	return path;
}

/* NAME.001 ... cut at the given offsets (nparts - 1 of them); returns the path of .001. */
static inline char *fixture_split(const struct fixture *fx, const char *name,
				  const size_t *cuts, size_t nparts)
{
	size_t len, from = 0;
	uint8_t *s = fixture_stream(fx, NULL, &len);
	for (size_t i = 0; i < nparts; i++) {
		size_t to = i + 1 < nparts ? cuts[i] : len;
		char *part = xasprintf("%s/%s.%03zu", fx->dir, name, i + 1);
		fixture_write(part, s + from, to - from);
		free(part);
		from = to;
	}
	free(s);
	return xasprintf("%s/%s.001", fx->dir, name);
}

/* A .run: an ELF-looking stub, the bundle, a stub-signature block, the trailer (whose
 * bundle length may be skewed to break it). Caller frees the path. */
static inline char *fixture_run(const struct fixture *fx, const char *name,
				int64_t skew_bundle_len)
{
	static const uint8_t stub[100] = { 0x7f, 'E', 'L', 'F' };
	struct frame_sig sig;
	size_t len, block_len;
	memset(&sig, 0, sizeof(sig));
	sig.spki_len = 91;
	uint8_t *s = fixture_stream(fx, NULL, &len);
	uint8_t *block = sfx_block_encode(&sig, 1, &block_len);
	struct sfx_layout l = { sizeof(stub), (uint64_t)((int64_t)len + skew_bundle_len), block_len };
	uint8_t trailer[SFX_TRAILER_LEN];
	sfx_trailer_encode(&l, trailer);
	size_t total = sizeof(stub) + len + block_len + SFX_TRAILER_LEN;
	uint8_t *file = xmalloc(total), *p = file;
	memcpy(p, stub, sizeof(stub));
	memcpy(p += sizeof(stub), s, len);
	memcpy(p += len, block, block_len);
	memcpy(p + block_len, trailer, SFX_TRAILER_LEN);
	char *path = fixture_path(fx, name);
	fixture_write(path, file, total);
	free(file);
	free(block);
	free(s);
	return path;
}

static inline void fixture_free(struct fixture *fx)
{
	io_rmtree(fx->dir);
	free(fx->dir);
	free(fx->payload);
	free(fx->hashes);
	free(fx->frame);
	memset(fx, 0, sizeof(*fx));
}

#endif
