/* install.h - the install transaction of DESIGN.md §6 (its options and result: result.h) */
#ifndef UNPACKER_INSTALL_H
#define UNPACKER_INSTALL_H

#include "common/err.h"
#include "unpacker/target/result.h"

int install_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e);
/* install BUNDLE --dry-run: install_bundle's decisions on what is there now, with nothing
 * written, no lock taken and nothing validated: r->would says what the real run would change,
 * and a refusal (trust, integrity, platform, downgrade, replay, space) is the real run's,
 * with its exit code. */
int install_dry_run(const struct install_options *o, struct install_result *r, struct cf_err *e);

#endif
