/* statement.h - a trust statement read and judged (DESIGN.md §10 "Trust lifecycle"): signed
 * by enough keys trusted here, newer than the last one applied, its actions parsed */
#ifndef UNPACKER_STATEMENT_H
#define UNPACKER_STATEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "unpacker/target/trust.h"

#define STATEMENT_MAX_ACTIONS 16

enum statement_kind { STATEMENT_REVOKE, STATEMENT_ADD, STATEMENT_THRESHOLD,
		      STATEMENT_STATEMENT_THRESHOLD };

struct statement_action {
	enum statement_kind kind;
	uint8_t keyid[32];   /* revoke, add */
	uint8_t spki[512];   /* add: the key's SubjectPublicKeyInfo DER */
	size_t spki_len;
	unsigned number;     /* threshold, statement_threshold */
};

struct statement {
	uint64_t counter;
	char created[32];
	struct statement_action actions[STATEMENT_MAX_ACTIONS];
	size_t nactions;
	char signers[256];  /* short ids of the trusted keys that signed it */
	unsigned needed;    /* signatures its actions needed */
	uint8_t sha256[32];  /* of the whole file: with the counter, what the host records */
	int already_applied; /* it is the statement this host applied last */
};

/* Read path and judge it against t (the keys this host trusts durably: compiled in and the
 * trust directory): CF_TRUST when not signed as its actions require (T for revoking only its
 * own signers, the statement threshold for anything else; a revoked key counts nowhere),
 * CF_POLICY when older than the last applied (replay) or created more than a day ahead of
 * the clock, CF_INTEGRITY/CF_INCOMPATIBLE for a malformed or unknown statement. */
int statement_read(const char *path, const struct trust *t, struct statement *s,
		   struct cf_err *e);
/* The same for a statement's bytes in memory (a kit's, hashed against its index first); name
 * for the messages. */
int statement_parse(const char *name, const uint8_t *data, size_t len, const struct trust *t,
		    struct statement *s, struct cf_err *e);

#endif
