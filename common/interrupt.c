/* interrupt.c - the handler only stores which interrupt came: everything else (removing
 * temporaries, rolling back) is done by the code that sees interrupt_check fail */
#include "common/interrupt.h"

#include <signal.h>

#include "common/platform.h"

static volatile sig_atomic_t received;

static void on_interrupt(int kind)
{
	received = kind;
}

void interrupt_install(void)
{
	platform_on_interrupt(on_interrupt);
}

int interrupt_pending(void)
{
	return received;
}

int interrupt_check(struct cf_err *e)
{
	int kind = received;
	if (!kind)
		return CF_OK;
	return cf_fail(e, CF_INSTALL, "interrupted %s: stopped and cleaned up; run the command again "
		       "to finish", platform_interrupt_name(kind));
}
