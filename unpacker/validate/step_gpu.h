/* step_gpu.h - validation steps 5 and 6: the driver, then each GPU's compute check, in parallel */
#ifndef UNPACKER_VALIDATE_STEP_GPU_H
#define UNPACKER_VALIDATE_STEP_GPU_H

#include "unpacker/validate/report.h"

struct product;

void step_gpu(struct run *r);
/* 1 when this unpacker has the GPU check that proves product p (its gpu_check); steps 5-6 of
 * a product without one are skipped with that reason (a failure with --require-gpu). */
int step_gpu_has_check(const struct product *p);

#endif
