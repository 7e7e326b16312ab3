/* step_resolution.h - validation step 3: which copy of the product's main library a program loading it by name gets */
#ifndef UNPACKER_VALIDATE_STEP_RESOLUTION_H
#define UNPACKER_VALIDATE_STEP_RESOLUTION_H

#include "unpacker/validate/report.h"

/* Only for the current install (is_current); the others are skipped. */
void step_resolution(struct run *r, int is_current);

#endif
