/* inspect.h - bundler inspect (summary, signers, files, --export for stock OpenSSL) and
 * bundler sign (add a signature with a key file or one made elsewhere) */
#ifndef BUNDLER_INSPECT_H
#define BUNDLER_INSPECT_H

#include <stdint.h>

#include "common/err.h"
#include "common/bundle/format.h"

/* sbom: NULL for the summary; "cyclonedx" or "spdx" prints only that stored SBOM, with the
 * signers' fingerprints added, once every chunk and file checked; provenance prints the
 * stored provenance record (.cuferry-dossier/provenance.json) as it is, after the same checks. */
int inspect_bundle(const char *path, const char *export_dir, const char *sbom, int provenance,
		   struct cf_err *e);

struct sign_options {
	const char *key_path;       /* --key */
	int external;               /* --external */
	const char *pub_path;       /* --pub, with --external --signature */
	const char *signature_path; /* --signature: raw r||s, hex, or DER */
};

int sign_bundle(const char *path, const struct sign_options *o, struct cf_err *e);
/* --external without --signature: the digest on stdout, and how to sign it elsewhere and
 * finish with 'bundler VERB INPUT --external ...'; what completes "the SHA-256 ...". */
void sign_print_external_steps(const uint8_t digest[32], const char *what, const char *verb,
			       const char *input);
/* One signature over digest, by --key or from --external --pub --signature (converted and
 * verified), refused when one of the have[] keys already signed. what names the signed thing
 * in messages ("bundle's header", "stub-signature block"). */
int sign_make(const struct sign_options *o, const uint8_t digest[32], const char *what,
	      const struct frame_sig *have, uint32_t nhave, struct frame_sig *sig,
	      struct cf_err *e);

#endif
