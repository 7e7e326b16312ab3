/* probereport.c - the parent's strict reader of the probe's report pipe */
#include "unpacker/validate/probereport.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/platform.h"
#include "unpacker/validate/gpuapi.h"

#define MAX_STRING 4096

static const char *const checks[] = { "library", "resolution", "dependencies", "driver", "compute",
				      "graph", NULL };
static const char *const statuses[] = { "pass", "fail", "skip", NULL };

static int one_of(const char *s, const char *const *set)
{
	for (size_t i = 0; s && set[i]; i++)
		if (strcmp(s, set[i]) == 0)
			return 1;
	return 0;
}

/* Every string in v (keys included) short and free of control characters. */
static int clean_strings(json_t *v, int depth)
{
	if (depth > 6)
		return 0;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		if (n > MAX_STRING || strlen(s) != n)
			return 0;
		for (size_t i = 0; i < n;) { /* C0 and C1 controls, DEL, and anything not UTF-8 */
			int len = log_printable_len(s + i);
			if (len == 0)
				return 0;
			i += (size_t)len;
		}
		return 1;
	}
	if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) {
			json_t *key = json_string(k);
			int ok = key && clean_strings(key, depth + 1) && clean_strings(x, depth + 1);
			json_decref(key);
			if (!ok)
				return 0;
		}
		return 1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
			if (!clean_strings(x, depth + 1))
				return 0;
	}
	return 1;
}

/* field absent, or of the type wanted */
static int optional(json_t *o, const char *key, int (*is)(const json_t *))
{
	json_t *v = json_object_get(o, key);
	return !v || is(v);
}

static int is_string(const json_t *v) { return json_is_string(v); }
static int is_integer(const json_t *v) { return json_is_integer(v) && json_integer_value(v) >= 0; }
static int is_number(const json_t *v) { return json_is_number(v); }
static int is_array(const json_t *v) { return json_is_array(v); }
static int is_object(const json_t *v) { return json_is_object(v); }
static int is_bool(const json_t *v) { return json_is_boolean(v); }
static int is_any_integer(const json_t *v) { return json_is_integer(v); }
static int is_string_or_null(const json_t *v) { return json_is_string(v) || json_is_null(v); }

static int every(json_t *array, int (*is)(const json_t *))
{
	size_t i;
	json_t *x;
	json_array_foreach(array, i, x)
		if (!is(x))
			return 0;
	return 1;
}

/* An algorithm's or engine's record in a compute or graph line. */
static int is_record(const json_t *c)
{
	json_t *v = (json_t *)c;
	return json_is_object(v) && optional(v, "algo", is_integer) && optional(v, "engine", is_any_integer) &&
	       optional(v, "error", is_string) && optional(v, "skipped", is_string) &&
	       optional(v, "median_ms", is_number) && optional(v, "ms", is_number) &&
	       optional(v, "mismatches", is_integer) && optional(v, "passed", is_bool) &&
	       optional(v, "worst_error_vs_tolerance", is_number) && optional(v, "mismatch_at", is_string);
}

static int is_gpu(const json_t *c)
{
	json_t *v = (json_t *)c;
	return json_is_object(v) && json_is_string(json_object_get(v, "name")) &&
	       is_integer(json_object_get(v, "index")) && is_integer(json_object_get(v, "memory_bytes")) &&
	       is_integer(json_object_get(v, "cc_major")) && is_integer(json_object_get(v, "cc_minor"));
}

static int well_formed(json_t *o)
{
	static const char *const lists[] = { "forward", "backward_data", "backward_filter", "engines" };
	if (!json_is_object(o) || !one_of(json_string_value(json_object_get(o, "check")), checks) ||
	    !one_of(json_string_value(json_object_get(o, "status")), statuses) ||
	    !json_is_string(json_object_get(o, "detail")) || !optional(o, "gpu", is_integer) ||
	    !optional(o, "shape", is_string) || !optional(o, "path", is_string) ||
	    !optional(o, "version", is_string) || !optional(o, gpuapi_version_key, is_string) ||
	    !optional(o, "version_call", is_string) ||
	    !optional(o, "cudart_version", is_integer) || !optional(o, "probe_uid", is_integer) || !optional(o, "loaded", is_array) ||
	    !optional(o, "libraries", is_object) || !optional(o, "gpus", is_array) ||
	    !optional(o, "cuda_driver_api", is_integer) || !optional(o, "seconds", is_number) ||
	    !clean_strings(o, 0))
		return 0;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		json_t *l = json_object_get(o, lists[i]);
		if (l && (!json_is_array(l) || !every(l, is_record)))
			return 0;
	}
	json_t *v = json_object_get(o, "loaded");
	if (v && !every(v, is_string))
		return 0;
	v = json_object_get(o, "gpus");
	if (v && !every(v, is_gpu))
		return 0;
	const char *k;
	json_t *x;
	json_object_foreach(json_object_get(o, "libraries"), k, x)
		if (!is_string_or_null(x))
			return 0;
	return 1;
}

int probe_report_parse(const char *data, size_t len, json_t **lines, char *why, size_t size)
{
	*lines = json_array();
	if (len > PROBE_REPORT_MAX)
		return snprintf(why, size, "the probe's report is over %d bytes", PROBE_REPORT_MAX), -1;
	size_t start = 0, n = 0;
	while (start < len) {
		const char *nl = memchr(data + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - data) : len;
		json_error_t err;
		json_t *o = json_loadb(data + start, end - start, JSON_REJECT_DUPLICATES, &err);
		n++;
		if (!nl || !well_formed(o)) {
			json_decref(o);
			json_array_clear(*lines);
			return snprintf(why, size, "the probe's report is malformed (line %zu)", n), -1;
		}
		json_array_append_new(*lines, o);
		start = end + 1;
	}
	if (json_array_size(*lines) == 0)
		return snprintf(why, size, "the probe reported nothing"), -1;
	return 0;
}

int probe_report_read(int fd, char **data, size_t *len)
{
	size_t cap = 65536, used = 0;
	char *buf = malloc(cap);
	if (!buf || platform_set_nonblocking(fd) != 0) {
		free(buf);
		return -1;
	}
	for (;;) {
		if (used == cap) {
			if (cap > PROBE_REPORT_MAX)
				break;
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -1;
			}
			buf = bigger, cap *= 2;
		}
		ssize_t got = platform_read(fd, buf + used, cap - used);
		if (got > 0)
			used += (size_t)got;
		else if (got < 0 && errno == EINTR)
			continue;
		else
			break; /* EOF, or EAGAIN: the child has ended, so what is there is all */
	}
	*data = buf;
	*len = used;
	return 0;
}
