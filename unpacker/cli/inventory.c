/* inventory.c - unpacker inventory: each install of a prefix (its records, signers, files and
 * last validation), the environment files and the other copies, gathered into one JSON object
 * that both the text (inventorytext.c) and --json print. Only files are read: the manifest from
 * the install's stored header once its signatures verify (validate's own rule), the sizes or
 * SHA-256 through validate's file check, the copies through doctor's survey; nothing is loaded
 * and nothing is written. */
#include "unpacker/cli/inventory.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "unpacker/cli/inventorytext.h"
#include "unpacker/environment/modulefile.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/productline.h"
#include "unpacker/target/state.h"
#include "unpacker/target/trust.h"
#include "unpacker/target/unlisted.h"
#include "unpacker/validate/doctor.h"
#include "unpacker/validate/filecheck.h"
#include "unpacker/validate/validate.h"

/* What drifted, in the order found; the first is the command's one-line reason. */
struct findings {
	json_t *problems;
	int untrusted; /* a stored header no longer verifies: exit 2, not 6 */
};

/* A string for JSON, which must be UTF-8: a name that is not is shown escaped. */
static json_t *jstr(const char *s)
{
	char safe[4096];
	json_t *j = s ? json_string(s) : json_null();
	return j ? j : json_string(log_safe(s, safe, sizeof(safe)));
}

static void problem(struct findings *f, const char *fmt, ...) CF_PRINTF(2, 3);
static void problem(struct findings *f, const char *fmt, ...)
{
	char text[1600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	json_array_append_new(f->problems, jstr(text));
}

/* A path under --root as the system inside it names it. */
static const char *shown(const struct layout *l, const char *path)
{
	size_t n = strlen(l->root);
	return n && strncmp(path, l->root, n) == 0 ? path + n : path;
}

/* ---- one install ---- */

/* The fingerprints recorded at install (.cuferry/signers), each judged by what this host
 * trusts now: trusted, revoked (counts nowhere), or not trusted here. */
static json_t *signers_of(const char *dir, const struct trust *t)
{
	json_t *a = json_array();
	char *path = xasprintf("%s%c%s", dir, platform_dir_separator(), layout_install_signers_rel);
	char *text = NULL, *save = NULL;
	if (io_read_file_nofollow(path, FRAME_MAX_SIGS * 65 + 1, &text, NULL) == 0)
		for (char *fp = strtok_r(text, "\n", &save); fp; fp = strtok_r(NULL, "\n", &save)) {
			uint8_t id[32];
			if (strlen(fp) != 64 || hex_decode(fp, id, 32) != 0)
				continue;
			const char *now = !t ? "unknown" : trust_is_revoked(t, id) ? "revoked"
				       : trust_is_trusted(t, id) ? "trusted" : "not trusted";
			json_array_append_new(a, json_pack("{s:s, s:s}", "fingerprint", fp, "trust", now));
		}
	free(text);
	free(path);
	return a;
}

/* The entries against the manifest: sizes (no byte read), or every SHA-256 with --deep. */
static json_t *files_of(const char *name, const char *dir, const struct manifest *m, int deep,
			struct findings *f)
{
	struct filecheck_entry *c;
	if (filecheck_run(dir, m, deep, &c) != 0) {
		problem(f, "%s: out of memory checking its files", name);
		return json_null();
	}
	size_t count[FILECHECK_LINK + 1] = { 0 };
	const char *first = NULL;
	for (size_t i = 0; i < m->nfiles; i++) {
		count[c[i].state]++;
		if (!first && c[i].state != FILECHECK_OK)
			first = c[i].why;
	}
	char **unlisted = unlisted_entries(dir, m);
	size_t nunlisted = 0;
	for (; unlisted && unlisted[nunlisted]; nunlisted++)
		;
	json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "checked", deep ? "sha256" : "size",
			      "entries", (json_int_t)m->nfiles, "as_listed", (json_int_t)count[FILECHECK_OK],
			      "missing", (json_int_t)count[FILECHECK_MISSING],
			      "size_changed", (json_int_t)count[FILECHECK_SIZE],
			      "links_changed", (json_int_t)count[FILECHECK_LINK],
			      "unlisted", (json_int_t)nunlisted);
	json_object_set_new(j, "sha256_changed", deep ? json_integer((json_int_t)count[FILECHECK_SHA256])
						      : json_null());
	json_object_set_new(j, "first_problem", jstr(first));
	json_object_set_new(j, "first_unlisted", jstr(unlisted ? unlisted[0] : NULL));
	if (first)
		problem(f, "%s: %s", name, first);
	if (!unlisted)
		problem(f, "%s: its directories cannot be read", name);
	else if (nunlisted)
		problem(f, "%s: %s is not in the manifest (%zu unlisted)", name, unlisted[0], nunlisted);
	unlisted_free(unlisted);
	free(c);
	return j;
}

