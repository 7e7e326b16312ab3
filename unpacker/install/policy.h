/* policy.h - whether a bundle may be installed: replay, downgrade, expiry, clock, space */
#ifndef UNPACKER_INSTALL_POLICY_H
#define UNPACKER_INSTALL_POLICY_H

#include "common/err.h"
#include "manifests/manifest.h"
#include "unpacker/target/result.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/state.h"

/* How far ahead of this host's clock a bundle's created may be (seconds): a day. */
#define POLICY_CLOCK_GRACE_S 86400

/* Clock, expiry, replay counter and downgrade against what is installed; r->noop when this
 * very bundle is installed already. */
int policy_check(const struct install_options *o, const struct manifest *m, const struct state *st,
		 const struct layout *p, struct install_result *r, struct cf_err *e);
/* The environment's directories, checked like the prefix (as root, when they are written). */
int policy_check_env_dirs(const struct layout *p, const struct install_options *o, struct cf_err *e);
/* Enough bytes and inodes in the prefix for the bundle (exit 4 when not). */
int policy_check_space(const struct layout *p, const struct manifest *m, struct cf_err *e);

#endif
