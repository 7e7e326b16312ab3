/* interrupt.h - SIGINT, SIGTERM and SIGHUP turned into a flag that the main path checks at
 * safe points, so that cleanup and rollback run as ordinary code, never in a handler */
#ifndef COMMON_INTERRUPT_H
#define COMMON_INTERRUPT_H

#include "common/err.h"

/* Install the flag-only handlers (no SA_RESTART: a blocked read returns EINTR). */
void interrupt_install(void);
/* The interrupt received (enum platform_interrupt), or 0. */
int interrupt_pending(void);
/* CF_OK, or CF_INSTALL "interrupted by SIGTERM: ..." when a signal came. */
int interrupt_check(struct cf_err *e);

#endif
