/* leftovers.c - a run killed hard (SIGKILL, power loss) cannot clean up; the next run that
 * takes the lock does. Until then doctor names what is there and which command cleans it. */
#include "unpacker/target/leftovers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "unpacker/target/progname.h"
#include "unpacker/target/layout.h"
#include "common/platform.h"
#include "unpacker/target/state.h"

/* Bytes under path (not following links); good enough to say how much is wasted. */
static unsigned long long tree_bytes(const char *path)
{
	struct platform_stat st;
	if (platform_lstat(path, &st) != 0)
		return 0;
	if (st.type != PLATFORM_TYPE_DIR)
		return (unsigned long long)st.size;
	unsigned long long sum = 0;
	struct platform_dir *d = platform_dir_open(path);
	const char *name;
	while (d && (name = platform_dir_next(d)) != NULL) {
		char *child = xasprintf("%s%c%s", path, platform_dir_separator(), name);
		sum += tree_bytes(child);
		free(child);
	}
	platform_dir_close(d);
	return sum;
}

static int report(const char *what, const char *path)
{
	log_out("  leftover %-28s %s (%.1f MiB)\n", what, path, (double)tree_bytes(path) / 1048576.0);
	return 1;
}

/* *.cuferry-repair files of an interrupted repair, anywhere in an installed tree. */
static int repair_files(const char *dir, int depth)
{
	struct platform_dir *d = depth < 8 ? platform_dir_open(dir) : NULL;
	const char *name;
	int n = 0;
	while (d && (name = platform_dir_next(d)) != NULL) {
		char *child = xasprintf("%s%c%s", dir, platform_dir_separator(), name);
		struct platform_stat st;
		if (layout_is_repair_temp(name))
			n += report("of an interrupted repair", child);
		else if (platform_lstat(child, &st) == 0 && st.type == PLATFORM_TYPE_DIR)
			n += repair_files(child, depth + 1);
		free(child);
	}
	platform_dir_close(d);
	return n;
}

int leftovers_report(const struct layout *l)
{
	const char *prefix = l->prefix, *journal = l->journal, *state_path = l->state;
	const char *root = l->root, *prefix_sys = l->prefix_sys;
	int n = 0;
	struct platform_dir *d = platform_dir_open(prefix);
	const char *name;
	while (d && (name = platform_dir_next(d)) != NULL) {
		char *path = layout_under(l, name);
		if (layout_is_staging(name))
			n += report("staging of an interrupted run", path);
		else if (layout_is_backup(name))
			n += report("backup of an interrupted run", path);
		else if (name[0] != '.' && !layout_is_current(name))
			n += repair_files(path, 0);
		free(path);
	}
	platform_dir_close(d);
	if (io_exists(journal))
		n += report("journal of an interrupted run", journal);
	if (n > 0) {
		struct state st;
		struct cf_err ignored = { 0 };
		const char *opts = *root ? " --root " : "";
		int loaded = state_load(state_path, &st, &ignored) == 0;
		if (loaded && st.current)
			log_out("  clean up: %s use %s%s%s --prefix %s (takes the lock, finishes or "
				"rolls back the interrupted run and removes what it left)\n",
				progname(), st.current, opts, root, prefix_sys);
		else
			log_out("  clean up: run the interrupted install again (it takes the lock, rolls "
				"back or finishes, and removes what was left)\n");
		if (loaded)
			state_free(&st);
	} else {
		log_out("no leftovers of interrupted runs in %s\n", prefix);
	}
	return n;
}
