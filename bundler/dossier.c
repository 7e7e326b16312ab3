/* dossier.c - the dossier's files, written beside the tree and packed first */
#include "bundler/dossier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "manifests/sbom.h"

/* The file on disk is named by the bundle path with its slashes made dashes: the kept JSONs
 * sit in folders below the dossier, and two of them may share a base name. */
static int add_file(struct tree *t, const char *dir, const char *path, const char *text,
		    size_t len, struct cf_err *e)
{
	char *src = xasprintf("%s/%s", dir, path + strlen(SBOM_DIR) + 1);
	for (char *c = src + strlen(dir) + 1; *c; c++)
		if (*c == '/')
			*c = '-';
	return tree_add_written(t, path, src, text, len, e);
}

int dossier_add(struct tree *t, struct sbomgen_input *in, struct provenance_input *prov,
		const char *workdir, struct prehash *p, struct cf_err *e)
{
	int rc = prehash_tree(t, p, e);
	if (rc != CF_OK)
		return rc;
	char *cdx, *spdx;
	size_t cdx_len, spdx_len;
	struct provenance_file pf[PROVENANCE_MAX_FILES];
	in->files = prov->files = p;
	sbomgen_write(in, &cdx, &cdx_len, &spdx, &spdx_len);
	size_t npf = 0;
	rc = provenance_files(prov, pf, &npf, e);
	char *dir = xasprintf("%s/dossier", workdir);
	if (rc == CF_OK && io_mkdirs(dir, 0755) != 0)
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", dir, strerror(errno));
	if (rc == CF_OK)
		rc = add_file(t, dir, SBOM_CYCLONEDX_PATH, cdx, cdx_len, e);
	if (rc == CF_OK)
		rc = add_file(t, dir, SBOM_SPDX_PATH, spdx, spdx_len, e);
	for (size_t i = 0; rc == CF_OK && i < npf; i++)
		rc = add_file(t, dir, pf[i].path, pf[i].text, pf[i].len, e);
	provenance_files_free(pf, npf);
	free(cdx);
	free(spdx);
	free(dir);
	return rc;
}
