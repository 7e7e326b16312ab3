/* validate.h - DESIGN.md §7: prove an installed cuDNN works (files, library, resolution,
 * dependencies, driver and GPUs, compute), report to the console, the log and report.json */
#ifndef UNPACKER_VALIDATE_H
#define UNPACKER_VALIDATE_H

#include "common/err.h"
#include "manifests/manifest.h"
#include "unpacker/layout.h"
#include "unpacker/trust.h"

/* Step 1's signature check of an install's stored header, made before its manifest is read. */
struct validate_signature {
	int failed;     /* the signatures did not verify: nothing in the header is believed */
	char why[1200]; /* the step's detail, either way */
	/* Failed: the install as state.json records it, for the report (set by the caller) */
	const char *bundle_id, *cudnn_version;
};

struct validate_options {
	const struct layout *layout; /* where installs live, and --root */
	int env_mode;           /* how the install's environment reaches programs: see below */
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

enum { VALIDATE_ENV_CACHE, VALIDATE_ENV_LIBRARY_PATH };

/* Validate install_dir (PREFIX/NAME) against its manifest. is_current: check resolution.
 * CF_OK; CF_VALIDATION when a check failed; CF_INCOMPATIBLE for an old driver, an unsupported
 * GPU, or no GPU with require_gpu; CF_TRUST when o->signature failed (then m is NULL: only
 * step 1 is reported). report.json is written in install_dir/.cuferry. */
int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e);
/* The manifest an install carries in .cuferry/header.bin, parsed only once the header's
 * signatures verified against trust (else the keys recorded at install); sig says how that
 * went. CF_OK with *m; CF_TRUST when the signatures failed (*m NULL, sig->failed: give sig to
 * validate_install, which reports it); CF_VALIDATION when the file cannot be read or holds
 * no header or no manifest. */
int validate_load_manifest(const char *install_dir, const struct trust_sources *trust,
			   struct manifest **m, struct validate_signature *sig, struct cf_err *e);

#endif
