/* members.c - the --with products of a unit, read and merged into the bundle's tree */
#include "bundler/members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundler/devfiles.h"
#include "bundler/libreq.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"
#include "manifests/compat.h"
#include "manifests/product.h"

/* Where a member's files come from: --with-archive, --with-dir, else the bundle's --from-dir
 * tree (a CUDA toolkit holds NCCL beside cuDNN). */
static int read_member(const struct create_member *w, const char *from_dir, const char *workdir,
		       struct tree *mt, struct manifest_member *mm, struct cf_err *e)
{
	const struct product *p = w->product;
	int rc;
	if (w->archive) {
		rc = source_from_archive(w->archive, workdir, mt, e);
		const char *slash = strrchr(w->archive, '/');
		manifest_set(&mm->source_kind, "archive");
		manifest_set(&mm->source_name, slash ? slash + 1 : w->archive);
		if (rc == CF_OK && sha256_file(w->archive, mm->source_sha256, &mm->source_size) == 0)
			mm->source_has_sha256 = 1;
		return rc;
	}
	const char *dir = w->dir ? w->dir : from_dir; /* one of them: verbs.c checked */
	rc = source_from_dir(dir, 0, mt, e);
	manifest_set(&mm->source_kind, "dir");
	manifest_set(&mm->source_name, dir);
	if (rc == CF_OK && mt->count == 0)
		rc = cf_fail(e, CF_SOURCE, "%s holds no %s files", dir, p->display);
	if (rc != CF_OK && !w->dir) { /* the bundle's own tree: say where else it may come from */
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		e->code = 0; /* the reason is restated, in full, with the way out */
		rc = cf_fail(e, rc, "--with %s: %.700s (give --with-dir %s=DIR)", p->name, why, p->name);
	}
	return rc;
}

/* The member's facts against the unit's: the version asked for, one CUDA, one platform, and
 * what NVIDIA's matrices allow (driver and compute-capability floors raised to cover it). */
static int fit_member(const struct create_member *w, const struct tree *mt, struct manifest *m,
		      struct cf_err *e)
{
	const struct product *p = w->product;
	if (!mt->version[0])
		return cf_fail(e, CF_SOURCE, "--with %s: its version cannot be read from the source",
			       p->name);
	if (w->version && compat_version_cmp(w->version, mt->version) != 0)
		return cf_fail(e, CF_SOURCE, "--with %s=%s: the source holds %s %s", p->name, w->version,
			       p->display, mt->version);
	if (mt->cuda_variant[0] && atoi(mt->cuda_variant) != atoi(m->cuda_variant))
		return cf_fail(e, CF_SOURCE, "--with %s: %s %s is built for CUDA %s, the bundle for "
			       "CUDA %s (one unit, one CUDA)", p->name, p->display, mt->version,
			       mt->cuda_variant, m->cuda_variant);
	if (mt->platform[0] && strcmp(mt->platform, m->platform) != 0)
		return cf_fail(e, CF_SOURCE, "--with %s: its files are for %s, the bundle for %s",
			       p->name, mt->platform, m->platform);
	struct compat_result c;
	int rc = compat_check(p, mt->version, m->cuda_variant, m->platform, &c, e);
	if (rc != CF_OK)
		return rc;
	if (c.driver_min[0] && (!m->driver_min || compat_version_cmp_full(c.driver_min, m->driver_min) > 0))
		manifest_set(&m->driver_min, c.driver_min);
	if (c.sm_min[0] && (!m->cc_min || compat_version_cmp_full(c.sm_min, m->cc_min) > 0))
		manifest_set(&m->cc_min, c.sm_min);
	return CF_OK;
}

static int tree_holds(const struct tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->entries[i].path, path) == 0)
			return 1;
	return 0;
}

/* The member's entries moved into t, owned by its product. Its top-level files (a licence,
 * named as the bundle's own may be) go under licenses/<name>/; any other path two products
 * share is refused, never one silently taken over the other. */
static int merge(struct tree *t, struct tree *mt, const struct product *p, struct cf_err *e)
{
	for (size_t i = 0; i < mt->count; i++) {
		struct tree_entry *ent = &mt->entries[i];
		if (!strchr(ent->path, '/')) {
			char *moved = xasprintf("licenses/%s/%s", p->name, ent->path);
			free(ent->path);
			ent->path = moved;
		}
		if (tree_holds(t, ent->path))
			return cf_fail(e, CF_SOURCE, "--with %s: %s and %s both have %s", p->name,
				       t->product->display, p->display, ent->path);
	}
	t->entries = xrealloc(t->entries, (t->count + mt->count) * sizeof(*t->entries));
	for (size_t i = 0; i < mt->count; i++) {
		mt->entries[i].product = p;
		t->entries[t->count++] = mt->entries[i];
	}
	if (mt->newest_mtime > t->newest_mtime)
		t->newest_mtime = mt->newest_mtime;
	free(mt->entries);
	mt->entries = NULL;
	mt->count = 0;
	return CF_OK;
}

/* BUNDLE-ID-PLATFORM becomes BUNDLE-ID+name-version...-PLATFORM: a unit is a line of its own,
 * never the bundle of its product alone (whose counters it would otherwise compete with). */
static void name_unit(struct manifest *m)
{
	size_t plen = strlen(m->platform), idlen = strlen(m->bundle_id);
	if (idlen <= plen + 1)
		return;
	char *stem = xasprintf("%.*s", (int)(idlen - plen - 1), m->bundle_id);
	for (size_t i = 0; i < m->nmembers; i++) {
		char *longer = xasprintf("%s+%s-%s", stem, m->members[i].product->bundle_id_stem,
					 m->members[i].version);
		free(stem);
		stem = longer;
	}
	char *id = xasprintf("%s-%s", stem, m->platform);
	manifest_set(&m->bundle_id, id);
	free(id);
	free(stem);
}

int members_add(const struct create_member *with, size_t nwith, const char *from_dir,
		const char *workdir, struct tree *t, struct manifest *m, struct members *out,
		struct cf_err *e)
{
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < nwith; i++) {
		const struct create_member *w = &with[i];
		struct tree *mt = &out->trees[out->count++];
		struct manifest_member mm = { .product = w->product };
		memset(mt, 0, sizeof(*mt));
		mt->product = w->product;
		rc = read_member(w, from_dir, workdir, mt, &mm, e);
		if (rc == CF_OK)
			rc = fit_member(w, mt, m, e);
		if (rc == CF_OK)
			rc = devfiles_add(mt, mt->version, workdir, e);
		if (rc == CF_OK)
			rc = merge(t, mt, w->product, e);
		if (rc == CF_OK) {
			mm.version = mt->version;
			manifest_add_member(m, &mm);
			log_msg(LOG_INFO, "with %s %s from %s", w->product->display, mt->version,
				mm.source_name);
		}
		free(mm.source_kind);
		free(mm.source_name);
	}
	if (rc != CF_OK || !nwith)
		return rc;
	name_unit(m);
	char glibc[32], windows[32];
	libreq_scan(t, glibc, sizeof(glibc), windows, sizeof(windows));
	manifest_set(&m->glibc_min, glibc[0] ? glibc : NULL);
	manifest_set(&m->windows_min, windows[0] ? windows : NULL);
	return CF_OK;
}

void members_free(struct members *ms)
{
	for (size_t i = 0; i < ms->count; i++)
		tree_free(&ms->trees[i]);
	ms->count = 0;
}
