/* cmdtable.c - the bundler's one command table (what each command takes is what its man
 * page, docs/man/bundler.1.scd, documents), its help and its shell completion */
#include "bundler/cmdtable.h"

#include <stdio.h>
#include <string.h>

#include "bundler/help.h"
#include "bundler/verbs.h"

#define O(id) CMD_OPT(OPT_##id)

const struct cmd_spelling cmd_spellings[] = {
	{ OPT_HELP, "--help", VALUE_NONE, NULL },
	{ OPT_HELP, "-h", VALUE_NONE, NULL },
	{ OPT_VERBOSE, "--verbose", VALUE_NONE, NULL },
	{ OPT_VERBOSE, "-v", VALUE_NONE, NULL },
	{ OPT_QUIET, "-q", VALUE_NONE, NULL },
	{ OPT_PRODUCT, "--product", VALUE_WORD, "cudnn nccl" }, /* the registry's names */
	{ OPT_PRODUCT_VERSION, "--product-version", VALUE_TEXT, NULL },
	{ OPT_CUDNN, "--cudnn", VALUE_TEXT, NULL }, /* --product-version's alias for cuDNN */
	{ OPT_CUDA, "--cuda", VALUE_TEXT, NULL },
	{ OPT_PLATFORM, "--platform", VALUE_WORD, "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64" },
	{ OPT_KEY, "--key", VALUE_FILE, NULL },
	{ OPT_OUT, "-o", VALUE_FILE, NULL },
	{ OPT_MIRROR, "--mirror", VALUE_TEXT, NULL },
	{ OPT_ARCHIVE, "--from-archive", VALUE_FILE, NULL },
	{ OPT_DIR, "--from-dir", VALUE_DIR, NULL },
	{ OPT_CUDA_LIBS, "--with-cuda-libs", VALUE_NONE, NULL },
	{ OPT_ADD_FILE, "--add-file", VALUE_FILE, NULL },
	{ OPT_COUNTER, "--counter", VALUE_TEXT, NULL },
	{ OPT_EXPIRES, "--expires", VALUE_TEXT, NULL },
	{ OPT_ALLOW_FUTURE, "--allow-future", VALUE_NONE, NULL },
	{ OPT_LEVEL, "--level", VALUE_TEXT, NULL },
	{ OPT_THREADS, "--threads", VALUE_TEXT, NULL },
	{ OPT_SPLIT, "--split", VALUE_WORD, "fat32 700M 2G" },
	{ OPT_SFX, "--sfx", VALUE_NONE, NULL },
	{ OPT_UNPACKER, "--unpacker", VALUE_FILE, NULL },
	{ OPT_CACHE, "--cache", VALUE_DIR, NULL },
	{ OPT_OFFLINE, "--offline", VALUE_NONE, NULL },
	{ OPT_EXPORT, "--export", VALUE_DIR, NULL },
	{ OPT_EXTERNAL, "--external", VALUE_NONE, NULL },
	{ OPT_PUB, "--pub", VALUE_FILE, NULL },
	{ OPT_SIGNATURE, "--signature", VALUE_FILE, NULL },
	{ OPT_FORCE, "--force", VALUE_NONE, NULL },
	{ OPT_BUNDLE, "--bundle", VALUE_FILE, NULL },
	{ OPT_NO_UNPACKER, "--no-unpacker", VALUE_TEXT, NULL },
	{ OPT_VALID_DAYS, "--valid-days", VALUE_TEXT, NULL },
	{ OPT_STATEMENT, "--statement", VALUE_FILE, NULL },
	{ OPT_RELEASE, "--release", VALUE_TEXT, NULL },
	{ OPT_REVOKE, "--revoke", VALUE_TEXT, NULL },
	{ OPT_ADD, "--add", VALUE_FILE, NULL },
	{ OPT_THRESHOLD, "--threshold", VALUE_TEXT, NULL },
	{ OPT_STATEMENT_THRESHOLD, "--statement-threshold", VALUE_TEXT, NULL },
	{ OPT_COUNT, NULL, VALUE_NONE, NULL },
};

static int run_help(struct bundler_args *c, int argc, char **argv);

