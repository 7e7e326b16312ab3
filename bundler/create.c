/* create.c - bundler create: source -> install tree -> payload -> signed manifest -> checked
 * bundle in place */
#include "bundler/create.h"
#include "bundler/devfiles.h"

#include <errno.h>
#include <mbedtls/base64.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundler/check.h"
#include "bundler/dossier.h"
#include "bundler/fetch.h"
#include "bundler/libreq.h"
#include "bundler/members.h"
#include "bundler/mirror.h"
#include "bundler/output.h"
#include "bundler/pack.h"
#include "bundler/sfx.h"
#include "bundler/stub.h"
#include "bundler/source.h"
#include "common/bundle/format.h"
#include "common/bundle/write.h"
#include "common/interrupt.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/compat.h"
#include "manifests/manifest.h"
#include "manifests/pathrule.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "manifests/sbom.h"
#include "manifests/shadow.h"
#include "signing/sign.h"

char *create_cache_dir(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return xasprintf("%s/cuferry", xdg);
	return xasprintf("%s/.cache/cuferry", home && *home ? home : "/tmp");
}

static int64_t date_to_epoch(const char *date)
{
	char iso[40];
	snprintf(iso, sizeof(iso), "%.10sT00:00:00Z", date);
	return manifest_parse_time(iso);
}

/* SOURCE_DATE_EPOCH makes created, the default counter and the entries' mtime reproducible. */
static int set_times(struct manifest *m, const struct create_options *o, int64_t source_time,
		     struct cf_err *e)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	int64_t now = (int64_t)time(NULL), epoch = -1;
	char created[32];
	if (sde && *sde) {
		char *end;
		epoch = strtoll(sde, &end, 10);
		if (*end || epoch < 0)
			return cf_fail(e, CF_USAGE, "SOURCE_DATE_EPOCH='%s' is not a number of seconds", sde);
		now = epoch;
	}
	if (now > (int64_t)time(NULL) + CREATE_FUTURE_GRACE_S && !o->allow_future) {
		char clock[32];
		manifest_format_time((int64_t)time(NULL), clock);
		manifest_format_time(now, created);
		return cf_fail(e, CF_USAGE, "created %s (SOURCE_DATE_EPOCH=%s) is more than a day after "
			       "this host's clock (%s): every unpacker would refuse the bundle; fix "
			       "SOURCE_DATE_EPOCH, or --allow-future", created, sde, clock);
	}
	manifest_format_time(now, created);
	manifest_set(&m->created, created);
	m->counter = o->has_counter ? o->counter : (uint64_t)now;
	m->source_date_epoch = (uint64_t)(epoch >= 0 ? epoch : source_time > 0 ? source_time : now);
	if (o->expires_days >= 0) {
		char expires[32];
		manifest_format_time(now + (int64_t)o->expires_days * 86400, expires);
		manifest_set(&m->expires, expires);
	}
	return CF_OK;
}

static void set_env(struct manifest *m, const struct tree *t)
{
	int bin = 0, binx64 = 0;
	for (size_t i = 0; i < t->count; i++) {
		bin |= strncmp(t->entries[i].path, "bin/", 4) == 0;
		binx64 |= strncmp(t->entries[i].path, "bin/x64/", 8) == 0;
	}
	/* The DLL search order finds libraries through PATH (CUDA 13 moved them to bin/x64);
	 * ld.so through LD_LIBRARY_PATH. */
	if (platform_facts(m->platform)->loader == PLATFORM_LOADER_DLL_SEARCH) {
		manifest_strings_add(&m->env_path, binx64 ? "bin/x64" : "bin");
		return;
	}
	if (bin)
		manifest_strings_add(&m->env_path, "bin");
	manifest_strings_add(&m->env_ld_library_path, "lib");
}

/* CUDA 13 dropped GPUs before Turing, 12 those before Maxwell; the matrix may say more. */
static const char *cc_floor(const char *variant)
{
	int major = atoi(variant);
	return major >= 13 ? "7.5" : major == 12 ? "5.0" : major == 11 ? "3.5" : "3.0";
}

static void add_plan_components(struct manifest *m, const struct mirror_plan *plan, int included)
{
	manifest_set(&m->cuda_release, plan->cuda_release);
	for (size_t i = 0; i < plan->ncomponents; i++) {
		const struct redist_artifact *a = &plan->components[i];
		struct manifest_component c = { .name = (char *)a->component,
						.version = (char *)a->version,
						.relative_path = (char *)a->relative_path,
						.has_sha256 = 1, .size = a->size, .included = included };
		memcpy(c.sha256, a->sha256, 32);
		manifest_add_component(m, &c);
	}
}

/* Components of a directory source: versions from NVIDIA's wheel metadata, hash of the
 * library itself. */
