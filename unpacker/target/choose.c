/* choose.c - picking the bundle for this machine out of a directory: the product asked for,
 * its platform, the CUDA major its driver supports (or --cuda), the newest version whose
 * requires it meets (the GPUs' compute capability included, when the caller could read it),
 * and one that packs the CUDA library the product needs (its chooser_cuda_lib) when the
 * machine has none */
#include "unpacker/target/choose.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/reader.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/compat.h"
#include "manifests/manifest.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "unpacker/target/bundletrust.h"
#include "unpacker/target/hostreq.h"
#include "unpacker/target/kitcheck.h"

struct machine {
	const struct product *product; /* whose bundles are judged */
	const char *root;
	char platform[32];
	char driver[32];  /* "" when no NVIDIA driver was found */
	int cuda_max;     /* the newest CUDA major the driver supports; 0 unknown */
	int cuda_wanted;  /* --cuda; 0 the driver's */
	int cublas[32];   /* per CUDA major: 0 not looked, 1 present, -1 absent (the product's
			   * chooser_cuda_lib, cuBLAS say) */
	const struct choose_gpus *gpus; /* what the caller read of the GPUs, or NULL */
};

/* The CUDA library's file for a CUDA major on a platform: what the product of that major
 * loads (its chooser_cuda_lib: libcublas.so.13, cublas64_13.dll). */
static void cublas_file(const struct machine *mc, int major, char *out, size_t size)
{
	char version[16];
	snprintf(version, sizeof(version), "%d", major);
	platform_library_file(platform_facts(mc->platform), mc->product->chooser_cuda_lib, version,
			      out, size);
}

struct candidate {
	const char *path; /* the kit's file (names[] of choose_bundle owns it) */
	int link;         /* a link on the stick: listed, never opened */
	char name[256];
	struct manifest *m;
	int eligible;
	int major;
	int packs;       /* the bundle carries that CUDA library */
	int libs_here;   /* the library of its major (cublas_file) is on the machine, or the
			  * product needs none */
	char cublas[32]; /* that file's name */
	char why[400];   /* why it was passed over */
};

/* The driver of the machine being installed: a --root that has its own proc/ describes the
 * machine (a test's fake one, an image prepared for a known server), and then only
 * ROOT/proc/driver/nvidia/version counts, even when absent; otherwise this host's. */
static void read_driver(struct machine *mc)
{
	char *proc = xasprintf("%s/proc", mc->root);
	const char *machine = *mc->root && io_is_dir(proc) ? mc->root : "";
	free(proc);
	if (platform_driver_version(machine, mc->driver, sizeof(mc->driver)) == 0)
		mc->cuda_max = compat_cuda_major_for_driver(mc->driver, mc->platform);
}

struct lib_search {
	const char *root;
	const char *soname;
	int found;
};

static void look_in_dir(const char *dir, void *ctx)
{
	struct lib_search *s = ctx;
	char *path = xasprintf("%s%s/%s", s->root, dir, s->soname);
	struct platform_stat st;
	s->found |= platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_FILE;
	free(path);
}

/* A directory the loader's configuration names (twice is harmless: found only grows). */
static void look_in_config_dir(const char *dir, const char *source, void *ctx)
{
	look_in_dir(dir, ctx);
}

static void cache_hit(const char *path, const char *flags, void *ctx)
{
	((struct lib_search *)ctx)->found = 1;
}

/* The CUDA toolkit's own library directories: Windows' installer names its directory in
 * %CUDA_PATH% (DLLs in bin\, from CUDA 13 in bin\x64\); Linux has the usual ones. */
