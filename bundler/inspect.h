/* inspect.h - bundler inspect (summary, signers, files, --export for stock OpenSSL) and
 * bundler sign (add a signature with a key file or one made elsewhere) */
#ifndef BUNDLER_INSPECT_H
#define BUNDLER_INSPECT_H

#include "common/err.h"

int inspect_bundle(const char *path, const char *export_dir, struct cf_err *e);

struct sign_options {
	const char *key_path;       /* --key */
	int external;               /* --external */
	const char *pub_path;       /* --pub, with --external --signature */
	const char *signature_path; /* --signature: raw r||s, hex, or DER */
};

int sign_bundle(const char *path, const struct sign_options *o, struct cf_err *e);

#endif