static void add_tree_components(struct manifest *m, const struct tree *t, const char *dir)
{
	for (size_t i = 0; i < t->ncuda_libs; i++) {
		const struct cuda_lib_info *l = &t->cuda_libs[i];
		char *file = xasprintf("%s/%s", dir, l->file), real[PATH_MAX];
		struct manifest_component c = { .name = (char *)l->name, .version = (char *)l->version };
		if (realpath(file, real) && sha256_file(real, c.sha256, &c.size) == 0)
			c.has_sha256 = 1;
		manifest_add_component(m, &c);
		free(file);
	}
}

/* Whether a file (its base name) is one of a CUDA component's libraries: libcublas.so*,
 * bin/cublas64_*.dll (cuBLASLt's share the prefix). */
static int component_file(const char *component, const char *path)
{
	static const struct {
		const char *component, *linux_name, *windows_name;
	} libs[] = {
		{ "libcublas", "libcublas", "cublas" },
		{ "cuda_nvrtc", "libnvrtc", "nvrtc" },
	};
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (strcmp(libs[i].component, component) == 0)
			return strncmp(base, libs[i].linux_name, strlen(libs[i].linux_name)) == 0 ||
			       strncmp(base, libs[i].windows_name, strlen(libs[i].windows_name)) == 0;
	return 0;
}

/* Whether the tree holds a CUDA component's main library: lib/libcublas.so*, bin/cublas64_*.dll */
static int tree_packs(const struct tree *t, const char *component)
{
	static const struct {
		const char *component, *linux_name, *windows_name;
	} libs[] = {
		{ "libcublas", "libcublas.so", "cublas64_" },
		{ "cuda_nvrtc", "libnvrtc.so", "nvrtc64_" },
	};
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (strcmp(libs[i].component, component) != 0)
			continue;
		for (size_t k = 0; k < t->count; k++) {
			const char *slash = strrchr(t->entries[k].path, '/');
			const char *base = slash ? slash + 1 : t->entries[k].path;
			if (strncmp(base, libs[i].linux_name, strlen(libs[i].linux_name)) == 0 ||
			    strncmp(base, libs[i].windows_name, strlen(libs[i].windows_name)) == 0)
				return 1;
		}
	}
	return 0;
}

/* The SBOM's owner of a file: the included CUDA component whose library it is, else the
 * product (LICENSE.<component>.txt files name theirs too). */
static int file_owner(const struct manifest *m, const char *path)
{
	for (size_t i = 0; i < m->ncomponents; i++) {
		const struct manifest_component *c = &m->components[i];
		if (!c->included)
			continue;
		char *lic = xasprintf("LICENSE.%s.txt", c->name);
		int own = component_file(c->name, path) || strcmp(path, lic) == 0;
		free(lic);
		if (own)
			return (int)i;
	}
	return -1;
}

static int agree(const char *what, const char *given, const char *found, struct cf_err *e)
{
	if (given && found && *found && compat_version_cmp(given, found) != 0)
		return cf_fail(e, CF_SOURCE, "the source holds %s %s, not %s", what, found, given);
	return CF_OK;
}

struct job {
	const struct create_options *o;
	struct tree tree;
	struct members members;
	struct mirror_plan plan;
	int have_plan;
	struct manifest *m;
	char *workdir;
	char *cache;
	char *out_path;
	char *run_path;
	struct fetch_options fetch;
	char source_kind[32];
	char source_name[512];
	uint8_t source_sha[32];
	int source_has_sha;
	uint64_t source_size;
	int64_t source_time;
};

/* --with-cuda-libs from a mirror: download, check and add each component the plan lists. */
static int fetch_components(struct job *j, const char *platform, struct cf_err *e)
{
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < j->plan.ncomponents; i++) {
		const struct redist_artifact *a = &j->plan.components[i];
		char *dest = xasprintf("%s/%s", j->cache, a->relative_path);
		rc = fetch_file(j->plan.component_urls[i], dest, a->size, a->sha256, &j->fetch, e);
		if (rc == CF_OK)
			rc = source_add_component_archive(dest, j->workdir, platform, &j->tree, e);
		free(dest);
	}
	return rc;
}

/* Before any download: a release older than NVIDIA's redist JSON (the product's
 * redist_since) is not on any mirror; the compatibility table still says which CUDA it is for
 * (newer ones: the mirror's JSON). */
static int precheck_release(const struct create_options *o, const char *platform, struct cf_err *e)
{
	struct compat_result compat;
	const char *since = o->product->redist_since;
	if (!since || compat_version_cmp_full(o->version, since) >= 0)
		return CF_OK;
	if (o->cuda) {
		int rc = compat_check(o->product, o->version, o->cuda, platform, &compat, e);
		if (rc != CF_OK)
			return rc;
	}
	return cf_fail(e, CF_SOURCE, "%s %s is older than NVIDIA's redist JSON (%s and later): "
		       "download its archive from NVIDIA's %s archive and give it with "
		       "--from-archive FILE", o->product->display, o->version, since,
		       o->product->display);
}

