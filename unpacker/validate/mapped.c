/* mapped.c - one search of the libraries mapped into this process */
#include "unpacker/validate/mapped.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform.h"

struct search {
	json_t *list;
	const char *const *filters;
	enum mapped_paths how;
};

static void collect(const char *path, void *ctx)
{
	struct search *s = ctx;
	char real[PATH_MAX];
	size_t i = 0;
	while (s->filters[i] && !strstr(path, s->filters[i]))
		i++;
	if (!s->filters[i])
		return;
	if (s->how == MAPPED_AS_LOADED)
		json_array_append_new(s->list, json_string(path));
	else if (platform_realpath(path, real, sizeof(real)) == 0)
		json_array_append_new(s->list, json_string(real));
}

json_t *mapped_libraries(const char *const *filters, enum mapped_paths how)
{
	struct search s = { json_array(), filters, how };
	platform_loaded_libs(collect, &s);
	return s.list;
}
