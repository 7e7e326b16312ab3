/* open.h - the one way to open a bundle for use: its signed header checked by the caller's
 * policy before any byte of it is believed, then one walk over its payload.
 *
 * It sits in common/bundle/ because both programs open bundles and must do it the same way
 * (the unpacker against its trusted keys, the bundler's self-check against the keys each
 * signature carries). What differs - whose signatures count, and how the signed header
 * becomes a manifest - comes in as callbacks, so the bundle format depends on neither
 * signing/ trust nor manifests/: nothing here looks upward in the tree. */
#ifndef COMMON_BUNDLE_OPEN_H
#define COMMON_BUNDLE_OPEN_H

#include <stdint.h>

#include "common/bundle/format.h"
#include "common/bundle/payload.h"
#include "common/bundle/reader.h"
#include "common/bundle/sfx.h"
#include "common/err.h"
#include "common/progress.h"

/* A .run's stub-signature block as read from the file, and what its signatures must cover. */
struct bundle_stub {
	const struct sfx_layout *layout;
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint32_t nsigs;
	uint8_t message[SFX_MESSAGE_LEN]; /* sfx.h: stub, header and layout in 88 bytes */
	uint8_t digest[32];               /* SHA-256 of message: what each signature covers */
};

/* Every callback but check_file is required: none of them may be skipped (fail closed).
 * Each returns CF_OK or a failure with its reason in e. */
struct bundle_policy {
	/* Whether the header's signatures are good enough (the frame is still unbelieved). */
	int (*check_header)(void *ctx, const struct frame *f, struct cf_err *e);
	/* Whether a .run's stub signatures are good enough; called only for a .run. */
	int (*check_stub)(void *ctx, const struct bundle_stub *stub, struct cf_err *e);
	/* Called only after the checks above passed: turn the signed header into what the
	 * payload must be. The entries stay the callback's (they must outlive the reader). */
	int (*read_contents)(void *ctx, const struct frame *f, struct bundle_contents *c,
			     struct cf_err *e);
	void *ctx;
	/* The one optional rule: what each file read must be besides (reader.h's
	 * bundle_file_check), e.g. as a kit's signed index lists it; NULL none. It is called with
	 * check_ctx, also from the reader's thread as the stream reaches a later part, so
	 * check_ctx must outlive the reader (not the call of bundle_open_verified). */
	bundle_file_check check_file;
	void *check_ctx;
};

/* Open PATH (plain, split or .run), read its frame, check it and a .run's stub with the
 * policy, then read the contents. *out is set whenever the file could be opened, also on a
 * failure, so that the caller may show what was read (bundle_frame); the caller closes it.
 * A reader whose open failed is never walked: bundle_walk refuses it. */
int bundle_open_verified(const char *path, const struct bundle_policy *p,
			 struct bundle_input **out, struct cf_err *e);
/* The payload against the verified contents: every chunk, entry and file (payload.h). */
int bundle_walk(struct bundle_input *b, const struct payload_sink *sink,
		struct progress *progress, struct cf_err *e);

/* Read a stored copy of a bundle's signed header (an install's .cuferry/header.bin: the frame
 * alone, as the install wrote it), have check judge its signatures, and only then hand it
 * back in *f (the caller frame_frees it). Nothing but the frame's own bytes is parsed before
 * check passed: the manifest it carries is the caller's to parse, from *f, afterwards. A file
 * that cannot be read or holds no header frame is CF_TRUST with "PATH: cannot read" or the
 * parser's reason, and check is not called; check's failure is returned as it gave it. *f is
 * left empty on any failure. */
int bundle_read_stored_header(const char *path,
			      int (*check)(void *ctx, const struct frame *f, struct cf_err *e),
			      void *ctx, struct frame *f, struct cf_err *e);
/* A trust statement file: one frame of FRAME_STATEMENT_TAG and nothing else, at most
 * FRAME_STATEMENT_MAX bytes; file_sha256 gets the SHA-256 of the whole file. Its signatures
 * are the caller's to check. */
int bundle_read_statement(const char *path, struct frame *f, uint8_t file_sha256[32],
			  struct cf_err *e);
/* The same for a statement's bytes already in memory (name only for the messages): a kit's,
 * read once and hashed against the kit's signed index before this parses any of it. */
int bundle_parse_statement(const char *name, const uint8_t *data, size_t len, struct frame *f,
			   uint8_t file_sha256[32], struct cf_err *e);

#endif
