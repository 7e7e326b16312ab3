/* interrupt.c - the handler only stores the signal number: everything else (removing
 * temporaries, rolling back) is done by the code that sees interrupt_check fail */
#include "common/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

static void on_signal(int sig)
{
	received = sig;
}

void interrupt_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

int interrupt_pending(void)
{
	return received;
}

int interrupt_check(struct cf_err *e)
{
	int sig = received;
	if (!sig)
		return CF_OK;
	return cf_fail(e, CF_INSTALL, "interrupted by %s: stopped and cleaned up; run the command "
		       "again to finish", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
}
