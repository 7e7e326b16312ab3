/* statement.h - bundler trust-statement: write a signed trust statement (revoke, add, change a
 * threshold) for 'unpacker trust apply', or add a signature to one (DESIGN.md §10) */
#ifndef BUNDLER_STATEMENT_H
#define BUNDLER_STATEMENT_H

#include <stdint.h>

#include "bundler/inspect.h"
#include "common/err.h"

#define STATEMENT_MAX_INPUTS 8

struct statement_options {
	const char *revoke[STATEMENT_MAX_INPUTS]; /* --revoke FP */
	int nrevoke;
	const char *add[STATEMENT_MAX_INPUTS];    /* --add K.pub */
	int nadd;
	int threshold;            /* --threshold N, 0: none */
	int statement_threshold;  /* --statement-threshold N, 0: none */
	uint64_t counter;         /* --counter N */
	int has_counter;          /* else SOURCE_DATE_EPOCH or the clock, as for bundles */
	struct sign_options sign; /* --key K.key | --external [--pub --signature] */
	const char *out;          /* -o FILE */
};

/* A new statement with o's actions, signed once, to o->out. */
int statement_write(const struct statement_options *o, struct cf_err *e);
/* One more signature on the statement at path (its others checked first). */
int statement_cosign(const char *path, const struct sign_options *sign, struct cf_err *e);

#endif
