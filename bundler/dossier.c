/* dossier.c - the dossier's files, written beside the tree and packed first */
#include "bundler/dossier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "manifests/sbom.h"

static int add_file(struct tree *t, const char *dir, const char *path, const char *text,
		    size_t len, struct cf_err *e)
{
	return tree_add_written(t, path, xasprintf("%s/%s", dir, strrchr(path, '/') + 1), text, len, e);
}

int dossier_add(struct tree *t, struct sbomgen_input *in, const char *workdir,
		struct prehash *p, struct cf_err *e)
{
	int rc = prehash_tree(t, p, e);
	if (rc != CF_OK)
		return rc;
	char *cdx, *spdx;
	size_t cdx_len, spdx_len;
	in->files = p;
	sbomgen_write(in, &cdx, &cdx_len, &spdx, &spdx_len);
	char *dir = xasprintf("%s/dossier", workdir);
	if (io_mkdirs(dir, 0755) != 0)
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", dir, strerror(errno));
	if (rc == CF_OK)
		rc = add_file(t, dir, SBOM_CYCLONEDX_PATH, cdx, cdx_len, e);
	if (rc == CF_OK)
		rc = add_file(t, dir, SBOM_SPDX_PATH, spdx, spdx_len, e);
	free(cdx);
	free(spdx);
	free(dir);
	return rc;
}
