/* main.c - bundler command line: parse against the command table, dispatch, exit with the
 * code of DESIGN.md §9 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bundler/cmdtable.h"
#include "bundler/fetch.h"
#include "bundler/mirror.h"
#include "bundler/output.h"
#include "bundler/verbs.h"
#include "common/io.h"
#include "common/log.h"
#include "common/version.h"
#include "manifests/manifest.h"
#include "manifests/product.h"

static int number(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The --with entry of the product called name (made on first mention, so that --with nccl and
 * --with-dir nccl=DIR name one member); NULL after a usage error. */
static struct create_member *member_named(struct create_options *o, const char *option,
					  const char *name, size_t len)
{
	char wanted[64], names[256];
	snprintf(wanted, sizeof(wanted), "%.*s", (int)(len < 63 ? len : 63), name);
	const struct product *p = product_find(wanted);
	product_names(names, sizeof(names));
	if (!p)
		return verb_usage_error("%s: unknown product '%s' (products: %s)", option, wanted, names),
		       NULL;
	for (size_t i = 0; i < o->nwith; i++)
		if (o->with[i].product == p)
			return &o->with[i];
	if (o->nwith == CREATE_MAX_WITH)
		return verb_usage_error("more than %d --with products", CREATE_MAX_WITH), NULL;
	o->with[o->nwith] = (struct create_member){ .product = p };
	return &o->with[o->nwith++];
}

/* --with NAME[=VERSION][,NAME[=VERSION]...] */
static int parse_with(struct create_options *o, const char *list)
{
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");
		size_t name_len = strcspn(p, ",=");
		if (n == 0)
			return verb_usage_error("--with '%s': an empty product name", list);
		struct create_member *w = member_named(o, "--with", p, name_len);
		if (!w)
			return 1;
		if (name_len < n) {
			char *version = xasprintf("%.*s", (int)(n - name_len - 1), p + name_len + 1);
			w->version = version; /* lives as long as the process: options are read once */
		}
		p += n;
		if (!*p)
			return 0;
	}
}

/* --with-dir NAME=DIR, --with-archive NAME=FILE */
static int parse_with_source(struct create_options *o, const char *option, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return verb_usage_error("%s '%s' is not NAME=%s", option, arg,
					strcmp(option, "--with-dir") == 0 ? "DIR" : "FILE");
	struct create_member *w = member_named(o, option, arg, (size_t)(eq - arg));
	if (!w)
		return 1;
	if (w->dir || w->archive)
		return verb_usage_error("%s: %s has a source already", option, w->product->name);
	*(strcmp(option, "--with-dir") == 0 ? &w->dir : &w->archive) = eq + 1;
	return 0;
}

