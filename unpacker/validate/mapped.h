/* mapped.h - the libraries mapped into the probe child, as its checks report them: which
 * copies of the product's library a load brought in, and which NVIDIA libraries (NVRTC, cuBLASLt) came with it */
#ifndef UNPACKER_VALIDATE_MAPPED_H
#define UNPACKER_VALIDATE_MAPPED_H

struct json_t;

enum mapped_paths {
	MAPPED_AS_LOADED, /* the path the loader has (a link's name, as it was opened) */
	MAPPED_REAL,      /* links resolved; a library whose path no longer resolves is left out */
};

/* A new JSON array of the paths of the libraries mapped into this process whose path
 * contains one of filters (a NULL-terminated list), in the loader's order. */
struct json_t *mapped_libraries(const char *const *filters, enum mapped_paths how);

#endif
