/* cmdtable.c - the unpacker's one command table (what each command takes is what its man
 * page, docs/man/unpacker.1.scd, documents), its help and its shell completion */
#include "unpacker/cli/cmdtable.h"

#include <stdio.h>
#include <string.h>

#include "manifests/product.h"
#include "unpacker/cli/cli.h"
#include "unpacker/cli/help.h"
#include "unpacker/cli/verbs.h"

#define O(id) CMD_OPT(OPT_##id)

static VERB(help);

/* Where a prefix is, and which keys to trust for this run. */
#define PREFIX_TRUST (O(PREFIX) | O(TRUST) | O(TRUST_FINGERPRINT))
#define VALIDATE_OPTIONS (O(GPU) | O(REQUIRE_GPU) | O(QUICK_VALIDATE))
/* Which product's default prefix the commands on what is installed act on. */
#define PRODUCT_PREFIX (O(PREFIX) | O(PRODUCT))

/* A trust subcommand: the help is trust's, and it has no subcommands of its own. */
#define TRUST_SUB(name, args, run, summary, options)                                           \
	{ name, args, run, summary, NULL, NULL, options, NULL }

static const struct command trust_subs[] = {
	TRUST_SUB("list", CMD_ARGS_NONE, verb_trust_list,
		  "the keys, thresholds and statements this host trusts", 0),
	TRUST_SUB("add", CMD_ARGS_ONE("K.pub"), verb_trust_add, "add K.pub to the trust directory",
		  O(FINGERPRINT)),
	TRUST_SUB("remove", CMD_ARGS_ONE("FP"), verb_trust_remove,
		  "remove a key of the trust directory (by fingerprint)", 0),
	TRUST_SUB("threshold", CMD_ARGS_ONE("N"), verb_trust_threshold,
		  "the signatures a bundle needs", 0),
	TRUST_SUB("statement-threshold", CMD_ARGS_ONE("N"), verb_trust_statement_threshold,
		  "the signatures a trust statement needs", 0),
	TRUST_SUB("apply", CMD_ARGS_ONE("STATEMENT"), verb_trust_apply, "apply a trust statement", 0),
	TRUST_SUB("reset-clock", CMD_ARGS_NONE, verb_trust_reset_clock,
		  "put back a time recorded ahead of the clock", O(PREFIX)),
	TRUST_SUB(NULL, CMD_ARGS_NONE, NULL, NULL, 0),
};

const struct command cmd_table[] = {
	{ "install", CMD_ARGS_OPTIONAL("BUNDLE|DIR"),
	  verb_install, "verify, install and validate a bundle (the default)",
	  help_install, help_install_windows,
	  PREFIX_TRUST | VALIDATE_OPTIONS | O(REMEMBER) | O(NO_ENV) | O(ENV_USER) |
		  O(ALLOW_DOWNGRADE) | O(KEEP_CURRENT) | O(ALLOW_EXPIRED) | O(REPAIR) |
		  O(NO_VALIDATE) | O(KEEP_FAILED) | O(MODULEFILES) | O(DRY_RUN) | O(CUDA) |
		  O(PLATFORM) | O(PRODUCT),
	  NULL },
	{ "verify", CMD_ARGS_OPTIONAL("BUNDLE|KIT"),
	  verb_verify, "check a bundle's or a kit's signatures and hashes",
	  help_verify, NULL, O(TRUST) | O(TRUST_FINGERPRINT) | O(ALLOW_EXPIRED) | O(SBOM) |
		  O(PROVENANCE), NULL },
	{ "validate", CMD_ARGS_OPTIONAL("ID"),
	  verb_validate, "prove an install works, on every GPU", help_validate, NULL,
	  PREFIX_TRUST | VALIDATE_OPTIONS | O(PRODUCT), NULL },
	{ "list", CMD_ARGS_NONE,
	  verb_list, "the installed bundles; * marks the current one", help_list, NULL,
	  PRODUCT_PREFIX, NULL },
	{ "use", CMD_ARGS_ONE("ID"),
	  verb_use, "make an installed bundle current", help_use, help_use_windows,
	  PRODUCT_PREFIX | O(ENV_USER) | O(NO_ENV), NULL },
	{ "uninstall", CMD_ARGS_ONE("ID"),
	  verb_uninstall, "remove an installed bundle", help_uninstall,
	  help_uninstall_windows, PRODUCT_PREFIX | O(FORCE) | O(NO_ENV), NULL },
	{ "env", CMD_ARGS_NONE,
	  verb_env, "the lines that put the install on the search paths", help_env,
	  help_env_windows, PRODUCT_PREFIX | O(SHELL) | O(ENV_USER), NULL },
	{ "doctor", CMD_ARGS_NONE,
	  verb_doctor, "copies that could shadow the install; leftovers",
	  help_doctor, NULL, PRODUCT_PREFIX, NULL },
	{ "inventory", CMD_ARGS_NONE,
	  verb_inventory, "what is installed, and whether it drifted",
	  help_inventory, NULL, PRODUCT_PREFIX | O(TRUST) | O(TRUST_FINGERPRINT) | O(DEEP), NULL },
	{ "self-install", CMD_ARGS_ONE("KIT|CONTAINER"),
	  verb_self_install, "install a kit's verified unpacker on this machine",
	  help_self_install, help_self_install_windows,
	  O(TRUST) | O(TRUST_FINGERPRINT) | O(ALLOW_DOWNGRADE) | O(ALLOW_EXPIRED), NULL },
	{ "trust", CMD_ARGS_OPTIONAL("SUBCOMMAND"),
	  NULL, "see and change what this host trusts", help_trust, NULL, 0, trust_subs },
	{ "help", CMD_ARGS_OPTIONAL("COMMAND"),
	  verb_help, "the usage, or one command's help", help_help, NULL, 0, NULL },
	{ NULL, CMD_ARGS_NONE, NULL, NULL, NULL, NULL, 0, NULL },
};

