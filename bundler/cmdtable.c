/* cmdtable.c - the bundler's one command table (what each command takes is what its man
 * page, docs/man/bundler.1.scd, documents), its help and its shell completion */
#include "bundler/cmdtable.h"

#include <stdio.h>
#include <string.h>

#include "bundler/help.h"
#include "bundler/verbs.h"
#include "manifests/product.h"

#define O(id) CMD_OPT(OPT_##id)

const struct cmd_spelling cmd_spellings[] = {
	CMD_FLAG(OPT_HELP, "--help"),
	CMD_FLAG(OPT_HELP, "-h"),
	CMD_FLAG(OPT_VERBOSE, "--verbose"),
	CMD_FLAG(OPT_VERBOSE, "-v"),
	CMD_FLAG(OPT_QUIET, "-q"),
	CMD_WORDS(OPT_PRODUCT, "--product", NULL), /* words: the registry's names */
	CMD_VALUE(OPT_PRODUCT_VERSION, "--product-version", TEXT),
	CMD_VALUE(OPT_VERSION_ALIAS, "--cudnn", TEXT), /* --product-version for cuDNN */
	CMD_VALUE(OPT_CUDA, "--cuda", TEXT),
	CMD_WORDS(OPT_PLATFORM, "--platform", CMD_PLATFORM_WORDS),
	CMD_VALUE(OPT_KEY, "--key", FILE),
	CMD_VALUE(OPT_OUT, "-o", FILE),
	CMD_VALUE(OPT_MIRROR, "--mirror", TEXT),
	CMD_VALUE(OPT_ARCHIVE, "--from-archive", FILE),
	CMD_VALUE(OPT_DIR, "--from-dir", DIR),
	CMD_FLAG(OPT_CUDA_LIBS, "--with-cuda-libs"),
	CMD_VALUE(OPT_ADD_FILE, "--add-file", FILE),
	CMD_VALUE(OPT_WITH, "--with", TEXT),
	CMD_VALUE(OPT_WITH_DIR, "--with-dir", TEXT),
	CMD_VALUE(OPT_WITH_ARCHIVE, "--with-archive", TEXT),
	CMD_VALUE(OPT_COUNTER, "--counter", TEXT),
	CMD_VALUE(OPT_EXPIRES, "--expires", TEXT),
	CMD_FLAG(OPT_ALLOW_FUTURE, "--allow-future"),
	CMD_VALUE(OPT_LEVEL, "--level", TEXT),
	CMD_VALUE(OPT_THREADS, "--threads", TEXT),
	CMD_WORDS(OPT_SPLIT, "--split", "fat32 700M 2G"),
	CMD_FLAG(OPT_SFX, "--sfx"),
	CMD_VALUE(OPT_UNPACKER, "--unpacker", FILE),
	CMD_VALUE(OPT_CACHE, "--cache", DIR),
	CMD_FLAG(OPT_OFFLINE, "--offline"),
	CMD_VALUE(OPT_EXPORT, "--export", DIR),
	CMD_FLAG(OPT_EXTERNAL, "--external"),
	CMD_VALUE(OPT_PUB, "--pub", FILE),
	CMD_VALUE(OPT_SIGNATURE, "--signature", FILE),
	CMD_FLAG(OPT_FORCE, "--force"),
	CMD_VALUE(OPT_BUNDLE, "--bundle", FILE),
	CMD_VALUE(OPT_NO_UNPACKER, "--no-unpacker", TEXT),
	CMD_VALUE(OPT_VALID_DAYS, "--valid-days", TEXT),
	CMD_VALUE(OPT_STATEMENT, "--statement", FILE),
	CMD_VALUE(OPT_RELEASE, "--release", TEXT),
	CMD_VALUE(OPT_REVOKE, "--revoke", TEXT),
	CMD_VALUE(OPT_ADD, "--add", FILE),
	CMD_VALUE(OPT_THRESHOLD, "--threshold", TEXT),
	CMD_VALUE(OPT_STATEMENT_THRESHOLD, "--statement-threshold", TEXT),
	CMD_WORDS(OPT_SBOM, "--sbom", "cyclonedx spdx"),
	CMD_FLAG(OPT_PROVENANCE, "--provenance"),
	CMD_SPELLINGS_END(OPT_COUNT),
};

static int run_help(struct bundler_args *c, int argc, char **argv);

/* How a signature is made: a key file, or elsewhere (--external, then --pub and --signature). */
#define SIGNING (O(KEY) | O(EXTERNAL) | O(PUB) | O(SIGNATURE))
/* Which release, for which CUDA and platform, from which mirror. */
#define RELEASE (O(PRODUCT) | O(PRODUCT_VERSION) | O(VERSION_ALIAS) | O(CUDA) | O(PLATFORM) | \
		 O(MIRROR) | O(OFFLINE))

