/* check.h - reading back a bundle: its frame, every signature (by the keys it carries), the
 * manifest, and optionally the whole payload. Used for self-verification, inspect and sign. */
#ifndef BUNDLER_CHECK_H
#define BUNDLER_CHECK_H

#include "common/bundle/reader.h"
#include "common/err.h"
#include "common/bundle/format.h"
#include "common/bundle/sfx.h"
#include "manifests/manifest.h"

struct checked {
	struct bundle_input *input;
	const struct frame *frame; /* the reader's; NULL when none could be read */
	struct manifest *manifest;
	uint8_t digest[32]; /* SHA-256 of the header bytes: what each signature covers */
	/* a .run's stub-signature block (nstub_sigs 0 otherwise) and the digest it covers */
	struct frame_sig stub_sigs[FRAME_MAX_SIGS];
	uint32_t nstub_sigs;
	uint8_t stub_digest[32];
	uint8_t stub_message[SFX_MESSAGE_LEN]; /* what stub_digest is the SHA-256 of */
};

/* Opens path and checks the frame and each signature against the key it names; for a .run
 * also its stub-signature block the same way. */
int check_open(const char *path, struct checked *c, struct cf_err *e);
/* Walks the payload: every chunk, entry and file against the manifest. */
int check_payload(struct checked *c, int progress, struct cf_err *e);
void check_close(struct checked *c);
/* What the bundle asks of the driver, in words: "driver >= 580.65.06", or "no driver minimum
 * known for windows-x86_64 CUDA 13" when the compatibility data has none (never "?"). */
void check_driver_text(const struct manifest *m, char *out, size_t size);
/* The "requires" lines of create's summary and inspect, each starting with label: driver and
 * compute capability, then what the libraries ask of the host system ("glibc >= 2.27 (...)",
 * "Windows >= 6.0 (...)") when the manifest names it. */
void check_print_requires(const struct manifest *m, const char *label);

#endif
