/* prefix.c - opening a prefix for change: real directories, the lock, then recovery */
#include "unpacker/install/prefix.h"

#include <errno.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/install/journal.h"
#include "unpacker/target/safepath.h"

/* Lock, then repair: every command that changes the prefix starts here. */
int prefix_open(const struct layout *p, int *lock, int *recovered, struct cf_err *e)
{
	/* DESIGN §6: checked before anything is written, and again once the missing directories
	 * exist (one planted between the two checks is caught by the second). */
	if (safepath_check_dir(p->root, p->prefix_sys, "the prefix", e) != CF_OK)
		return e->code;
	if (io_mkdirs(p->meta, 0755) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->meta, platform_strerror(errno));
	if (safepath_check_dir(p->root, p->prefix_sys, "the prefix", e) != CF_OK)
		return e->code;
	/* A planted link (two-step attack) would carry the lock, the journal and state.json
	 * somewhere else: the prefix and its .cuferry must be real directories. */
	const char *dirs[] = { p->prefix, p->meta };
	for (int i = 0; i < 2; i++) {
		struct platform_stat st;
		if (platform_lstat(dirs[i], &st) != 0 || st.type != PLATFORM_TYPE_DIR)
			return cf_fail(e, CF_INSTALL, "%s is not a real directory (a symbolic link?): "
				       "refusing to write through it", dirs[i]);
	}
	int r = platform_lock(p->lock, lock);
	if (r == 1)
		return cf_fail(e, CF_BUSY, "another unpacker holds %s", p->lock);
	if (r != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->lock, platform_strerror(errno));
	int rc = journal_recover(p, recovered, e);
	if (rc != CF_OK) {
		platform_unlock(*lock);
		*lock = -1;
	}
	return rc;
}
