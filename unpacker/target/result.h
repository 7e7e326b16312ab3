/* result.h - what an install is asked (its options, target/options.h) and what it reports (its
 * result and the timings of its phases): the types every step of unpacker/install/ shares, in a
 * header of their own so that the steps need not include the transaction that calls them */
#ifndef UNPACKER_INSTALL_RESULT_H
#define UNPACKER_INSTALL_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "unpacker/target/options.h"

/* Phases of an install, timed for the log, --json and report.json. */
enum install_phase { PHASE_OPEN_VERIFY, PHASE_EXTRACT, PHASE_SYNC, PHASE_SWITCH, PHASE_ENVIRONMENT,
		     PHASE_VALIDATION, PHASE_COUNT };

struct install_result {
	char bundle_id[256];
	char dir[256];
	char version[64];
	const struct product *product; /* the bundle's; NULL before one is opened */
	char cuda_variant[16];
	char prefix[1024];
	char signers[256];
	uint64_t counter;
	uint64_t files;
	uint64_t bytes;
	int noop;
	int recovered;
	int kept_current; /* --keep-current: installed beside, current not switched */
	char replaced_variant[16]; /* the same version for this CUDA variant was current ("" none) */
	double phase_s[PHASE_COUNT]; /* seconds; negative: the phase did not run */
	char validation_timings[1024]; /* each validation step (per GPU), a JSON object */
	char *validation_report;       /* report.json's "validation" object (JSON text) or NULL */
	char *inventory;               /* inventory: its object (JSON text) or NULL */
	uint64_t repaired;    /* entries a re-run put back from the bundle */
	char repaired_first[256];
	int env_added;        /* a re-run wrote environment that was missing */
	int rerun;            /* a re-run that repaired or added something */
	char env_note[512];
	char env_paths[2][512]; /* environment files written ("" when none) */
	const char *would;    /* --dry-run: "install", "repair" or "nothing"; NULL otherwise */
	char previous_current[256]; /* --dry-run: the current install a switch would replace */
	int recovery_pending; /* --dry-run: an interrupted run's journal, recovered first */
};

/* The phases that ran, as a JSON object {"open_verify": s, ...} (for the log and reports). */
void install_timings_text(const struct install_result *r, char *out, size_t size);

#endif
