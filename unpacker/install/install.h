/* install.h - the install transaction of DESIGN.md §6 (its options and result: result.h) */
#ifndef UNPACKER_INSTALL_H
#define UNPACKER_INSTALL_H

#include "common/err.h"
#include "unpacker/install/result.h"

int install_bundle(const struct install_options *o, struct install_result *r, struct cf_err *e);

#endif