static int fetch_from_mirror(struct job *j, struct cf_err *e)
{
	const struct create_options *o = j->o;
	const char *platform = o->platform ? o->platform : "linux-x86_64";
	if (!o->version)
		return cf_fail(e, CF_USAGE, "--product-version VERSION is required with a mirror");
	int rc = precheck_release(o, platform, e);
	if (rc == CF_OK)
		rc = mirror_resolve(o->product, o->mirror, o->version, o->cuda, platform, &j->fetch,
				    &j->plan, e);
	if (rc != CF_OK)
		return rc;
	j->have_plan = 1;
	char *dest = xasprintf("%s/%s", j->cache, j->plan.product.relative_path);
	log_msg(LOG_INFO, "%s %s for CUDA %s (%s): %s", o->product->display,
		j->plan.product.version,
		j->plan.product.cuda_variant, platform, j->plan.product_url);
	rc = fetch_file(j->plan.product_url, dest, j->plan.product.size, j->plan.product.sha256,
			&j->fetch, e);
	if (rc == CF_OK)
		rc = source_from_archive(dest, j->workdir, &j->tree, e);
	free(dest);
	if (rc == CF_OK && o->with_cuda_libs)
		rc = fetch_components(j, platform, e);
	const char *slash = strrchr(j->plan.product.relative_path, '/');
	snprintf(j->source_kind, sizeof(j->source_kind), "nvidia-redist");
	snprintf(j->source_name, sizeof(j->source_name), "%s",
		 slash ? slash + 1 : j->plan.product.relative_path);
	memcpy(j->source_sha, j->plan.product.sha256, 32);
	j->source_has_sha = 1;
	j->source_size = j->plan.product.size;
	j->source_time = date_to_epoch(j->plan.release_date);
	return rc;
}

/* The CUDA redistributables the product opens, as the mirror's CUDA redistrib JSON lists them.
 * The hint names both ways: cuda-json describes only a toolkit of the bundle's platform
 * (rarely at hand for sbsa or Windows), NVIDIA's own JSON names every platform. */
static int components_from_mirror(struct job *j, const char *cuda, const char *platform,
				  struct cf_err *e)
{
	struct cf_err why = { 0 };
	if (mirror_resolve_cuda(j->o->mirror, cuda, platform, &j->fetch, &j->plan, &why) != CF_OK)
		return cf_fail(e, why.code, "no CUDA component list: %s (offline: 'bundler cuda-json "
			       "--from-dir TOOLKIT -o DIR' writes one from a %s toolkit, or copy NVIDIA's "
			       "cuda/redist/redistrib_<release>.json, which names every platform, into "
			       "DIR/cuda/redist/; then give --mirror file://DIR)",
			       why.msg, platform && platform[0] ? platform : "local");
	j->have_plan = 1;
	return CF_OK;
}

/* --add-file: into bin/ or lib/ by the platform (the source's, else --platform). */
static int add_user_files(struct job *j, struct cf_err *e)
{
	const struct create_options *o = j->o;
	if (o->platform && !j->tree.platform[0])
		snprintf(j->tree.platform, sizeof(j->tree.platform), "%s", o->platform);
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < o->nadd_files; i++)
		rc = source_add_user_file(&j->tree, o->add_files[i], e);
	return rc;
}

/* An archive carries no CUDA component list: for a redist name (..._cuda13-archive), resolve
 * it before the archive is unpacked, so that a missing list fails in a moment rather than
 * after the whole archive was read (the trial of issue 25: 14 s for 350 MB, --offline too).
 * A legacy name (NAME-11.4-..., with a CUDA minor) or none: the contents tell, as before. */
static int list_before_archive(struct job *j, struct cf_err *e)
{
	const struct create_options *o = j->o;
	char version[64], cuda[16], platform[32];
	source_parse_archive_name(o->product, o->from_archive, version, sizeof(version), cuda,
				  sizeof(cuda), platform, sizeof(platform));
	const char *c = o->cuda ? o->cuda : cuda, *p = o->platform ? o->platform : platform;
	if (!c[0] || !p[0] || strchr(cuda, '.') || !o->product->cuda_libs_opened[0])
		return CF_OK;
	return components_from_mirror(j, c, p, e);
}

static int load_source(struct job *j, struct cf_err *e)
{
	const struct create_options *o = j->o;
	int rc;
	if (o->from_dir) {
		rc = source_from_dir(o->from_dir, o->with_cuda_libs, &j->tree, e);
		snprintf(j->source_kind, sizeof(j->source_kind), "dir");
		snprintf(j->source_name, sizeof(j->source_name), "%s", o->from_dir);
	} else if (o->from_archive) {
		rc = list_before_archive(j, e);
		if (rc == CF_OK)
			rc = source_from_archive(o->from_archive, j->workdir, &j->tree, e);
		snprintf(j->source_kind, sizeof(j->source_kind), "archive");
		const char *slash = strrchr(o->from_archive, '/');
		snprintf(j->source_name, sizeof(j->source_name), "%s", slash ? slash + 1 : o->from_archive);
		if (rc == CF_OK && sha256_file(o->from_archive, j->source_sha, &j->source_size) == 0)
			j->source_has_sha = 1;
	} else {
		rc = fetch_from_mirror(j, e);
		return rc == CF_OK ? add_user_files(j, e) : rc;
	}
	j->source_time = j->tree.newest_mtime;
	if (rc == CF_OK)
		rc = add_user_files(j, e);
	/* An archive holds the product only: with --with-cuda-libs, its CUDA libraries come from the
	 * mirror (named, or the default one), downloaded and checked like a mirror source's. */
	int cuda_from_mirror = (o->mirror_given || (o->from_archive && o->with_cuda_libs)) &&
			       o->product->cuda_libs_opened[0];
	const char *platform = o->platform ? o->platform : j->tree.platform;
	if (rc == CF_OK && cuda_from_mirror && !j->have_plan) {
		const char *cuda = o->cuda ? o->cuda : j->tree.cuda_variant;
		rc = components_from_mirror(j, cuda, platform, e);
	}
	if (rc == CF_OK && o->from_archive && o->with_cuda_libs)
		rc = fetch_components(j, platform, e);
	return rc;
}

