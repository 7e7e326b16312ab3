/* platform_posix_signal.c - interrupts as signals, and crashes left to the system (POSIX) */
#include "common/platform.h"

#include <signal.h>
#include <string.h>

static void (*interrupt_handler)(int kind);

static void on_signal(int sig)
{
	interrupt_handler(sig == SIGINT ? PLATFORM_INTERRUPT_INT
			  : sig == SIGTERM ? PLATFORM_INTERRUPT_TERM
					   : PLATFORM_INTERRUPT_HUP);
}

void platform_on_interrupt(void (*handler)(int kind))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	interrupt_handler = handler;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read returns EINTR */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

const char *platform_interrupt_name(int kind)
{
	return kind == PLATFORM_INTERRUPT_INT ? "by SIGINT" : kind == PLATFORM_INTERRUPT_TERM ? "by SIGTERM"
											       : "by SIGHUP";
}

void platform_crash_default(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
}
