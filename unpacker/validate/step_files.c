/* step_files.c - step 1: the install's files, hashed in parallel (filecheck.c), against the
 * manifest, and nothing unlisted */
#include "unpacker/validate/step_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "unpacker/target/unlisted.h"
#include "unpacker/validate/filecheck.h"

void step_files(struct run *r)
{
	const struct manifest *m = r->m;
	struct filecheck_entry *checked;
	char why[600] = "";
	uint64_t bytes = 0;
	if (filecheck_run(r->dir, m, !r->o->just_written, &checked) != 0) {
		report_add(r, 1, "files", "fail", "out of memory");
		return;
	}
	/* The first file in the manifest's order that is wrong, as a sequential check says. */
	for (size_t i = 0; i < m->nfiles && !why[0]; i++) {
		snprintf(why, sizeof(why), "%s", checked[i].why);
		bytes += checked[i].bytes;
	}
	free(checked);
	/* What the manifest does not list (a library planted in lib/) is named too. */
	char **unlisted = why[0] ? NULL : unlisted_entries(r->dir, m), shown[400];
	if (!why[0] && !unlisted)
		snprintf(why, sizeof(why), "the install's directories cannot be read");
	else if (!why[0] && unlisted[0])
		snprintf(why, sizeof(why), "%s: not in the manifest%s (planted or copied in after the "
			 "install; 'unpacker BUNDLE --repair' moves it aside)",
			 log_safe(unlisted[0], shown, sizeof(shown)), unlisted[1] ? ", with others" : "");
	unlisted_free(unlisted);
	int failed = why[0] != '\0';
	if (!failed)
		snprintf(why, sizeof(why), "%zu entries, %.1f MiB, sizes and SHA-256 as in the manifest%s",
			 m->nfiles, (double)bytes / 1048576.0,
			 r->o->just_written ? " (SHA-256 checked while written)" : "");
	report_add(r, 1, "files", failed ? "fail" : "pass", why);
}