static void look_in_cuda_dirs(struct machine *mc, struct lib_search *s)
{
	static const char *const dirs[] = { "/lib", "/lib64", "/usr/lib", "/usr/lib64",
					    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/usr/local/cuda/lib64", NULL };
	const char *cuda_path = getenv("CUDA_PATH");
	if (platform_facts(mc->platform)->loader == PLATFORM_LOADER_LD_SO) {
		for (size_t i = 0; dirs[i]; i++)
			look_in_dir(dirs[i], s);
	} else if (cuda_path && *cuda_path && !*mc->root) {
		for (int i = 0; i < 2; i++) {
			char *dir = xasprintf("%s%s", cuda_path, i ? "\\bin\\x64" : "\\bin");
			look_in_dir(dir, s);
			free(dir);
		}
	}
}

/* Whether cuBLAS of a CUDA major is where the loader would find it. Linux: the ld cache of
 * this system, or under --root the image's ld.so.conf.d directories and the usual ones.
 * Windows (no cache): %CUDA_PATH%'s bin, System32, the Windows directory and the machine's
 * and the user's PATH. */
static int has_cublas(struct machine *mc, int major)
{
	if (major <= 0 || major >= 32)
		return 0;
	if (mc->cublas[major])
		return mc->cublas[major] > 0;
	char soname[32];
	cublas_file(mc, major, soname, sizeof(soname));
	struct lib_search s = { mc->root, soname, 0 };
	int cache_read = 0;
	if (!*mc->root && platform_lib_cache_program())
		cache_read = platform_lib_cache_find(soname, cache_hit, &s) >= 0;
	if (!cache_read) {
		look_in_cuda_dirs(mc, &s);
		platform_lib_config_dirs(mc->root, look_in_config_dir, &s);
	}
	mc->cublas[major] = s.found ? 1 : -1;
	return s.found;
}

/* ---- the candidates ---- */

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);
	return n > m && strcmp(name + n - m, suffix) == 0;
}

/* A .run or .exe is a bundle only when it ends in a self-extractor's trailer: a directory of
 * programs (C:\Windows, /usr/bin) holds no bundles, rather than many untrusted ones. (One whose
 * trailer was cut off is then not seen either: nothing is installed from it either way.) */
static int bundle_file(const char *name, const char *path)
{
	if (has_suffix(name, ".bundle") || has_suffix(name, ".001"))
		return 1;
	return (has_suffix(name, ".run") || has_suffix(name, ".exe")) &&
	       bundle_file_has_sfx_trailer(path);
}

/* dir/name with the system's separator (never "C:\\kit/x.bundle" on Windows); a directory given
 * with its separator (a drive's root, E:\) gets no second one. */
static char *in_dir(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	int has_sep = n && (dir[n - 1] == '/' || dir[n - 1] == '\\');
	const char sep[2] = { platform_dir_separator(), 0 };
	return xasprintf("%s%s%s", dir, has_sep ? "" : sep, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct listing {
	char **names;
	size_t n, cap;
};

static void listing_add(struct listing *l, char *path)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->names = xrealloc(l->names, l->cap * sizeof(*l->names));
	}
	l->names[l->n++] = path;
}

/* The bundle files of dir, sorted, however many names it holds (junk must not hide the real
 * bundle). Each name is looked at with lstat: a link named like a bundle is listed (to be
 * passed over with its reason) but never opened, so nothing off the stick is read. */
static void list_bundles(const char *dir, struct listing *l)
{
	struct platform_dir *d = platform_dir_open(dir);
	for (const char *name; d && (name = platform_dir_next(d)) != NULL;) {
		char *path = in_dir(dir, name);
		struct platform_stat st;
		int named = has_suffix(name, ".bundle") || has_suffix(name, ".001") ||
			    has_suffix(name, ".run") || has_suffix(name, ".exe");
		if (name[0] == '.' || !named || platform_lstat(path, &st) != 0)
			free(path);
		else if (st.type == PLATFORM_TYPE_LINK || (st.type == PLATFORM_TYPE_FILE && bundle_file(name, path)))
			listing_add(l, path);
		else
			free(path);
	}
	platform_dir_close(d);
	if (l->n > 1)
		qsort(l->names, l->n, sizeof(l->names[0]), by_name);
}

static int is_link(const char *path)
{
	struct platform_stat st;
	return platform_lstat(path, &st) == 0 && st.type == PLATFORM_TYPE_LINK;
}

