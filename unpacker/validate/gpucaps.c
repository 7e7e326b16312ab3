/* gpucaps.c - finding the host's libcuda, and reading the GPUs' compute capabilities for the
 * kit chooser through the unprivileged probe */
#include "unpacker/validate/gpucaps.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/target/choose.h"
#include "unpacker/validate/gpuapi.h"
#include "unpacker/validate/proberun.h"
#include "unpacker/validate/report.h"
#include "unpacker/validate/search.h"

int gpucaps_find_libcuda(char *out, size_t size)
{
	static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/usr/lib64", "/usr/lib", "/lib/x86_64-linux-gnu",
					    "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
					    "/usr/lib/wsl/lib", NULL };
	char real[PATH_MAX], system[PATH_MAX - 32];
	const char *named = getenv("CUFERRY_LIBCUDA");
	/* Where the driver installs its library among the system's own (Windows: System32's
	 * nvcuda.dll), that copy and no other. */
	if (platform_system_lib_dir(system, sizeof(system)) == 0) {
		snprintf(out, size, "%s%c%s", system, gpuapi_separator, gpuapi_driver_name);
		return platform_realpath(out, real, sizeof(real));
	}
	if (named && named[0] == '/') {
		snprintf(out, size, "%s", named);
		return platform_realpath(named, real, sizeof(real));
	}
	if (search_cache_find("libcuda.so.1", out, size) == 0)
		return 0;
	struct search *s = xmalloc(sizeof(*s));
	s->n = 0;
	s->root = "";
	for (size_t i = 0; dirs[i]; i++)
		search_add(s, "", dirs[i]);
	int rc = search_find(s, "libcuda.so.1", out, size);
	free(s);
	return rc;
}

void gpucaps_read(struct choose_gpus *g)
{
	char libcuda[PATH_MAX], why[512];
	memset(g, 0, sizeof(*g));
	if (gpucaps_find_libcuda(libcuda, sizeof(libcuda)) != 0) {
		snprintf(g->why, sizeof(g->why), "no NVIDIA driver: %s not found", gpuapi_driver_name);
		return;
	}
	char *const args[] = { "driver", libcuda, NULL };
	json_t *lines = NULL;
	if (probe_run(NULL, probe_timeout(PROBE_TIMEOUT), args, &lines, why, sizeof(why)) != 0) {
		snprintf(g->why, sizeof(g->why), "the driver probe failed: %.200s", why);
		json_decref(lines);
		return;
	}
	json_t *o = json_array_get(lines, 0), *gpus = json_object_get(o, "gpus"), *gpu;
	const char *status = json_string_value(json_object_get(o, "status"));
	if (!status || strcmp(status, "pass") != 0 || !json_is_array(gpus)) {
		const char *detail = json_string_value(json_object_get(o, "detail"));
		snprintf(g->why, sizeof(g->why), "the driver cannot say: %.200s", detail ? detail : "?");
		json_decref(lines);
		return;
	}
	size_t i;
	json_array_foreach(gpus, i, gpu) {
		if (i >= CHOOSE_MAX_GPUS)
			break;
		g->major[i] = (int)json_integer_value(json_object_get(gpu, "cc_major"));
		g->minor[i] = (int)json_integer_value(json_object_get(gpu, "cc_minor"));
		g->n = i + 1;
	}
	g->known = 1;
	json_decref(lines);
}
