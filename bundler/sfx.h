/* sfx.h - bundler sfx and create --sfx: a signed bundle wrapped as a self-extracting .run/.exe
 * (stub, bundle, stub-signature block, trailer: common/bundle/sfx.h has the layout) */
#ifndef BUNDLER_SFX_H
#define BUNDLER_SFX_H

#include "common/err.h"

struct sfx_options {
	const char *platform;       /* --platform: must be the bundle's; NULL: the bundle's */
	const char *unpacker;       /* --unpacker PATH; NULL: stub_find's search */
	const char *key_path;       /* --key K.key */
	int external;               /* --external: print the digest, or add --pub/--signature */
	const char *pub_path;
	const char *signature_path;
	const char *out;            /* -o FILE or DIR; NULL: beside the input */
	int progress;
	int force;                  /* --force: co-sign a stub signed by a key that did not sign
				     * the bundle's header */
};

/* input is a signed plain bundle: write INPUT's name with .run (.exe for Windows) in place of
 * .bundle (or -o), signed by --key or by the --external signature. input is a .run: add one
 * more signature to its stub-signature block (for a threshold of several keys), refused
 * (CF_TRUST) when a key that did not sign the bundle's header signed the stub, unless force. With
 * --external and no --signature, print the digest to sign and write nothing. The result is
 * read back (every signature, every chunk) before it is renamed into place; SHA256SUMS
 * beside it gets its line. */
int sfx_write(const char *input, const struct sfx_options *o, struct cf_err *e);
/* NAME.bundle -> NAME.run (NAME.exe for Windows); other names get the extension added. */
char *sfx_run_name(const char *bundle, const char *platform);

#endif
