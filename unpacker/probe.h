/* probe.h - the checks that load libraries. They run in a child process (the unpacker itself,
 * re-executed with a clean environment and a timeout), so a crash or hang inside cuDNN or the
 * driver cannot take the unpacker and its rollback down. Results are JSON lines on stdout. */
#ifndef UNPACKER_PROBE_H
#define UNPACKER_PROBE_H

#define PROBE_FLAG "--internal-probe"

struct json_t;

/* argv after PROBE_FLAG: KIND ARGS... ; returns the child's exit status. */
int probe_main(int argc, char **argv);
/* Print one result as a JSON line on stdout (the parent reads them) and release it. */
void probe_emit(struct json_t *o);
/* The real paths of the libraries mapped into this process whose path contains filter. */
struct json_t *probe_mapped(const char *filter);

#endif
