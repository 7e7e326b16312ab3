/* validate.h - DESIGN.md §7: prove an installed cuDNN works (files, library, resolution,
 * dependencies, driver and GPUs, compute), report to the console, the log and report.json */
#ifndef UNPACKER_VALIDATE_H
#define UNPACKER_VALIDATE_H

#include "common/err.h"
#include "manifests/manifest.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/trust.h"

struct validate_options {
	const struct layout *layout; /* where installs live, and --root */
	int env_mode;           /* how the install's environment reaches programs:
				 * VALIDATE_ENV_* of unpacker/environment/environment.h */
	int require_gpu;
	int gpu;                /* -1: every GPU */
	int quick;              /* the small shape only */
	int just_written;       /* install: every file's SHA-256 was checked as it was written */
	/* validate: the keys to re-check .cuferry/header.bin against (NULL right after an
	 * install, which has just checked the bundle's signatures) */
	const struct trust_sources *trust;
	const char *install_timings; /* install: its phases so far, a JSON object, for report.json */
	char *timings_out;           /* if set: each step's seconds (per GPU), a JSON object */
	size_t timings_out_size;
	/* if set: report.json's "validation" object (every step, GPU row, detail and timing) as
	 * JSON text, for --json (docs/json-schema.md); free() it */
	char **report_out;
};

/* Validate install_dir (PREFIX/NAME) against its manifest. is_current: check resolution.
 * CF_OK; CF_VALIDATION when a check failed; CF_INCOMPATIBLE for an old driver, an unsupported
 * GPU, or no GPU with require_gpu. report.json is written in install_dir/.cuferry. */
int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e);
/* The manifest an install carries in .cuferry/header.bin. */
int validate_load_manifest(const char *install_dir, struct manifest **m, struct cf_err *e);

#endif
