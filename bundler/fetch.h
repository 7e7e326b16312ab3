/* fetch.h - downloads that resume, retry, honour proxy variables, are cached, and must match
 * the size and SHA-256 NVIDIA published */
#ifndef BUNDLER_FETCH_H
#define BUNDLER_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct fetch_options {
	const char *cache_dir;
	int retries;
	int progress;
	int offline; /* --offline: only file:// URLs; anything else fails at once, untried */
};

void fetch_global_init(void);
void fetch_global_cleanup(void);
/* The libcurl version, for --version. */
const char *fetch_library_version(void);
/* A small document (a redistrib JSON, a directory listing) into memory; max bounds it. */
int fetch_text(const char *url, size_t max, const struct fetch_options *o, char **out,
	       size_t *len, struct cf_err *e);
/* url into dest (a cache path); an existing dest of the right size and hash is reused. */
int fetch_file(const char *url, const char *dest, uint64_t size, const uint8_t sha256[32],
	       const struct fetch_options *o, struct cf_err *e);

#endif
