/* fuzz_probe_report.c - the parent's reader of the probe's report pipe (DESIGN.md §7): any
 * bytes a library could write there are a failed check, never a crash. What it accepts must
 * have the fields the validation code reads, of the types it reads them as. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unpacker/validate/probereport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *lines = NULL;
	char why[256];
	int rc = probe_report_parse((const char *)data, size, &lines, why, sizeof(why));
	if (rc != 0 && (!why[0] || json_array_size(lines) != 0))
		abort(); /* a refusal says why and hands back nothing */
	size_t i;
	json_t *o;
	json_array_foreach(lines, i, o) {
		if (!json_is_string(json_object_get(o, "check")) || !json_is_string(json_object_get(o, "detail")))
			abort();
		const char *st = json_string_value(json_object_get(o, "status"));
		if (!st || (strcmp(st, "pass") && strcmp(st, "fail") && strcmp(st, "skip")))
			abort();
	}
	json_decref(lines);
	return 0;
}
