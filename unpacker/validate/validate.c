/* validate.c - the sequence of the checks (one file per step: step_*.c), each library-loading
 * one in a clean child process */
#include "unpacker/validate/validate.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/open.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/product.h"
#include "unpacker/validate/libname.h"
#include "unpacker/validate/report.h"
#include "unpacker/validate/step_deps.h"
#include "unpacker/validate/step_files.h"
#include "unpacker/validate/step_gpu.h"
#include "unpacker/validate/step_resolution.h"
#include "unpacker/validate/step_signature.h"

/* ---- the environment a fresh program gets ---- */

/* The probe's LD_LIBRARY_PATH. Under --root nothing of the image is loaded but the installed
 * tree: its own lib/, nothing else of the root (the root's loader configuration is read
 * as files by steps 3 and 4 instead). */
static void compute_env(struct run *r)
{
	const struct validate_options *o = r->o;
	r->env_ldpath[0] = '\0';
	if (*o->layout->root)
		snprintf(r->env_ldpath, sizeof(r->env_ldpath), "%s/lib", r->dir);
	else if (o->env_mode == VALIDATE_ENV_LIBRARY_PATH)
		snprintf(r->env_ldpath, sizeof(r->env_ldpath), "%s/lib", o->layout->current);
}

/* ---- step 2 ---- */

/* The library probe reads the version from the library itself when the product's GPU check
 * knows its version call (step_gpu_reads_version); any other product's library (NCCL: its
 * GPU check calls ncclGetVersion in step 6) is loaded only: by absolute path, in the
 * unprivileged child. */
static void check_library(struct run *r)
{
	if (step_gpu_reads_version(r->product)) {
		char *const args[] = { "library", (char *)r->dir, r->major, (char *)r->version,
				       r->m->cuda_variant, NULL };
		report_probe(r, 2, "library", PROBE_TIMEOUT, args);
		return;
	}
	char *path = libname_main_path(r->product, r->dir, r->major);
	char *const args[] = { "load", path, NULL };
	report_probe(r, 2, "library", PROBE_TIMEOUT, args);
	free(path);
}

/* Steps 2-4 of each --with product of the unit, after the unit's own: its library loads from
 * the install, resolves first, finds its dependencies, each row naming it. */
static void library_steps(struct run *r, int is_current)
{
	double t = platform_elapsed_s();
	check_library(r);
	report_timing(r, "library", t);
	report_flush(r);
	t = platform_elapsed_s();
	step_resolution(r, is_current);
	report_timing(r, "resolution", t);
	report_flush(r);
	t = platform_elapsed_s();
	step_deps(r);
	report_timing(r, "dependencies", t);
	report_flush(r);
}

static void member_steps(struct run *r, int is_current)
{
	for (size_t i = 1; r->m && i < manifest_product_count(r->m); i++) {
		struct run mr;
		report_run_for(r, i, &mr);
		library_steps(&mr, is_current);
		report_merge_product(r, &mr);
	}
}

/* Steps 5-6 need only the files: they run beside steps 2-4, in a run of their own. */
static void *gpu_steps(void *arg)
{
	struct run *g = arg;
	step_gpu(g);
	report_flush(g);
	return NULL;
}