/* Everything the manifest says, apart from files and payload. */
static int describe(struct job *j, struct cf_err *e)
{
	const struct create_options *o = j->o;
	struct tree *t = &j->tree;
	struct manifest *m = j->m;
	struct compat_result compat;
	char variant[16], id[256];
	int rc = agree(o->product->display, o->version, t->version, e);
	if (rc == CF_OK && o->cuda && t->cuda_variant[0] &&
	    atoi(o->cuda) != atoi(t->cuda_variant))
		rc = cf_fail(e, CF_SOURCE, "the source is built for CUDA %s, not %s", t->cuda_variant,
			     o->cuda);
	if (rc == CF_OK && o->platform && t->platform[0] && strcmp(o->platform, t->platform) != 0)
		rc = cf_fail(e, CF_SOURCE, "the source is for %s, not %s", t->platform, o->platform);
	if (rc != CF_OK)
		return rc;
	snprintf(variant, sizeof(variant), "%.*s",
		 (int)strcspn(t->cuda_variant[0] ? t->cuda_variant : o->cuda ? o->cuda : "", "."),
		 t->cuda_variant[0] ? t->cuda_variant : o->cuda ? o->cuda : "");
	if (!variant[0])
		return cf_fail(e, CF_USAGE, "cannot tell which CUDA this %s is for: pass --cuda",
			       o->product->display);
	if (!t->platform[0] && !o->platform)
		return cf_fail(e, CF_USAGE, "cannot tell the platform of this source: pass --platform");
	manifest_set(&m->platform, t->platform[0] ? t->platform : o->platform);
	manifest_set(&m->product_version, t->version);
	manifest_set(&m->cuda_variant, variant);
	const char *cuda_for_check = o->cuda ? o->cuda : t->cuda_hint[0] ? t->cuda_hint : variant;
	rc = compat_check(o->product, t->version, cuda_for_check, m->platform, &compat, e);
	if (rc != CF_OK)
		return rc;
	if (compat.ruled && !compat.known)
		log_msg(LOG_WARN, "%s %s is not in the compatibility data; driver minimum taken "
			"from CUDA %s", o->product->display, t->version, variant);
	snprintf(id, sizeof(id), "%s-%s-cuda%s%s-%s", o->product->bundle_id_stem, t->version,
		 variant,
		 o->with_cuda_libs ? CREATE_CUDA_LIBS_TAG : "", m->platform);
	manifest_set(&m->bundle_id, id);
	manifest_set(&m->driver_min, compat.driver_min[0] ? compat.driver_min : NULL);
	manifest_set(&m->cc_min, compat.sm_min[0] ? compat.sm_min : cc_floor(variant));
	char glibc[32], windows[32];
	libreq_scan(t, glibc, sizeof(glibc), windows, sizeof(windows));
	manifest_set(&m->glibc_min, glibc[0] ? glibc : NULL);
	manifest_set(&m->windows_min, windows[0] ? windows : NULL);
	manifest_set(&m->source_kind, j->source_kind);
	manifest_set(&m->source_name, j->source_name);
	memcpy(m->source_sha256, j->source_sha, 32);
	m->source_has_sha256 = j->source_has_sha;
	m->source_size = j->source_size;
	/* The CUDA component list is always in the manifest: when neither a named mirror nor the
	 * source itself (wheel metadata, versioned library names) gives it, the default mirror
	 * does (NVIDIA's, or $CUFERRY_MIRROR). */
	if (!j->have_plan && t->ncuda_libs == 0 && o->product->cuda_libs_opened[0]) {
		/* The mirror's newest release of the line need not be what the tree's libraries are:
		 * only a mirror the user names may vouch for libraries that are packed. */
		if (o->from_dir && o->with_cuda_libs && (tree_packs(t, "libcublas") || tree_packs(t, "cuda_nvrtc")))
			return cf_fail(e, CF_SOURCE, "%s: its CUDA libraries name no version (no wheel "
				       "metadata, no versioned file names); give --mirror URL for the CUDA "
				       "release they come from", o->from_dir);
		rc = components_from_mirror(j, o->cuda ? o->cuda : variant, m->platform, e);
		if (rc != CF_OK)
			return rc;
	}
	if (j->have_plan)
		add_plan_components(m, &j->plan, o->with_cuda_libs && !o->from_dir);
	else if (o->from_dir)
		add_tree_components(m, t, o->from_dir);
	/* A directory's components are "included" only when their libraries are in the bundle. */
	for (size_t i = 0; o->from_dir && i < m->ncomponents; i++) {
		int packed = o->with_cuda_libs && tree_packs(t, m->components[i].name);
		if (o->with_cuda_libs && !packed)
			return cf_fail(e, CF_SOURCE, "--with-cuda-libs: %s has no %s library in lib/ or bin/ "
				       "to pack", o->from_dir, m->components[i].name);
		m->components[i].included = packed;
	}
	if (!m->cuda_release)
		manifest_set(&m->cuda_release, t->cuda_hint[0] ? t->cuda_hint : NULL);
	set_env(m, t);
	return set_times(m, o, j->source_time, e);
}

