/* verbs.h - what each of the bundler's commands does with its parsed command line: the
 * functions the command table (cmdtable.c) runs, and the options they read */
#ifndef BUNDLER_VERBS_H
#define BUNDLER_VERBS_H

#include "bundler/create.h"
#include "bundler/kit.h"
#include "bundler/statement.h"
#include "signing/sign.h"

/* The options of a command line (bundler/main.c fills it). */
struct bundler_args {
	struct create_options create;
	struct sign_options sign;
	const char *export_dir;
	const char *sbom; /* inspect --sbom cyclonedx|spdx */
	int provenance;   /* inspect --provenance */
	const char *stub;
	const char *release; /* cuda-json --release */
	struct kit_options kit;
	int force; /* --force: sfx co-signs a stub an unknown key signed */
	struct statement_options statement;
	int quiet, verbose;
};

/* Each: the exit code (DESIGN.md §9); argv: the arguments that are no option (BUNDLE, NAME). */
#define VERB(name) int verb_##name(struct bundler_args *c, int argc, char **argv)
VERB(keygen);
VERB(create);
VERB(resolve);
VERB(inspect);
VERB(sign);
VERB(split);
VERB(sfx);
VERB(kit);
VERB(cuda_json);
VERB(trust_statement);

/* "bundler: REASON" and the line that says where help is, on stderr: 1. */
int verb_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
