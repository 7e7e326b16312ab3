/* validate.h - DESIGN.md §7: prove an installed product works (files, library, resolution,
 * dependencies, driver and GPUs, compute), report to the console, the log and report.json */
#ifndef UNPACKER_VALIDATE_H
#define UNPACKER_VALIDATE_H

#include "common/err.h"
#include "manifests/manifest.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/trust.h"
#include "unpacker/validate/options.h"

/* Validate install_dir (PREFIX/NAME) against its manifest. is_current: check resolution.
 * CF_OK; CF_VALIDATION when a check failed; CF_INCOMPATIBLE for an old driver, an unsupported
 * GPU, or no GPU with require_gpu; CF_TRUST when o->signature failed (then m is NULL: only
 * step 1 is reported). report.json is written in install_dir/.cuferry. */
int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e);
/* The manifest an install carries in .cuferry/header.bin, parsed only once the header's
 * signatures verified against trust (else, for this host's own install, root is "", the keys
 * recorded at install: step_signature.h); sig says how that
 * went. CF_OK with *m; CF_TRUST when the signatures failed (*m NULL, sig->failed: give sig to
 * validate_install, which reports it); CF_VALIDATION when the file cannot be read or holds
 * no header or no manifest. */
int validate_load_manifest(const char *root, const char *install_dir,
			   const struct trust_sources *trust, struct manifest **m,
			   struct validate_signature *sig, struct cf_err *e);

#endif
