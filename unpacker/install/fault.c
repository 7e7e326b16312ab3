/* fault.c - how an install step fails: the test seam, and the exit code of a write error */
#include "unpacker/install/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

/* The seam's pause stops this process with SIGSTOP, straight, not through common/platform.h:
 * it exists only in the test build, whose tests (POSIX shell: kill -9 of the stopped
 * unpacker) run on Linux alone, so no platform needs a call for it. */
#ifdef CUFERRY_TEST_SEAMS
#include <signal.h>
#endif

/* Test seam, compiled only into the test build (build/test-bin/unpacker, -DCUFERRY_TEST_SEAMS):
 * CUFERRY_FAULT=step fails there, step:pause stops there so a test can kill -9. The shipped
 * unpacker ignores the variable. Even where present it can only make an install fail. */
int install_fault(const char *step, struct cf_err *e)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *f = getenv("CUFERRY_FAULT");
	size_t n = strlen(step);
	if (!f || strncmp(f, step, n) != 0 || (f[n] != '\0' && f[n] != ':'))
		return CF_OK;
	if (strcmp(f + n, ":pause") == 0) {
		fprintf(stderr, "cuferry-fault: paused at %s\n", step);
		raise(SIGSTOP);
		return CF_OK;
	}
	return cf_fail(e, CF_INSTALL, "injected failure at %s (CUFERRY_FAULT)", step);
#else
	(void)step, (void)e;
	return CF_OK;
#endif
}

int install_fault_here(const char *point)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *f = getenv("CUFERRY_FAULT");
	return f && strcmp(f, point) == 0;
#else
	(void)point;
	return 0;
#endif
}

/* A full disk or quota is "no space" (exit 4) with its cause, wherever it strikes; any other
 * write error is an install failure (5). */
int install_write_error(int err)
{
	return platform_error_is_no_space(err) ? CF_INCOMPATIBLE : CF_INSTALL;
}
