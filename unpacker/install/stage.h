/* stage.h - the staging writer: the verified stream into a fresh private directory */
#ifndef UNPACKER_INSTALL_STAGE_H
#define UNPACKER_INSTALL_STAGE_H

#include "unpacker/target/result.h"
#include "unpacker/install/opened.h"
#include "unpacker/target/layout.h"

/* Make PREFIX/.staging-XXXXXX, write every entry of the bundle into it (verified as it is
 * read) and the install's .cuferry records, and sync it. *staging: the directory made (NULL
 * when none was), for the caller to remove on failure. */
int stage_extract(const struct layout *p, struct opened *b, struct install_result *r,
		  const struct install_options *o, char **staging, struct cf_err *e);

#endif
