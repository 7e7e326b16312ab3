/* probe.h - the checks that load libraries. They run in a child process (the unpacker itself,
 * re-executed with a clean environment and a timeout, then dropped to an unprivileged user),
 * so a crash or hang inside cuDNN or the driver cannot take the unpacker and its rollback
 * down, and no vendor code runs as root. Results are JSON lines on a pipe of their own. */
#ifndef UNPACKER_PROBE_H
#define UNPACKER_PROBE_H

#define PROBE_FLAG "--internal-probe"

struct json_t;

/* argv after PROBE_FLAG: REPORT_FD KIND ARGS... ; returns the child's exit status. */
int probe_main(int argc, char **argv);
/* Write one result as a JSON line on the report pipe (the parent reads them) and release it. */
void probe_emit(struct json_t *o);
/* A result line: {check, status, detail}. */
struct json_t *probe_result(const char *check, const char *status, const char *detail);
/* 0 when this (unprivileged) process can read path; else emits a failed check naming the
 * directory that blocks it, and -1. */
int probe_readable(const char *path, const char *check);
/* The real paths of the libraries mapped into this process whose path contains filter. */
struct json_t *probe_mapped(const char *filter);

#endif
