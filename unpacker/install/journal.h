/* journal.h - what a running install is doing, so that a failure or the next run after a
 * crash can put everything back */
#ifndef UNPACKER_INSTALL_JOURNAL_H
#define UNPACKER_INSTALL_JOURNAL_H

#include "common/err.h"
#include "unpacker/target/layout.h"

struct journal {
	char *staging;
	char *target;            /* dir name under the prefix */
	char *backup;            /* where an existing target was moved, or NULL */
	char *previous_current;  /* dir name, or NULL */
	char *product;           /* read back: the product whose run wrote it (written: the
				  * layout's); NULL from before products: the first one's */
	int target_existed;
	int state_existed;
	int env_created;
	int env_saved; /* env-before.json holds the environment files as they were */
	int committed;
};

void journal_free(struct journal *j);
/* Written atomically to PREFIX/.cuferry/journal.json. */
int journal_write(const struct layout *p, const struct journal *j, struct cf_err *e);
/* Point current at dir (a name under the prefix), or remove it when dir is NULL; 0 or -1. */
int journal_set_current(const struct layout *p, const char *dir);
/* Put everything back as the journal says it was. Every step is safe to repeat. */
int journal_rollback(const struct layout *p, const struct journal *j, struct cf_err *e);
/* Finish or undo what a crashed run left; *recovered: there was something. We hold the lock. */
int journal_recover(const struct layout *p, int *recovered, struct cf_err *e);

#endif