/* The driver row's GPUs of a validation record: [{index, name}]. */
static json_t *gpus_of(json_t *checks)
{
	json_t *out = json_array();
	for (size_t i = 0; i < json_array_size(checks); i++) {
		json_t *gpus = json_object_get(json_array_get(checks, i), "gpus");
		for (size_t k = 0; k < json_array_size(gpus); k++) {
			json_t *gpu = json_array_get(gpus, k);
			json_array_append_new(out, json_pack("{s:O?, s:O?}", "index",
							     json_object_get(gpu, "index"), "name",
							     json_object_get(gpu, "name")));
		}
	}
	return out;
}

/* The last validation the install recorded (.cuferry/report.json, which validate writes
 * atomically), or null when it recorded none (--no-validate). A record that cannot be read
 * counts as drift: nothing is assumed to have passed. */
static json_t *validation_of(const char *name, const char *dir, struct findings *f)
{
	char *path = layout_install_report(dir), *text = NULL;
	if (!io_exists(path)) {
		free(path);
		return json_null();
	}
	json_t *report = io_read_file_nofollow(path, 16 << 20, &text, NULL) == 0
			 ? json_loads(text, 0, NULL) : NULL;
	free(text);
	free(path);
	json_t *v = json_object_get(report, "validation"), *out;
	const char *result = json_string_value(json_object_get(v, "result"));
	if (json_is_object(report) && !v) {
		out = json_null(); /* the install's timings only: never validated */
	} else if (!result) {
		problem(f, "%s: its validation record (%s) cannot be read", name,
			layout_install_report_rel);
		out = json_pack("{s:s}", "result", "unreadable");
	} else {
		json_t *checks = json_object_get(v, "checks"), *row;
		const char *failed = NULL;
		size_t i;
		for (i = 0; (row = json_array_get(checks, i)) != NULL; i++)
			if (!failed && json_string_value(json_object_get(row, "status")) &&
			    strcmp(json_string_value(json_object_get(row, "status")), "fail") == 0)
				failed = json_string_value(json_object_get(row, "detail"));
		out = json_pack("{s:s, s:O?, s:O?}", "result", result, "validated_at",
				json_object_get(v, "validated_at"), "gpu", json_object_get(v, "gpu"));
		json_object_set_new(out, "gpus", gpus_of(checks));
		json_object_set_new(out, "first_failure", jstr(failed));
		if (strcmp(result, "fail") == 0)
			problem(f, "%s: its last validation failed (%s): %s", name,
				json_string_value(json_object_get(v, "validated_at")),
				failed ? failed : "?");
	}
	json_decref(report);
	return out;
}

/* The builders' files the manifest lists (pkg-config, CMake): written relative to their own
 * install (prefix=${pcfiledir}/../..), so they point at it wherever it lies. */
