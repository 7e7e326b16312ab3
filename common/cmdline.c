/* cmdline.c - the line the shell completion reads of an option (common/cmdline.h) */
#include "common/cmdline.h"

#include <stdio.h>

void cmdline_print_spelling(const struct cmd_spelling *s)
{
	static const char *const kinds[] = { [VALUE_NONE] = "", [VALUE_TEXT] = " text",
					     [VALUE_FILE] = " file", [VALUE_DIR] = " dir",
					     [VALUE_WORD] = " word " };
	printf("%s%s%s\n", s->name, kinds[s->value], s->words ? s->words : "");
}