static int parse_option(struct bundler_args *c, int opt, const char *arg)
{
	struct create_options *o = &c->create;
	long long v;
	switch (opt) {
	case OPT_PRODUCT: o->product_name = arg; return 0;
	case OPT_PRODUCT_VERSION: o->version = arg; o->version_alias_of = NULL; return 0;
	/* --cudnn VER, kept from before --product: --product-version VER of cuDNN. */
	case OPT_VERSION_ALIAS: o->version = arg; o->version_alias_of = "cudnn"; return 0;
	case OPT_CUDA: o->cuda = arg; return 0;
	case OPT_PLATFORM: o->platform = arg; return 0;
	case OPT_KEY:
		o->key_path = c->sign.key_path = arg;
		if (c->kit.nkeys == sizeof(c->kit.keys) / sizeof(c->kit.keys[0]))
			return verb_usage_error("more than %zu --key", c->kit.nkeys);
		c->kit.keys[c->kit.nkeys++] = arg;
		return 0;
	case OPT_VALID_DAYS:
		if (number(arg, 1, 3650, &v))
			return verb_usage_error("--valid-days '%s' is not a number of days (1-3650)", arg);
		c->kit.valid_days = (int)v;
		return 0;
	case OPT_OUT: o->out = arg; return 0;
	case OPT_MIRROR: o->mirror = arg; o->mirror_given = 1; return 0;
	case OPT_ARCHIVE: o->from_archive = arg; return 0;
	case OPT_DIR: o->from_dir = arg; return 0;
	case OPT_CUDA_LIBS: o->with_cuda_libs = 1; return 0;
	case OPT_WITH: return parse_with(o, arg);
	case OPT_WITH_DIR: return parse_with_source(o, "--with-dir", arg);
	case OPT_WITH_ARCHIVE: return parse_with_source(o, "--with-archive", arg);
	case OPT_OFFLINE: o->offline = 1; return 0;
	case OPT_RELEASE: c->release = arg; return 0;
	case OPT_ADD_FILE:
		if (o->nadd_files == CREATE_MAX_ADD_FILES)
			return verb_usage_error("more than %d --add-file", CREATE_MAX_ADD_FILES);
		o->add_files[o->nadd_files++] = arg;
		return 0;
	case OPT_SFX: o->sfx = 1; return 0;
	case OPT_ALLOW_FUTURE: o->allow_future = 1; return 0;
	case OPT_FORCE: c->force = 1; return 0;
	case OPT_UNPACKER:
		c->stub = arg;
		if (c->kit.nunpackers == KIT_MAX_INPUTS)
			return verb_usage_error("more than %d --unpacker", KIT_MAX_INPUTS);
		c->kit.unpackers[c->kit.nunpackers++] = arg;
		return 0;
	case OPT_BUNDLE:
		if (c->kit.nbundles == KIT_MAX_INPUTS)
			return verb_usage_error("more than %d --bundle", KIT_MAX_INPUTS);
		c->kit.bundles[c->kit.nbundles++] = arg;
		return 0;
	case OPT_NO_UNPACKER: c->kit.no_unpacker = arg; return 0;
	case OPT_STATEMENT: c->kit.statement = arg; return 0;
	case OPT_CACHE: o->cache = arg; return 0;
	case OPT_EXPORT: c->export_dir = arg; return 0;
	case OPT_SBOM: c->sbom = arg; return 0;
	case OPT_PROVENANCE: c->provenance = 1; return 0;
	case OPT_EXTERNAL: c->sign.external = 1; return 0;
	case OPT_PUB: c->sign.pub_path = arg; return 0;
	case OPT_SIGNATURE: c->sign.signature_path = arg; return 0;
	case OPT_QUIET: c->quiet = 1; return 0;
	case OPT_VERBOSE: c->verbose = 1; return 0;
	case OPT_COUNTER:
		if (number(arg, 0, LLONG_MAX, &v))
			return verb_usage_error("--counter '%s' is not a non-negative integer", arg);
		o->counter = c->statement.counter = (uint64_t)v;
		o->has_counter = c->statement.has_counter = 1;
		return 0;
	case OPT_REVOKE:
	case OPT_ADD: {
		struct statement_options *s = &c->statement;
		int *n = opt == OPT_REVOKE ? &s->nrevoke : &s->nadd;
		if (*n == STATEMENT_MAX_INPUTS)
			return verb_usage_error("more than %d --%s", STATEMENT_MAX_INPUTS,
					   opt == OPT_REVOKE ? "revoke" : "add");
		(opt == OPT_REVOKE ? s->revoke : s->add)[(*n)++] = arg;
		return 0;
	}
	case OPT_THRESHOLD:
	case OPT_STATEMENT_THRESHOLD:
		if (number(arg, 1, 8, &v))
			return verb_usage_error("--%s '%s' is not a number from 1 to 8",
					   opt == OPT_THRESHOLD ? "threshold" : "statement-threshold", arg);
		*(opt == OPT_THRESHOLD ? &c->statement.threshold : &c->statement.statement_threshold) =
			(int)v;
		return 0;
	case OPT_EXPIRES:
		if (number(arg, 1, 36500, &v))
			return verb_usage_error("--expires '%s' is not a number of days (1-36500)", arg);
		o->expires_days = (int)v;
		return 0;
	case OPT_LEVEL:
		if (number(arg, 1, 22, &v))
			return verb_usage_error("--level '%s' is not between 1 and 22", arg);
		o->level = (int)v;
		return 0;
	case OPT_THREADS:
		if (number(arg, 1, 256, &v))
			return verb_usage_error("--threads '%s' is not between 1 and 256", arg);
		o->threads = (int)v;
		return 0;
	case OPT_SPLIT:
		if (strcasecmp(arg, "fat32") == 0)
			o->split = OUTPUT_FAT32_MAX;
		else if (io_parse_size(arg, &o->split) != 0 || o->split < (1u << 20))
			return verb_usage_error("--split '%s' is not a size of at least 1M (e.g. fat32, 2G, "
					   "700M)", arg);
		if (o->split > OUTPUT_FAT32_MAX)
			log_msg(LOG_WARN, "--split %s: parts over 4 GiB - 1 do not fit on FAT32 (use "
				"--split fat32 for a FAT32 stick)", arg);
		return 0;
	default: /* --help: asked before any option is read */
		return 0;
	}
}