static json_t *builder_files(const struct product *p, const char *dir, const struct manifest *m)
{
	json_t *a = json_array();
	char *names[2] = { xasprintf("lib/pkgconfig/%s.pc", p->pkgconfig_name),
			   xasprintf("lib/cmake/%s/%sConfig.cmake", p->cmake_package, p->cmake_package) };
	for (int i = 0; i < 2; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		if (m && manifest_find(m, names[i]))
			json_array_append_new(a, json_pack("{s:s, s:b}", "file", names[i], "present",
							   io_exists(path)));
		free(path);
		free(names[i]);
	}
	return a;
}

static json_t *install_of(const struct layout *l, const struct state *st,
			  const struct state_bundle *b, const struct install_options *o,
			  const struct inventory_options *io, const struct trust *t,
			  struct findings *f)
{
	char key[64], *dir = layout_under(l, b->dir);
	productline_version_key(l->product, key, sizeof(key));
	int current = st->current && strcmp(st->current, b->dir) == 0;
	json_t *j = json_pack("{s:o, s:o, s:s, s:o, s:I, s:o, s:o, s:b}", "dir", jstr(b->dir),
			      "bundle_id", jstr(b->id), "product", l->product->name, "cuda_variant",
			      jstr(b->cuda_variant), "counter", (json_int_t)b->counter, "created",
			      jstr(b->created), "installed_at", jstr(b->installed_at), "current", current);
	json_object_set_new(j, key, jstr(b->version));
	json_object_set_new(j, "signers", signers_of(dir, t));
	struct manifest *m = NULL;
	struct validate_signature sig = { 0 };
	struct cf_err why = { 0 };
	int rc = io_is_dir(dir) ? validate_load_manifest(l->root, dir, &o->trust, &m, &sig, &why)
				: cf_fail(&why, CF_VALIDATION, "its directory %s is gone", shown(l, dir));
	json_object_set_new(j, "signature", json_pack("{s:b, s:o}", "verifies", rc == CF_OK,
						      "detail", jstr(rc == CF_OK || sig.failed
								     ? sig.why : why.msg)));
	if (rc == CF_TRUST)
		f->untrusted = 1;
	if (rc != CF_OK)
		problem(f, "%s: %s", b->dir, rc == CF_TRUST ? sig.why : why.msg);
	json_object_set_new(j, "platform", jstr(m ? m->platform : NULL));
	/* An unverified header is believed in nothing: its files are not judged by it. */
	json_object_set_new(j, "files", m ? files_of(b->dir, dir, m, io->deep, f) : json_null());
	json_t *builders = builder_files(l->product, dir, m), *with = json_array();
	for (size_t i = 0; m && i < m->nmembers; i++) {
		json_t *more = builder_files(m->members[i].product, dir, m);
		json_array_extend(builders, more);
		json_decref(more);
		json_array_append_new(with, json_pack("{s:s, s:s}", "product", m->members[i].product->name,
						      "version", m->members[i].version));
	}
	json_object_set_new(j, "builder_files", builders);
	json_object_set_new(j, "with", with);
	json_object_set_new(j, "validation", io_is_dir(dir) ? validation_of(b->dir, dir, f)
							     : json_null());
	manifest_free(m);
	free(dir);
	return j;
}

/* ---- the environment ---- */

/* One environment file: whether it is there and holds the line that names want. */
static json_t *env_file(const struct layout *l, const char *kind, const char *path,
			const char *want, const char *wanted_line, int *present)
{
	char *text = NULL;
	*present = io_read_file_nofollow(path, 1 << 20, &text, NULL) == 0;
	char *line = xasprintf("\n%s\n", wanted_line), *padded = xasprintf("\n%s", text ? text : "");
	int ok = *present && strstr(padded, line) != NULL;
	json_t *j = json_pack("{s:s, s:o, s:b, s:o, s:b}", "kind", kind, "file", jstr(shown(l, path)),
			      "present", *present, "points_at", *present && ok ? jstr(want) : json_null(),
			      "ok", !*present || ok);
	free(padded);
	free(line);
	free(text);
	return j;
}

