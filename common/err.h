/* err.h - error values shared by every module, and the exit-code contract (DESIGN.md §9) */
#ifndef COMMON_ERR_H
#define COMMON_ERR_H

#include "common/format.h"

#include <stdarg.h>

/* The exit-code table of DESIGN.md §9. Modules return these; only main.c exits. */
enum cf_status {
	CF_OK = 0,
	CF_USAGE = 1,
	CF_TRUST = 2,
	CF_INTEGRITY = 3,
	CF_INCOMPATIBLE = 4,
	CF_INSTALL = 5,
	CF_VALIDATION = 6,
	CF_POLICY = 7,
	CF_BUSY = 8,
	CF_SOURCE = 9,
	CF_ROLLBACK = 10,
};

/* Caller-owned error: the first failure wins, so the reason stays the root cause. */
struct cf_err {
	int code;
	char msg[1024];
};

void cf_err_clear(struct cf_err *e);
/* Record a failure (unless one is already recorded) and return its code. */
int cf_fail(struct cf_err *e, int code, const char *fmt, ...)
	CF_PRINTF(3, 4);
int cf_vfail(struct cf_err *e, int code, const char *fmt, va_list ap)
	CF_PRINTF(3, 0);
/* The exit code of a failed file operation with this errno: a full disk or quota, or a file
 * larger than the file system holds, is "no space" (4); any other I/O or permission error is 5. */
int cf_write_status(int err);
/* Short name of a status, for logs and JSON reports ("trust", "integrity", ...). */
const char *cf_status_name(int code);

#endif
