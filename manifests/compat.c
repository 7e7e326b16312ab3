/* compat.c - answers "does release X of a product support CUDA Y, and which driver does it
 * need?" from the rows of the product's compat_kind */
#include "manifests/compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "manifests/platforms.h"
#include "manifests/product.h"

extern const char compat_tsv[]; /* manifests/compat.tsv, embedded at build time */

enum { COL_KIND, COL_VERSION, COL_CUDA, COL_DRV_LINUX, COL_DRV_WIN, COL_MINOR_LINUX,
       COL_MINOR_WIN, COL_STATIC, COL_NOTES, NCOLS = 10 };

struct cuda_ver {
	int major, minor; /* minor -1: any minor of that major */
};

static int version_cmp(const char *a, const char *b, int full)
{
	while (*a || *b) {
		if (!*a || !*b)
			return full ? (*a ? 1 : -1) : 0;
		long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
		if ((*a && !isdigit((unsigned char)*a)) || (*b && !isdigit((unsigned char)*b)))
			return 0;
	}
	return 0;
}

int compat_version_cmp(const char *a, const char *b)
{
	return version_cmp(a, b, 0);
}

int compat_version_cmp_full(const char *a, const char *b)
{
	return version_cmp(a, b, 1);
}

/* "8.0.0-8.0.1", "9.10.2", "9.13.0-9.27.0" */
static int version_in_cell(const char *version, const char *cell)
{
	char lo[32], hi[32];
	const char *dash = strchr(cell, '-');
	if (dash) {
		snprintf(lo, sizeof(lo), "%.*s", (int)(dash - cell), cell);
		snprintf(hi, sizeof(hi), "%s", dash + 1);
	} else {
		snprintf(lo, sizeof(lo), "%s", cell);
		snprintf(hi, sizeof(hi), "%s", cell);
	}
	return compat_version_cmp(version, lo) >= 0 && compat_version_cmp(version, hi) <= 0;
}

/* Read the CUDA versions a cell names: "12.0-12.6", "11.x", "10.1;10.2", "variants 12;13". */
static size_t parse_cuda_cell(const char *cell, struct cuda_ver *out, size_t max)
{
	size_t n = 0;
	int bare_majors = strncmp(cell, "variants", 8) == 0;
	for (const char *p = cell; *p && n < max;) {
		if (!isdigit((unsigned char)*p) || (p > cell && isalnum((unsigned char)p[-1]))) {
			p++;
			continue;
		}
		char *end;
		int major = (int)strtol(p, &end, 10), minor = -1;
		if (*end == '.' && end[1] == 'x') {
			end += 2;
		} else if (*end == '.' && isdigit((unsigned char)end[1])) {
			minor = (int)strtol(end + 1, &end, 10);
		} else if (!bare_majors) {
			p = end;
			continue;
		}
		if (minor >= 0 && *end == '-' && isdigit((unsigned char)end[1])) {
			char *end2;
			int major2 = (int)strtol(end + 1, &end2, 10), minor2 = minor;
			if (*end2 == '.' && major2 == major) {
				minor2 = (int)strtol(end2 + 1, &end2, 10);
				for (int m = minor; m <= minor2 && n < max; m++)
					out[n++] = (struct cuda_ver){ major, m };
				p = end2;
				continue;
			}
		}
		out[n++] = (struct cuda_ver){ major, minor };
		p = end;
	}
	return n;
}

static int cuda_matches(const struct cuda_ver *v, size_t n, int major, int minor)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].major == major && (minor < 0 || v[i].minor < 0 || v[i].minor == minor))
			return 1;
	return 0;
}

/* The most specific ">=X.Y.Z" of a cell: the one with the most components. A cell that gives
 * one minimum per package ("(cuda12 pkg); ... (cuda11 pkg)", release 8.9.7) is read for the
 * package of cuda_major only: the other package's driver says nothing about this one. */
static void driver_from_cell(const char *cell, int cuda_major, char *out, size_t size)
{
	char tag[32];
	snprintf(tag, sizeof(tag), "(cuda%d pkg)", cuda_major);
	int best = 0;
	for (const char *p = strstr(cell, ">="); p; p = strstr(p + 2, ">=")) {
		const char *q = p + 2, *next = strchr(q, ';');
		size_t len = strspn(q, "0123456789."), part = next ? (size_t)(next - p) : strlen(p);
		char segment[128];
		snprintf(segment, sizeof(segment), "%.*s", (int)part, p);
		if (strstr(segment, "pkg)") && !strstr(segment, tag))
			continue;
		while (len && q[len - 1] == '.')
			len--;
		int dots = 0;
		for (size_t i = 0; i < len; i++)
			dots += q[i] == '.';
		if (len && dots + 1 > best && len < size) {
			best = dots + 1;
			snprintf(out, size, "%.*s", (int)len, q);
		}
	}
}

static size_t split_row(char *line, char **cols)
{
	size_t n = 0;
	cols[n++] = line;
	for (char *p = line; *p && n < NCOLS; p++)
		if (*p == '\t') {
			*p = '\0';
			cols[n++] = p + 1;
		}
	for (size_t i = n; i < NCOLS; i++)
		cols[i] = "";
	return n;
}

