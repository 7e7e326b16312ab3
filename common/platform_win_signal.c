/* platform_win_signal.c - interrupts as console control events, and crashes left to the
 * system (Windows) */
#include "common/platform.h"

#include <signal.h>
#include <windows.h>

static void (*interrupt_handler)(int kind);

/* Runs on a thread the system starts: it only passes the kind on. TRUE: handled here (for
 * close, logoff and shutdown the system still ends the process when this returns, so the
 * flag is what the main thread can act on meanwhile). */
static BOOL WINAPI on_control(DWORD event)
{
	switch (event) {
	case CTRL_C_EVENT: case CTRL_BREAK_EVENT:
		interrupt_handler(PLATFORM_INTERRUPT_INT);
		return TRUE;
	case CTRL_CLOSE_EVENT: case CTRL_SHUTDOWN_EVENT:
		interrupt_handler(PLATFORM_INTERRUPT_TERM);
		return TRUE;
	case CTRL_LOGOFF_EVENT:
		interrupt_handler(PLATFORM_INTERRUPT_HUP);
		return TRUE;
	default:
		return FALSE;
	}
}

void platform_on_interrupt(void (*handler)(int kind))
{
	interrupt_handler = handler;
	SetConsoleCtrlHandler(on_control, TRUE);
}

void platform_crash_default(void)
{
	static const int fatal[] = { SIGSEGV, SIGFPE, SIGILL, SIGABRT };
	SetUnhandledExceptionFilter(NULL);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
}
