/* leftovers.h - what interrupted runs left in a prefix (.staging-*, .old-*, a pending journal,
 * half-written repair files), for doctor, with the command that cleans it up */
#ifndef UNPACKER_LEFTOVERS_H
#define UNPACKER_LEFTOVERS_H

#include "unpacker/target/layout.h"

/* Print a report of the leftovers in the prefix; the number found. */
int leftovers_report(const struct layout *l);

#endif
