/* proberun.c - parent side of a probe: start the unpacker itself as the probe child with a
 * clean environment and a timeout, and collect the JSON lines it reports on its own pipe */
#include "unpacker/validate/proberun.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/validate/probe.h"
#include "unpacker/validate/probereport.h"
#include "unpacker/target/selfpath.h"

int probe_timeout(int fallback)
{
	const char *v = getenv("CUFERRY_VALIDATE_TIMEOUT");
	long n = v ? strtol(v, NULL, 10) : 0;
	return n >= 1 && n <= 3600 ? (int)n : fallback;
}

/* The child's stdout and stderr (the libraries' too) are only the reason shown when it reports
 * nothing: the report pipe is the one channel it can answer on. */
int probe_run(const char *extra_env, int timeout, char *const args[], json_t **lines, char *why,
	      size_t size)
{
	const char *self = platform_self_path();
	char *env[8], fdarg[32];
	int nenv = 0, rp[2];
	*lines = json_array();
	/* The child inherits the write end, and closes every other handle. */
	if (!self || platform_child_pipe(&rp[0], &rp[1], PROBE_REPORT_MAX) != 0)
		return snprintf(why, size, "cannot start a probe: %s", platform_strerror(errno)), -1;
	if (platform_child_handle_arg(rp[1], fdarg, sizeof(fdarg)) != 0) {
		int saved = errno;
		platform_close(rp[0]);
		platform_close(rp[1]);
		return snprintf(why, size, "cannot start a probe: %s", platform_strerror(saved)), -1;
	}
	/* An environment of its own: nothing of the caller's, no LD_LIBRARY_PATH, no LD_PRELOAD
	 * (the loader maps nothing of an install before main, and the product, cuBLAS,
	 * NVRTC and the driver are loaded by absolute path). */
	for (const char *const *base = platform_clean_env(); *base && nenv < 6; base++)
		env[nenv++] = (char *)*base;
	if (extra_env)
		env[nenv++] = (char *)extra_env;
	env[nenv] = NULL;
	char *argv[15];
	int argc = 0;
	argv[argc++] = "unpacker";
	argv[argc++] = PROBE_FLAG;
	argv[argc++] = fdarg;
	for (int i = 0; args[i] && argc < 14; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	/* Started through the dynamic loader (a .run on media without the x bit): that file is
	 * the program; what is executed is its image alone, never a .run's bundle. */
	const char *program = selfpath_program() ? selfpath_program() : self;
	struct platform_probe_program prog = { program, selfpath_image_size(program, platform_own_image()),
					       selfpath_loader() && selfpath_program() ? selfpath_loader() : NULL };
	struct platform_child child;
	int started = platform_run_probe(&prog, argv, env, timeout, &child);
	int saved = errno;
	if (started == 0)
		log_msg(LOG_DEBUG, "probe %s: %s", args[0], child.contained);
	platform_close(rp[1]);
	char *report = NULL;
	size_t len = 0;
	int read_ok = probe_report_read(rp[0], &report, &len) == 0;
	platform_close(rp[0]);
	if (started != 0) {
		free(report);
		return snprintf(why, size, "cannot start a probe: %s",
				child.crash[0] ? child.crash : platform_strerror(saved)), -1;
	}
	int rc = 0;
	char parse_why[128];
	if (child.timed_out)
		rc = (snprintf(why, size, "timed out after %d s (killed)", timeout), -1);
	else if (!child.exited)
		rc = (snprintf(why, size, "crashed inside the library (%s)", child.crash), -1);
	else if (child.output_capped) /* a flood of output is no working library (issue 23 A15) */
		rc = (snprintf(why, size, "it wrote more than %u KiB to its output (only the first "
			       "kept): failed", PLATFORM_PROBE_OUTPUT_MAX >> 10), -1);
	else if (!read_ok || len == 0) {
		/* Nothing on the pipe: the first line it printed says why (startup errors). */
		char text[200] = "no output", safe[200];
		if (child.output)
			snprintf(text, sizeof(text), "%.*s", (int)strcspn(child.output, "\n"), child.output);
		rc = (snprintf(why, size, "the probe failed: %s", log_safe(text, safe, sizeof(safe))), -1);
	} else {
		json_decref(*lines); /* the parser makes the array it fills */
		if (probe_report_parse(report, len, lines, parse_why, sizeof(parse_why)) != 0)
			rc = (snprintf(why, size, "%s", parse_why), -1);
	}
	free(report);
	free(child.output);
	return rc;
}
