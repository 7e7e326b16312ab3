/* inventory.h - unpacker inventory: what a prefix holds, and whether anything of it drifted,
 * read from files only (no library is loaded) */
#ifndef UNPACKER_CLI_INVENTORY_H
#define UNPACKER_CLI_INVENTORY_H

#include "common/err.h"
#include "unpacker/target/options.h"

struct inventory_options {
	int deep;      /* every file's SHA-256 against the manifest, not only its size */
	int json_only; /* --json -: the report goes to stdout, so no text is printed */
};

/* Every install of o's prefix (its product, signers and whether they are trusted now, its
 * files, its last validation), the environment files and every other copy doctor finds.
 * *json: the inventory as a JSON object's text (docs/json-schema.md), for --json; free it.
 * CF_OK when nothing drifted; CF_TRUST when an install's stored header no longer verifies with
 * the keys trusted here; CF_VALIDATION when something else drifted (a file, the environment,
 * a shadowing copy, a failed last validation); the first reason in e. */
int inventory_run(const struct install_options *o, const struct inventory_options *io,
		  char **json, struct cf_err *e);

#endif
