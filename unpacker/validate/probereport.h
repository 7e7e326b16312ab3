/* probereport.h - the probe child's report channel: JSON lines on a pipe of its own (never
 * stdout or stderr, which the libraries it loads can write to). The parent's reader accepts
 * only lines of the expected shape; anything else is a failed check, never a crash. */
#ifndef UNPACKER_PROBEREPORT_H
#define UNPACKER_PROBEREPORT_H

#include <stddef.h>

struct json_t;

#define PROBE_REPORT_MAX (1 << 20) /* bytes a probe may report */

/* Parse a whole report: one JSON object a line, each with "check" (a known name), "status"
 * (pass, fail or skip), "detail" and optional fields of the expected types; strings without
 * control characters. 0 and the objects in *lines (a new array, at least one); -1 and why. */
int probe_report_parse(const char *data, size_t len, struct json_t **lines, char *why,
		       size_t size);
/* Read what a finished probe left on the pipe's read end (non-blocking, at most
 * PROBE_REPORT_MAX + 1 bytes); the caller frees *data. */
int probe_report_read(int fd, char **data, size_t *len);

#endif