/* ldconfig files a library under its DT_SONAME, not its name: the name rules hold for it too.
 * An unreadable file passes here; packing reads it again and says what is wrong. */
static int check_soname(const struct tree_entry *ent, char *why, size_t why_size)
{
	if (ent->is_symlink || !ent->src)
		return 0;
	int fd = platform_open(ent->src, PLATFORM_OPEN_READ, 0);
	if (fd < 0)
		return 0;
	int rc = shadow_check_soname(fd, why, why_size);
	platform_close(fd);
	return rc;
}

/* Path rules before any compression: a bad name fails in a second, not after a minute. */
static int check_tree_names(const struct tree *t, struct cf_err *e)
{
	char why[256];
	if (t->count == 0)
		return cf_fail(e, CF_SOURCE, "the source holds no %s files", t->product->display);
	for (size_t i = 0; i < t->count; i++)
		if (sbom_in_dossier(t->entries[i].path))
			return cf_fail(e, CF_SOURCE, "source file '%s' cannot be bundled: " SBOM_DIR
				       "/ holds the bundle's own SBOMs", t->entries[i].path);
	for (size_t i = 0; i < t->count; i++)
		if (path_check(t->entries[i].path, why, sizeof(why)) != 0 ||
		    check_soname(&t->entries[i], why, sizeof(why)) != 0)
			return cf_fail(e, CF_SOURCE, "source file '%s' cannot be bundled: %s",
				       t->entries[i].path, why);
	return CF_OK;
}

/* The plain bundle's path: -o FILE, or the conventional name (the id) in -o DIR/. A .run or
 * .exe given as -o names the self-extracting file; the plain bundle goes beside it. */
static char *output_path(const struct create_options *o, const struct manifest *m)
{
	size_t n = strlen(o->out);
	if (io_is_dir(o->out) || (n && o->out[n - 1] == '/'))
		return xasprintf("%s%s%s.bundle", o->out, o->out[n - 1] == '/' ? "" : "/", m->bundle_id);
	if (n > 4 && (strcmp(o->out + n - 4, ".run") == 0 || strcmp(o->out + n - 4, ".exe") == 0))
		return xasprintf("%.*s.bundle", (int)(n - 4), o->out);
	return xstrdup(o->out);
}

/* The .run/.exe beside a bundle: -o X.run as given, else the bundle's name with .run/.exe
 * for .bundle. */
static char *sfx_path(const struct create_options *o, const char *bundle_path, const char *platform)
{
	size_t n = strlen(o->out), b = strlen(bundle_path);
	if (n > 4 && (strcmp(o->out + n - 4, ".run") == 0 || strcmp(o->out + n - 4, ".exe") == 0))
		return xstrdup(o->out);
	const char *ext = stub_extension(platform);
	if (b > 7 && strcmp(bundle_path + b - 7, ".bundle") == 0)
		return xasprintf("%.*s%s", (int)(b - 7), bundle_path, ext);
	return xasprintf("%s%s", bundle_path, ext);
}

/* The plain bundle, then its parts and its .run from the same signed bytes (one counter),
 * then SHA256SUMS merged with what the directory held. */
static int write_artifacts(struct job *j, const char *staged, struct cf_err *e)
{
	struct output_files written = { 0 };
	int rc = interrupt_check(e);
	if (rc != CF_OK)
		unlink(staged);
	else
		rc = output_commit(staged, j->out_path, &written, e);
	if (rc == CF_OK && j->o->split)
		rc = output_split(j->out_path, j->o->split, &written, e);
	if (rc == CF_OK && j->o->sfx) {
		/* The .run wraps the very bundle just checked, signed by the same key; sfx_write
		 * reads it back and adds its own SHA256SUMS line. */
		j->run_path = sfx_path(j->o, j->out_path, j->m->platform);
		struct sfx_options so = { .unpacker = j->o->sfx_stub, .key_path = j->o->key_path,
					  .out = j->run_path, .progress = j->o->progress };
		rc = sfx_write(j->out_path, &so, e);
	}
	if (rc == CF_OK)
		rc = output_files_sums(&written, e);
	output_files_free(&written);
	return rc;
}

