/* filecheck.h - an install's listed entries against its manifest, on several threads: what
 * validation's step 1 and inventory both ask (the one hashing code of the unpacker's checks) */
#ifndef UNPACKER_VALIDATE_FILECHECK_H
#define UNPACKER_VALIDATE_FILECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "manifests/manifest.h"

/* What one listed entry is, against its manifest entry. */
enum filecheck_state {
	FILECHECK_OK,
	FILECHECK_MISSING, /* nothing under its name */
	FILECHECK_SIZE,    /* not a regular file, or its size differs */
	FILECHECK_SHA256,  /* same size, other bytes (only when hashing) */
	FILECHECK_LINK,    /* not the link the manifest lists */
};

struct filecheck_entry {
	enum filecheck_state state;
	char why[600];  /* empty, or what is wrong with it, for a one-line reason */
	uint64_t bytes; /* the size found (files) */
};

/* Every entry of m under dir (PREFIX/NAME), into out[m->nfiles] in the manifest's order. hash:
 * each file's SHA-256 as well (on up to 8 threads); else presence, type, size and links only
 * (no byte is read). Returns 0, or -1 when out of memory (*out NULL). Free *out. */
int filecheck_run(const char *dir, const struct manifest *m, int hash,
		  struct filecheck_entry **out);

#endif