static json_t *environment_of(const struct layout *l, const struct state *st, struct findings *f)
{
	json_t *a = json_array();
	if (l->registry) /* Windows: the registry, which doctor and validate judge */
		return a;
	char *lib = layout_current_lib_sys(l->prefix_sys), *cur = layout_current_sys(l->prefix_sys, '/');
	char *var = xasprintf("%s='%s'", l->product->env_var, cur);
	int have[2];
	const char *ldconf = l->ldconf_legacy && !io_exists(l->ldconf) && io_exists(l->ldconf_legacy)
			     ? l->ldconf_legacy : l->ldconf;
	json_array_append_new(a, env_file(l, "ld.so.conf.d", ldconf, lib, lib, &have[0]));
	json_array_append_new(a, env_file(l, "profile.d", l->profile, cur, var, &have[1]));
	for (int i = 0; i < 2; i++) {
		json_t *e = json_array_get(a, (size_t)i);
		if (!json_is_true(json_object_get(e, "ok")))
			problem(f, "%s does not point at %s", json_string_value(json_object_get(e, "file")),
				i ? cur : lib);
	}
	if (have[0] != have[1])
		problem(f, "%s is there without %s", shown(l, have[0] ? ldconf : l->profile),
			shown(l, have[0] ? l->profile : ldconf));
	/* The current link, which both files name: it must point at what state.json says. */
	char target[4096] = "";
	if (l->platform->links_allowed && st->current) {
		long n = (long)platform_readlink(l->current, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
		int ok = strcmp(base, st->current) == 0;
		json_array_append_new(a, json_pack("{s:s, s:o, s:b, s:o, s:b}", "kind", "current link",
						   "file", jstr(cur), "present", target[0] != '\0',
						   "points_at", jstr(target[0] ? target : NULL), "ok", ok));
		if (!ok)
			problem(f, "%s points at %s, not at the current install %s", cur,
				target[0] ? target : "nothing", st->current);
	}
	free(var);
	free(cur);
	free(lib);
	return a;
}

/* The module directories written (PREFIX/.cuferry/modulefiles): which installs each holds, and
 * whether its default is the current one. */
static json_t *modulefiles_of(const struct layout *l, const struct state *st, struct findings *f)
{
	size_t n;
	char **dirs = modulefile_recorded(l, &n);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *held = json_array();
		for (size_t k = 0; k < st->nbundles; k++)
			if (modulefile_present(l, dirs[i], st->bundles[k].dir))
				json_array_append_new(held, jstr(st->bundles[k].dir));
		int ok = !st->current || modulefile_is_default(l, dirs[i], st->current);
		json_array_append_new(a, json_pack("{s:o, s:o, s:b}", "dir", jstr(dirs[i]), "installs",
						   held, "default_is_current", ok));
		if (!ok)
			problem(f, "the modulefiles in %s do not make %s the default", dirs[i], st->current);
	}
	modulefile_recorded_free(dirs, n);
	return a;
}

/* Doctor's copies (names, headers and metadata; nothing loaded). */
static json_t *copies_of(const struct layout *l, int *surveyed, struct findings *f)
{
	struct doctor_copy *c;
	size_t n = doctor_copies(l, &c, surveyed);
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(a, json_pack("{s:o, s:s, s:o, s:o, s:b, s:b, s:b}", "path",
						   jstr(c[i].path), "version", c[i].version, "origin",
						   jstr(c[i].origin), "on_search_path",
						   c[i].vias[0] ? jstr(c[i].vias) : json_null(),
						   "ours", c[i].ours, "wins", c[i].wins,
						   "shadows", c[i].shadows));
		if (c[i].shadows)
			problem(f, "%s%s (%s %s, %s) shadows the install", l->root, c[i].path,
				l->product->display, c[i].version, c[i].origin);
	}
	free(c);
	return a;
}

