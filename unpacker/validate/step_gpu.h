/* step_gpu.h - validation steps 5 and 6: the driver, then the product's GPU check: cuDNN's on
 * each GPU in parallel, NCCL's on every GPU in one child */
#ifndef UNPACKER_VALIDATE_STEP_GPU_H
#define UNPACKER_VALIDATE_STEP_GPU_H

#include "unpacker/validate/report.h"

struct product;

void step_gpu(struct run *r);
/* 1 when this unpacker has the GPU check that proves product p (its gpu_check); steps 5-6 of
 * a product without one are skipped with that reason (a failure with --require-gpu). */
int step_gpu_has_check(const struct product *p);
/* 1 when the probe reads p's version from its library (the "library" and "version" probes
 * know its version call: cuDNN's); any other product's library is only loaded by step 2. */
int step_gpu_reads_version(const struct product *p);

#endif
