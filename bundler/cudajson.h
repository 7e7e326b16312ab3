/* cudajson.h - bundler cuda-json: NVIDIA's CUDA redistrib JSON written from a local toolkit,
 * so that a file:// mirror gives create its CUDA component list without the internet */
#ifndef BUNDLER_CUDAJSON_H
#define BUNDLER_CUDAJSON_H

#include "common/err.h"

struct cudajson_options {
	const char *from_dir; /* the toolkit: /usr/local/cuda */
	const char *out;      /* the mirror directory: OUT/cuda/redist/redistrib_<release>.json */
	const char *platform; /* NULL: the libraries' own (ELF machine) */
	const char *release;  /* NULL: version.json's, else the CUDA runtime wheel's MAJOR.MINOR */
};

/* Write the JSON, or fail with what the toolkit lacks (9) and write nothing. */
int cudajson_write(const struct cudajson_options *o, struct cf_err *e);

#endif
