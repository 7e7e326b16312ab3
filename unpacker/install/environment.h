/* environment.h - the environment an install writes besides its files: ld.so.conf.d,
 * profile.d, the user snippet and modulefiles */
#ifndef UNPACKER_INSTALL_ENVIRONMENT_H
#define UNPACKER_INSTALL_ENVIRONMENT_H

#include "common/err.h"
#include "unpacker/install/result.h"
#include "unpacker/layout.h"
#include "unpacker/modulefile.h"

/* Modulefiles: into --modulefiles DIR, or into the site's Lmod directory when Lmod is there
 * and the system environment is written (root, no --no-env). */
int environment_write_modulefiles(const struct layout *p, const struct install_options *o,
				  const char *dir, struct install_result *r, struct cf_err *e);
/* The environment files written, for the result. */
void environment_note_paths(struct install_result *r, const char *a, const char *b);
/* How a fresh program finds the install: VALIDATE_ENV_CACHE or VALIDATE_ENV_LIBRARY_PATH. */
int environment_validate_mode(const struct layout *p, const struct install_options *o);
/* An ld.so.conf.d file under the old name takes the new one. */
int environment_migrate(const struct layout *p, const struct install_options *o, struct cf_err *e);
/* The environment the options ask for, written when it is missing. */
int environment_add_missing(const struct layout *p, const struct install_options *o,
			    struct install_result *r, struct cf_err *e);

#endif
