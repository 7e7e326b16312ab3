/* step_gpu.h - validation steps 5 and 6: the driver, then each GPU's compute check, in parallel */
#ifndef UNPACKER_VALIDATE_STEP_GPU_H
#define UNPACKER_VALIDATE_STEP_GPU_H

#include "unpacker/validate/report.h"

void step_gpu(struct run *r);

#endif