static void append(char *buf, size_t size, const char *text)
{
	size_t used = strlen(buf);
	if (strstr(buf, text))
		return;
	snprintf(buf + used, size - used, "%s%s", used ? "; " : "", text);
}

/* The rows of kind (NULL: the toolkit's only) for version and cuda; how many rows the kind
 * has at all in *rows_of_kind. */
static int lookup(const char *kind, const char *display, const char *version, const char *cuda,
		  const char *platform, struct compat_result *out, int *rows_of_kind,
		  struct cf_err *e)
{
	/* NVIDIA's support matrix gives the drivers per OS. */
	int windows = platform_facts(platform)->os == PLATFORM_OS_WINDOWS, major, minor = -1,
	    supported = 0;
	char *table = xstrdup(compat_tsv), *save = NULL, *cols[NCOLS];
	char toolkit_driver[32] = "";
	memset(out, 0, sizeof(*out));
	*rows_of_kind = 0;
	major = atoi(cuda);
	if (strchr(cuda, '.'))
		minor = atoi(strchr(cuda, '.') + 1);
	for (char *line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		split_row(line, cols);
		struct cuda_ver vers[64];
		size_t nv = parse_cuda_cell(cols[COL_CUDA], vers, 64);
		if (strncmp(cols[COL_KIND], "cuda_toolkit", 12) == 0) {
			if (nv && vers[0].major == major && !toolkit_driver[0])
				driver_from_cell(cols[windows ? COL_MINOR_WIN : COL_MINOR_LINUX], major,
						 toolkit_driver, sizeof(toolkit_driver));
			continue;
		}
		if (!kind || strcmp(cols[COL_KIND], kind) != 0)
			continue;
		(*rows_of_kind)++;
		if (!version_in_cell(version, cols[COL_VERSION]))
			continue;
		out->known = 1;
		append(out->supported, sizeof(out->supported), cols[COL_CUDA]);
		if (cuda_matches(vers, nv, major, minor)) {
			supported = 1;
			if (!out->driver_min[0])
				driver_from_cell(cols[windows ? COL_DRV_WIN : COL_DRV_LINUX], major,
						 out->driver_min, sizeof(out->driver_min));
			const char *sm = strstr(cols[COL_NOTES], "SM ");
			if (sm && !out->sm_min[0] && isdigit((unsigned char)sm[3]))
				snprintf(out->sm_min, sizeof(out->sm_min), "%.*s",
					 (int)strspn(sm + 3, "0123456789."), sm + 3);
		}
	}
	free(table);
	if (!out->driver_min[0])
		snprintf(out->driver_min, sizeof(out->driver_min), "%s", toolkit_driver);
	if (out->known && !supported)
		return cf_fail(e, CF_INCOMPATIBLE,
			       "%s %s does not support CUDA %s according to NVIDIA's support "
			       "matrix; supported: %s",
			       display, version, cuda, out->supported);
	return CF_OK;
}

int compat_check(const struct product *p, const char *version, const char *cuda,
		 const char *platform, struct compat_result *out, struct cf_err *e)
{
	int rows;
	int rc = lookup(p->compat_kind, p->display, version, cuda, platform, out, &rows, e);
	/* A product whose support matrix the table does not hold has no rows: nothing to refuse
	 * it by, which is said, not taken for a refusal (the toolkit's driver still stands). */
	out->ruled = rows > 0;
	if (rc == CF_OK && rows == 0)
		log_msg(LOG_INFO, "no compatibility rule exists for %s: its CUDA and driver are not "
			"checked against a support matrix (the CUDA %s toolkit's driver floor is "
			"used)", p->display, cuda);
	return rc;
}

void compat_cc_floor(const struct product *p, const char *version, const char *variant,
		     const char *platform, const char *recorded, char *out, size_t size)
{
	struct compat_result r;
	struct cf_err ignored = { 0 };
	int rows;
	snprintf(out, size, "%s", recorded ? recorded : "");
	if (lookup(p->compat_kind, p->display, version, variant, platform, &r, &rows, &ignored) != CF_OK ||
	    !r.known || !r.sm_min[0])
		return;
	if (!out[0] || compat_version_cmp_full(r.sm_min, out) > 0)
		snprintf(out, size, "%s", r.sm_min);
}

int compat_cuda_major_for_driver(const char *driver, const char *platform)
{
	/* The newest major whose minimum driver (minor-version compatibility: 13.x >= 580,
	 * 12.x >= 525, 11.x >= 450) this driver meets. */
	for (int major = 20; major >= 10; major--) {
		char cuda[16];
		struct compat_result r;
		struct cf_err ignored = { 0 };
		int rows;
		snprintf(cuda, sizeof(cuda), "%d", major);
		if (lookup(NULL, "", "0", cuda, platform, &r, &rows, &ignored) == CF_OK &&
		    r.driver_min[0] &&
		    compat_version_cmp_full(driver, r.driver_min) >= 0)
			return major;
	}
	return 0;
}