static int sign_and_write(struct job *j, struct signer *signer, int payload_fd,
			  struct cf_err *e)
{
	size_t json_len, frame_len, spki_len;
	char *json = manifest_to_json(j->m, &json_len);
	struct frame_sig sig;
	uint8_t digest[32];
	char *staged = NULL;
	if (!json)
		return cf_fail(e, CF_INSTALL, "cannot encode the manifest");
	if (json_len > FRAME_CAP / 2) {
		free(json);
		return cf_fail(e, CF_INCOMPATIBLE, "manifest of %zu bytes is too large", json_len);
	}
	sha256_buf(json, json_len, digest);
	const uint8_t *spki = signer_spki(signer, &spki_len);
	memset(&sig, 0, sizeof(sig));
	sig_keyid(spki, spki_len, sig.keyid);
	sig.spki_len = (uint16_t)spki_len;
	memcpy(sig.spki, spki, spki_len);
	int rc = signer_sign(signer, digest, sig.sig, e);
	uint8_t *frame = rc == CF_OK ? frame_encode((const uint8_t *)json, (uint32_t)json_len, &sig,
						    1, &frame_len)
				     : NULL;
	free(json);
	if (rc == CF_OK)
		rc = output_stage(j->out_path, frame, frame_len, payload_fd, j->m->compressed_size,
				  &staged, e);
	free(frame);
	if (rc != CF_OK)
		return rc;
	struct checked c;
	rc = check_open(staged, &c, e);
	if (rc == CF_OK)
		rc = check_payload(&c, j->o->progress, e);
	check_close(&c);
	if (rc != CF_OK) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		cf_err_clear(e);
		rc = cf_fail(e, CF_INTEGRITY, "%s: the new bundle failed its own check, nothing written: %s",
			     j->out_path, why);
		unlink(staged);
	} else {
		rc = write_artifacts(j, staged, e);
	}
	free(staged);
	return rc;
}

/* Keys compiled into the unpacker are PEM text in its data: a stub without the signing key's
 * base64 would refuse this bundle unless the target brings the key another way. */
static void warn_if_stub_distrusts(const char *stub, const char *platform,
				   const struct signer *signer)
{
	const struct platform_spec *p = platform_facts(platform);
	size_t spki_len, b64_len, len;
	const uint8_t *spki = signer_spki(signer, &spki_len);
	unsigned char b64[1024];
	char *data;
	if (mbedtls_base64_encode(b64, sizeof(b64), &b64_len, spki, spki_len) != 0 || b64_len < 64 ||
	    io_read_file(stub, 256u << 20, &data, &len) != 0)
		return;
	if (!memmem(data, len, b64, 64))
		log_msg(LOG_WARN, "--sfx: the embedded unpacker %s has no compiled-in key that signed "
			"this bundle: the %s installs only where the key is trusted otherwise "
			"(%s, --trust); build it with %s TRUSTED_KEYS=KEY.pub", stub, p->sfx_suffix,
			p->trust_dir, p->unpacker_make);
	free(data);
}

/* The SBOMs, from what the manifest says so far and the licences NVIDIA's JSON named (a
 * mirror source's; an archive or a directory tells none), and the provenance record. */
static int add_dossier(struct job *j, struct prehash *hashes, struct cf_err *e)
{
	const char *component_licenses[MIRROR_MAX_COMPONENTS] = { 0 };
	int mirror = strcmp(j->source_kind, "nvidia-redist") == 0;
	for (size_t i = 0; j->have_plan && i < j->plan.ncomponents && i < j->m->ncomponents; i++)
		if (j->plan.components[i].license[0])
			component_licenses[i] = j->plan.components[i].license;
	struct sbomgen_input in = {
		.m = j->m,
		.license = mirror && j->plan.product.license[0] ? j->plan.product.license : NULL,
		.component_licenses = j->have_plan ? component_licenses : NULL,
		.owner = file_owner,
	};
	struct provenance_input prov = {
		.bundle_id = j->m->bundle_id,
		.product = j->o->product->name,
		.version = j->m->product_version,
		.source_kind = j->source_kind,
		.source_name = j->o->from_dir ? j->o->from_dir : j->o->from_archive,
		.source_sha256 = j->source_has_sha ? j->source_sha : NULL,
		.source_size = j->source_size,
		.plan = j->have_plan ? &j->plan : NULL,
		/* what fetch_components downloaded and packed */
		.components_packed = j->o->with_cuda_libs && !j->o->from_dir,
		.tree = &j->tree,
		.members = j->m->members,
		.nmembers = j->m->nmembers,
		.member_trees = &j->members,
	};
	return dossier_add(&j->tree, &in, &prov, j->workdir, hashes, e);
}