int cmd_print_help(const char *command, struct cf_err *e)
{
	if (!command) {
		fputs(unpacker_usage(), stdout);
		/* One column for the summaries, as wide as the widest command's usage. */
		int width = 0;
		char usage[64];
		for (const struct command *t = cmd_table; t->name; t++) {
			cmdline_format_usage(t->name, &t->args, usage, sizeof(usage));
			width = (int)strlen(usage) > width ? (int)strlen(usage) : width;
		}
		printf("commands:\n");
		for (const struct command *t = cmd_table; t->name; t++) {
			cmdline_format_usage(t->name, &t->args, usage, sizeof(usage));
			printf("  %-*s %s\n", width, usage, t->summary);
		}
		return CF_OK;
	}
	const struct command *t = cli_find_command(cmd_table, command);
	if (!t) {
		char names[256];
		cli_command_names(cmd_table, names, sizeof(names));
		return cf_fail(e, CF_USAGE, "unknown command '%s' (commands: %s)", command, names);
	}
	fputs(help_for_platform(t->help, t->help_windows), stdout);
	return CF_OK;
}

static VERB(help)
{
	(void)o, (void)r;
	return cmd_print_help(c->arg, e);
}

/* Each option of the set, by every spelling a shell completes (not the Windows switches). */
static void print_options(uint64_t options)
{
	for (const struct cmd_spelling *s = cli_spellings; s->name; s++)
		if ((options & CMD_OPT(s->id)) && s->name[0] == '-') {
			struct cmd_spelling named = *s;
			char products[256];
			if (s->id == OPT_PRODUCT) {
				product_names(products, sizeof(products));
				named.words = products;
			}
			cmdline_print_spelling(&named);
		}
}

int cmd_complete_words(int argc, char **argv, struct cf_err *e)
{
	if (argc == 0) {
		for (const struct command *t = cmd_table; t->name; t++)
			printf("%s\n", t->name);
		/* no command: install's options (unpacker BUNDLE ...) and --version */
		print_options(CMD_COMMON_OPTIONS | O(VERSION) | cli_find_command(cmd_table, "install")->options);
		return CF_OK;
	}
	const struct command *t = cli_find_command(cmd_table, argv[0]), *row = t;
	if (t && t->subs)
		row = cli_find_command(t->subs, argc > 1 ? argv[1] : t->subs->name);
	if (!row)
		return cf_fail(e, CF_USAGE, "unknown command '%s'", argv[argc > 1 && t ? 1 : 0]);
	for (const struct command *s = t->subs; s && s->name && argc == 1; s++)
		printf("%s\n", s->name);
	print_options(CMD_COMMON_OPTIONS | row->options);
	return CF_OK;
}