/* The name as it may go to a terminal: escaped (no raw ESC or BEL from a stick's names). */
static void display_name(const char *path, char *out, size_t size)
{
	/* Windows paths as given (E:\kit.bundle) separate with backslashes. */
	const char *slash = strrchr(path, '/') ? strrchr(path, '/') : strrchr(path, '\\');
	char buf[256];
	snprintf(out, size, "%s", log_escape(slash ? slash + 1 : path, buf, sizeof(buf)));
}

/* A signed kit considers only what its index lists, as it lists it: a bundle added to the
 * stick afterwards, or one whose size changed, is passed over (why says so) and never opened.
 * 1 when path is such a one. Only the size is compared here, since each candidate's header
 * alone is read; the chosen bundle's every byte is hashed against the index when install
 * opens it (bundletrust_open_listed), before any of it is used. */
static int unindexed(const struct kitindex *x, const char *path, char *why, size_t size)
{
	const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');
	const char *name = back > slash ? back + 1 : slash ? slash + 1 : path;
	const struct kitindex_file *f = kitindex_find(x, name);
	struct platform_stat st;
	if (!f)
		return snprintf(why, size, "not in the kit's signed index (put on the stick after the "
				"kit was written): not considered"), 1;
	if (platform_lstat(path, &st) != 0 || st.size != f->size)
		return snprintf(why, size, "not the size the kit's signed index gives (changed after "
				"the kit was written): not considered"), 1;
	return 0;
}

/* Verify the header (and a .run's stub) with the trusted keys, then read the manifest:
 * nothing before that. */
static int read_candidate(struct candidate *c, const struct trust *t)
{
	struct bundle_input *in = NULL;
	struct cf_err e = { 0 };
	char signers[256];
	int rc = bundletrust_open(c->path, t, signers, sizeof(signers), &in, &c->m, &e);
	char safe[400];
	if (rc != CF_OK)
		snprintf(c->why, sizeof(c->why), "%s%.360s", rc == CF_TRUST ? "not trusted: " : "",
			 log_escape(e.msg, safe, sizeof(safe)));
	bundle_close(in);
	return rc;
}

/* 1, and why, when a GPU is below the bundle's compute-capability floor (compat_cc_floor: an
 * old bundle's recorded floor raised by this unpacker's table): every GPU must run it, so the
 * lowest decides (each one below is named). Not known, or no floor: 0. No
 * ceiling is applied: NVIDIA's matrices list the architectures a release was tested on, not
 * an upper bound (docs/guide.md says why, with NVIDIA's word on forward compatibility). */
static int gpus_below(const struct machine *mc, const struct manifest *m, char *why, size_t size)
{
	const struct choose_gpus *g = mc->gpus;
	char cc_min[16];
	compat_cc_floor(m->product, m->product_version, m->cuda_variant, m->platform, m->cc_min,
			cc_min, sizeof(cc_min));
	if (!g || !g->known || !cc_min[0])
		return 0;
	size_t used = (size_t)snprintf(why, size, "needs compute capability >= %s", cc_min);
	if (!m->cc_min || strcmp(cc_min, m->cc_min) != 0)
		used += (size_t)snprintf(why + used, size - used, " (this unpacker's compatibility "
					 "data; the bundle records %s)", m->cc_min ? m->cc_min : "none");
	int below = 0;
	for (size_t i = 0; i < g->n && i < CHOOSE_MAX_GPUS; i++) {
		char cc[24];
		snprintf(cc, sizeof(cc), "%d.%d", g->major[i], g->minor[i]);
		if (compat_version_cmp_full(cc, cc_min) >= 0)
			continue;
		below = 1;
		if (used < size)
			used += (size_t)snprintf(why + used, size - used, ", GPU %zu is %s", i, cc);
	}
	if (!below)
		why[0] = '\0';
	return below;
}

