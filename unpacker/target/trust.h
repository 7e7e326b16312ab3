/* trust.h - which keys may sign a bundle here, and whether enough of them did (DESIGN.md §5) */
#ifndef UNPACKER_TRUST_H
#define UNPACKER_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/bundle/format.h"

#define TRUST_MAX_KEYS 64

/* Files of the trust directory besides its KEY.pub files (DESIGN.md §5, §10): each read only
 * when root's (Administrators') and not writable by others, like the keys. */
#define TRUST_FILE_THRESHOLD "threshold"                     /* T, one number 1..8 */
#define TRUST_FILE_STATEMENT_THRESHOLD "statement-threshold" /* signatures a statement needs */
#define TRUST_FILE_REVOKED "revoked"                         /* fingerprints, one a line */
#define TRUST_FILE_STATEMENT_COUNTER "statement-counter"     /* "N SHA256": the last applied */
#define TRUST_STATEMENT_KEY_PREFIX "statement-"              /* a key a statement added */

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
	/* Revoked keys (the trust directory's revoked file): their signatures count nowhere,
	 * whatever else says to trust them (compiled in, --trust, --trust-fingerprint). */
	uint8_t revoked[TRUST_MAX_KEYS][32];
	size_t nrevoked;
	/* make TRUSTED_STATEMENT_THRESHOLD, raised by the trust directory's file; 0: neither
	 * (the default rule of trust_statement_threshold) */
	unsigned statement_threshold;
	uint64_t statement_counter;   /* the highest statement counter applied here; 0: none */
	uint8_t statement_sha256[32]; /* and the SHA-256 of that statement's file */
};

struct trust_sources {
	const char *root;          /* "" or the --root directory */
	/* --trust: each key read once (trust_key_file_read), never its path again: the key that
	 * verifies is the key --remember stores. */
	const struct trust_key *keys;
	size_t nkeys;
	const char *const *fingerprints; /* --trust-fingerprint */
	size_t nfingerprints;
};

/* A key file named on the command line (--trust, trust add), opened once: that one open file
 * is checked (a regular file; as root, root's and not writable by group or others, in a
 * directory that passes the prefix's ownership rule) and read, so nothing renamed over the
 * name meanwhile is ever read. k gets the key, its id and "WHAT PATH" as origin; what names
 * the option in the reason. CF_TRUST (exit 2) with a one-line reason. */
int trust_key_file_read(const char *path, const char *what, struct trust_key *k,
			struct cf_err *e);
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

/* The distinct trusted, not revoked keys whose signatures over digest verify: their ids into
 * ids (FRAME_MAX_SIGS at most), their short ids into signers ("a, b"); returns how many. */
unsigned trust_accepted(const struct trust *t, const uint8_t digest[32],
			const struct frame_sig *sigs, uint32_t nsigs, uint8_t ids[][32],
			char *signers, size_t size);
int trust_is_revoked(const struct trust *t, const uint8_t keyid[32]);
/* 1 when keyid is a loaded key's or a --trust-fingerprint's, and not revoked. */
int trust_is_trusted(const struct trust *t, const uint8_t keyid[32]);
/* Signatures a trust statement that does more than revoke its own signers needs: the
 * compiled-in or configured statement threshold, else every trusted key when there are at
 * most three, else T + 1; never fewer than T. */
unsigned trust_statement_threshold(const struct trust *t);
/* make TRUSTED_THRESHOLD=N (1 when not given): the trust directory may raise it, not lower it. */
unsigned trust_compiled_threshold(void);
/* make TRUSTED_STATEMENT_THRESHOLD=N (0 when not given: the default rule); the same rule. */
unsigned trust_compiled_statement_threshold(void);

#endif
