/* trust.h - which keys may sign a bundle here, and whether enough of them did (DESIGN.md §5) */
#ifndef UNPACKER_TRUST_H
#define UNPACKER_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/bundle/frame.h"

#define TRUST_MAX_KEYS 64

struct trust_key {
	uint8_t keyid[32];
	uint8_t spki[512];
	size_t spki_len;
	char origin[160]; /* "compiled in", "/etc/cuferry/trusted-keys/x.pub", "--trust a.pub" */
};

struct trust {
	struct trust_key keys[TRUST_MAX_KEYS];
	size_t nkeys;
	uint8_t fingerprints[16][32]; /* --trust-fingerprint: accept the bundle's key if it matches */
	size_t nfingerprints;
	unsigned threshold;
};

struct trust_sources {
	const char *root;          /* "" or the --root directory */
	const char *const *files;  /* --trust */
	size_t nfiles;
	const char *const *fingerprints; /* --trust-fingerprint */
	size_t nfingerprints;
};

/* Collect trusted keys: compiled in, the trust directory (only if root-owned and not
 * writable by others), --trust and --trust-fingerprint; read the threshold file. */
int trust_load(struct trust *t, const struct trust_sources *src, struct cf_err *e);
/* CF_OK when at least threshold distinct trusted keys made valid signatures over the header.
 * Names the signers it accepted in signers (short ids), for the log. */
int trust_check(const struct trust *t, const struct frame *f, char *signers, size_t size,
		struct cf_err *e);
/* The same rule for any signature list over a digest (a .run's stub-signature block). */
int trust_check_sigs(const struct trust *t, const uint8_t digest[32],
		     const struct frame_sig *sigs, uint32_t nsigs, char *signers, size_t size,
		     struct cf_err *e);

#endif