/* The spelling of the option at argv[*i] (--name, --name=VALUE, -x, -xVALUE) and its value,
 * taken from the next argument when it needs one ("" for a flag); NULL when it is no option of
 * ours, a flag given a value, or an option without its value. */
static const struct cmd_spelling *spelling_at(int *i, int argc, char **argv, const char **value)
{
	const char *arg = argv[*i];
	int is_long = arg[1] == '-';
	size_t n = is_long ? strcspn(arg, "=") : 2;
	*value = "";
	for (const struct cmd_spelling *s = cmd_spellings; s->name; s++) {
		if (strlen(s->name) != n || strncmp(arg, s->name, n) != 0)
			continue;
		if (s->value == VALUE_NONE)
			return arg[n] ? NULL : s;
		if (arg[n])
			return *value = arg + n + is_long, s;
		if (*i + 1 >= argc)
			return NULL;
		return *value = argv[++*i], s;
	}
	return NULL;
}

/* Every option against what the command takes, in the order given; the other arguments are
 * the command's, moved to argv[2] on (*nargs of them), as many as its row says (min to max).
 * 1: a usage error; -1: --help, shown. */
static int parse(const struct command *cmd, struct bundler_args *c, int argc, char **argv,
		 int *nargs)
{
	int n = 0;
	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *value;
		if (strcmp(arg, "--") == 0) {
			while (++i < argc)
				argv[2 + n++] = argv[i];
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			argv[2 + n++] = argv[i];
			continue;
		}
		const struct cmd_spelling *s = spelling_at(&i, argc, argv, &value);
		if (!s)
			return verb_usage_error("unknown option or missing value '%s' for %s", arg,
						cmd->name);
		if (!((CMD_COMMON_OPTIONS | cmd->options) & CMD_OPT(s->id))) {
			fprintf(stderr, "bundler: %s does not take %s (see bundler help %s)\n", cmd->name,
				s->name, cmd->name);
			return 1;
		}
		if (s->id == OPT_HELP)
			return cmd_print_help(cmd->name, 0), -1;
		if (parse_option(c, s->id, value) != 0)
			return 1;
	}
	*nargs = n;
	/* as many arguments as the row says, refused in the words of an option it does not take */
	char why[256], see[64];
	snprintf(see, sizeof(see), "bundler help %s", cmd->name);
	if (cmdline_check_args(&cmd->args, (size_t)n, cmd->name, see, why, sizeof(why))) {
		fprintf(stderr, "bundler: %s\n", why);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bundler_args c;
	memset(&c, 0, sizeof(c));
	/* A site's own mirror of NVIDIA's redist tree can stand in for NVIDIA's by default. */
	c.create.mirror = getenv("CUFERRY_MIRROR") && *getenv("CUFERRY_MIRROR") ? getenv("CUFERRY_MIRROR")
										    : MIRROR_DEFAULT;
	c.create.expires_days = -1;
	c.create.level = 9;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_print_help(NULL, argc < 2), argc < 2 ? 1 : 0;
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		version_print("bundler", MANIFEST_FORMAT);
		printf("libcurl       %s\n", fetch_library_version());
		return 0;
	}
	/* For the shell completion: the table's words, and nothing else is done. */
	if (strcmp(argv[1], "--complete-words") == 0)
		return cmd_complete_words(argc - 2, argv + 2);
	const struct command *cmd = cmd_find(argv[1]);
	if (!cmd) {
		char names[256];
		cmd_names(names, sizeof(names));
		return verb_usage_error("unknown command '%s' (commands: %s)", argv[1], names);
	}
	log_init("bundler", LOG_INFO); /* warnings while the options are read name this program */
	int nargs = 0, rc = parse(cmd, &c, argc, argv, &nargs);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	log_init("bundler", c.quiet ? LOG_WARN : c.verbose ? LOG_DEBUG : LOG_INFO);
	c.create.progress = !c.quiet;
	return cmd->run(&c, nargs, argv + 2);
}
