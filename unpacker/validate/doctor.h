/* doctor.h - which copies of the product exist on this machine, which one a program loading
 * its main library (libname_main) gets, and which of them shadow the install */
#ifndef UNPACKER_DOCTOR_H
#define UNPACKER_DOCTOR_H

#include "common/err.h"
#include "unpacker/target/options.h"
#include "unpacker/target/layout.h"

/* CF_OK when nothing shadows the install (or nothing is installed); CF_VALIDATION when another
 * copy would be loaded instead of PREFIX/current/lib. */
int doctor_run(const struct install_options *o, struct cf_err *e);

/* The copy of the main library of MAJOR a program gets, decided exactly as doctor decides it (the one
 * function validation's step 3 uses too, so the two always agree): the loader's configuration
 * and cache, /etc/environment and profile.d read as files under l's root, and, for a user's
 * install (system_env 0: no system files), the caller's LD_LIBRARY_PATH. Nothing is loaded. */
struct doctor_pick {
	int found;              /* some copy is found */
	int ours;               /* it is the install's */
	char path[4096];        /* its file, as the system names it */
	char version[64];       /* from its name or headers, "unknown" */
	char who[128];          /* whose view decided: "a program started by the system (ld cache)" */
	char via[4160];         /* what puts it on the search path */
	char fix[4096];         /* when another copy wins: the command that removes it */
};
/* Of product's library: the layout's product, or a --with product of its current unit.
 * 0, or -1 when nothing is installed as current under l. */
int doctor_pick(const struct layout *l, const struct product *product, const char *major,
		int system_env, struct doctor_pick *p);

/* One copy of the product's main library (of the current install's major) that doctor finds,
 * for inventory: the same survey, from names, headers and metadata only (no library is
 * loaded, not even by the probe: a version no name dates stays "unknown"). */
struct doctor_copy {
	char path[4096];    /* the file behind the links, as the system names it */
	char version[64];   /* or "unknown" */
	char origin[1024];  /* deb package X, pip wheel X, cuferry install X in P, ... */
	char vias[2048];    /* what puts it on the search path; "" when nothing does */
	int ours;           /* the current install's own copy */
	int wins;           /* a program that counts (doctor's views) gets this copy */
	int shadows;        /* it wins where the install should: doctor's exit 6 */
};
/* Every copy under l's root, into *out (free it); returns how many. *surveyed 0 where this
 * survey does not apply (a Windows host, whose DLL search doctor surveys its own way). */
size_t doctor_copies(const struct layout *l, struct doctor_copy **out, int *surveyed);

#endif
