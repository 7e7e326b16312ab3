/* step_files.h - validation step 1: every listed file as the manifest says, nothing unlisted */
#ifndef UNPACKER_VALIDATE_STEP_FILES_H
#define UNPACKER_VALIDATE_STEP_FILES_H

#include "unpacker/validate/report.h"

/* The install's files against r->m, hashed on several threads. */
void step_files(struct run *r);

#endif
