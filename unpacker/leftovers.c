/* leftovers.c - a run killed hard (SIGKILL, power loss) cannot clean up; the next run that
 * takes the lock does. Until then doctor names what is there and which command cleans it. */
#include "unpacker/leftovers.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/io.h"
#include "common/log.h"
#include "unpacker/layout.h"
#include "unpacker/state.h"

/* Bytes under path (not following links); good enough to say how much is wasted. */
static unsigned long long tree_bytes(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (unsigned long long)st.st_size;
	unsigned long long sum = 0;
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *child = xasprintf("%s/%s", path, de->d_name);
		sum += tree_bytes(child);
		free(child);
	}
	if (d)
		closedir(d);
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
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || strcmp(de->d_name, "..") == 0))
			continue;
		char *child = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (layout_is_repair_temp(de->d_name))
			n += report("of an interrupted repair", child);
		else if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			n += repair_files(child, depth + 1);
		free(child);
	}
	if (d)
		closedir(d);
	return n;
}

int leftovers_report(const struct layout *l)
{
	const char *prefix = l->prefix, *journal = l->journal, *state_path = l->state;
	const char *root = l->root, *prefix_sys = l->prefix_sys;
	int n = 0;
	DIR *d = opendir(prefix);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		char *path = xasprintf("%s/%s", prefix, de->d_name);
		if (layout_is_staging(de->d_name))
			n += report("staging of an interrupted run", path);
		else if (layout_is_backup(de->d_name))
			n += report("backup of an interrupted run", path);
		else if (de->d_name[0] != '.' && !layout_is_current(de->d_name))
			n += repair_files(path, 0);
		free(path);
	}
	if (d)
		closedir(d);
	if (io_exists(journal))
		n += report("journal of an interrupted run", journal);
	if (n > 0) {
		struct state st;
		struct cf_err ignored = { 0 };
		const char *opts = *root ? " --root " : "";
		int loaded = state_load(state_path, &st, &ignored) == 0;
		if (loaded && st.current)
			log_out("  clean up: unpacker use %s%s%s --prefix %s (takes the lock, finishes or "
				"rolls back the interrupted run and removes what it left)\n",
				st.current, opts, root, prefix_sys);
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
