/* verbs.h - what each of the unpacker's commands does with its parsed command line: the
 * functions the command table (cmdtable.c) runs */
#ifndef UNPACKER_VERBS_H
#define UNPACKER_VERBS_H

#include "common/err.h"

struct cli;
struct install_options;
struct install_result;

/* Each: o is what the command line asks of any command (root, prefix, trust, ...); r what an
 * install, verify or validate reports (--json); a CF_ code, the reason in e. */
#define VERB(name)                                                                            \
	int verb_##name(const struct cli *c, struct install_options *o, struct install_result *r, \
			struct cf_err *e)
VERB(install);
VERB(verify);
VERB(self_install);
VERB(validate);
VERB(list);
VERB(use);
VERB(uninstall);
VERB(env);
VERB(doctor);
VERB(inventory);
VERB(trust_list);
VERB(trust_add);
VERB(trust_remove);
VERB(trust_threshold);
VERB(trust_statement_threshold);
VERB(trust_apply);
VERB(trust_reset_clock);

#endif