/* One prefix: its installs, environment, modulefiles and copies (product p). */
static json_t *prefix_of(const struct layout *l, const struct state *st,
			 const struct install_options *o, const struct inventory_options *io,
			 const struct trust *t, struct findings *f)
{
	json_t *installs = json_array();
	for (size_t i = 0; i < st->nbundles; i++)
		json_array_append_new(installs, install_of(l, st, &st->bundles[i], o, io, t, f));
	int surveyed;
	json_t *j = json_pack("{s:s, s:s, s:o, s:o}", "product", l->product->name, "prefix",
			      l->prefix_sys, "current", jstr(st->current), "installs", installs);
	json_object_set_new(j, "environment", environment_of(l, st, f));
	json_object_set_new(j, "modulefiles", modulefiles_of(l, st, f));
	json_object_set_new(j, "copies", copies_of(l, &surveyed, f));
	json_object_set_new(j, "copies_surveyed", json_boolean(surveyed));
	return j;
}

/* The product a prefix is asked of: --product's; with --prefix alone the one its state names
 * (a prefix holds one product), else the default. */
static const struct product *product_asked(const struct install_options *o)
{
	if (o->product_given || !o->prefix)
		return o->product;
	struct layout l;
	struct state st;
	struct cf_err ignored = { 0 };
	const struct product *p = o->product;
	layout_init(&l, o->root, o->prefix, o->product);
	if (state_load(l.state, &st, &ignored) == CF_OK) {
		if (st.product && product_find(st.product))
			p = product_find(st.product);
		state_free(&st);
	}
	layout_free(&l);
	return p;
}

/* Which prefixes: the one --prefix or --product names; else each product's default prefix that
 * holds a state, and the default product's when none does. */
static int wanted(const struct install_options *o, const struct product *p)
{
	if (o->product_given || o->prefix)
		return p == product_asked(o);
	int any = 0;
	for (size_t i = 0; i < product_count(); i++) {
		char *prefix = layout_default_prefix(o->root, NULL, product_at(i));
		char *state = layout_state_of(o->root, prefix);
		int held = io_exists(state);
		any |= held;
		if (product_at(i) == p && held) {
			free(state);
			free(prefix);
			return 1;
		}
		free(state);
		free(prefix);
	}
	return !any && p == product_default();
}

int inventory_run(const struct install_options *o, const struct inventory_options *io,
		  char **json, struct cf_err *e)
{
	*json = NULL;
	/* What this host trusts now, loaded once for every install's signers. */
	struct trust *t = xmalloc(sizeof(*t));
	struct cf_err no_trust = { 0 };
	int trusted = trust_load(t, &o->trust, &no_trust) == CF_OK;
	struct findings f = { json_array(), 0 };
	json_t *prefixes = json_array();
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < product_count(); i++) {
		const struct product *p = product_at(i);
		if (!wanted(o, p))
			continue;
		struct layout l;
		struct state st = { 0 };
		layout_init(&l, o->root, o->prefix, p);
		rc = state_load(l.state, &st, e);
		if (rc == CF_OK)
			rc = state_check_product(&st, l.product, l.prefix, e);
		if (rc == CF_OK) {
			json_t *one = prefix_of(&l, &st, o, io, trusted ? t : NULL, &f);
			if (!io->json_only)
				inventory_print_prefix(one, p, l.root);
			json_array_append_new(prefixes, one);
		}
		state_free(&st);
		layout_free(&l);
	}
	free(t);
	json_t *inv = json_pack("{s:s, s:s, s:o, s:b, s:o}", "root", o->root, "checked",
				io->deep ? "sha256" : "size", "prefixes", prefixes, "drifted",
				json_array_size(f.problems) > 0, "problems", f.problems);
	if (rc == CF_OK && !io->json_only)
		inventory_print_problems(inv);
	size_t n = json_array_size(f.problems);
	if (rc == CF_OK && n)
		rc = cf_fail(e, f.untrusted ? CF_TRUST : CF_VALIDATION, "%s%s",
			     json_string_value(json_array_get(f.problems, 0)),
			     n > 1 ? " (and more: see the inventory)" : "");
	*json = json_dumps(inv, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(inv);
	return rc;
}
