/* trustverbs.h - unpacker trust: see and change what this host trusts (DESIGN.md §5, §10):
 * list, add, remove, threshold, statement-threshold, apply, reset-clock */
#ifndef UNPACKER_TRUSTVERBS_H
#define UNPACKER_TRUSTVERBS_H

#include "common/err.h"
#include "unpacker/target/options.h"

struct kitcheck;

/* unpacker trust list|add|remove|threshold|statement-threshold|reset-clock (the command table
 * dispatches): under root; changes need an administrator and are logged. trust add K.pub:
 * fingerprint is --fingerprint, which the key must have (NULL: any). */
int trustverbs_list(const char *root, struct cf_err *e);
int trustverbs_add(const char *root, const char *path, const char *fingerprint, struct cf_err *e);
int trustverbs_remove(const char *root, const char *fingerprint, struct cf_err *e);
int trustverbs_threshold(const char *root, const char *value, struct cf_err *e);
int trustverbs_statement_threshold(const char *root, const char *value, struct cf_err *e);
/* reset-clock: o->root and o->prefix say which prefix. */
int trustverbs_reset_clock(const struct install_options *o, struct cf_err *e);
/* install --trust K.pub --remember: each --trust key into the trust directory, after a
 * successful install. */
int trustverbs_remember(const struct install_options *o, struct cf_err *e);
/* trust apply FILE, also what install DIR does with a kit's statement first. */
int trustverbs_apply(const char *root, const char *path, struct cf_err *e);
/* install DIR: the kit's trust statement (FRAME_STATEMENT_KIT_FILE), when there is one,
 * checked against the kit's signed index kit (not listed, another size or SHA-256:
 * CF_INTEGRITY) and, unless check_only (a dry run), applied before a bundle is chosen. One
 * not newer than the last applied is passed over (a note); without root it is not applied
 * (a warning); any other failure stops the install. */
int trustverbs_apply_kit(const char *root, const char *kit_dir, const struct kitcheck *kit,
			 int check_only, struct cf_err *e);

#endif
