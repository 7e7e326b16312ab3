/* cmdline.c - the completion's line of an option and the check of a command's arguments, for
 * both programs' command tables (common/cmdline.h) */
#include "common/cmdline.h"

#include <stdio.h>

void cmdline_print_spelling(const struct cmd_spelling *s)
{
	static const char *const kinds[] = { [VALUE_NONE] = "", [VALUE_TEXT] = " text",
					     [VALUE_FILE] = " file", [VALUE_DIR] = " dir",
					     [VALUE_WORD] = " word " };
	printf("%s%s%s\n", s->name, kinds[s->value], s->words ? s->words : "");
}

int cmdline_check_args(const struct cmd_args *a, size_t given, const char *command,
		       const char *see, char *why, size_t size)
{
	if (given < a->min)
		snprintf(why, size, "%s needs %s (see %s)", command, a->names, see);
	else if (given > a->max && a->max == 0)
		snprintf(why, size, "%s takes no arguments (see %s)", command, see);
	else if (given > a->max && a->max == 1)
		snprintf(why, size, "%s takes %s %s (see %s)", command,
			 a->min == 1 ? "one" : "at most one", a->names, see);
	else if (given > a->max)
		snprintf(why, size, "%s takes at most %u arguments, %s (see %s)", command,
			 (unsigned)a->max, a->names, see);
	else
		return 0;
	return 1;
}

void cmdline_format_usage(const char *command, const struct cmd_args *a, char *out,
			  size_t size)
{
	if (a->max == 0)
		snprintf(out, size, "%s", command);
	else
		snprintf(out, size, a->min ? "%s %s" : "%s [%s]", command, a->names);
}
