/* options.h - what a validation is asked to do, and how step 1's signature check went: the
 * types validate.h's callers fill and every step of unpacker/validate/ reads */
#ifndef UNPACKER_VALIDATE_OPTIONS_H
#define UNPACKER_VALIDATE_OPTIONS_H

#include <stddef.h>

#include "unpacker/environment/environment.h"
#include "unpacker/target/layout.h"

/* Step 1's signature check of an install's stored header, made before its manifest is read. */
struct validate_signature {
	int failed;     /* the signatures did not verify: nothing in the header is believed */
	char why[1200]; /* the step's detail, either way */
	/* Failed: the install as state.json records it, for the report (set by the caller) */
	const char *bundle_id, *version;
};

struct validate_options {
	const struct layout *layout; /* where installs live, and --root */
	int env_mode;           /* how the install's environment reaches programs:
				 * VALIDATE_ENV_* of unpacker/environment/environment.h */
	int require_gpu;
	int gpu;                /* -1: every GPU */
	int quick;              /* the small shape only */
	int just_written;       /* install: every file's SHA-256 was checked as it was written */
	/* validate: how step 1's check of .cuferry/header.bin's signatures went
	 * (validate_load_manifest); NULL right after an install, which has just checked the
	 * bundle's signatures */
	const struct validate_signature *signature;
	const char *install_timings; /* install: its phases so far, a JSON object, for report.json */
	char *timings_out;           /* if set: each step's seconds (per GPU), a JSON object */
	size_t timings_out_size;
	/* if set: report.json's "validation" object (every step, GPU row, detail and timing) as
	 * JSON text, for --json (docs/json-schema.md); free() it */
	char **report_out;
};

#endif
