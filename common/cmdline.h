/* cmdline.h - how both programs' command tables spell an option and say what its value is
 * (bundler/cmdtable.c, unpacker/cli.c), and the line the shell completion reads of each */
#ifndef COMMON_CMDLINE_H
#define COMMON_CMDLINE_H

/* What an option's value is, for the shell completion. */
enum cmd_value { VALUE_NONE, VALUE_TEXT, VALUE_FILE, VALUE_DIR, VALUE_WORD };

/* One spelling of an option: "--prefix", "-o", or the unpacker's Windows switch "/D". id is
 * the program's own enum cmd_option. */
struct cmd_spelling {
	int id;
	const char *name;
	enum cmd_value value;
	const char *words; /* VALUE_WORD: the values, space-separated */
};

/* "--prefix dir", "--shell word sh ps cmd", "--repair": the line of --complete-words. */
void cmdline_print_spelling(const struct cmd_spelling *s);

#endif