static void judge(struct candidate *c, struct machine *mc)
{
	const struct manifest *m = c->m;
	const char *lib = mc->product->chooser_cuda_lib;
	c->major = atoi(m->cuda_variant);
	for (size_t i = 0; lib && i < m->ncomponents; i++)
		if (strncmp(m->components[i].name, "lib", 3) == 0 &&
		    strcmp(m->components[i].name + 3, lib) == 0)
			c->packs |= m->components[i].included;
	if (m->product != mc->product) {
		snprintf(c->why, sizeof(c->why), "a bundle of %s, not %s (--product %s chooses among "
			 "those)", m->product->display, mc->product->display, m->product->name);
		return;
	}
	if (strcmp(m->platform, mc->platform) != 0) {
		snprintf(c->why, sizeof(c->why), "for %s, this machine is %s", m->platform, mc->platform);
		return;
	}
	if (mc->cuda_wanted && c->major != mc->cuda_wanted) {
		snprintf(c->why, sizeof(c->why), "for CUDA %d, --cuda %d was asked for", c->major,
			 mc->cuda_wanted);
		return;
	}
	if (hostreq_check(mc->root, m, c->why, sizeof(c->why)))
		return;
	if (mc->driver[0] && m->driver_min && compat_version_cmp_full(mc->driver, m->driver_min) < 0) {
		snprintf(c->why, sizeof(c->why), "needs driver >= %s, this machine has %s", m->driver_min,
			 mc->driver);
		return;
	}
	if (mc->driver[0] && mc->cuda_max && c->major > mc->cuda_max) {
		snprintf(c->why, sizeof(c->why), "for CUDA %d, driver %s supports CUDA %d at most",
			 c->major, mc->driver, mc->cuda_max);
		return;
	}
	if (gpus_below(mc, m, c->why, sizeof(c->why)))
		return;
	c->libs_here = !lib || has_cublas(mc, c->major);
	if (lib)
		cublas_file(mc, c->major, c->cublas, sizeof(c->cublas));
	c->eligible = 1;
}

/* Better first: usable CUDA libraries, the newest CUDA major, the newest version, packed
 * libraries only when the machine has none, the newest build. The reason for the first
 * difference is written to why when it is given. */
static int rank(const struct candidate *a, const struct candidate *b, char *why, size_t size)
{
	int a_ok = a->packs || a->libs_here, b_ok = b->packs || b->libs_here, d;
	if (a_ok != b_ok) {
		if (why)
			snprintf(why, size, "needs %s, which this machine does not have and the "
				 "bundle does not carry", b_ok ? a->cublas : b->cublas);
		return b_ok - a_ok;
	}
	if (a->major != b->major) {
		if (why)
			snprintf(why, size, "CUDA %d; CUDA %d is newer", a->major < b->major ? a->major : b->major,
				 a->major > b->major ? a->major : b->major);
		return b->major - a->major;
	}
	if ((d = compat_version_cmp_full(a->m->product_version, b->m->product_version)) != 0) {
		if (why)
			snprintf(why, size, "%s %s is older than %s", a->m->product->display,
				 d < 0 ? a->m->product_version : b->m->product_version,
				 d < 0 ? b->m->product_version : a->m->product_version);
		return -d;
	}
	if (a->packs != b->packs) {
		int want_packed = !a->libs_here;
		if (why)
			snprintf(why, size, want_packed ? "does not carry the CUDA libraries this machine lacks"
							: "carries CUDA libraries this machine already has");
		return want_packed ? b->packs - a->packs : a->packs - b->packs;
	}
	if (a->m->counter != b->m->counter) {
		if (why)
			snprintf(why, size, "an older build (counter %llu)",
				 (unsigned long long)(a->m->counter < b->m->counter ? a->m->counter : b->m->counter));
		return a->m->counter < b->m->counter ? 1 : -1;
	}
	if (why)
		snprintf(why, size, "the same bundle again");
	return strcmp(a->name, b->name);
}

/* What "no cuBLAS here" is called on the platform: its file's name, not Linux's on Windows. */
static void no_cublas_note(const struct machine *mc, char *out, size_t size)
{
	char file[64];
	platform_library_file(platform_facts(mc->platform), mc->product->chooser_cuda_lib, "*",
			      file, sizeof(file));
	snprintf(out, size, "no CUDA libraries (%s) found", file);
}

/* The GPUs as the chooser used them: "2 GPUs of compute capability 9.0, 6.1", or why the
 * compute capability played no part. */
