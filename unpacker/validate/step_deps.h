/* step_deps.h - validation step 4: the libraries the product needs (ELF, or PE import tables), found as files */
#ifndef UNPACKER_VALIDATE_STEP_DEPS_H
#define UNPACKER_VALIDATE_STEP_DEPS_H

#include "unpacker/validate/report.h"

/* Also collects r->preload: the host's cuBLAS, cuBLASLt and NVRTC for the GPU steps. */
void step_deps(struct run *r);

#endif