static int build(struct job *j, struct signer *signer, struct cf_err *e)
{
	int rc = load_source(j, e);
	if (rc == CF_OK)
		rc = check_tree_names(&j->tree, e);
	if (rc == CF_OK)
		rc = describe(j, e);
	if (rc == CF_OK)
		rc = devfiles_add(&j->tree, j->m->product_version, j->workdir, e);
	if (rc == CF_OK && j->o->nwith) {
		rc = members_add(j->o->with, j->o->nwith, j->o->from_dir, j->workdir, &j->tree, j->m,
				 &j->members, e);
		if (rc == CF_OK)
			rc = check_tree_names(&j->tree, e);
	}
	char stub[PATH_MAX];
	if (rc == CF_OK && j->o->sfx) /* no stub for this platform: say so before compressing */
		rc = stub_find(j->m->platform, j->o->sfx_stub, stub, sizeof(stub), e);
	if (rc == CF_OK && j->o->sfx)
		warn_if_stub_distrusts(stub, j->m->platform, signer);
	if (rc != CF_OK)
		return rc;
	j->out_path = output_path(j->o, j->m);
	char *payload = xasprintf("%s.payload-XXXXXX", j->out_path);
	int fd = mkostemp(payload, O_CLOEXEC);
	if (fd < 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", j->out_path, strerror(errno));
		free(payload);
		return rc;
	}
	struct pack_options po = { j->o->level, j->o->threads, j->o->progress };
	struct prehash hashes = { 0 };
	rc = add_dossier(j, &hashes, e);
	if (rc == CF_OK)
		rc = pack_payload(&j->tree, j->m, &po, fd, e);
	if (rc == CF_OK)
		rc = prehash_check(&hashes, j->m, e);
	prehash_free(&hashes);
	if (rc == CF_OK)
		rc = manifest_validate(j->m, e);
	if (rc == CF_OK)
		rc = sign_and_write(j, signer, fd, e);
	close(fd);
	unlink(payload);
	free(payload);
	return rc;
}

static void print_summary(const struct job *j)
{
	struct stat st;
	const struct manifest *m = j->m;
	uint64_t size = stat(j->out_path, &st) == 0 ? (uint64_t)st.st_size : m->compressed_size;
	log_out("bundle    %s\n", j->out_path);
	if (j->o->split)
		log_out("parts     %s.001 … (each at most %llu bytes)\n", j->out_path,
			(unsigned long long)j->o->split);
	if (j->run_path)
		log_out("sfx       %s\n", j->run_path);
	log_out("id        %s (counter %llu)\n", m->bundle_id, (unsigned long long)m->counter);
	log_out("%-9s %s for CUDA %s, %s\n", m->product->display, m->product_version,
		m->cuda_variant, m->platform);
	for (size_t i = 0; i < m->nmembers; i++)
		log_out("with      %s %s\n", m->members[i].product->display, m->members[i].version);
	log_out("files     %zu, %.1f MiB -> %.1f MiB (%.1f%%)\n", m->nfiles,
		(double)m->uncompressed_size / 1048576.0, (double)size / 1048576.0,
		m->uncompressed_size ? 100.0 * (double)size / (double)m->uncompressed_size : 0.0);
	for (size_t i = 0; i < m->ncomponents; i++)
		log_out("requires  %s %s%s\n", m->components[i].name, m->components[i].version,
			m->components[i].included ? " (included)" : " (listed, not included)");
	check_print_requires(m, "requires  ");
}

/* The unpacker to embed, before any download or compression: a missing one fails now. */
static int check_stub(const char *stub, struct cf_err *e)
{
	struct stat st;
	if (!stub || stat(stub, &st) != 0 || !S_ISREG(st.st_mode) || access(stub, R_OK) != 0)
		return cf_fail(e, CF_USAGE, "--sfx: cannot read the unpacker to embed, %s: %s; build it "
			       "('make') or name it with --unpacker PATH", stub ? stub : "(none)",
			       stub && stat(stub, &st) == 0 ? "not a readable file" : strerror(errno));
	return CF_OK;
}

/* A platform NVIDIA has no build of the product for: refused before any download (exit 9,
 * as a platform the mirror lacks). */
static int check_product_platform(const struct create_options *o, const char *platform,
				  struct cf_err *e)
{
	if (product_builds_for(o->product, platform))
		return CF_OK;
	return cf_fail(e, CF_SOURCE, "%s has no %s build", o->product->display,
		       platform_find(platform)->os == PLATFORM_OS_WINDOWS ? "Windows" : platform);
}