static void describe_gpus(const struct machine *mc, char *out, size_t size)
{
	const struct choose_gpus *g = mc->gpus;
	if (!g || !g->known) {
		snprintf(out, size, "compute capability not known (%.240s): not used",
			 g && g->why[0] ? g->why : "not read");
		return;
	}
	if (g->n == 0) {
		snprintf(out, size, "no GPU (the driver reports none): compute capability not used");
		return;
	}
	int same = 1;
	for (size_t i = 1; i < g->n && i < CHOOSE_MAX_GPUS; i++)
		same &= g->major[i] == g->major[0] && g->minor[i] == g->minor[0];
	size_t used = (size_t)snprintf(out, size, "%zu GPU%s of compute capability ", g->n,
				       g->n == 1 ? "" : "s");
	for (size_t i = 0; i < (same ? 1 : g->n) && i < CHOOSE_MAX_GPUS && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%d.%d", i ? ", " : "",
					 g->major[i], g->minor[i]);
}

static void describe_machine(const struct machine *mc, char *out, size_t size)
{
	char cublas[128] = "";
	for (int major = 1; major < 32; major++)
		if (mc->cublas[major] > 0) {
			size_t used = strlen(cublas);
			char file[32];
			cublas_file(mc, major, file, sizeof(file));
			snprintf(cublas + used, sizeof(cublas) - used, "%s%s", used ? ", " : "", file);
		}
	char driver[96];
	if (!mc->driver[0])
		snprintf(driver, sizeof(driver), "no NVIDIA driver found (the CUDA major is not limited)");
	else if (mc->cuda_max)
		snprintf(driver, sizeof(driver), "driver %s (CUDA %d and older)", mc->driver, mc->cuda_max);
	else
		snprintf(driver, sizeof(driver), "driver %s", mc->driver);
	if (!cublas[0] && mc->product->chooser_cuda_lib)
		no_cublas_note(mc, cublas, sizeof(cublas));
	char gpus[300];
	describe_gpus(mc, gpus, sizeof(gpus));
	snprintf(out, size, "%s, %s%s%s; %s", mc->platform, driver, cublas[0] ? ", " : "", cublas,
		 gpus);
}

static int setup_machine(struct machine *mc, const struct choose_options *o, struct cf_err *e)
{
	memset(mc, 0, sizeof(*mc));
	mc->product = o->product;
	mc->root = o->root;
	mc->gpus = o->gpus;
	snprintf(mc->platform, sizeof(mc->platform), "%s",
		 o->platform ? o->platform : platform_self()->name);
	if (o->cuda) {
		char *end;
		long v = strtol(o->cuda, &end, 10);
		if (end == o->cuda || (*end && *end != '.') || v < 1 || v > 31)
			return cf_fail(e, CF_USAGE, "--cuda '%s' is not a CUDA major version", o->cuda);
		mc->cuda_wanted = (int)v;
	}
	read_driver(mc);
	return CF_OK;
}

