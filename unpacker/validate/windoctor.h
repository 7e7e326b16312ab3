/* windoctor.h - doctor where the system finds DLLs as files (Windows): every DLL of the product (its dll_stem*.dll) in
 * System32, SysWOW64, on the machine's and the user's PATH and in %CUDA_PATH%\bin, with its
 * version, and the one a program loading it by name gets (dllsearch, as validation's step 3) */
#ifndef UNPACKER_VALIDATE_WINDOCTOR_H
#define UNPACKER_VALIDATE_WINDOCTOR_H

#include "common/err.h"
#include "unpacker/target/options.h"

/* CF_OK when the install's copy is the one a program gets (or nothing is installed);
 * CF_VALIDATION when another copy wins, or none is found. */
int windoctor_run(const struct install_options *o, struct cf_err *e);

#endif
