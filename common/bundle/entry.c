/* entry.c - the payload's entries in their one order: sorted by path, looked up by path */
#include "common/bundle/entry.h"

#include <stdlib.h>
#include <string.h>

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct manifest_file *)a)->path,
		      ((const struct manifest_file *)b)->path);
}

void entry_sort(struct manifest_file *files, size_t n)
{
	if (n)
		qsort(files, n, sizeof(*files), entry_cmp);
}

const struct manifest_file *entry_find(const struct manifest_file *files, size_t n,
				       const char *path)
{
	struct manifest_file key = { .path = (char *)path };
	return n ? bsearch(&key, files, n, sizeof(*files), entry_cmp) : NULL;
}
