/* proberun.h - the one way the parent runs a probe (probe.h): the unpacker itself started
 * again (platform_run_probe) with an environment of its own and a timeout, unprivileged
 * before it is executed, its whole tree of processes ended with it; what it reports comes
 * back as checked JSON objects. validate and doctor use it. */
#ifndef UNPACKER_PROBERUN_H
#define UNPACKER_PROBERUN_H

#include <stddef.h>

struct json_t;

/* fallback seconds, unless CUFERRY_VALIDATE_TIMEOUT (1..3600) says otherwise (a slow GPU) */
int probe_timeout(int fallback);
/* Run one probe (platform_run_probe: unprivileged before it is executed, its whole tree ended
 * with it): args are those after the report fd (KIND ARGS..., at most 11), extra_env one more
 * "NAME=value" for its otherwise clean environment (never LD_LIBRARY_PATH) or NULL.
 * 0 and the report's objects in *lines (a new array); -1 and why (timed out, crashed, reported
 * nothing or something malformed), *lines still to release. */
int probe_run(const char *extra_env, int timeout, char *const args[], struct json_t **lines,
	      char *why, size_t size);

#endif