int create_bundle(const struct create_options *o, struct cf_err *e)
{
	struct job j;
	struct signer *signer = NULL;
	memset(&j, 0, sizeof(j));
	j.o = o;
	j.tree.product = o->product;
	j.fetch = (struct fetch_options){ .retries = 4, .progress = o->progress, .offline = o->offline };
	/* Load the key first: a typo in --key should not cost a download. */
	int rc = check_product_platform(o, o->platform, e);
	if (rc == CF_OK)
		rc = signer_load(o->key_path, &signer, e);
	if (rc == CF_OK && o->sfx && o->sfx_stub)
		rc = check_stub(o->sfx_stub, e);
	if (rc != CF_OK) {
		signer_free(signer);
		return rc;
	}
	j.cache = create_cache_dir(o->cache);
	j.fetch.cache_dir = j.cache;
	j.m = manifest_new();
	j.m->product = o->product;
	char *out_dir = xstrdup(o->out), *slash = strrchr(out_dir, '/');
	if (io_is_dir(o->out))
		;
	else if (slash && slash != out_dir)
		*slash = '\0';
	else if (slash)
		strcpy(out_dir, "/");
	else
		strcpy(out_dir, ".");
	/* The output's directory is made if needed ("-o dir/" names a directory: the file name
	 * then follows the convention); the work directory sits in it, so that the bundle is
	 * renamed into place on one file system. */
	struct output_dir made_dir;
	rc = output_dir_make(out_dir, &made_dir, e);
	/* Absolute: archive entries are put under it, and a relative "../out" would read as an
	 * entry climbing out of the extraction directory. */
	char real_out[PATH_MAX];
	if (rc == CF_OK && !realpath(out_dir, real_out))
		rc = cf_fail(e, cf_write_status(errno), "-o: %s: %s", out_dir, strerror(errno));
	if (rc == CF_OK)
		j.workdir = xasprintf("%s/.cuferry-work-XXXXXX", real_out);
	free(out_dir);
	if (rc == CF_OK && !mkdtemp(j.workdir)) {
		rc = cf_fail(e, cf_write_status(errno), "%s: cannot make a work directory there: %s", o->out,
			     strerror(errno));
		free(j.workdir);
		j.workdir = NULL;
	}
	if (rc == CF_OK) {
		rc = build(&j, signer, e);
		if (rc == CF_OK)
			print_summary(&j);
	}
	tree_free(&j.tree);
	members_free(&j.members);
	if (j.workdir)
		io_rmtree(j.workdir);
	/* A failed run leaves no empty -o directory of its own making behind. */
	if (rc != CF_OK)
		output_dir_take_back(&made_dir);
	output_dir_free(&made_dir);
	signer_free(signer);
	manifest_free(j.m);
	mirror_plan_free(&j.plan);
	free(j.workdir);
	free(j.cache);
	free(j.out_path);
	free(j.run_path);
	return rc;
}

/* What a mirror create would fetch (the product's archive, the CUDA component list), read from
 * the mirror's JSON only. */
static int resolve_plan(const struct create_options *o, const char *platform,
			struct mirror_plan *plan, struct cf_err *e)
{
	struct fetch_options fo = { .retries = 2, .progress = 0, .offline = o->offline };
	int rc = check_product_platform(o, platform, e);
	if (rc != CF_OK)
		return rc;
	if (!o->version)
		return cf_fail(e, CF_USAGE, "--product-version VERSION is required");
	rc = precheck_release(o, platform, e);
	return rc == CF_OK ? mirror_resolve(o->product, o->mirror, o->version, o->cuda, platform, &fo,
					    plan, e)
			   : rc;
}

int create_check_mirror(const struct create_options *o, struct cf_err *e)
{
	struct mirror_plan plan;
	int rc = resolve_plan(o, o->platform ? o->platform : "linux-x86_64", &plan, e);
	mirror_plan_free(&plan);
	return rc;
}

int create_resolve(const struct create_options *o, struct cf_err *e)
{
	struct mirror_plan plan;
	const char *platform = o->platform ? o->platform : "linux-x86_64";
	char hex[65];
	int rc = resolve_plan(o, platform, &plan, e);
	if (rc != CF_OK) {
		mirror_plan_free(&plan);
		return rc;
	}
	hex_encode(plan.product.sha256, 32, hex);
	log_out("%s %s for CUDA %s on %s (released %s)\n", o->product->display,
		plan.product.version,
		plan.product.cuda_variant, platform, plan.release_date);
	log_out("  manifest  %s\n", plan.product_json_url);
	log_out("  archive   %s\n  size      %llu bytes\n  sha256    %s\n", plan.product_url,
		(unsigned long long)plan.product.size, hex);
	if (o->product->cuda_libs_opened[0])
		log_out("CUDA %s redistributables %s opens at run time (%s):\n", plan.cuda_release,
			o->product->display,
			o->with_cuda_libs ? "downloaded with --with-cuda-libs"
					  : "listed in the manifest");
	for (size_t i = 0; i < plan.ncomponents; i++) {
		hex_encode(plan.components[i].sha256, 32, hex);
		log_out("  %-10s %-12s %s\n             %llu bytes, sha256 %s\n",
			plan.components[i].component, plan.components[i].version, plan.component_urls[i],
			(unsigned long long)plan.components[i].size, hex);
	}
	log_out("requires driver >= %s\n", plan.driver_min[0] ? plan.driver_min : "(unknown)");
	log_out("bundle name %s-%s-cuda%s%s-%s.bundle\n", o->product->bundle_id_stem,
		plan.product.version,
		plan.product.cuda_variant, o->with_cuda_libs ? CREATE_CUDA_LIBS_TAG : "", platform);
	mirror_plan_free(&plan);
	return CF_OK;
}
