/* fault.h - how an install step fails: the test seam, and the exit code of a write error */
#ifndef UNPACKER_INSTALL_FAULT_H
#define UNPACKER_INSTALL_FAULT_H

#include "common/err.h"

/* Test seam, compiled only into the test build (build/test-bin/unpacker, -DCUFERRY_TEST_SEAMS):
 * CUFERRY_FAULT=step fails at step, step:pause stops there (Windows: waits there until its
 * standard input ends). CF_OK in the shipped unpacker. */
int install_fault(const char *step, struct cf_err *e);
/* Test seam of the same build: 1 when CUFERRY_FAULT names this point exactly ("gpu1": the
 * probe child of GPU 1 is given a device ordinal no machine has, so that GPU fails its check
 * while the others run theirs, as a GPU gone bad would; "no-acl": on Windows the prefix's
 * Administrators-only check is skipped, because Wine reads every file as the user's and the
 * install tests could not run at all). 0 in the shipped unpacker. CUFERRY_FAULT may list
 * several, comma-separated ("no-acl,env"). */
int install_fault_here(const char *point);
/* The exit code of a failed write with this errno: "no space" (4) for a full disk or quota,
 * an install failure (5) otherwise. */
int install_write_error(int err);

#endif