int validate_install(const struct validate_options *o, const char *install_dir,
		     const struct manifest *m, int is_current, struct cf_err *e)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct run r = { .o = o, .dir = install_dir, .m = m,
			 .product = m ? m->product : o->layout->product, .checks = json_array(),
			 .timings = json_object(), .lock = &lock };
	if (m) {
		r.version = m->product_version;
		snprintf(r.major, sizeof(r.major), "%.*s", (int)strcspn(m->product_version, "."),
			 m->product_version);
	}
	compute_env(&r);
	log_msg(LOG_INFO, "validating %s", install_dir);
	log_out("%-4s %-13s %-6s %s\n", "step", "check", "result", "detail");
	double t0 = platform_elapsed_s(), t = t0;
	report_progress(&r, "step 1 files");
	if (o->signature)
		report_add(&r, 1, "signature", o->signature->failed ? "fail" : "pass", o->signature->why);
	if (o->signature && o->signature->failed)
		snprintf(r.untrusted, sizeof(r.untrusted), "%s", o->signature->why);
	if (m)
		step_files(&r);
	else /* the header is not trusted: neither is the file list it carries */
		report_add(&r, 1, "files", "skip", "not checked: the stored header's signature failed");
	report_timing(&r, "files", t);
	report_flush(&r);
	if (!r.failed) { /* a modified install is never loaded */
		struct run g = r;
		g.checks = json_array();
		g.timings = json_object();
		g.printed = 0;
		pthread_t gpu_thread;
		int threaded = pthread_create(&gpu_thread, NULL, gpu_steps, &g) == 0;
		report_progress(&r, "steps 2-6");
		library_steps(&r, is_current);
		member_steps(&r, is_current);
		if (threaded)
			pthread_join(gpu_thread, NULL);
		else
			gpu_steps(&g);
		report_merge(&r, &g);
	} else {
		report_add(&r, 2, "library", "skip", "not loaded: step 1 failed");
		report_flush(&r);
	}
	report_timing(&r, "total", t0);
	const char *result = r.failed ? "fail" : r.gpu_checked ? "pass" : "pass-without-gpu";
	char kept[PATH_MAX + 32], first[512], times[512];
	report_write(&r, result, kept, sizeof(kept));
	char *tt = json_dumps(r.timings, JSON_COMPACT | JSON_REAL_PRECISION(3));
	log_msg(LOG_DEBUG, "validation timings (s): %s", tt ? tt : "?"); /* the log file only */
	if (o->timings_out && tt && strlen(tt) < o->timings_out_size)
		snprintf(o->timings_out, o->timings_out_size, "%s", tt);
	free(tt);
	snprintf(times, sizeof(times), "%.2f s", json_real_value(json_object_get(r.timings, "total")));
	report_first_failure(&r, first, sizeof(first));
	json_decref(r.checks);
	json_decref(r.timings);
	const char *see = kept[0] ? kept : "the log";
	if (r.untrusted[0])
		return cf_fail(e, CF_TRUST, "%s; report: %s", r.untrusted, see);
	if (r.incompatible)
		return cf_fail(e, CF_INCOMPATIBLE, "validation: the driver or GPU cannot run this %s "
			       "(or no GPU with --require-gpu): %s; report: %s", r.product->display,
			       first, see);
	if (r.failed)
		return cf_fail(e, CF_VALIDATION, "validation failed: %s; report: %s", first, see);
	if (r.gpu_checked)
		log_out("validation: all checks passed in %s\n", times);
	else if (!step_gpu_has_check(r.product))
		log_out("validation: passed WITHOUT a GPU check (no GPU check for %s in this "
			"unpacker: steps 5-6 not run; --require-gpu makes this an error) in %s\n",
			r.product->display, times);
	else
		log_out("validation: passed WITHOUT a GPU check (no NVIDIA driver or GPU: steps 5-6 "
			"not run; --require-gpu makes this an error) in %s\n", times);
	return CF_OK;
}

int validate_load_manifest(const char *root, const char *install_dir,
			   const struct trust_sources *trust, struct manifest **m,
			   struct validate_signature *sig, struct cf_err *e)
{
	char *path = layout_install_header(install_dir);
	struct frame f;
	struct stored_check c = { .trust = trust, .root = root, .dir = install_dir, .sig = sig };
	*m = NULL;
	memset(sig, 0, sizeof(*sig));
	int rc = bundle_read_stored_header(path, step_signature_check, &c, &f, e);
	if (rc == CF_OK) {
		rc = manifest_parse((const char *)f.header, f.header_len, m, e);
		frame_free(&f);
	}
	free(path);
	if (rc != CF_OK && sig->failed)
		return CF_TRUST;
	if (rc != CF_OK && rc != CF_VALIDATION)
		e->code = rc = CF_VALIDATION;
	return rc;
}
