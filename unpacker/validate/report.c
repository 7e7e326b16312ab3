/* report.c - the rows of a validation: added by the steps, printed as each step ends, written
 * to report.json */
#include "unpacker/validate/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/product.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/productline.h"
#include "unpacker/validate/proberun.h"

/* On a terminal: which step (and GPU) is running now; replaced by the step's row. */
void report_progress(struct run *r, const char *what)
{
	pthread_mutex_lock(r->lock);
	if (platform_is_terminal(1 /* stdout */)) {
		printf("\r\033[K     ... %s", what);
		fflush(stdout);
	}
	pthread_mutex_unlock(r->lock);
}

/* Print the rows not printed yet: each step's line appears as soon as the step ends. */
void report_flush(struct run *r)
{
	pthread_mutex_lock(r->lock);
	if (platform_is_terminal(1 /* stdout */)) {
		printf("\r\033[K");
		fflush(stdout);
	}
	for (; r->printed < json_array_size(r->checks); r->printed++)
		report_print_row(json_array_get(r->checks, r->printed));
	pthread_mutex_unlock(r->lock);
}

void report_timing(struct run *r, const char *name, double since)
{
	json_object_set_new(r->timings, name, json_real(platform_elapsed_s() - since));
}

void report_tag(const struct run *r, json_t *row)
{
	if (r->m && r->product != r->m->product)
		json_object_set_new(row, "product", json_string(r->product->name));
}

json_t *report_add(struct run *r, int step, const char *check, const char *status, const char *detail)
{
	json_t *o = json_pack("{s:i, s:s, s:s, s:s}", "step", step, "check", check, "status", status,
			      "detail", detail);
	report_tag(r, o);
	json_array_append_new(r->checks, o);
	if (strcmp(status, "fail") == 0)
		r->failed = 1;
	return o;
}

/* One probe that emits one result: copy it into the report as step N. */
json_t *report_probe(struct run *r, int step, const char *check, int timeout, char *const args[])
{
	json_t *lines;
	char why[512];
	if (probe_run(NULL, probe_timeout(timeout), args, &lines, why, sizeof(why)) != 0) {
		json_decref(lines);
		return report_add(r, step, check, "fail", why);
	}
	json_t *o = json_array_get(lines, 0);
	json_object_set_new(o, "step", json_integer(step));
	json_object_set_new(o, "check", json_string(check));
	report_tag(r, o);
	if (strcmp(json_string_value(json_object_get(o, "status")), "fail") == 0)
		r->failed = 1;
	json_array_append(r->checks, o);
	json_decref(lines);
	return o;
}

/* The per-algorithm (per-engine) records of a compute (graph) row. */
static const char *const record_kinds[] = { "forward", "backward_data", "backward_filter", "engines" };

/* fn on each record of row c until it returns non-zero. */
static void each_record(json_t *c, int (*fn)(size_t kind, json_t *a, void *ctx), void *ctx)
{
	for (size_t k = 0; k < sizeof(record_kinds) / sizeof(record_kinds[0]); k++) {
		size_t j;
		json_t *a;
		json_array_foreach(json_object_get(c, record_kinds[k]), j, a)
			if (fn(k, a, ctx))
				return;
	}
}

static int print_record(size_t k, json_t *a, void *ctx)
{
	json_t *err = json_object_get(a, "error"), *skip = json_object_get(a, "skipped");
	json_t *ms = json_object_get(a, k < 3 ? "median_ms" : "ms");
	json_t *at = json_object_get(a, "mismatch_at");
	log_out("                        %-15s %s %-3lld %s%s%s%s%.3f ms%s%s%s\n", record_kinds[k],
		k < 3 ? "algo" : "engine", json_integer_value(json_object_get(a, k < 3 ? "algo" : "engine")),
		err ? "error: " : "", err ? json_string_value(err) : "", skip ? json_string_value(skip) : "",
		err || skip ? " " : "", ms ? json_number_value(ms) : 0.0,
		json_integer_value(json_object_get(a, "mismatches")) ? "  MISMATCH" : "", at ? " " : "",
		at ? json_string_value(at) : "");
	return 0;
}

struct failure_text {
	char *out;
	size_t size;
};

/* The first wrong or failing record, named after the row's text. */
static int name_record(size_t k, json_t *a, void *ctx)
{
	struct failure_text *f = ctx;
	json_t *err = json_object_get(a, "error");
	if (json_integer_value(json_object_get(a, "mismatches")) <= 0 && !err &&
	    !json_is_false(json_object_get(a, "passed")))
		return 0;
	size_t used = strlen(f->out);
	snprintf(f->out + used, f->size - used, " (%s %s %lld%s%s)", record_kinds[k], k < 3 ? "algo" : "engine",
		 json_integer_value(json_object_get(a, k < 3 ? "algo" : "engine")), err ? ": " : " wrong",
		 err ? json_string_value(err) : "");
	return 1;
}

/* The --with product a row is of; NULL for the unit's own. */
static const struct product *row_product(json_t *c)
{
	const char *name = json_string_value(json_object_get(c, "product"));
	return name ? product_find(name) : NULL;
}

