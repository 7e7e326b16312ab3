/* report.h - one validation's run: its rows as the steps add them, shown on the console as
 * each step ends, and report.json at the end (DESIGN.md §7). Internal to unpacker/validate/. */
#ifndef UNPACKER_VALIDATE_REPORT_H
#define UNPACKER_VALIDATE_REPORT_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "manifests/manifest.h"
#include "unpacker/validate/options.h"

struct json_t; /* jansson's json_t: the header names no library type */

/* Seconds a probe may take; CUFERRY_VALIDATE_TIMEOUT overrides both (probe_timeout). */
#define PROBE_TIMEOUT 60
#define COMPUTE_TIMEOUT 120

struct run {
	const struct validate_options *o;
	const char *dir;
	const struct manifest *m;
	const struct product *product; /* the manifest's (m->product), else the layout's */
	const char *version;           /* product's version in the manifest; NULL without one */
	char major[16];
	char env_ldpath[4096];
	/* step 4's CUDA libraries that the product opens by name (its cuda_libs_opened) of this
	 * host, ':'-separated: the GPU checks load them by absolute path before the product asks
	 * for them by name ("-": none; under --root an image's files are never loaded) */
	char preload[3 * PATH_MAX + 4];
	struct json_t *checks;
	struct json_t *timings;       /* seconds per step, and per GPU for step 6 */
	size_t printed;        /* rows of checks already on the console */
	int gpu_checked;       /* step 6 ran on at least one GPU */
	int failed;
	int incompatible;
	char untrusted[1200]; /* the stored signature failed: why (a trust failure, exit 2) */
	pthread_mutex_t *lock; /* the console, while checks finish in parallel */
};

/* On a terminal: which step (and GPU) is running now; replaced by the step's row. */
void report_progress(struct run *r, const char *what);
/* Print the rows not printed yet: each step's line appears as soon as the step ends. */
void report_flush(struct run *r);
/* A row on the console, with its per-algorithm records (a compute row). */
void report_print_row(struct json_t *c);
/* The seconds since `since` as the timing called name. */
void report_timing(struct run *r, const char *name, double since);
/* A row of step `step`; a "fail" marks the run failed. The row stays the run's. */
struct json_t *report_add(struct run *r, int step, const char *check, const char *status,
		   const char *detail);
/* One probe that emits one result: copy it into the report as step N. */
struct json_t *report_probe(struct run *r, int step, const char *check, int timeout, char *const args[]);
/* The first failed check, for the one error line: "step 6 compute gpu2: ...". */
void report_first_failure(const struct run *r, char *out, size_t size);
/* report.json of the install (and, for a failed one, its copy kept beside the failed
 * installs: its path in failed_copy). */
int report_write(const struct run *r, const char *result, char *failed_copy, size_t size);
/* Fold the GPU steps' run into the main one (rows already printed). */
void report_merge(struct run *r, struct run *g);
/* A run of r's unit for its product i (manifest_product_at: 1.. the --with products), with rows
 * and timings of its own: its rows name the product ("product" in report.json, its display name
 * before the detail on the console). Folded back with report_merge_product, its timings then
 * named "PRODUCT_step". */
void report_run_for(const struct run *r, size_t i, struct run *out);
void report_merge_product(struct run *r, struct run *mr);
/* A row of a --with product's run names the product ("product"); the unit's own rows do not. */
void report_tag(const struct run *r, struct json_t *row);

#endif
