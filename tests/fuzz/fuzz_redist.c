/* fuzz_redist.c - NVIDIA's redistrib JSON reader: any input, every lookup the bundler makes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifests/redist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const comps[] = { "cudnn", "libcublas", "cuda_nvrtc" };
	static const char *const plats[] = { "linux-x86_64", "linux-sbsa", "windows-x86_64" };
	static const char *const variants[] = { NULL, "12", "13" };
	struct redist *r = NULL;
	struct cf_err e = { 0 };
	if (redist_parse((const char *)data, size, &r, &e) != CF_OK)
		return 0;
	redist_release_date(r);
	redist_release_label(r);
	for (size_t c = 0; c < 3; c++)
		for (size_t p = 0; p < 3; p++) {
			char offered[128];
			redist_variants(r, comps[c], plats[p], offered, sizeof(offered));
			for (size_t v = 0; v < 3; v++) {
				struct redist_artifact a;
				struct cf_err e2 = { 0 };
				if (redist_find(r, comps[c], plats[p], variants[v], &a, &e2) == CF_OK &&
				    (a.relative_path[0] == '/' || strstr(a.relative_path, "..")))
					abort(); /* the mirror never decides where files land */
			}
		}
	redist_free(r);
	return 0;
}