/* How a signature is made: a key file, or elsewhere (--external, then --pub and --signature). */
#define SIGNING (O(KEY) | O(EXTERNAL) | O(PUB) | O(SIGNATURE))
/* Which release, for which CUDA and platform, from which mirror. */
#define RELEASE (O(PRODUCT) | O(PRODUCT_VERSION) | O(CUDNN) | O(CUDA) | O(PLATFORM) | O(MIRROR) | O(OFFLINE))

const struct command cmd_table[] = {
	{ "keygen", verb_keygen, "write a signing key pair NAME.key and NAME.pub", help_keygen, 0 },
	{ "create", verb_create, "make one signed bundle of a product's release", help_create,
	  RELEASE | O(KEY) | O(OUT) | O(ARCHIVE) | O(DIR) | O(CUDA_LIBS) | O(ADD_FILE) |
		  O(COUNTER) | O(EXPIRES) | O(ALLOW_FUTURE) | O(LEVEL) | O(THREADS) | O(SPLIT) |
		  O(SFX) | O(UNPACKER) | O(CACHE) | O(QUIET) },
	{ "resolve", verb_resolve, "what create would download; download nothing", help_resolve,
	  RELEASE | O(CUDA_LIBS) },
	{ "inspect", verb_inspect, "check a bundle and print its manifest", help_inspect, O(EXPORT) },
	{ "sign", verb_sign, "add a signature to a bundle", help_sign, SIGNING },
	{ "split", verb_split, "cut a signed bundle into parts", help_split, O(SPLIT) },
	{ "sfx", verb_sfx, "wrap a signed bundle as a self-extracting .run (.exe)", help_sfx,
	  SIGNING | O(PLATFORM) | O(UNPACKER) | O(OUT) | O(FORCE) },
	{ "kit", verb_kit, "write what a site needs onto a stick, signed", help_kit,
	  RELEASE | O(KEY) | O(OUT) | O(BUNDLE) | O(UNPACKER) | O(NO_UNPACKER) | O(SPLIT) |
		  O(VALID_DAYS) | O(STATEMENT) | O(CACHE) | O(LEVEL) },
	{ "cuda-json", verb_cuda_json, "NVIDIA's CUDA component list, from a local toolkit",
	  help_cuda_json, O(DIR) | O(OUT) | O(PLATFORM) | O(RELEASE) },
	{ "trust-statement", verb_trust_statement, "write or co-sign a signed trust statement",
	  help_trust_statement,
	  SIGNING | O(REVOKE) | O(ADD) | O(THRESHOLD) | O(STATEMENT_THRESHOLD) | O(COUNTER) |
		  O(OUT) },
	{ "help", run_help, "the usage, or one command's help", help_help, 0 },
	{ NULL, NULL, NULL, NULL, 0 },
};

const struct command *cmd_find(const char *name)
{
	for (const struct command *t = cmd_table; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

void cmd_names(char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
	for (const struct command *t = cmd_table; t->name && n < size; t++)
		n += (size_t)snprintf(out + n, size - n, "%s%s", t == cmd_table ? "" : " ", t->name);
}

int cmd_print_help(const char *command, int to_stderr)
{
	FILE *out = to_stderr ? stderr : stdout;
	const struct command *t = command ? cmd_find(command) : NULL;
	if (command && !t) {
		char names[256];
		cmd_names(names, sizeof(names));
		return verb_usage_error("unknown command '%s' (commands: %s)", command, names);
	}
	if (t)
		return fputs(t->help, out), 0;
	fputs(bundler_usage, out);
	fprintf(out, "commands:\n");
	for (t = cmd_table; t->name; t++)
		fprintf(out, "  %-16s %s\n", t->name, t->summary);
	return 0;
}

static int run_help(struct bundler_args *c, int argc, char **argv)
{
	(void)c;
	if (argc > 1)
		return verb_usage_error("%s", "help takes at most one COMMAND");
	return cmd_print_help(argc ? argv[0] : NULL, 0);
}

int cmd_complete_words(int argc, char **argv)
{
	if (argc == 0) {
		for (const struct command *t = cmd_table; t->name; t++)
			printf("%s\n", t->name);
		printf("--version\n--help\n");
		return 0;
	}
	const struct command *t = cmd_find(argv[0]);
	if (!t)
		return verb_usage_error("unknown command '%s'", argv[0]);
	for (const struct cmd_spelling *s = cmd_spellings; s->name; s++)
		if ((CMD_COMMON_OPTIONS | t->options) & CMD_OPT(s->id))
			cmdline_print_spelling(s);
	return 0;
}