void report_print_row(json_t *c)
{
	const char *check = json_string_value(json_object_get(c, "check"));
	const char *shape = json_string_value(json_object_get(c, "shape"));
	char label[64];
	json_t *gpu = json_object_get(c, "gpu");
	if (gpu)
		snprintf(label, sizeof(label), "%s gpu%lld", check, json_integer_value(gpu));
	else
		snprintf(label, sizeof(label), "%s", check);
	const struct product *p = row_product(c);
	log_out("%-4lld %-13s %-6s %s%s%s%s%s\n", json_integer_value(json_object_get(c, "step")), label,
		json_string_value(json_object_get(c, "status")), p ? p->display : "", p ? ": " : "",
		shape ? shape : "", shape ? ": " : "", json_string_value(json_object_get(c, "detail")));
	each_record(c, print_record, NULL);
}

/* The first failed check, for the one error line: "step 6 compute gpu2: ...". */
void report_first_failure(const struct run *r, char *out, size_t size)
{
	size_t i;
	json_t *c;
	snprintf(out, size, "a check failed");
	json_array_foreach(r->checks, i, c) {
		if (strcmp(json_string_value(json_object_get(c, "status")), "fail") != 0)
			continue;
		json_t *gpu = json_object_get(c, "gpu");
		const struct product *p = row_product(c);
		char where[80] = "";
		if (gpu)
			snprintf(where, sizeof(where), " gpu%lld", json_integer_value(gpu));
		if (p)
			snprintf(where + strlen(where), sizeof(where) - strlen(where), " (%s)", p->display);
		snprintf(out, size, "step %lld %s%s: %.300s", json_integer_value(json_object_get(c, "step")),
			 json_string_value(json_object_get(c, "check")), where,
			 json_string_value(json_object_get(c, "detail")));
		/* A named algorithm or engine says more than "outside the tolerance". */
		struct failure_text f = { out, size };
		each_record(c, name_record, &f);
		return;
	}
}

int report_write(const struct run *r, const char *result, char *failed_copy, size_t size)
{
	char now[32];
	manifest_format_time((int64_t)time(NULL), now);
	char *path = layout_install_report(r->dir), *text;
	json_t *report = NULL;
	failed_copy[0] = '\0';
	if (io_read_file(path, 16 << 20, &text, NULL) == 0) {
		report = json_loads(text, 0, NULL);
		free(text);
	}
	if (!json_is_object(report)) {
		json_decref(report);
		report = json_object();
	}
	/* Without a manifest (its header failed step 1) the install is named as state.json has it. */
	const struct validate_signature *sig = r->o->signature;
	char key[64];
	productline_version_key(r->product, key, sizeof(key));
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?, s:s, s:O, s:O}", "validated_at", now,
			      "result", result, "gpu", r->gpu_checked ? "checked" : "not checked",
			      "install", r->dir, "bundle_id", r->m ? r->m->bundle_id : sig->bundle_id,
			      key, r->m ? r->m->product_version : sig->version,
			      "environment_ld_library_path", r->env_ldpath,
			      "timings_s", r->timings, "checks", r->checks);
	if (r->o->report_out)
		*r->o->report_out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *phases = r->o->install_timings ? json_loads(r->o->install_timings, 0, NULL) : NULL;
	if (phases)
		json_object_set_new(report, "install_timings_s", phases);
	json_object_set_new(report, "validation", v);
	text = json_dumps(report, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (io_write_file_atomic(path, text, strlen(text), 0644) != 0)
		log_msg(LOG_WARN, "%s: %s", path, platform_strerror(errno));
	/* A failed install is rolled back and its directory removed: keep the report beside it. */
	if (strcmp(result, "fail") == 0) {
		const char *base = strrchr(r->dir, '/');
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;
		if (platform_utc_time((int64_t)t, &tm) != 0)
			memset(&tm, 0, sizeof(tm));
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		char *dir = layout_failed_dir(r->o->layout, base ? base + 1 : r->dir, stamp);
		char *copy = layout_failed_report(dir);
		if (io_mkdirs(dir, 0755) == 0 && io_write_file_atomic(copy, text, strlen(text), 0644) == 0)
			snprintf(failed_copy, size, "%s", copy);
		else
			log_msg(LOG_WARN, "%s: %s", copy, platform_strerror(errno));
		free(copy);
		free(dir);
	}
	free(text);
	free(path);
	json_decref(report);
	return 0;
}

/* Fold the GPU steps' run into the main one (rows already printed). */
void report_run_for(const struct run *r, size_t i, struct run *out)
{
	*out = *r;
	out->product = manifest_product_at(r->m, i);
	const char *version = out->version = manifest_product_version_at(r->m, i);
	snprintf(out->major, sizeof(out->major), "%.*s", (int)strcspn(version, "."), version);
	out->checks = json_array();
	out->timings = json_object();
	out->printed = 0;
	out->gpu_checked = out->failed = out->incompatible = 0;
	out->preload[0] = '\0';
}

void report_merge_product(struct run *r, struct run *mr)
{
	const char *name;
	json_t *v, *named = json_object();
	json_object_foreach(mr->timings, name, v) {
		char key[96];
		snprintf(key, sizeof(key), "%s_%s", mr->product->name, name);
		json_object_set(named, key, v);
	}
	json_decref(mr->timings);
	mr->timings = named;
	report_merge(r, mr);
}

void report_merge(struct run *r, struct run *g)
{
	json_array_extend(r->checks, g->checks);
	r->printed = json_array_size(r->checks);
	json_object_update(r->timings, g->timings);
	r->failed |= g->failed;
	r->incompatible |= g->incompatible;
	r->gpu_checked |= g->gpu_checked;
	json_decref(g->checks);
	json_decref(g->timings);
}
