/* cmdline.h - what both programs' command tables say besides their own rows (bundler/cmdtable.c,
 * unpacker/cli/cmdtable.c): how an option is spelled and what its value is, the line the shell
 * completion reads of each, and the arguments a command takes besides its options */
#ifndef COMMON_CMDLINE_H
#define COMMON_CMDLINE_H

#include <stddef.h>

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
/* The rows of a spelling table: a flag, an option with a value of that kind (TEXT, FILE,
 * DIR), one with a value among words, and the end. */
#define CMD_FLAG(id, name) { (id), (name), VALUE_NONE, NULL }
#define CMD_VALUE(id, name, kind) { (id), (name), VALUE_##kind, NULL }
#define CMD_WORDS(id, name, words) { (id), (name), VALUE_WORD, (words) }
#define CMD_SPELLINGS_END(count) { (count), NULL, VALUE_NONE, NULL }
/* What --platform completes to: the names of the platform table (manifests/platforms.c). */
#define CMD_PLATFORM_WORDS "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64"

/* "--prefix dir", "--shell word sh ps cmd", "--repair": the line of --complete-words. */
void cmdline_print_spelling(const struct cmd_spelling *s);

/* The arguments a command takes besides its options: at least min, at most max, and what they
 * are, for the usage and the refusals ("ID",
 * "BUNDLE|KIT|DIR"; NULL when it takes none). */
struct cmd_args {
	unsigned char min, max;
	const char *names;
};
#define CMD_ARGS_NONE { 0, 0, NULL }
#define CMD_ARGS_ONE(names) { 1, 1, (names) }
#define CMD_ARGS_OPTIONAL(names) { 0, 1, (names) }

/* Whether given arguments are what command takes: 0, or 1 with the one-line reason in why,
 * in the words of the option refusal: "list takes no arguments (see unpacker help list)",
 * "use needs ID (see ...)", "validate takes at most one ID (see ...)". see: the help to read
 * ("unpacker help list"). */
int cmdline_check_args(const struct cmd_args *a, size_t given, const char *command,
		       const char *see, char *why, size_t size);
/* "use ID", "validate [ID]", "list": a command with its arguments, for the list of commands. */
void cmdline_format_usage(const char *command, const struct cmd_args *a, char *out,
			  size_t size);

#endif
