/* leftovers.h - what interrupted runs left in a prefix (.staging-*, .old-*, a pending journal,
 * half-written repair files), for doctor, with the command that cleans it up */
#ifndef UNPACKER_LEFTOVERS_H
#define UNPACKER_LEFTOVERS_H

/* Print a report of the leftovers under root+prefix_sys; the number found. */
int leftovers_report(const char *root, const char *prefix_sys);

#endif
