/* err.c - recording the first failure with its exit code */
#include "common/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/platform.h"

void cf_err_clear(struct cf_err *e)
{
	e->code = 0;
	e->msg[0] = '\0';
}

int cf_write_status(int err)
{
	return platform_error_is_no_space(err) || err == EFBIG ? CF_INCOMPATIBLE : CF_INSTALL;
}

int cf_vfail(struct cf_err *e, int code, const char *fmt, va_list ap)
{
	if (e->code != 0)
		return e->code;
	e->code = code;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	/* One-line reasons: a hostile name must not forge extra log lines. */
	for (char *p = e->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return code;
}

int cf_fail(struct cf_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cf_vfail(e, code, fmt, ap);
	va_end(ap);
	return e->code;
}

const char *cf_status_name(int code)
{
	static const char *const names[] = {
		"ok", "usage", "trust", "integrity", "incompatible", "install",
		"validation", "policy", "busy", "source", "rollback",
	};
	if (code >= 0 && code < (int)(sizeof(names) / sizeof(names[0])))
		return names[code];
	return "unknown";
}