int choose_bundle(const char *path, const struct choose_options *o, char *chosen, size_t size,
		  struct cf_err *e)
{
	struct machine mc;
	int rc = setup_machine(&mc, o, e);
	if (rc != CF_OK)
		return rc;
	struct listing l = { NULL, 0, 0 };
	char *dir = NULL;
	/* A cuferry-kit/ below a stick's root is looked into, never through a link. */
	if (io_is_dir(path) && (rc = kitcheck_dir(path, &dir, e)) != CF_OK)
		return rc;
	int from_dir = dir != NULL; /* names read from the stick, not one file the user named */
	if (from_dir) {
		list_bundles(dir, &l);
	} else {
		dir = xstrdup(path);
		listing_add(&l, xstrdup(path));
	}
	char **names = l.names;
	size_t n = l.n;
	if (n == 0) {
		char safe[256];
		rc = cf_fail(e, CF_USAGE, "%s holds no bundles (*.bundle, *.001, *.run)",
			     log_safe(path, safe, sizeof(safe)));
		free(dir);
		free(names);
		return rc;
	}
	struct trust *t = xmalloc(sizeof(*t));
	struct candidate *c = xcalloc(n, sizeof(*c));
	rc = trust_load(t, &o->trust, e);
	size_t best = n, trusted = 0, held_back = 0, of_product = 0;
	char unlisted[600] = "";
	for (size_t i = 0; rc == CF_OK && i < n; i++) {
		c[i].path = names[i];
		display_name(names[i], c[i].name, sizeof(c[i].name));
		if (from_dir && is_link(names[i])) {
			snprintf(c[i].why, sizeof(c[i].why), "a link: not followed off the kit");
			continue;
		}
		if (from_dir && o->index && unindexed(o->index, names[i], c[i].why, sizeof(c[i].why))) {
			size_t used = strlen(unlisted);
			snprintf(unlisted + used, sizeof(unlisted) - used, "%s%s", used ? ", " : "", c[i].name);
			continue;
		}
		if (read_candidate(&c[i], t) != CF_OK)
			continue;
		trusted++;
		of_product += c[i].m->product == mc.product;
		judge(&c[i], &mc);
		/* The install's own downgrade rule, so that the chooser never picks what it refuses. */
		if (c[i].eligible && o->installed &&
		    productline_refuses(o->installed, c[i].m, &o->policy, c[i].why, sizeof(c[i].why))) {
			c[i].eligible = 0;
			held_back++;
		}
		if (c[i].eligible && (best == n || rank(&c[i], &c[best], NULL, 0) < 0))
			best = i;
	}
	if (rc == CF_OK && unlisted[0])
		log_msg(LOG_WARN, "not as the kit's signed index lists them, so never considered: %s",
			unlisted);
	char machine[640];
	describe_machine(&mc, machine, sizeof(machine));
	if (rc == CF_OK)
		log_out("this machine: %s\n", machine);
	if (rc == CF_OK && best < n) {
		const struct candidate *b = &c[best];
		log_out("chose %s: %s %s for CUDA %d%s%s\n", b->name, b->m->product->display,
			b->m->product_version, b->major,
			mc.cuda_wanted ? " (--cuda)" : mc.cuda_max == b->major ? " (the driver's CUDA)" : "",
			b->packs ? (b->libs_here ? ", carries CUDA libraries" : ", carries the CUDA libraries "
				    "this machine lacks") : b->libs_here ? ", uses this machine's CUDA libraries" : "");
		if (!b->packs && !b->libs_here)
			log_msg(LOG_WARN, "%s is neither on this machine nor in %s: %s will "
				"not find it (validation reports it)", b->cublas, b->name,
				b->m->product->display);
		for (size_t i = 0; i < n; i++)
			if (i != best && c[i].eligible)
				rank(&c[i], b, c[i].why, sizeof(c[i].why));
		if (n > 1)
			log_out("passed over:\n");
		for (size_t i = 0; i < n; i++)
			if (i != best)
				log_out("  %s: %s\n", c[i].name, c[i].why);
		if (strlen(b->path) >= size)
			rc = cf_fail(e, CF_USAGE, "%s: path too long", b->path);
		else
			snprintf(chosen, size, "%s", b->path);
	} else if (rc == CF_OK) {
		char offers[700] = "";
		log_out("the kit offers:\n");
		for (size_t i = 0; i < n; i++) {
			size_t used = strlen(offers);
			log_out("  %s: %s\n", c[i].name, c[i].why);
			snprintf(offers + used, sizeof(offers) - used, "%s%s (%s)", used ? "; " : "", c[i].name,
				 c[i].why);
		}
		if (trusted && !of_product)
			/* Another product's bundle is never a fallback: say which product is missing. */
			rc = cf_fail(e, CF_INCOMPATIBLE, "%s holds no %s bundle (--product %s); it "
				     "offers: %s", dir, mc.product->display, mc.product->name, offers);
		else
			rc = cf_fail(e, held_back ? CF_POLICY : trusted ? CF_INCOMPATIBLE : CF_TRUST,
				     "no bundle in %s fits this machine (%s); it offers: %s", dir,
				     machine, offers);
	}
	for (size_t i = 0; i < n; i++) {
		manifest_free(c[i].m);
		free(names[i]);
	}
	free(c);
	free(t);
	free(dir);
	free(names);
	return rc;
}
