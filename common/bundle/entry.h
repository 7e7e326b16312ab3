/* entry.h - one entry of a bundle's payload as the signed manifest lists it (DESIGN.md §3
 * "files"): the format's own type, so the payload walk and the manifest share it and the
 * manifest depends on the bundle format, never the reverse */
#ifndef COMMON_BUNDLE_ENTRY_H
#define COMMON_BUNDLE_ENTRY_H

#include <stddef.h>
#include <stdint.h>

enum manifest_type { MF_FILE = 0, MF_SYMLINK = 1 };

struct manifest_file {
	char *path;
	int type;
	uint64_t size;    /* files only */
	unsigned mode;    /* files only: 0644 or 0755 */
	uint8_t sha256[32];
	char *target;     /* symlinks only: a file name in the same directory */
};

/* One zstd frame of an indexed payload (DESIGN.md §3 "payload.frames"): where its compressed
 * bytes lie in the payload and how many tar bytes it decodes to. Frames are independent, so
 * several can be decoded at once; the index is read only from the verified manifest. */
struct payload_frame {
	uint64_t offset;            /* from the payload's first byte */
	uint64_t size;              /* compressed */
	uint64_t uncompressed_size; /* tar bytes */
};

/* Sort by path (byte order), the order of the payload. */
void entry_sort(struct manifest_file *files, size_t n);
/* The entry named path in a sorted list, or NULL. */
const struct manifest_file *entry_find(const struct manifest_file *files, size_t n,
				       const char *path);

#endif