const struct command cmd_table[] = {
	{ "keygen", CMD_ARGS_ONE("NAME"),
	  verb_keygen, "write a signing key pair NAME.key and NAME.pub", help_keygen, 0 },
	{ "create", CMD_ARGS_NONE,
	  verb_create, "make one signed bundle of a product's release", help_create,
	  RELEASE | O(KEY) | O(OUT) | O(ARCHIVE) | O(DIR) | O(CUDA_LIBS) | O(ADD_FILE) | O(WITH) |
		  O(WITH_DIR) | O(WITH_ARCHIVE) |
		  O(COUNTER) | O(EXPIRES) | O(ALLOW_FUTURE) | O(LEVEL) | O(THREADS) | O(SPLIT) |
		  O(SFX) | O(UNPACKER) | O(CACHE) | O(QUIET) },
	{ "resolve", CMD_ARGS_NONE,
	  verb_resolve, "what create would download; download nothing", help_resolve,
	  RELEASE | O(CUDA_LIBS) },
	{ "inspect", CMD_ARGS_ONE("BUNDLE"),
	  verb_inspect, "check a bundle and print its manifest", help_inspect,
	  O(EXPORT) | O(SBOM) | O(PROVENANCE) },
	{ "sign", CMD_ARGS_ONE("BUNDLE"),
	  verb_sign, "add a signature to a bundle", help_sign, SIGNING },
	{ "split", CMD_ARGS_ONE("BUNDLE"),
	  verb_split, "cut a signed bundle into parts", help_split, O(SPLIT) },
	{ "sfx", CMD_ARGS_ONE("BUNDLE"),
	  verb_sfx, "wrap a signed bundle as a self-extracting .run (.exe)", help_sfx,
	  SIGNING | O(PLATFORM) | O(UNPACKER) | O(OUT) | O(FORCE) },
	{ "kit", CMD_ARGS_NONE,
	  verb_kit, "write what a site needs onto a stick, signed", help_kit,
	  RELEASE | O(KEY) | O(OUT) | O(BUNDLE) | O(UNPACKER) | O(NO_UNPACKER) | O(SPLIT) |
		  O(VALID_DAYS) | O(STATEMENT) | O(CACHE) | O(LEVEL) },
	{ "cuda-json", CMD_ARGS_NONE,
	  verb_cuda_json, "NVIDIA's CUDA component list, from a local toolkit",
	  help_cuda_json, O(DIR) | O(OUT) | O(PLATFORM) | O(RELEASE) },
	{ "trust-statement", CMD_ARGS_OPTIONAL("FILE"),
	  verb_trust_statement, "write or co-sign a signed trust statement",
	  help_trust_statement,
	  SIGNING | O(REVOKE) | O(ADD) | O(THRESHOLD) | O(STATEMENT_THRESHOLD) | O(COUNTER) |
		  O(OUT) },
	{ "help", CMD_ARGS_OPTIONAL("COMMAND"),
	  run_help, "the usage, or one command's help", help_help, 0 },
	{ NULL, CMD_ARGS_NONE, NULL, NULL, NULL, 0 },
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

/* A help text, with "{products}" said from the product registry. */
static void print_help_text(const char *text, FILE *out)
{
	static const char token[] = "{products}";
	char products[256];
	product_names_prose(products, sizeof(products));
	for (const char *at; (at = strstr(text, token)) != NULL; text = at + sizeof(token) - 1)
		fprintf(out, "%.*s%s", (int)(at - text), text, products);
	fputs(text, out);
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
		return print_help_text(t->help, out), 0;
	print_help_text(bundler_usage, out);
	fprintf(out, "commands:\n");
	for (t = cmd_table; t->name; t++) {
		char usage[64];
		cmdline_format_usage(t->name, &t->args, usage, sizeof(usage));
		fprintf(out, "  %-22s %s\n", usage, t->summary);
	}
	return 0;
}

static int run_help(struct bundler_args *c, int argc, char **argv)
{
	(void)c;
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
	char products[256];
	product_names(products, sizeof(products));
	for (const struct cmd_spelling *s = cmd_spellings; s->name; s++) {
		struct cmd_spelling with_words = *s;
		if (s->id == OPT_PRODUCT)
			with_words.words = products;
		if ((CMD_COMMON_OPTIONS | t->options) & CMD_OPT(s->id))
			cmdline_print_spelling(&with_words);
	}
	return 0;
}
