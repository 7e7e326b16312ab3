/* gpucaps.h - the host's NVIDIA driver library, and what its GPUs can run: each GPU's compute
 * capability, asked of libcuda in the unprivileged probe (never loaded in this process) */
#ifndef UNPACKER_VALIDATE_GPUCAPS_H
#define UNPACKER_VALIDATE_GPUCAPS_H

#include <stddef.h>

struct choose_gpus;

/* The host's driver library, also under --root (the GPU and its kernel module are the host's,
 * and nothing of an image is loaded): Windows' System32 nvcuda.dll; on Linux the one
 * CUFERRY_LIBCUDA names, else libcuda.so.1 of the ld cache or the usual directories. 0 and
 * its path in out; -1 when there is none. */
int gpucaps_find_libcuda(char *out, size_t size);
/* Every GPU's compute capability into g, through the probe's "driver" kind (one child, the
 * probe's timeout); g->known 0 and g->why when there is no driver or it cannot say. */
void gpucaps_read(struct choose_gpus *g);

#endif
