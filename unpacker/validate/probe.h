/* probe.h - the checks that load libraries. They run in a child process (the unpacker itself,
 * started again unprivileged with an environment of its own and a timeout: proberun.h),
 * so a crash or hang inside a vendor library or the driver cannot take the unpacker and its rollback
 * down, and no vendor code runs as root. Results are JSON lines on a pipe of their own. */
#ifndef UNPACKER_PROBE_H
#define UNPACKER_PROBE_H

#define PROBE_FLAG "--internal-probe"

/* argv after PROBE_FLAG: REPORT_FD KIND ARGS... ; returns the child's exit status. */
int probe_main(int argc, char **argv);

#endif
