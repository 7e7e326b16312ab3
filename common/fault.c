/* fault.c - how an install step fails: the test seam, and the exit code of a write error */
#include "common/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

/* The seam's pause stops this process with SIGSTOP, straight, not through common/platform.h:
 * it exists only in the test build, whose tests (POSIX shell: kill -9 of the stopped
 * unpacker) need no platform call for it. Windows, without SIGSTOP, waits for the end of
 * standard input instead (tests/e2e/test_windows_install.sh). */
#ifdef CUFERRY_TEST_SEAMS
#include <signal.h>
#endif

#ifdef CUFERRY_TEST_SEAMS
/* CUFERRY_FAULT is a comma-separated list ("no-acl,env"): the item that starts with name
 * (followed by nothing, ',' or ':'), or NULL. */
static const char *fault_item(const char *name)
{
	const char *f = getenv("CUFERRY_FAULT");
	size_t n = strlen(name);
	for (; f && *f; f += strcspn(f, ",") + (f[strcspn(f, ",")] == ',')) {
		if (strncmp(f, name, n) == 0 && (f[n] == '\0' || f[n] == ',' || f[n] == ':'))
			return f;
	}
	return NULL;
}
#endif

/* Test seam, compiled only into the test build (build/test-bin/unpacker, -DCUFERRY_TEST_SEAMS):
 * CUFERRY_FAULT=step fails there, step:pause stops there so a test can kill -9. The shipped
 * unpacker ignores the variable. Even where present it can only make an install fail (but for
 * "no-acl", install_fault_here's Wine-only allowance). */
int install_fault(const char *step, struct cf_err *e)
{
#ifdef CUFERRY_TEST_SEAMS
	const char *f = fault_item(step);
	size_t n = strlen(step);
	if (!f)
		return CF_OK;
	if (strncmp(f + n, ":pause", 6) == 0 && (f[n + 6] == '\0' || f[n + 6] == ',')) {
		fprintf(stderr, "cuferry-fault: paused at %s\n", step);
#ifdef SIGSTOP
		raise(SIGSTOP);
#else
		/* Windows has no stopped state: wait until the test closes our standard input (or
		 * kills us meanwhile, as kill -9 does a stopped one). */
		while (getchar() != EOF)
			;
#endif
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
	const char *f = fault_item(point);
	return f && (f[strlen(point)] == '\0' || f[strlen(point)] == ',');
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
