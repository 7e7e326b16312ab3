/* doctor.h - which cuDNN copies exist on this machine, which one a program loading
 * libcudnn.so.<major> gets, and which of them shadow the install */
#ifndef UNPACKER_DOCTOR_H
#define UNPACKER_DOCTOR_H

#include "common/err.h"
#include "unpacker/install/result.h"

/* CF_OK when nothing shadows the install (or nothing is installed); CF_VALIDATION when another
 * copy would be loaded instead of PREFIX/current/lib. */
int doctor_run(const struct install_options *o, struct cf_err *e);

#endif
