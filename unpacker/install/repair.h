/* repair.h - a re-run of an installed bundle (DESIGN.md §6): check the installed tree against
 * the manifest (sizes always, SHA-256 with --repair) and put back from the bundle whatever
 * differs, each file verified as it is written, without following links, atomically */
#ifndef UNPACKER_REPAIR_H
#define UNPACKER_REPAIR_H

#include <stddef.h>

#include "common/bundle/reader.h"
#include "common/err.h"
#include "manifests/manifest.h"

struct repair_result {
	size_t checked;   /* manifest entries looked at */
	size_t differ;    /* entries that differ from the manifest */
	size_t restored;  /* entries put back from the bundle */
	char first[256];  /* the first entry that differed, and how */
};

/* dir: the installed tree. The bundle's signature is checked already; its payload is read
 * only when something differs. in NULL: only look (install --dry-run): nothing is put back,
 * differ says how many entries would be. */
int repair_tree(const char *dir, struct bundle_input *in, const struct manifest *m, int hashes,
		int progress, struct repair_result *r, struct cf_err *e);

#endif
