/* platform_win_signame.c - which interrupt came, as a Windows user knows it: a console
 * control event, not a signal (the events are mapped to kinds in platform_win_signal.c) */
#include "common/platform.h"

const char *platform_interrupt_name(int kind)
{
	return kind == PLATFORM_INTERRUPT_INT	 ? "(Ctrl-C)"
	       : kind == PLATFORM_INTERRUPT_TERM ? "(the console was closed, or Windows is shutting down)"
						 : "(the user logged off)";
}
