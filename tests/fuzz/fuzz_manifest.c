/* fuzz_manifest.c - the strict manifest reader. A manifest it accepts must write back to
 * JSON that it accepts again, byte for byte the same on the second round. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "manifests/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest *m = NULL, *again = NULL;
	struct cf_err e = { 0 };
	if (manifest_parse((const char *)data, size, &m, &e) != CF_OK) {
		if (e.code < 1 || e.code > 10 || strchr(e.msg, '\n'))
			abort(); /* a verdict from the table, on one line */
		return 0;
	}
	size_t len, len2;
	char *json = manifest_to_json(m, &len);
	if (!json || manifest_parse(json, len, &again, &e) != CF_OK)
		abort();
	char *json2 = manifest_to_json(again, &len2);
	if (len != len2 || memcmp(json, json2, len) != 0)
		abort();
	free(json);
	free(json2);
	manifest_free(m);
	manifest_free(again);
	return 0;
}
