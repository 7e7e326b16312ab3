/* unlisted.h - entries of an installed tree that its manifest does not list (a file planted in
 * lib/, a copied-in library): validation's step 1 names them, --repair moves them aside */
#ifndef UNPACKER_UNLISTED_H
#define UNPACKER_UNLISTED_H

#include <stddef.h>

#include "common/err.h"
#include "manifests/manifest.h"

/* The entries of the installed tree dir (PREFIX/NAME) that m does not list, each relative to
 * dir, topmost only (an unlisted directory, not everything in it), in the walk's order, and
 * NULL-terminated; release with unlisted_free. Not counted: .cuferry/, and the links ldconfig
 * makes in lib/ (a link whose target is a file name that m lists in lib/, unless it is named
 * like the C library, the loader or a base library: never an ldconfig link). No link is
 * followed. NULL when dir cannot be walked. */
char **unlisted_entries(const char *dir, const struct manifest *m);
void unlisted_free(char **list);
/* Move every unlisted entry of dir, as it is (a link not followed), to dir/.cuferry/aside/:
 * CF_OK with the count in *moved, or CF_INSTALL naming the entry that could not be moved. */
int unlisted_move_aside(const char *dir, const struct manifest *m, size_t *moved, struct cf_err *e);

#endif
